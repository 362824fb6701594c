package models

import (
	"context"
	"fmt"
	"testing"

	"hearth/internal/weight"
)

func TestRoutineKeepingReadsEachEndedPlannedDayOfTheChosenRoutine(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1, WindowDays: 30}); err != nil {
		t.Fatal(err)
	}
	for i, date := range []string{"2026-10-01", "2026-10-02", "2026-10-03", "2026-10-04", "2026-10-05"} {
		workDay(t, s, now, date)
		act := "hearth:morning@" + date
		switch i {
		case 0, 1, 4:
			if _, err := s.RecordMeasurement(ctx, act+":weigh", 72.4); err != nil {
				t.Fatal(err)
			}
		case 2:
			if _, err := s.SetActivityState(ctx, act, StateSkipped, "", "travelling"); err != nil {
				t.Fatal(err)
			}
		}
	}
	k, err := s.RoutineKeeping(ctx, "no-such-routine")
	if err != nil {
		t.Fatal(err)
	}
	// Today (10-05) has not ended: it is not counted yet, though done.
	got := fmt.Sprint(k.Days)
	if want := "[{2026-10-01 true} {2026-10-02 true} {2026-10-03 false} {2026-10-04 false}]"; got != want || len(k.Choices) != 1 ||
		k.Chosen != (weight.RoutineChoice{ID: "morning", Title: "Morning"}) {
		t.Fatalf("keeping %+v (days %s), want the morning routine with days %s", k, got, want)
	}
}
