package models

import (
	"context"
	"testing"
	"time"
)

// homeFixture publishes a Berlin brief for testNow's day, a routine with a
// weigh-in and a stretch step, a focus task, an undated optional task, and
// yesterday's and tomorrow's occurrences of a step.
func homeFixture(t *testing.T) (*Store, *time.Time) {
	t.Helper()
	s, now := newTestStore(t)
	key := "2026-09-29@Europe/Berlin"
	routine := map[string]any{"id": "routine", "kind": "routine", "title": "Morning", "evidenceIds": []any{}, "occurrenceKey": key,
		"recommendation": map[string]any{"section": "routine", "rank": 1}, "payload": map[string]any{}}
	weigh := map[string]any{"id": "weigh", "kind": "measurement", "title": "Weigh in", "evidenceIds": []any{}, "parentId": "routine", "occurrenceKey": key,
		"recommendation": map[string]any{"section": "routine", "rank": 1}, "payload": map[string]any{"metric": "weight", "unit": "kg"}}
	stretch := task("stretch")
	stretch["parentId"], stretch["occurrenceKey"] = "routine", key
	stretch["recommendation"] = map[string]any{"section": "routine", "rank": 2}
	focus := task("focus")
	focus["recommendation"] = map[string]any{"section": "focus", "rank": 2}
	focus2 := task("focus-first")
	focus2["recommendation"] = map[string]any{"section": "focus", "rank": 1}
	optional := task("optional")
	optional["recommendation"] = map[string]any{"section": "optional", "rank": 1}
	yesterday := task("yesterday")
	yesterday["occurrenceKey"] = "2026-09-28@Europe/Berlin"
	tomorrow := task("tomorrow")
	tomorrow["occurrenceKey"] = "2026-09-30@Europe/Berlin"
	p := newPub("run-1", 0).add("activities", routine, weigh, stretch, focus, focus2, optional, yesterday, tomorrow)
	p["brief"] = map[string]any{"date": "2026-09-29", "timeZone": "Europe/Berlin", "text": "Today.", "evidenceIds": []any{"life-1"}}
	mustPublish(t, s, p)
	return s, now
}

func mustHome(t *testing.T, s *Store) HomeView {
	t.Helper()
	h, err := s.Home(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func sectionIDs(h HomeView) map[string][]string {
	out := map[string][]string{}
	for _, sec := range h.Sections {
		for _, r := range sec.Rows {
			out[sec.Name] = append(out[sec.Name], r.ID)
		}
	}
	return out
}

func TestHomeGroupsTodaysActivitiesBySectionAndRank(t *testing.T) {
	s, _ := homeFixture(t)
	h := mustHome(t, s)
	got := sectionIDs(h)
	want := map[string][]string{"routine": {"routine"}, "focus": {"focus-first", "focus"}, "optional": {"optional"}, "other": nil}
	for name, ids := range want {
		if len(got[name]) != len(ids) {
			t.Fatalf("section %s: %v, want %v (all: %v)", name, got[name], ids, got)
		}
		for i := range ids {
			if got[name][i] != ids[i] {
				t.Fatalf("section %s: %v, want %v", name, got[name], ids)
			}
		}
	}
	if h.Today != "2026-09-29" || h.Zone != "Europe/Berlin" || len(h.Evidence) != 1 || h.Evidence[0].Label != "people/ana.md" {
		t.Fatalf("today %s zone %s evidence %+v", h.Today, h.Zone, h.Evidence)
	}
	r := h.Sections[0].Rows[0]
	if len(r.Children) != 2 || r.Children[0].ID != "weigh" || r.Total != 2 || r.Done != 0 {
		t.Fatalf("routine steps %+v, %d/%d", r.Children, r.Done, r.Total)
	}
}

func TestHomeFoldsSettledIntoDoneAndHidesDismissedAndDeferred(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "focus", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "focus-first", StateDismissed, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "optional", StateDeferred, "2026-09-30", ""); err != nil {
		t.Fatal(err)
	}
	h := mustHome(t, s)
	if len(h.Done) != 1 || h.Done[0].ID != "focus" {
		t.Fatalf("done today %+v", h.Done)
	}
	got := sectionIDs(h)
	if len(got["focus"]) != 0 || len(got["optional"]) != 0 {
		t.Fatalf("dismissed or deferred still listed: %v", got)
	}
}

func TestHomeShowsDeferredActivityOnItsDayAndNoBacklogOfEarlierDays(t *testing.T) {
	s, now := homeFixture(t)
	if _, err := s.SetActivityState(context.Background(), "optional", StateDeferred, "2026-09-30", ""); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(24 * time.Hour)
	h := mustHome(t, s)
	got := sectionIDs(h)
	if len(got["optional"]) != 1 {
		t.Fatalf("deferred task not back on its day: %v", got)
	}
	if len(got["routine"]) != 0 {
		t.Fatalf("yesterday's routine carried over: %v", got)
	}
	if ids := got["other"]; len(ids) != 1 || ids[0] != "tomorrow" {
		t.Fatalf("today's (was tomorrow's) occurrence: %v", ids)
	}
}

func TestRoutineCompletesWhenEveryStepIsDone(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	row, err := s.HomeRow(ctx, "routine")
	if err != nil || row.Done != 1 || row.Total != 2 || row.Settled() {
		t.Fatalf("after one step: %d/%d settled=%v err=%v", row.Done, row.Total, row.Settled(), err)
	}
	if _, err := s.SetActivityState(ctx, "stretch", StateSkipped, "", "sore"); err != nil {
		t.Fatal(err)
	}
	row, err = s.HomeRow(ctx, "routine")
	if err != nil || row.UserState.State != StateCompleted {
		t.Fatalf("routine after all steps: %+v %v", row.UserState, err)
	}
	h := mustHome(t, s)
	if len(h.Done) != 1 || h.Done[0].ID != "routine" {
		t.Fatalf("done today %+v", h.Done)
	}
}

func TestHomeMeasurementKeepsHistoryAndShowsCorrection(t *testing.T) {
	s, now := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(time.Minute)
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.2); err != nil {
		t.Fatal(err)
	}
	row, err := s.HomeRow(ctx, "weigh")
	if err != nil {
		t.Fatal(err)
	}
	m := row.Measurement
	if m == nil || m.Saved == nil || m.Saved.Value != 72.2 || m.Last.Value != 72.2 || len(m.Recent) != 1 {
		t.Fatalf("summary %+v", m)
	}
	ac, _ := s.AgentContext(ctx)
	if len(ac.Measurements.Items) != 2 {
		t.Fatalf("history keeps both rows: %+v", ac.Measurements.Items)
	}
}

func TestHomeRowOfUnknownActivityIsNotFound(t *testing.T) {
	s, _ := homeFixture(t)
	if _, err := s.HomeRow(context.Background(), "nope"); err != ErrNotFound {
		t.Fatalf("got %v", err)
	}
}
