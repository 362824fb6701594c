package views

import (
	"testing"
	"time"

	"hearth/models"
)

func TestFollowedWordsSayWhatBecameOfASentReply(t *testing.T) {
	day := models.Day{Date: "2026-09-29", Zone: time.UTC}
	sent := time.Date(2026, 9, 29, 10, 40, 0, 0, time.UTC)
	at := func(m int) *time.Time { t := sent.Add(time.Duration(m) * time.Minute); return &t }
	cases := []struct {
		s    models.Send
		want string
	}{
		{models.Send{CreatedAt: sent}, ""},
		{models.Send{CreatedAt: sent, DeliveredAt: at(0)}, "Delivered"},
		{models.Send{CreatedAt: sent, DeliveredAt: at(0), SeenAt: at(2), AnsweredAt: at(25)}, "Delivered · Seen 10:42 · answered 11:05 (25 min)"},
		{models.Send{CreatedAt: sent, AnsweredAt: at(125)}, "Answered 12:45 (2 h 5 min)"},
	}
	for _, c := range cases {
		if got := followedWords(c.s, day); got != c.want {
			t.Errorf("followedWords = %q; want %q", got, c.want)
		}
	}
}

func TestRepliesWordsSayTheRateAndTypicalWait(t *testing.T) {
	if got := repliesWords(models.ReplyStats{Sent: 4, Answered: 3, MedianAnswer: 23 * time.Minute}); got != "Answered 3 of 4 replies (75%) in 90 days, typically within 23 min" {
		t.Errorf("got %q", got)
	}
	if got := repliesWords(models.ReplyStats{Sent: 1}); got != "Answered 0 of 1 reply (0%) in 90 days" {
		t.Errorf("got %q", got)
	}
}
