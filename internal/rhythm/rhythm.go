// Package rhythm is the math of a person's rhythm from message timestamps:
// conversations split by a silence, the usual silence between them, who
// starts them, and whether the current silence has run past the person's
// own usual range. It reads no store and no clock: callers pass the
// messages and now.
package rhythm

import (
	"slices"
	"time"
)

// ConversationGap is the silence that ends a conversation: a message more
// than this after the previous one starts a new one.
const ConversationGap = 6 * time.Hour

// MinGaps is how many silences between conversations (so MinGaps+1
// conversations) a rhythm needs before it says anything: with fewer, a
// median and a 90th percentile are one or two chance gaps.
const MinGaps = 5

// Message is one message that counts (a reaction, notice, hidden or
// deleted message is never passed): when, and whether the owner sent it.
type Message struct {
	At        time.Time
	FromOwner bool
}

// Conversation is a run of messages with no silence longer than
// ConversationGap inside it.
type Conversation struct {
	Start, End   time.Time
	OwnerStarted bool
	Messages     int
}

// Conversations splits msgs (in any order) into conversations, oldest first.
func Conversations(msgs []Message) []Conversation {
	sorted := slices.Clone(msgs)
	slices.SortStableFunc(sorted, func(a, b Message) int { return a.At.Compare(b.At) })
	var out []Conversation
	for _, m := range sorted {
		if n := len(out); n > 0 && m.At.Sub(out[n-1].End) <= ConversationGap {
			out[n-1].End = m.At
			out[n-1].Messages++
			continue
		}
		out = append(out, Conversation{Start: m.At, End: m.At, OwnerStarted: m.FromOwner, Messages: 1})
	}
	return out
}

// Rhythm is a person's rhythm. Gaps are silences: from the last message of
// one conversation to the first of the next. Known is false below MinGaps
// gaps, and then nothing else but the counts should be shown.
type Rhythm struct {
	Conversations int
	Gaps          int
	Known         bool
	// UsualGap is the median gap (the mean of the middle two for an even count).
	UsualGap time.Duration
	// P90Gap is the 90th percentile gap, by nearest rank: the smallest gap
	// at least 90% of the gaps are no longer than.
	P90Gap time.Duration
	// OwnerStarted is how many of the conversations the owner started.
	OwnerStarted int
	// Silence is how long since the last message, at now (never negative).
	Silence time.Duration
	// Drifting is a known rhythm whose current silence has run past P90Gap.
	Drifting bool
}

// Of is the rhythm of msgs at now.
func Of(msgs []Message, now time.Time) Rhythm {
	convs := Conversations(msgs)
	r := Rhythm{Conversations: len(convs)}
	if len(convs) == 0 {
		return r
	}
	gaps := make([]time.Duration, 0, len(convs)-1)
	for i, c := range convs {
		if c.OwnerStarted {
			r.OwnerStarted++
		}
		if i > 0 {
			gaps = append(gaps, c.Start.Sub(convs[i-1].End))
		}
	}
	r.Gaps = len(gaps)
	r.Silence = max(now.Sub(convs[len(convs)-1].End), 0)
	if r.Gaps < MinGaps {
		return r
	}
	r.Known = true
	r.UsualGap = Median(gaps)
	r.P90Gap = Percentile(gaps, 90)
	r.Drifting = r.Silence > r.P90Gap
	return r
}

// Median is the middle of ds (the mean of the middle two for an even
// count); zero for none.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	if n := len(s); n%2 == 0 {
		return s[n/2-1] + (s[n/2]-s[n/2-1])/2
	}
	return s[len(s)/2]
}

// Percentile is the p-th percentile of ds by nearest rank (the
// ceil(p/100·n)-th smallest); zero for none.
func Percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(ds))
	rank := (p*len(s) + 99) / 100
	return s[min(max(rank, 1), len(s))-1]
}
