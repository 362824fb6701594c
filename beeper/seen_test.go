package beeper

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSeenReadsEveryShapeSDK5Reports(t *testing.T) {
	first := time.Date(2026, 5, 7, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		json string
		want time.Time
		seen bool
	}{
		{"absent", `{}`, time.Time{}, false},
		{"null", `{"seen":null}`, time.Time{}, false},
		{"false", `{"seen":false}`, time.Time{}, false},
		{"true is seen when first learnt", `{"seen":true}`, first, true},
		{"a time", `{"seen":"2026-05-07T09:21:41.000Z"}`, time.Date(2026, 5, 7, 9, 21, 41, 0, time.UTC), true},
		{"per user: the earliest reader", `{"seen":{"@a":"2026-05-07T09:17:00Z","@b":"2026-05-07T09:15:00Z","@c":false}}`, time.Date(2026, 5, 7, 9, 15, 0, 0, time.UTC), true},
		{"per user: true only", `{"seen":{"@a":true,"@b":false}}`, first, true},
		{"per user: nobody yet", `{"seen":{"@a":false}}`, time.Time{}, false},
		{"a shape it cannot read", `{"seen":42}`, time.Time{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m Message
			if err := json.Unmarshal([]byte(c.json), &m); err != nil {
				t.Fatalf("decode: %v", err)
			}
			at, seen := m.Seen.When(first)
			if seen != c.seen || !at.Equal(c.want) {
				t.Fatalf("When = %v, %v; want %v, %v", at, seen, c.want, c.seen)
			}
		})
	}
}

func TestSeenRoundTripsAsBeeperSentIt(t *testing.T) {
	at := time.Date(2026, 5, 7, 9, 21, 41, 0, time.UTC)
	for _, s := range []Seen{SeenFlag(true), SeenTime(at), SeenBy(map[string]time.Time{"@a": at, "@b": {}})} {
		b, err := json.Marshal(Message{ID: "m", Seen: s})
		if err != nil {
			t.Fatal(err)
		}
		var back Message
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		w1, ok1 := s.When(at.Add(time.Hour))
		w2, ok2 := back.Seen.When(at.Add(time.Hour))
		if !ok1 || ok1 != ok2 || !w1.Equal(w2) {
			t.Fatalf("%s: round trip %v,%v -> %v,%v", b, w1, ok1, w2, ok2)
		}
	}
	if b, _ := json.Marshal(Message{ID: "m"}); string(b) != `{"id":"m","accountID":"","chatID":"","senderID":"","sortKey":"","timestamp":"0001-01-01T00:00:00Z"}` {
		t.Fatalf("an unreported seen is left out: %s", b)
	}
}

func TestDeliveredNeedsSuccessDeliveredToSomeone(t *testing.T) {
	first := time.Date(2026, 5, 7, 10, 0, 0, 0, time.UTC)
	at := first.Add(-time.Minute)
	cases := []struct {
		name string
		st   *SendStatus
		ok   bool
		want time.Time
	}{
		{"no status", nil, false, time.Time{}},
		{"pending", &SendStatus{Status: StatusPending, DeliveredToUsers: []string{"@a"}}, false, time.Time{}},
		{"success, to nobody yet", &SendStatus{Status: StatusSuccess, Timestamp: at}, false, time.Time{}},
		{"success, delivered", &SendStatus{Status: StatusSuccess, Timestamp: at, DeliveredToUsers: []string{"@a"}}, true, at},
		{"success, delivered, no time", &SendStatus{Status: StatusSuccess, DeliveredToUsers: []string{"@a"}}, true, first},
	}
	for _, c := range cases {
		got, ok := Message{SendStatus: c.st}.Delivered(first)
		if ok != c.ok || !got.Equal(c.want) {
			t.Errorf("%s: Delivered = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestSeenReadsTheSDKsRecordedMessages(t *testing.T) {
	first := time.Date(2026, 5, 7, 12, 0, 0, 0, time.UTC)
	for file, want := range map[string]time.Time{
		"message-success.json":        time.Date(2026, 5, 7, 9, 17, 0, 0, time.UTC), // per user: the earliest reader with a time
		"message-fail-retriable.json": time.Date(2026, 5, 7, 9, 21, 41, 0, time.UTC),
		"message-pending.json":        {},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		var m Message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		at, seen := m.Seen.When(first)
		if seen != !want.IsZero() || !at.Equal(want) {
			t.Errorf("%s: seen %v at %v; want %v", file, seen, at, want)
		}
	}
}
