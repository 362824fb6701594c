// Package voice compares a reply the owner sent with the agent's draft it
// started from, and sums such comparisons up per person, so the agent can
// draft the way the owner writes without hearth running a model. It is
// pure text work: no store, no clock, the same answer for the same texts.
package voice

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LengthStep is the change of length, in percent of the draft's
// characters, from which a send counts as shortened or lengthened; a
// smaller change is a touch-up, not a habit of length.
const LengthStep = 10

// Change is what became of a draft's greeting or sign-off in the send.
type Change string

// What a send did to the draft's greeting or sign-off; "" when neither
// text has one.
const (
	Kept    Change = "kept"
	Changed Change = "changed"
	Dropped Change = "dropped"
	Added   Change = "added"
)

// Diff is how one sent reply differs from its draft. Lengths are Unicode
// characters with each run of white space counted as one.
type Diff struct {
	AsWritten  bool
	DraftChars int
	SentChars  int
	// LengthChange is (sent - draft) in percent of the draft's characters,
	// rounded toward zero; negative when the send is shorter.
	LengthChange int
	Greeting     Change
	SignOff      Change
	// DraftEmoji and SentEmoji count emoji and emoticons (":)", "<3").
	DraftEmoji int
	SentEmoji  int
	// DraftLanguage and SentLanguage are ISO 639-1 codes of Languages, ""
	// when the text does not tell.
	DraftLanguage string
	SentLanguage  string
}

// Shortened reports a send at least LengthStep percent shorter than its draft.
func (d Diff) Shortened() bool { return d.LengthChange <= -LengthStep }

// Lengthened reports a send at least LengthStep percent longer than its draft.
func (d Diff) Lengthened() bool { return d.LengthChange >= LengthStep }

// LanguageSwitched reports a send in another language than its draft, both known.
func (d Diff) LanguageSwitched() bool {
	return d.DraftLanguage != "" && d.SentLanguage != "" && d.DraftLanguage != d.SentLanguage
}

// Compare says how sent differs from draft, the text the owner started from.
func Compare(draft, sent string) Diff {
	from := read(draft)
	to := from
	if sent != draft { // most sends go as written: read the text once
		to = read(sent)
	}
	d := Diff{AsWritten: draft == sent, DraftChars: from.chars, SentChars: to.chars,
		Greeting: change(from.greeting, to.greeting), SignOff: change(from.signOff, to.signOff),
		DraftEmoji: from.emoji, SentEmoji: to.emoji, DraftLanguage: from.language, SentLanguage: to.language}
	if d.DraftChars > 0 {
		d.LengthChange = (d.SentChars - d.DraftChars) * 100 / d.DraftChars
	}
	return d
}

// facts are what Compare reads of one text.
type facts struct {
	chars             int
	greeting, signOff string
	emoji             int
	language          string
}

// read reads s's facts, splitting it into words once.
func read(s string) facts {
	ws := words(s)
	return facts{chars: chars(s), greeting: match(greetings, ws), signOff: SignOff(s), emoji: Emoji(s), language: language(ws)}
}

// change compares the draft's phrase with the send's ("" for none).
func change(draft, sent string) Change {
	switch {
	case draft == "" && sent == "":
		return ""
	case draft == "":
		return Added
	case sent == "":
		return Dropped
	case draft == sent:
		return Kept
	}
	return Changed
}

// chars counts s's characters, each run of white space as one, without
// white space at either end.
func chars(s string) int {
	n, space := 0, false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			n++
			space = false
		}
		n++
	}
	return n
}

// words splits lower-cased s into words: runs of letters, digits and
// apostrophes inside a word.
func words(s string) []string {
	s = strings.ReplaceAll(strings.ToLower(s), "’", "'")
	ws := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	out := ws[:0]
	for _, w := range ws {
		if w = strings.Trim(w, "'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// greetings are the phrases that open a message, longest first so "good
// morning" wins over "morning".
var greetings = byLength([]string{
	// English
	"good morning", "good afternoon", "good evening", "hello", "hi", "hey", "heya", "hiya", "howdy", "dear",
	// German
	"guten morgen", "guten tag", "guten abend", "hallo", "moin", "servus", "liebe", "lieber", "hallöchen", "grüß dich",
	// Spanish
	"hola", "buenos días", "buenas tardes", "buenas noches", "buenas", "querida", "querido",
	// French
	"bonjour", "bonsoir", "salut", "coucou", "chère", "cher",
})

// signOffs are the phrases that close a message.
var signOffs = byLength([]string{
	// English
	"best", "best wishes", "all the best", "cheers", "love", "lots of love", "take care", "talk soon", "speak soon", "see you",
	"see you soon", "see ya", "thanks", "thanks again", "thank you", "many thanks", "regards", "kind regards", "warm regards", "hugs", "bye",
	"xx", "xxx", "xo", "xoxo", "x",
	// German
	"liebe grüße", "lg", "viele grüße", "vg", "grüße", "gruß", "bis bald", "bis dann", "bis später", "bis morgen", "danke", "danke dir",
	"vielen dank", "tschüss", "ciao", "umarmung",
	// Spanish
	"saludos", "un abrazo", "abrazos", "besos", "un beso", "hasta luego", "hasta pronto", "hasta mañana", "gracias", "muchas gracias",
	// French
	"bises", "bisous", "à bientôt", "a bientôt", "à plus", "merci", "merci beaucoup", "amitiés", "bonne journée", "bonne soirée",
})

func byLength(phrases []string) [][]string {
	out := make([][]string, len(phrases))
	for i, p := range phrases {
		out[i] = strings.Fields(p)
	}
	slices.SortStableFunc(out, func(a, b []string) int { return len(b) - len(a) })
	return out
}

// match is the phrase of list that ws starts with, or "".
func match(list [][]string, ws []string) string {
	for _, p := range list {
		if len(ws) >= len(p) && slices.Equal(ws[:len(p)], p) {
			return strings.Join(p, " ")
		}
	}
	return ""
}

// Greeting is the greeting s opens with, lower-cased ("hi" of "Hi Ana,"),
// or "" when it opens with none.
func Greeting(s string) string {
	return match(greetings, words(s))
}

// SignOff is the sign-off s closes with, lower-cased ("cheers" of "See
// you then. Cheers, Sam"), or "" when it closes with none. A sign-off is
// the last sentence or line, or the one before a line holding only a name,
// that is a closing phrase alone or followed by a name (capitalised
// words); it needs a sentence before it, so a message that is only
// "Thanks!" has no sign-off.
func SignOff(s string) string {
	segs := segments(s)
	if len(segs) < 2 {
		return ""
	}
	last := segs[len(segs)-1]
	if p := closing(last); p != "" {
		return p
	}
	if len(segs) >= 3 && isName(last) {
		return closing(segs[len(segs)-2])
	}
	return ""
}

// segments splits s into sentences and lines, dropping those with no
// letter (an emoji on its own, punctuation).
func segments(s string) []string {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '.' || r == '!' || r == '?' || r == '…' })
	out := parts[:0]
	for _, p := range parts {
		if strings.IndexFunc(p, unicode.IsLetter) >= 0 {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

// closing is seg's sign-off when seg is a closing phrase alone or followed
// by a name, else "".
func closing(seg string) string {
	ws := words(seg)
	p := match(signOffs, ws)
	if p == "" {
		return ""
	}
	var fs []string
	for _, f := range strings.Fields(seg) {
		if strings.IndexFunc(f, unicode.IsLetter) >= 0 { // an emoji after the phrase is no name
			fs = append(fs, f)
		}
	}
	n := len(strings.Fields(p))
	if len(fs) < n {
		return "" // joined by punctuation ("see-you"): not the phrase as written
	}
	rest := fs[n:]
	if len(rest) > 2 || (len(rest) > 0 && !isName(strings.Join(rest, " "))) {
		return ""
	}
	return p
}

// isName reports one or two capitalised words (a name on its own line).
func isName(seg string) bool {
	fs := strings.Fields(strings.Trim(seg, " ,;:-–—"))
	if len(fs) == 0 || len(fs) > 2 {
		return false
	}
	for _, f := range fs {
		r, _ := utf8.DecodeRuneInString(strings.TrimLeft(f, ",;:-–—"))
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// emoticons are the typed faces counted as emoji, each a word of its own.
var emoticons = []string{":)", ":-)", ";)", ";-)", ":(", ":-(", ":D", ":-D", ":P", ":-P", "<3", "xD", "^^"}

// Emoji counts s's emoji and emoticons: a sequence joined by zero-width
// joiners, a flag or an emoji with its skin tone counts once.
func Emoji(s string) int {
	n := 0
	prev := rune(0)
	for _, r := range s {
		switch {
		case r == 0x200D || r == 0xFE0F || (r >= 0x1F3FB && r <= 0x1F3FF):
			// a joiner, a presentation selector or a skin tone: part of the emoji before
		case prev == 0x200D:
			// joined to the emoji before
		case r >= 0x1F1E6 && r <= 0x1F1FF && prev >= 0x1F1E6 && prev <= 0x1F1FF:
			r = 0 // a flag's second letter; the next letter starts a new flag
		case isEmoji(r):
			n++
		}
		prev = r
	}
	for _, f := range strings.Fields(s) {
		if slices.Contains(emoticons, strings.TrimRight(f, ",.!?")) {
			n++
		}
	}
	return n
}

// isEmoji reports a pictograph of the emoji blocks.
func isEmoji(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, // pictographs, emoticons, transport, supplemental symbols, flags' letters
		r >= 0x2600 && r <= 0x27BF, // miscellaneous symbols and dingbats (☀ ❤ ✨)
		r >= 0x2B50 && r <= 0x2B55, // ⭐ ⭕
		r == 0x231A || r == 0x231B || r == 0x23F0 || r == 0x23F3:
		return true
	}
	return false
}
