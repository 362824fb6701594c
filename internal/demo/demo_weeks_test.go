package demo

import (
	"context"
	"testing"
	"time"

	"hearth/internal/weight"
	"hearth/models"
	"hearth/models/read"
)

// The demo's weight page lists its ended weeks with how often the evening
// wind-down was done in each, and those counts agree with the routine days
// the occurrences export lists (another reading of the same rows).
func TestDemoWeightWeeksCountTheRoutineDaysTheExportLists(t *testing.T) {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	w, store := demoStore(t, now)
	ctx := context.Background()
	k, err := read.Of(store).RoutineKeeping(ctx, "evening-wind-down")
	if err != nil {
		t.Fatal(err)
	}
	weeks, split := weight.Weeks(w.Points, w.Trend, w.Zone, k, now)
	if len(weeks) < 5 || split.Routine.ID != "evening-wind-down" || split.Kept.Weeks+split.NotKept.Weeks < 4 {
		t.Fatalf("%d weeks, split %+v: the demo's weight page would compare nothing", len(weeks), split)
	}
	occ, err := read.Of(store).ExportCSV(ctx, read.ExportOccurrences)
	if err != nil {
		t.Fatal(err)
	}
	done := map[time.Time]int{}
	for _, r := range occ.Rows { // occurrence, routine, title, date, zone, state, outcome, …
		if r[1] != "evening-wind-down" || r[6] != models.OutcomeCompleted {
			continue
		}
		day, err := time.ParseInLocation(time.DateOnly, r[3], w.Zone)
		if err != nil {
			t.Fatal(err)
		}
		done[day.AddDate(0, 0, -(int(day.Weekday())+6)%7)]++
	}
	for _, wk := range weeks {
		if wk.Done != done[wk.Start] || wk.Planned > 7 || wk.Planned < wk.Done {
			t.Fatalf("week of %s: %d of %d days done, the export lists %d", wk.Start.Format(time.DateOnly), wk.Done, wk.Planned, done[wk.Start])
		}
	}
}

// The demo's weight page shows a real comparison by the evening wind-down,
// not "too few weeks": on whatever weekday the demo starts, the wind-down
// was kept in at least SplitMinWeeks of its comparable weeks and not kept
// in at least as many.
func TestDemoWeightWeeksCompareTheWindDownWithEnoughWeeksOnEachSide(t *testing.T) {
	for day := 30; day <= 36; day++ { // Monday 30 November to Sunday 6 December
		now := time.Date(2026, 11, day, 8, 0, 0, 0, time.UTC)
		w, store := demoStore(t, now)
		k, err := read.Of(store).RoutineKeeping(context.Background(), "evening-wind-down")
		if err != nil {
			t.Fatal(err)
		}
		_, split := weight.Weeks(w.Points, w.Trend, w.Zone, k, now)
		if !split.Enough || split.Kept.Weeks < weight.SplitMinWeeks || split.NotKept.Weeks < weight.SplitMinWeeks {
			t.Errorf("demo on %s: kept %d weeks, not kept %d, enough %v; want at least %d on each side",
				now.Format("Mon 2 Jan"), split.Kept.Weeks, split.NotKept.Weeks, split.Enough, weight.SplitMinWeeks)
		}
	}
}
