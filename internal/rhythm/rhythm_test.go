package rhythm

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 18, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// talk is a conversation of three messages ten minutes apart starting at
// t0+at, the first from the owner when ownerFirst.
func talk(at time.Duration, ownerFirst bool) []Message {
	start := t0.Add(at)
	return []Message{{At: start, FromOwner: ownerFirst}, {At: start.Add(10 * time.Minute), FromOwner: !ownerFirst}, {At: start.Add(20 * time.Minute), FromOwner: ownerFirst}}
}

// history joins conversations.
func history(convs ...[]Message) []Message {
	var out []Message
	for _, c := range convs {
		out = append(out, c...)
	}
	return out
}

func TestConversationsSplitOnlyAfterMoreThanSixHoursOfSilence(t *testing.T) {
	msgs := []Message{
		{At: t0.Add(6 * time.Hour), FromOwner: true}, // exactly six hours after the first: same conversation
		{At: t0},
		{At: t0.Add(12*time.Hour + time.Minute), FromOwner: true}, // six hours and a minute later: a new one
	}
	got := Conversations(msgs)
	if len(got) != 2 {
		t.Fatalf("conversations %+v; want 2", got)
	}
	if got[0].Messages != 2 || got[0].OwnerStarted || !got[0].End.Equal(t0.Add(6*time.Hour)) {
		t.Errorf("first %+v; want two messages, started by them, ending at +6h", got[0])
	}
	if got[1].Messages != 1 || !got[1].OwnerStarted {
		t.Errorf("second %+v; want one message, started by the owner", got[1])
	}
}

func TestRhythmFigures(t *testing.T) {
	const twenty = 20 * time.Minute
	cases := []struct {
		name          string
		msgs          []Message
		now           time.Time
		conversations int
		gaps          int
		known         bool
		usual, p90    time.Duration
		ownerStarted  int
		silence       time.Duration
		drifting      bool
	}{
		{name: "no messages", now: t0},
		{name: "four gaps are too few to tell", msgs: history(talk(0, true), talk(9*day, true), talk(18*day, false), talk(27*day, true), talk(36*day, true)),
			now: t0.Add(90 * day), conversations: 5, gaps: 4, ownerStarted: 4, silence: 54*day - twenty},
		{name: "five gaps: odd count, median is the middle, p90 the longest",
			// gaps (end to start): 9d, 5d, 12d, 7d, 20d (each minus the 20 minutes a talk lasts)
			msgs: history(talk(0, true), talk(9*day, false), talk(14*day, true), talk(26*day, true), talk(33*day, false), talk(53*day, true)),
			now:  t0.Add(53*day + twenty + 3*day), conversations: 6, gaps: 5, known: true,
			usual: 9*day - twenty, p90: 20*day - twenty, ownerStarted: 4, silence: 3 * day},
		{name: "drifting once the silence passes the 90th percentile",
			msgs: history(talk(0, false), talk(9*day, false), talk(18*day, false), talk(27*day, true), talk(36*day, false), talk(45*day, false)),
			now:  t0.Add(45*day + twenty + 23*day), conversations: 6, gaps: 5, known: true,
			usual: 9*day - twenty, p90: 9*day - twenty, ownerStarted: 1, silence: 23 * day, drifting: true},
		{name: "a silence equal to the 90th percentile is not drifting",
			msgs: history(talk(0, false), talk(9*day, false), talk(18*day, false), talk(27*day, true), talk(36*day, false), talk(45*day, false)),
			now:  t0.Add(45*day + 9*day), conversations: 6, gaps: 5, known: true,
			usual: 9*day - twenty, p90: 9*day - twenty, ownerStarted: 1, silence: 9*day - twenty},
		{name: "even count: median is the mean of the middle two; p90 by nearest rank",
			// gaps: 2, 4, 6, 8, 10, 12, 14, 16, 18, 30 days (minus twenty minutes each);
			// median (10+12)/2 = 11, p90 rank ceil(9) = 9th = 18
			msgs: history(talk(0, true), talk(2*day, true), talk(6*day, true), talk(12*day, true), talk(20*day, true), talk(30*day, true),
				talk(42*day, true), talk(56*day, true), talk(72*day, true), talk(90*day, true), talk(120*day, true)),
			now: t0.Add(120 * day), conversations: 11, gaps: 10, known: true,
			usual: 11*day - twenty, p90: 18*day - twenty, ownerStarted: 11},
		{name: "a clock behind the last message is no negative silence",
			msgs: history(talk(0, true), talk(day, true), talk(2*day, true), talk(3*day, true), talk(4*day, true), talk(5*day, true)),
			now:  t0, conversations: 6, gaps: 5, known: true, usual: day - twenty, p90: day - twenty, ownerStarted: 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Of(c.msgs, c.now)
			want := Rhythm{Conversations: c.conversations, Gaps: c.gaps, Known: c.known, UsualGap: c.usual, P90Gap: c.p90,
				OwnerStarted: c.ownerStarted, Silence: c.silence, Drifting: c.drifting}
			if r != want {
				t.Errorf("rhythm\n got %+v\nwant %+v", r, want)
			}
		})
	}
}

func TestMedianAndPercentile(t *testing.T) {
	h := time.Hour
	cases := []struct {
		in          []time.Duration
		median, p90 time.Duration
	}{
		{nil, 0, 0},
		{[]time.Duration{5 * h}, 5 * h, 5 * h},
		{[]time.Duration{3 * h, 1 * h}, 2 * h, 3 * h},
		{[]time.Duration{9 * h, 1 * h, 5 * h}, 5 * h, 9 * h},
		{[]time.Duration{1 * h, 2 * h, 3 * h, 4 * h, 5 * h, 6 * h, 7 * h, 8 * h, 9 * h, 10 * h, 11 * h}, 6 * h, 10 * h},
	}
	for _, c := range cases {
		if got := Median(c.in); got != c.median {
			t.Errorf("Median(%v) = %v; want %v", c.in, got, c.median)
		}
		if got := Percentile(c.in, 90); got != c.p90 {
			t.Errorf("Percentile(%v, 90) = %v; want %v", c.in, got, c.p90)
		}
	}
}
