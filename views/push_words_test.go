package views

import (
	"testing"
	"time"

	"hearth/models"
)

func TestPushReasonsAreWordedFromTheKindAndTheMedian(t *testing.T) {
	closed := time.Date(2026, 9, 30, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		n    models.PushNotification
		want string
	}{
		{"usual within the hour", models.PushNotification{Kind: "reply", Status: models.PushSent, Basis: models.BasisUsual, Judged: 3, MedianSeconds: 40 * 60},
			"you usually act on reply drafts within the hour"},
		{"usual within hours", models.PushNotification{Kind: "proposal", Status: models.PushSent, Basis: models.BasisUsual, Judged: 2, MedianSeconds: 2*3600 + 1},
			"you usually act on routine proposals within 3 hours"},
		{"new kind", models.PushNotification{Kind: "held-schedule", Status: models.PushSent, Basis: models.BasisNew},
			"new to hearth: held schedules are notified until it learns how you act on them"},
		{"ignored", models.PushNotification{Kind: "task", Status: models.PushMuted, Basis: models.BasisIgnored, Judged: 4},
			"not sent: you acted on none of the last four weeks' 4 tasks the agent raised within a day"},
		{"held", models.PushNotification{Kind: "held-send", Status: models.PushHeld, Basis: models.BasisUsual, MedianSeconds: 600, QuietStart: "22:00", QuietEnd: "07:00"},
			"held for quiet hours (22:00–07:00); you usually act on held sends within the hour"},
		{"digested", models.PushNotification{Kind: "run", Status: models.PushDigested, Basis: models.BasisNew, DigestClock: "07:00"},
			"held for quiet hours, sent in the 07:00 digest"},
		{"dropped", models.PushNotification{Kind: "reply", Status: models.PushDropped, Basis: models.BasisUsual, DigestClock: "07:00"},
			"held for quiet hours, then decided before the 07:00 digest"},
		{"the digest", models.PushNotification{Kind: "digest", Status: models.PushSent, Basis: models.BasisDigest},
			"the morning digest of what quiet hours held back"},
		{"closed", models.PushNotification{Kind: "reply", Status: models.PushSent, Basis: models.BasisNew, ClosedAt: &closed},
			"new to hearth: reply drafts are notified until it learns how you act on them; closed on your phone once decided"},
		{"a row from before keeps its words", models.PushNotification{Kind: "reply", Status: models.PushSent, Reason: "you usually act on reply drafts within 2 hours"},
			"you usually act on reply drafts within 2 hours"},
	} {
		if got := pushReason(c.n); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
