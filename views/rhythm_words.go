package views

import (
	"fmt"
	"math"
	"time"

	"hearth/models"
)

// rhythmWords is a steady rhythm: "Usually every 9 days · they usually start (4 of 6)".
func rhythmWords(r models.PersonRhythm) string {
	n, unit := rhythmAmount(r.UsualGap, r.UsualGap)
	return fmt.Sprintf("Usually every %d %s · %s", n, unit, startWords(r))
}

// driftingWords follows "Drifting:": "usually every 9 days, now 23 · they usually start (4 of 6)".
func driftingWords(r models.PersonRhythm) string {
	n, unit := rhythmAmount(r.UsualGap, r.UsualGap)
	now, _ := rhythmAmount(r.Silence, r.UsualGap)
	return fmt.Sprintf("usually every %d %s, now %d · %s", n, unit, now, startWords(r))
}

// rhythmAmount is d in whole days, or in hours when the usual gap (by,
// the unit of the line) is under two days.
func rhythmAmount(d, by time.Duration) (int, string) {
	if by < 48*time.Hour {
		return int(math.Round(d.Hours())), "hours"
	}
	return int(math.Round(d.Hours() / 24)), "days"
}

// startWords says who usually starts a conversation, with the count.
func startWords(r models.PersonRhythm) string {
	theirs := r.Conversations - r.OwnerStarted
	switch {
	case r.OwnerStarted > theirs:
		return fmt.Sprintf("you usually start (%d of %d)", r.OwnerStarted, r.Conversations)
	case theirs > r.OwnerStarted:
		return fmt.Sprintf("they usually start (%d of %d)", theirs, r.Conversations)
	}
	return "you take turns starting"
}
