package voice

import (
	"fmt"
	"slices"
	"strings"
)

// MinCompared is the fewest compared sends a person's summary needs:
// below it one edit would read as a habit.
const MinCompared = 3

// Counts is what the sends did to the drafts' greetings (or sign-offs):
// InDrafts is how many drafts had one.
type Counts struct {
	InDrafts int
	Kept     int
	Changed  int
	Dropped  int
	Added    int
}

func (c *Counts) add(ch Change, inDraft bool) {
	if inDraft {
		c.InDrafts++
	}
	switch ch {
	case Kept:
		c.Kept++
	case Changed:
		c.Changed++
	case Dropped:
		c.Dropped++
	case Added:
		c.Added++
	}
}

// Summary is how the owner's sends to one person differ from the drafts,
// over a set of compared sends.
type Summary struct {
	Compared   int
	AsWritten  int
	Shortened  int
	Lengthened int
	// MedianLengthChange is the median of the sends' LengthChange, in percent.
	MedianLengthChange int
	Greeting           Counts
	SignOff            Counts
	// EmojiAdded counts sends with more emoji than their draft,
	// EmojiRemoved those with fewer; DraftsWithEmoji the drafts that had any.
	EmojiAdded      int
	EmojiRemoved    int
	DraftsWithEmoji int
	// LanguageSwitched counts sends in another language than their draft;
	// SwitchedTo is the language most of them were in.
	LanguageSwitched int
	SwitchedTo       string
	// Traits are the habits held by most of the sends they apply to, in
	// words for the agent and the owner ("shortens by ~40%").
	Traits []string
}

// Summarise sums diffs up; ok is false below MinCompared.
func Summarise(diffs []Diff) (s Summary, ok bool) {
	if len(diffs) < MinCompared {
		return Summary{}, false
	}
	s.Compared = len(diffs)
	changes := make([]int, 0, len(diffs))
	switched := map[string]int{}
	for _, d := range diffs {
		if d.AsWritten {
			s.AsWritten++
		}
		if d.Shortened() {
			s.Shortened++
		}
		if d.Lengthened() {
			s.Lengthened++
		}
		changes = append(changes, d.LengthChange)
		s.Greeting.add(d.Greeting, d.Greeting == Kept || d.Greeting == Changed || d.Greeting == Dropped)
		s.SignOff.add(d.SignOff, d.SignOff == Kept || d.SignOff == Changed || d.SignOff == Dropped)
		if d.DraftEmoji > 0 {
			s.DraftsWithEmoji++
		}
		switch {
		case d.SentEmoji > d.DraftEmoji:
			s.EmojiAdded++
		case d.SentEmoji < d.DraftEmoji:
			s.EmojiRemoved++
		}
		if d.LanguageSwitched() {
			s.LanguageSwitched++
			switched[d.SentLanguage]++
		}
	}
	s.MedianLengthChange = median(changes)
	for _, code := range sortedKeys(switched) {
		if switched[code] > switched[s.SwitchedTo] {
			s.SwitchedTo = code
		}
	}
	s.Traits = traits(s)
	return s, true
}

// most reports whether n is most of the `of` sends a trait applies to.
func most(n, of int) bool { return n > 0 && 2*n > of }

// traits words the habits most sends show, length first, then language,
// greeting, sign-off and emoji.
func traits(s Summary) []string {
	var out []string
	switch {
	case most(s.AsWritten, s.Compared):
		out = append(out, "sends drafts as written")
	case most(s.Shortened, s.Compared):
		out = append(out, fmt.Sprintf("shortens by ~%d%%", about(-s.MedianLengthChange)))
	case most(s.Lengthened, s.Compared):
		out = append(out, fmt.Sprintf("lengthens by ~%d%%", about(s.MedianLengthChange)))
	}
	if most(s.LanguageSwitched, s.Compared) {
		out = append(out, "switches to "+Languages[s.SwitchedTo])
	}
	out = append(out, framing(s.Greeting, s.Compared, "greeting")...)
	out = append(out, framing(s.SignOff, s.Compared, "sign-off")...)
	switch {
	case most(s.EmojiRemoved, s.DraftsWithEmoji):
		out = append(out, "removes emoji")
	case most(s.EmojiAdded, s.Compared):
		out = append(out, "adds emoji")
	}
	return out
}

// framing words what most sends did to a greeting or sign-off: dropped or
// changed, of the drafts that had one; added, of those that had none.
func framing(c Counts, compared int, what string) []string {
	switch {
	case most(c.Dropped, c.InDrafts):
		return []string{"drops the " + what}
	case most(c.Changed, c.InDrafts):
		return []string{"changes the " + what}
	case most(c.Added, compared-c.InDrafts):
		return []string{"adds a " + what}
	}
	return nil
}

// about rounds a percentage to the nearest 5, at least 5.
func about(pct int) int { return max((pct+2)/5*5, 5) }

// Words is the summary in one phrase ("shortens by ~40%, drops the
// greeting"), or that no habit holds for most sends.
func (s Summary) Words() string {
	if len(s.Traits) == 0 {
		return "edits drafts with no steady habit"
	}
	return strings.Join(s.Traits, ", ")
}

// median is the middle of xs, the mean of the two middles (toward zero)
// for an even count.
func median(xs []int) int {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	n := len(ys)
	if n%2 == 1 {
		return ys[n/2]
	}
	return (ys[n/2-1] + ys[n/2]) / 2
}

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
