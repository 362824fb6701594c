package models

import (
	"testing"
	"time"
)

// TestPlaceGroupsAsHomeDoes: where a state puts a row on Home (a section,
// Done today, Later or off Home), the one rule Home's read, a row's answer
// and the handlers share.
func TestPlaceGroupsAsHomeDoes(t *testing.T) {
	day := DayOf(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC), time.UTC)
	today, yesterday := day.Start.Add(time.Hour), day.Start.Add(-time.Hour)
	cases := []struct {
		state, until, date string
		at                 time.Time
		want               Place
	}{
		{"", "", "", today, PlaceOpen},
		{"", "", "2026-09-28", today, PlaceOff},
		{StateAvailable, "", "2026-09-29", today, PlaceOpen},
		{StateInProgress, "", "", today, PlaceOpen},
		{StateCompleted, "", "", today, PlaceDone},
		{StateCompleted, "", "", yesterday, PlaceOff},
		{StatePartial, "", "2026-09-29", today, PlaceDone},
		{StateSkipped, "", "", today, PlaceDone},
		{StateDismissed, "", "", today, PlaceLater},
		{StateDeferred, "2026-09-29", "", today, PlaceOpen},
		{StateDeferred, "2026-09-28", "", today, PlaceOpen},
		{StateDeferred, "2026-09-30", "", today, PlaceLater},
		{StateDeferred, "2026-09-29", "2026-09-27", today, PlaceOpen},
		{StateDeferred, "2026-09-30", "2026-09-29", today, PlaceLater},
		{StateDeferred, "2026-09-28", "2026-09-27", today, PlaceOff},
	}
	for _, c := range cases {
		key := ""
		if c.date != "" {
			key = c.date + "@UTC"
		}
		at := c.at
		if got := placeOf(c.state, c.until, &at, key, day); got != c.want {
			t.Errorf("%q until %q of %q at %s: place %d, want %d", c.state, c.until, c.date, c.at, got, c.want)
		}
	}
}
