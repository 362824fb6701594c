package views

import (
	"fmt"
	"strings"
	"time"

	"hearth/models"
)

// followedWords is what became of a sent reply, in the owner's zone:
// "Delivered · Seen 10:42 · answered 11:05 (23 min)"; "" while nothing is known.
func followedWords(s models.Send, day models.Day) string {
	var parts []string
	if s.DeliveredAt != nil {
		parts = append(parts, "Delivered")
	}
	if s.SeenAt != nil {
		parts = append(parts, "Seen "+when(*s.SeenAt, day))
	}
	if s.AnsweredAt != nil {
		parts = append(parts, fmt.Sprintf("answered %s (%s)", when(*s.AnsweredAt, day), answerWait(s.AnsweredAfter())))
	}
	if len(parts) == 0 {
		return ""
	}
	out := strings.Join(parts, " · ")
	return strings.ToUpper(out[:1]) + out[1:]
}

// repliesWords is a person's reply rate and typical time to answer:
// "Answered 3 of 4 replies (75%) in 90 days, typically within 23 min".
func repliesWords(r models.ReplyStats) string {
	replies := "replies"
	if r.Sent == 1 {
		replies = "reply"
	}
	out := fmt.Sprintf("Answered %d of %d %s (%d%%) in 90 days", r.Answered, r.Sent, replies, r.Rate())
	if r.Answered > 0 {
		out += ", typically within " + answerWait(r.MedianAnswer)
	}
	return out
}

// answerWait is a wait, briefly: "under a minute", "23 min", "2 h 5 min", "3 days".
func answerWait(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "under a minute"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Round(time.Minute).Minutes()))
	case d < 24*time.Hour:
		h, m := int(d.Hours()), int(d.Round(time.Minute).Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%d h", h)
		}
		return fmt.Sprintf("%d h %d min", h, m)
	}
	return plural(int(d.Round(time.Hour).Hours()/24), "day")
}
