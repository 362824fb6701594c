package models

import (
	"testing"
	"time"
)

// TestPlaceOnHomeGroupsAsHomeDoes: where a state puts a row on Home,
// which decides whether an owner decision moved it (and so whether its
// row alone can answer for the commit).
func TestPlaceOnHomeGroupsAsHomeDoes(t *testing.T) {
	day := DayOf(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC), time.UTC)
	cases := []struct {
		state, until, date, want string
	}{
		{"", "", "", placeOpen},
		{StateAvailable, "", "2026-09-29", placeOpen},
		{StateInProgress, "", "", placeOpen},
		{StateCompleted, "", "", placeDone},
		{StatePartial, "", "2026-09-29", placeDone},
		{StateSkipped, "", "", placeDone},
		{StateDismissed, "", "", placeOff},
		{StateDeferred, "2026-09-29", "", placeOpen},
		{StateDeferred, "2026-09-28", "", placeOpen},
		{StateDeferred, "2026-09-30", "", placeOff},
		{StateDeferred, "2026-09-29", "2026-09-27", placeOpen},
		{StateDeferred, "2026-09-30", "2026-09-29", placeOff},
		{StateDeferred, "2026-09-28", "2026-09-27", placeOff},
	}
	for _, c := range cases {
		if got := placeOnHome(c.state, c.until, c.date, day); got != c.want {
			t.Errorf("%q until %q of %q: %s, want %s", c.state, c.until, c.date, got, c.want)
		}
		// Home's own filter agrees on whether the row is shown at all.
		st, until := c.state, c.until
		at := day.Start.Add(time.Hour)
		r := activityRow{State: &st, Until: &until, StateAt: &at}
		r.OccurrenceKey = c.date
		if c.date != "" {
			r.OccurrenceKey = c.date + "@UTC"
		}
		if shown := onHomeToday(r, day); shown != (c.want != placeOff) {
			t.Errorf("%q until %q of %q: onHomeToday %v, place %s", c.state, c.until, c.date, shown, c.want)
		}
	}
}
