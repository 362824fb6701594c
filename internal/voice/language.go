package voice

import "slices"

// Languages names the languages Language tells apart, by ISO 639-1 code.
var Languages = map[string]string{"de": "German", "en": "English", "es": "Spanish", "fr": "French"}

// stopWords are frequent words of each language that are not words of
// the others (so "du", "de", "que", "la" and "on" are left out), counted
// by Language. The owner's chats are short, so a few chat words
// ("thanks", "danke", "vale", "merci") stand beside the function words.
var stopWords = map[string][]string{
	"en": {"the", "and", "you", "your", "i", "i'm", "i'll", "i've", "it's", "is", "are", "to", "of", "that", "this", "with", "for",
		"have", "be", "what", "we", "my", "not", "but", "just", "can", "would", "at", "thanks", "yes", "how", "there", "they", "it",
		"do", "don't", "sounds", "great", "good", "let's", "will", "see", "then", "from", "our", "been", "could"},
	"de": {"ich", "du", "und", "der", "das", "nicht", "ist", "wir", "ein", "eine", "einen", "zu", "mit", "auf", "für", "dich", "dir",
		"mir", "mich", "ja", "gut", "danke", "bis", "morgen", "heute", "habe", "hab", "wie", "auch", "noch", "schon", "aber", "sehr",
		"gerne", "gern", "klar", "mal", "dem", "den", "sich", "sind", "kann", "wenn", "dass", "doch", "oder", "nach", "passt", "geht",
		"komme", "kommst", "bist", "uns", "euch", "ihr", "vielen", "grüße", "liebe", "hallo", "nein", "bringe", "hast"},
	"es": {"el", "los", "las", "y", "una", "por", "para", "con", "es", "está", "estoy", "muy", "pero", "sí", "gracias", "nos", "mi",
		"lo", "qué", "cómo", "vale", "bueno", "también", "hay", "del", "al", "mañana", "tengo", "puedo", "vamos", "genial", "yo",
		"tú", "eres", "como", "cuando", "todo", "hola", "nada", "claro", "hasta"},
	"fr": {"le", "les", "et", "est", "je", "vous", "nous", "pas", "une", "des", "pour", "avec", "mais", "oui", "merci", "ce", "c'est",
		"ça", "suis", "très", "bien", "on", "il", "elle", "qui", "au", "aux", "mon", "ma", "ton", "demain", "aujourd'hui", "j'ai",
		"d'accord", "bonjour", "salut", "avoir", "être", "sont", "peux"},
}

// stopIndex is stopWords by word.
var stopIndex = func() map[string]string {
	m := map[string]string{}
	for lang, ws := range stopWords {
		for _, w := range ws {
			m[w] = lang
		}
	}
	return m
}()

// Language is the ISO 639-1 code of the language of Languages that s is
// written in, by counting its stop words: the language with the most, if
// it has at least two and more than any other; else "" (too short or too
// mixed to tell).
func Language(s string) string { return language(words(s)) }

// codes are Languages' codes in order, so a tie is decided the same way every time.
var codes = func() []string {
	cs := make([]string, 0, len(Languages))
	for c := range Languages {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	return cs
}()

// language is Language of s's words ws.
func language(ws []string) string {
	counts := make(map[string]int, len(codes))
	for _, w := range ws {
		if lang, ok := stopIndex[w]; ok {
			counts[lang]++
		}
	}
	best, runnerUp := "", 0
	for _, c := range codes {
		switch n := counts[c]; {
		case best == "" || n > counts[best]:
			runnerUp = counts[best]
			best = c
		case n > runnerUp:
			runnerUp = n
		}
	}
	if counts[best] < 2 || counts[best] == runnerUp {
		return ""
	}
	return best
}
