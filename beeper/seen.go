package beeper

import (
	"bytes"
	"encoding/json"
	"time"
)

// Seen is a message's read receipts as SDK 5 reports them "when
// available": a boolean, a timestamp, or a map of user ID to a boolean or
// a timestamp. It keeps the JSON as Beeper sent it; When reads it.
type Seen struct{ raw json.RawMessage }

// SeenFlag is Seen as a boolean (a network that says "read", not when).
func SeenFlag(seen bool) Seen { return seenOf(seen) }

// SeenTime is Seen as the time the message was read.
func SeenTime(at time.Time) Seen { return seenOf(at.UTC()) }

// SeenBy is Seen per user: each user's time, or a zero time for "read, time unknown".
func SeenBy(users map[string]time.Time) Seen {
	m := make(map[string]any, len(users))
	for u, at := range users {
		if at.IsZero() {
			m[u] = true
		} else {
			m[u] = at.UTC()
		}
	}
	return seenOf(m)
}

func seenOf(v any) Seen {
	b, _ := json.Marshal(v)
	return Seen{raw: b}
}

// IsZero reports that Beeper said nothing of read receipts.
func (s Seen) IsZero() bool { return len(s.raw) == 0 || string(s.raw) == "null" }

// MarshalJSON writes Seen as Beeper sent it.
func (s Seen) MarshalJSON() ([]byte, error) {
	if s.IsZero() {
		return []byte("null"), nil
	}
	return s.raw, nil
}

// UnmarshalJSON keeps the receipts as sent; a shape When cannot read
// counts as unreported rather than failing the message.
func (s *Seen) UnmarshalJSON(b []byte) error {
	s.raw = bytes.Clone(bytes.TrimSpace(b))
	return nil
}

// When reports whether the message was seen, and when: the reported time
// (the earliest reader's, per user), or firstSaw, the time the caller
// first learnt of it, where the network says only "seen" (true).
func (s Seen) When(firstSaw time.Time) (time.Time, bool) {
	if s.IsZero() {
		return time.Time{}, false
	}
	var v any
	if err := json.Unmarshal(s.raw, &v); err != nil {
		return time.Time{}, false
	}
	if users, ok := v.(map[string]any); ok {
		var at time.Time
		seen := false
		for _, u := range users {
			if t, ok := seenValue(u, firstSaw); ok && (!seen || t.Before(at)) {
				at, seen = t, true
			}
		}
		return at, seen
	}
	return seenValue(v, firstSaw)
}

// seenValue reads one receipt: true (seen, at firstSaw) or a timestamp.
func seenValue(v any, firstSaw time.Time) (time.Time, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return firstSaw, true
		}
	case string:
		t, err := time.Parse(time.RFC3339Nano, x)
		return t.UTC(), err == nil
	}
	return time.Time{}, false
}

// Delivered reports whether Beeper says the owner's message reached the
// other side (SUCCESS, delivered to at least one user), and when: the
// status's time, else firstSaw.
func (m Message) Delivered(firstSaw time.Time) (time.Time, bool) {
	st := m.SendStatus
	if st.State() != SendSucceeded || len(st.DeliveredToUsers) == 0 {
		return time.Time{}, false
	}
	if st.Timestamp.IsZero() {
		return firstSaw, true
	}
	return st.Timestamp.UTC(), true
}
