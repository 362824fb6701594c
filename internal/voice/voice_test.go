package voice

import (
	"slices"
	"testing"
)

func TestCompareSaysHowASentReplyDiffersFromItsDraft(t *testing.T) {
	cases := []struct {
		name, draft, sent string
		want              Diff
	}{
		{"sent as written", "Saturday works! See you at 8.", "Saturday works! See you at 8.",
			Diff{AsWritten: true, DraftChars: 29, SentChars: 29, DraftLanguage: "en", SentLanguage: "en"}},
		{"shortened, greeting dropped", "Hi Ana, Saturday works for me! Shall we meet at the trailhead at 8?", "Saturday works, 8 at the trailhead?",
			Diff{DraftChars: 67, SentChars: 35, LengthChange: -47, Greeting: Dropped, DraftLanguage: "en", SentLanguage: "en"}},
		{"lengthened, greeting changed", "Hi Tom, thanks for the tip.", "Hey Tom, thanks so much for the tip, I'll go on Thursday.",
			Diff{DraftChars: 27, SentChars: 57, LengthChange: 111, Greeting: Changed, DraftLanguage: "en", SentLanguage: "en"}},
		{"greeting added, kept case-blind", "Sure, see you then.", "Hello! Sure, see you then.",
			Diff{DraftChars: 19, SentChars: 26, LengthChange: 36, Greeting: Added, DraftLanguage: "en", SentLanguage: "en"}},
		{"greeting kept whatever the name", "Hi Ana, yes to Saturday.", "hi Anita, yes to Saturday.",
			Diff{DraftChars: 24, SentChars: 26, LengthChange: 8, Greeting: Kept, DraftLanguage: "en", SentLanguage: "en"}},
		{"sign-off dropped", "Count me in for Tuesday. Cheers, Sam", "Count me in for Tuesday.",
			Diff{DraftChars: 36, SentChars: 24, LengthChange: -33, SignOff: Dropped}},
		{"sign-off on its line before a name, changed", "Thanks for the pump, I'll bring it back.\nBest,\nSam", "Thanks for the pump, I'll bring it back.\nLove,\nSam",
			Diff{DraftChars: 50, SentChars: 50, SignOff: Changed, DraftLanguage: "en", SentLanguage: "en"}},
		{"sign-off added", "I'll be ten minutes late.", "I'll be ten minutes late! xx",
			Diff{DraftChars: 25, SentChars: 28, LengthChange: 12, SignOff: Added, DraftLanguage: "en", SentLanguage: "en"}},
		{"emoji added", "See you on Saturday!", "See you on Saturday! 🥾😊",
			Diff{DraftChars: 20, SentChars: 23, LengthChange: 15, SentEmoji: 2, DraftLanguage: "en", SentLanguage: "en"}},
		{"emoji and an emoticon removed", "Great news 🎉 I'm so happy for you :)", "Great news, I'm so happy for you.",
			Diff{DraftChars: 36, SentChars: 33, LengthChange: -8, DraftEmoji: 2, DraftLanguage: "en", SentLanguage: "en"}},
		{"language switched to German", "Thanks for the tip, I'll take the bike in on Thursday.", "Danke für den Tipp, ich bringe das Rad am Donnerstag hin.",
			Diff{DraftChars: 54, SentChars: 57, LengthChange: 5, DraftLanguage: "en", SentLanguage: "de"}},
		{"white space runs count once", "Yes  to\n\nSaturday", "Yes to Saturday",
			Diff{DraftChars: 15, SentChars: 15, DraftLanguage: "en", SentLanguage: "en"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Compare(c.draft, c.sent); got != c.want {
				t.Errorf("Compare(%q, %q)\n got %+v\nwant %+v", c.draft, c.sent, got, c.want)
			}
		})
	}
}

func TestGreetingSignOffEmojiAndLanguageReadTheTextsEdges(t *testing.T) {
	greetings := map[string]string{
		"Hi Ana, Saturday works":      "hi",
		"Good morning! Coffee?":       "good morning",
		"Hallo Tomas, danke dir":      "hallo",
		"Hola, ¿qué tal?":             "hola",
		"Saturday works, hi to Jules": "",
		"History of the trail":        "",
		"Hey":                         "hey",
		"":                            "",
	}
	for text, want := range greetings {
		if got := Greeting(text); got != want {
			t.Errorf("Greeting(%q) = %q, want %q", text, got, want)
		}
	}
	signOffs := map[string]string{
		"See you then. Cheers, Sam":            "cheers",
		"Danke dir! Liebe Grüße":               "liebe grüße",
		"Sounds good!\nBest,\nSam Carter":      "best",
		"Thanks!":                              "", // a message that is only a closing has no sign-off
		"Great. Thanks for the tip":            "", // a sentence about thanks, not a closing
		"Great. Love it":                       "",
		"On my way! 🚲":                         "", // an emoji on its own is no sentence
		"Sure, Saturday. Bis bald! 😊":          "bis bald",
		"Yes. See-you":                         "",
		"Sure thing, talk soon":                "",
		"Sure thing. Talk soon, Ana and Jules": "",
	}
	for text, want := range signOffs {
		if got := SignOff(text); got != want {
			t.Errorf("SignOff(%q) = %q, want %q", text, got, want)
		}
	}
	emoji := map[string]int{
		"no emoji here":     0,
		"👍🏽 ok":             1, // with a skin tone
		"👩‍👩‍👧 family":      1, // joined by zero-width joiners
		"🇩🇪🇪🇸":              2, // two flags
		"❤️ <3 :) ;-) :D!":  5,
		"a:)b is no smiley": 0,
		"☀ and ⭐":           2,
	}
	for text, want := range emoji {
		if got := Emoji(text); got != want {
			t.Errorf("Emoji(%q) = %d, want %d", text, got, want)
		}
	}
	languages := map[string]string{
		"Thanks for the tip, I'll take the bike in on Thursday.":    "en",
		"Danke für den Tipp, ich bringe das Rad am Donnerstag hin.": "de",
		"Gracias, nos vemos el sábado por la mañana.":               "es",
		"Merci, je suis très content pour vous.":                    "fr",
		"Ok!":                   "", // too short to tell
		"Super, 8 Uhr":          "", // one clue is not enough
		"the und the und":       "", // a tie tells nothing
		"Sí, vale, hasta luego": "es",
	}
	for text, want := range languages {
		if got := Language(text); got != want {
			t.Errorf("Language(%q) = %q, want %q", text, got, want)
		}
	}
}

// pairs are known draft and sent texts for one person.
type pair struct{ draft, sent string }

func summarise(t *testing.T, ps []pair) (Summary, bool) {
	t.Helper()
	var ds []Diff
	for _, p := range ps {
		ds = append(ds, Compare(p.draft, p.sent))
	}
	return Summarise(ds)
}

func TestSummariseWordsTheHabitsMostSendsShow(t *testing.T) {
	cases := []struct {
		name   string
		pairs  []pair
		traits []string
		words  string
	}{
		{"shortens and drops the greeting", []pair{
			{"Hi Ana, Saturday works for me! Shall we meet at the trailhead at 8?", "Saturday works, 8 at the trailhead?"},
			{"Hi Ana, thanks so much for the photos, they are lovely!", "Lovely photos, thanks!"},
			{"Hey Ana, I'm running a bit late, I will be there in ten minutes.", "Running late, ten minutes."},
			{"Hi Ana, sounds great, count me in for the climbing on Tuesday.", "Hi Ana, count me in for Tuesday."},
		}, []string{"shortens by ~55%", "drops the greeting"}, "shortens by ~55%, drops the greeting"},
		{"sends drafts as written", []pair{
			{"See you at 8.", "See you at 8."},
			{"Thanks, that helps!", "Thanks, that helps!"},
			{"Sure, Tuesday works.", "Sure, Tuesday works, see you there."},
		}, []string{"sends drafts as written"}, "sends drafts as written"},
		{"lengthens, switches to German, adds a sign-off and emoji", []pair{
			{"Thanks for the tip, I'll take the bike in on Thursday.", "Danke für den Tipp, ich bringe das Rad am Donnerstag hin. LG 🚲"},
			{"The chain is fixed, it runs like new.", "Die Kette ist repariert, läuft wie neu! Danke dir 🙏"},
			{"Happy to lend you the pump, it's by the door.", "Gerne, die Pumpe steht an der Tür. Bis bald"},
		}, []string{"lengthens by ~15%", "switches to German", "adds a sign-off", "adds emoji"}, "lengthens by ~15%, switches to German, adds a sign-off, adds emoji"},
		{"no steady habit", []pair{
			{"See you at 8.", "See you at 8."},
			{"Thanks, that helps a lot, really.", "Thanks!"},
			{"Sure.", "Sure, Tuesday works for me, see you there then."},
		}, nil, "edits drafts with no steady habit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, ok := summarise(t, c.pairs)
			if !ok {
				t.Fatal("no summary")
			}
			if !slices.Equal(s.Traits, c.traits) || s.Words() != c.words {
				t.Errorf("traits %q, words %q; want %q, %q (summary %+v)", s.Traits, s.Words(), c.traits, c.words, s)
			}
		})
	}
}

func TestSummariseCountsExactly(t *testing.T) {
	s, ok := summarise(t, []pair{
		{"Hi Ana, Saturday works for me! Shall we meet at the trailhead at 8?", "Saturday works, 8 at the trailhead?"}, // -47, greeting dropped
		{"Hi Ana, thanks so much for the photos, they are lovely!", "Lovely photos, thanks!"},                          // -60, dropped
		{"Hey Ana, I'm running a bit late 😅", "Running late"},                                                          // emoji removed, dropped
		{"Yes to Tuesday.", "Yes to Tuesday."},                                                                         // as written
	})
	if !ok {
		t.Fatal("no summary")
	}
	want := Summary{Compared: 4, AsWritten: 1, Shortened: 3, MedianLengthChange: -53,
		Greeting: Counts{InDrafts: 3, Dropped: 3}, EmojiRemoved: 1, DraftsWithEmoji: 1,
		Traits: []string{"shortens by ~55%", "drops the greeting", "removes emoji"}}
	if s.Compared != want.Compared || s.AsWritten != want.AsWritten || s.Shortened != want.Shortened || s.Lengthened != 0 ||
		s.MedianLengthChange != want.MedianLengthChange || s.Greeting != want.Greeting || s.SignOff != (Counts{}) ||
		s.EmojiRemoved != want.EmojiRemoved || s.EmojiAdded != 0 || s.DraftsWithEmoji != 1 || s.LanguageSwitched != 0 || !slices.Equal(s.Traits, want.Traits) {
		t.Errorf("summary\n got %+v\nwant %+v", s, want)
	}
}

func TestSummariseSaysNothingBelowMinCompared(t *testing.T) {
	two := []pair{
		{"Hi Ana, Saturday works for me! Shall we meet at the trailhead at 8?", "Saturday works."},
		{"Hi Ana, thanks so much for the photos, they are lovely!", "Lovely, thanks!"},
	}
	if s, ok := summarise(t, two); ok || s.Compared != 0 || s.Traits != nil {
		t.Errorf("two sends summarised as %+v; want nothing below %d", s, MinCompared)
	}
	if _, ok := summarise(t, append(two, pair{"Yes.", "Yes."})); !ok {
		t.Errorf("%d sends not summarised", MinCompared)
	}
}

// BenchmarkCompare compares a typical chat reply with its draft: what
// reading a person's voice costs per send, as People and the context read
// it anew from the kept texts.
func BenchmarkCompare(b *testing.B) {
	draft := "Hi Ana, Saturday works for me! Shall we meet at the trailhead at 8? I'll bring snacks. Cheers, Sam"
	sent := "Saturday works, 8 at the trailhead? I'll bring snacks 🥾"
	for b.Loop() {
		Compare(draft, sent)
	}
}
