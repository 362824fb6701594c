package models

import (
	"context"
	"errors"
	"testing"
	"time"

	"hearth/internal/contract"
)

// undoOffer reads the Undo Home offers on row id (a step: under its routine).
func undoOffer(t *testing.T, s *Store, id string) *UndoOffer {
	t.Helper()
	row, _, err := s.HomeRow(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return row.Undo
}

func decisionsOf(t *testing.T, s *Store, id string) []contract.ActivityDecisionView {
	t.Helper()
	ac, err := s.AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []contract.ActivityDecisionView
	for _, d := range ac.ActivityDecisions.Items {
		if d.ActivityID == id {
			out = append(out, d)
		}
	}
	return out
}

func TestUndoReopensTheRowAndTheAgentSeesBothActions(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "focus", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	offer := undoOffer(t, s, "focus")
	if offer == nil || offer.State != StateCompleted {
		t.Fatalf("no undo offered after Complete: %+v", offer)
	}
	res, err := s.UndoDecision(ctx, offer.DecisionID)
	if err != nil || res.ActivityID != "focus" {
		t.Fatalf("undo: %+v %v", res, err)
	}
	a, _ := findActivity(t, s, "focus")
	if a.UserState.State != StateAvailable {
		t.Fatalf("state after undo %+v", a.UserState)
	}
	if undoOffer(t, s, "focus") != nil {
		t.Fatal("an undone decision still offers Undo")
	}
	h := mustHome(t, s)
	if len(h.Done) != 0 || len(h.Sections) == 0 {
		t.Fatalf("undone row not back among today's rows: done %+v", h.Done)
	}
	ds := decisionsOf(t, s, "focus")
	if len(ds) != 2 || ds[0].Cause != CauseHome || ds[0].State != StateCompleted || ds[0].PriorState != "" ||
		ds[1].Cause != CauseUndo || ds[1].State != StateAvailable || ds[1].Undoes != ds[0].ID || ds[1].PriorState != StateCompleted {
		t.Fatalf("agent context decisions %+v", ds)
	}
	if ds[1].Revision != res.Revision {
		t.Fatalf("undo revision %d, context says %d", res.Revision, ds[1].Revision)
	}
	// The compact context keeps an undo with what it undid.
	compact, err := s.CompactContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if items := compact.ActivityDecisions.Items; len(items) != 2 || items[0].ID != ds[0].ID || items[1].ID != ds[1].ID {
		t.Fatalf("compact context decisions %+v", items)
	}
}

func TestUndoAfterTheWindowIsRefusedAndChangesNothing(t *testing.T) {
	s, now := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "focus", StateSkipped, "", ""); err != nil {
		t.Fatal(err)
	}
	offer := undoOffer(t, s, "focus")
	now.Advance(UndoWindow + time.Second)
	if undoOffer(t, s, "focus") != nil {
		t.Fatal("Undo still offered after the window")
	}
	rev := mustRevision(t, s)
	if _, err := s.UndoDecision(ctx, offer.DecisionID); !errors.Is(err, ErrUndoExpired) {
		t.Fatalf("undo after the window: %v, want ErrUndoExpired", err)
	}
	if a, _ := findActivity(t, s, "focus"); a.UserState.State != StateSkipped || mustRevision(t, s) != rev {
		t.Fatalf("a refused undo changed state %+v or revision", a.UserState)
	}
}

func TestUndoTwiceIsOneUndo(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "optional", StateDeferred, "2026-09-30", ""); err != nil {
		t.Fatal(err)
	}
	offer := undoOffer(t, s, "optional")
	first, err := s.UndoDecision(ctx, offer.DecisionID)
	if err != nil {
		t.Fatal(err)
	}
	rev := mustRevision(t, s)
	again, err := s.UndoDecision(ctx, offer.DecisionID)
	if err != nil || again != first || mustRevision(t, s) != rev {
		t.Fatalf("second undo: %+v %v (first %+v), revision %d→%d", again, err, first, rev, mustRevision(t, s))
	}
	if n := len(decisionsOf(t, s, "optional")); n != 2 {
		t.Fatalf("%d decisions recorded, want the decision and one undo", n)
	}
}

func TestUndoAfterALaterDecisionIsRefused(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "focus", StateDeferred, "2026-09-30", ""); err != nil {
		t.Fatal(err)
	}
	first := undoOffer(t, s, "focus").DecisionID
	if _, err := s.SetActivityState(ctx, "focus", StateDismissed, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UndoDecision(ctx, first); !errors.Is(err, ErrUndoSuperseded) {
		t.Fatalf("undo of a replaced decision: %v", err)
	}
	if _, err := s.UndoDecision(ctx, 999999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("undo of no decision: %v", err)
	}
}

func TestUndoOfALastStepReopensTheRoutineItSettled(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "stretch", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if st := routineOutcome(t, s); st.State != StateCompleted {
		t.Fatalf("routine %+v", st)
	}
	row, _, _ := s.HomeRow(ctx, "routine")
	var offer *UndoOffer
	for _, c := range row.Children {
		if c.ID == "stretch" {
			offer = c.Undo
		}
	}
	if offer == nil {
		t.Fatal("no Undo on the completed step")
	}
	if _, err := s.UndoDecision(ctx, offer.DecisionID); err != nil {
		t.Fatal(err)
	}
	if st := routineOutcome(t, s); settled(st.State) {
		t.Fatalf("routine still settled after its last step was undone: %+v", st)
	}
	// A measurement's saved value is not a Home decision: nothing to undo.
	for _, d := range decisionsOf(t, s, "weigh") {
		if _, err := s.UndoDecision(ctx, d.ID); !errors.Is(err, ErrNotUndoable) {
			t.Fatalf("undo of a saved value: %v", err)
		}
	}
}

func TestLaterListsDeferredAndDismissedWithTheirDatesAndBringBack(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "optional", StateDeferred, "2026-09-30", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "focus-first", StateDismissed, "", ""); err != nil {
		t.Fatal(err)
	}
	h := mustHome(t, s)
	got := map[string]LaterItem{}
	for _, it := range h.Later {
		got[it.ID] = it
	}
	if len(h.Later) != 2 || got["optional"].Until != "2026-09-30" || got["optional"].State != StateDeferred ||
		got["focus-first"].State != StateDismissed || got["focus-first"].Undo == nil {
		t.Fatalf("later %+v", h.Later)
	}
	if h.Undone == nil || h.Undone.ID != "focus-first" {
		t.Fatalf("newest undoable decision off Home: %+v", h.Undone)
	}
	if _, err := s.SetActivityState(ctx, "focus-first", StateAvailable, "", ""); err != nil {
		t.Fatal(err)
	}
	h = mustHome(t, s)
	if len(h.Later) != 1 || h.Later[0].ID != "optional" {
		t.Fatalf("later after bringing back %+v", h.Later)
	}
	back := false
	for _, sec := range h.Sections {
		for _, r := range sec.Rows {
			back = back || r.ID == "focus-first"
		}
	}
	if !back {
		t.Fatal("brought-back row not on Home")
	}
}

func TestUndoOfAStepReopensTheRoutineALaterStepSettled(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "stretch", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	row, _, _ := s.HomeRow(ctx, "routine")
	var offer *UndoOffer
	for _, c := range row.Children {
		if c.ID == "stretch" {
			offer = c.Undo
		}
	}
	// The weigh-in, saved after, is what settles the routine.
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	if st := routineOutcome(t, s); st.State != StateCompleted {
		t.Fatalf("routine %+v", st)
	}
	if _, err := s.UndoDecision(ctx, offer.DecisionID); err != nil {
		t.Fatal(err)
	}
	if st := routineOutcome(t, s); settled(st.State) {
		t.Fatalf("routine still settled with a step open again: %+v", st)
	}
}
