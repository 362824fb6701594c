package views

import (
	"fmt"
	"math"
	"time"

	"hearth/models"
)

// pushNouns are the kinds of notified items in the owner's words.
var pushNouns = map[string]string{
	"reply":         "reply drafts",
	"task":          "tasks the agent raised",
	"run":           "runs that need a look",
	"proposal":      "routine proposals",
	"held-send":     "held sends",
	"held-schedule": "held schedules",
}

// within is a delay in words: "within the hour", "within 3 hours".
func within(d time.Duration) string {
	if d <= time.Hour {
		return "within the hour"
	}
	return fmt.Sprintf("within %d hours", int(math.Ceil(d.Hours())))
}

// pushBasis is why a kind is notified or not.
func pushBasis(n models.PushNotification) string {
	noun := pushNouns[n.Kind]
	switch n.Basis {
	case models.BasisNew:
		return "new to hearth: " + noun + " are notified until it learns how you act on them"
	case models.BasisIgnored:
		return fmt.Sprintf("not sent: you acted on none of the last four weeks' %d %s within a day", n.Judged, noun)
	case models.BasisDigest:
		return "the morning digest of what quiet hours held back"
	}
	return "you usually act on " + noun + " " + within(time.Duration(n.MedianSeconds)*time.Second)
}

// pushReason is why a notification was sent, held or not sent, as More
// shows it; a row written before the why was kept as data has its words.
func pushReason(n models.PushNotification) string {
	if n.Basis == "" {
		return n.Reason
	}
	var why string
	switch n.Status {
	case models.PushHeld:
		why = fmt.Sprintf("held for quiet hours (%s–%s); %s", n.QuietStart, n.QuietEnd, pushBasis(n))
	case models.PushDigested:
		why = "held for quiet hours, sent in the " + n.DigestClock + " digest"
	case models.PushDropped:
		why = "held for quiet hours, then decided before the " + n.DigestClock + " digest"
	default:
		why = pushBasis(n)
	}
	if n.ClosedAt != nil {
		why += "; closed on your phone once decided"
	}
	return why
}
