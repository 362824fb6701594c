package models

import (
	"context"
	"testing"

	"hearth/internal/contract"
)

// weighInStore has two routines that plan a weigh-in on 2026-10-01: the
// daily morning routine (instantiated) and a start-work routine (on trial,
// instantiated by Start work).
func weighInStore(t *testing.T) *Store {
	t.Helper()
	s, _ := routineStore(t)
	ctx := context.Background()
	def := routineDef("startup", 1)
	def["title"] = "Start of work"
	def["trigger"] = map[string]any{"kind": "event", "event": "start-work"}
	mustPublish(t, s, newPub("run-ev", mustRevision(t, s)).Add("routineDefinitions", def))
	for _, r := range []string{"morning", "startup"} {
		if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: r, Revision: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.EnsureOccurrences(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// openWeighIns are the weigh-in steps Home still asks for.
func openWeighIns(t *testing.T, s *Store) []string {
	t.Helper()
	var open []string
	var walk func(rows []HomeRow)
	walk = func(rows []HomeRow) {
		for _, r := range rows {
			if r.Kind == contract.KindMeasurement && !r.Settled() {
				open = append(open, r.ID)
			}
			walk(r.Children)
		}
	}
	for _, sec := range mustHome(t, s).Sections {
		walk(sec.Rows)
	}
	return open
}

func TestStartWorkAfterAWeighInAddsNoSecondWeighIn(t *testing.T) {
	s := weighInStore(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "hearth:morning@2026-10-01:weigh", 82.4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TriggerEvent(ctx, contract.EventStartWork); err != nil {
		t.Fatal(err)
	}
	if open := openWeighIns(t, s); len(open) != 0 {
		t.Fatalf("after a weigh-in, Start work asks again: %v", open)
	}
	row, _, err := s.HomeRow(ctx, "hearth:startup@2026-10-01.start-work")
	if err != nil {
		t.Fatal(err)
	}
	if row.Done != 1 || row.Children[0].UserState.State != StateCompleted {
		t.Fatalf("the start-work weigh-in is not counted: %d/%d, step %q", row.Done, row.Total, row.Children[0].UserState.State)
	}
	if d := storeWeighIns(t, s); d != 1 {
		t.Fatalf("%d weight rows, want the one weigh-in", d)
	}
}

func TestAWeighInCountsForEveryRoutineThatPlansOneThatDay(t *testing.T) {
	s := weighInStore(t)
	ctx := context.Background()
	if _, err := s.TriggerEvent(ctx, contract.EventStartWork); err != nil {
		t.Fatal(err)
	}
	if open := openWeighIns(t, s); len(open) != 2 {
		t.Fatalf("before the weigh-in: %v, want both routines' steps", open)
	}
	if _, err := s.RecordMeasurement(ctx, "hearth:startup@2026-10-01.start-work:weigh", 82.4); err != nil {
		t.Fatal(err)
	}
	if open := openWeighIns(t, s); len(open) != 0 {
		t.Fatalf("after one weigh-in, still asked: %v", open)
	}
	if d := storeWeighIns(t, s); d != 1 {
		t.Fatalf("%d weight rows, want the one weigh-in", d)
	}
}

// storeWeighIns counts stored weight rows.
func storeWeighIns(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	if err := s.rdb.Model(&Measurement{}).Where("metric = ?", WeightMetric).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}
