package models

import (
	"context"
	"errors"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/weight"
)

func TestWeightHistoryShowsEachWeighInWithItsCorrections(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	for _, v := range []float64{72.4, 27.4, 72.6} { // a typo, corrected twice
		if _, err := s.RecordMeasurement(ctx, "weigh", v); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.WeightHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) != 1 {
		t.Fatalf("entries = %+v, want one weigh-in", d.Entries)
	}
	e := d.Entries[0]
	if e.Value != 72.6 || e.Unit != "kg" || len(e.Corrections) != 2 || e.Corrections[0].Value != 72.4 || e.Corrections[1].Value != 27.4 {
		t.Fatalf("entry = %+v, want 72.6 kg correcting 72.4 then 27.4", e)
	}
	if len(d.Points) != 1 || d.Points[0].Value != 72.6 || d.Zone.String() != "Europe/Berlin" {
		t.Fatalf("points = %+v in %v; only the current value counts, in the brief's zone", d.Points, d.Zone)
	}
}

func TestWeightGoalIsAnOwnerDecisionThatBumpsTheRevisionOnce(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	before := mustRevision(t, s)
	g := &contract.WeightGoal{Value: 70, Unit: "kg"}
	if err := s.SetWeightGoal(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWeightGoal(ctx, g); err != nil {
		t.Fatal(err)
	}
	if got := mustRevision(t, s); got != before+1 {
		t.Fatalf("revision %d → %d, want one bump for one change", before, got)
	}
	d, _ := s.WeightHistory(ctx)
	if d.Goal == nil || *d.Goal != *g {
		t.Fatalf("goal = %+v", d.Goal)
	}
	// The agent reads it in the context.
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ac.WeightGoal == nil || *ac.WeightGoal != *g {
		t.Fatalf("context weightGoal = %+v, want %+v", ac.WeightGoal, g)
	}
	if err := s.SetWeightGoal(ctx, &contract.WeightGoal{Value: 5, Unit: "kg"}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("a 5 kg goal: %v, want invalid input", err)
	}
	if err := s.SetWeightGoal(ctx, &contract.WeightGoal{Value: 70, Unit: "stone"}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("a goal in stone: %v, want invalid input", err)
	}
	if err := s.SetWeightGoal(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.WeightHistory(ctx); d.Goal != nil {
		t.Fatalf("cleared goal still %+v", d.Goal)
	}
}

func TestImportWeightsDryRunWritesNothingAndAReimportAddsNothing(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.4); err != nil { // today, 09:00 Berlin
		t.Fatal(err)
	}
	file := "date,weight\n2026-09-27,73.0\n2026-09-28,72.8\n2026-09-28,72.8\n2026-09-29,72.4\n"
	format, rs, err := weight.ParseCSV([]byte(file), time.UTC, "kg", testNow)
	if err != nil {
		t.Fatal(err)
	}
	before := mustRevision(t, s)
	dry, err := s.ImportWeights(ctx, format, rs, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Added) != 2 || dry.Skipped != 2 {
		t.Fatalf("dry run = %+v, want 2 new (27th, 28th) and 2 skipped (the repeated row, today's saved value)", dry)
	}
	if d, _ := s.WeightHistory(ctx); len(d.Entries) != 1 || mustRevision(t, s) != before {
		t.Fatalf("a dry run wrote: %d entries, revision %d → %d", len(d.Entries), before, mustRevision(t, s))
	}
	got, err := s.ImportWeights(ctx, format, rs, false)
	if err != nil || len(got.Added) != 2 {
		t.Fatalf("import = %+v, %v", got, err)
	}
	if mustRevision(t, s) != before+1 {
		t.Fatalf("an import is one owner action: revision %d → %d", before, mustRevision(t, s))
	}
	again, err := s.ImportWeights(ctx, format, rs, false)
	if err != nil || len(again.Added) != 0 || again.Skipped != 4 || mustRevision(t, s) != before+1 {
		t.Fatalf("re-import = %+v, %v, revision %d", again, err, mustRevision(t, s))
	}
	d, err := s.WeightHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) != 3 || d.Entries[2].Source != "imported" || d.Entries[0].Source != "entered" {
		t.Fatalf("entries = %+v", d.Entries)
	}
	// The agent sees imported readings with no activity.
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ac.Measurements.Items); n != 3 {
		t.Fatalf("context has %d measurements, want 3", n)
	}
}
