package models

import (
	"context"
	"errors"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/internal/storetest"
	"hearth/internal/weight"
)

// homeFixture publishes a Berlin brief for testNow's day, a routine with a
// weigh-in and a stretch step, a focus task, an undated optional task, and
// yesterday's and tomorrow's occurrences of a step.
func homeFixture(t *testing.T) (*Store, *storetest.Clock) {
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
	p := newPub("run-1", 0).Add("activities", routine, weigh, stretch, focus, focus2, optional, yesterday, tomorrow)
	p["brief"] = map[string]any{"date": "2026-09-29", "timeZone": "Europe/Berlin", "text": "Today.", "evidenceIds": []any{"life-1"}}
	mustPublish(t, s, p)
	return s, now
}

func mustHome(t *testing.T, s *Store) HomeView {
	t.Helper()
	h, err := s.Home(context.Background(), costpolicy.Policy{})
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
	if h.Day.Date != "2026-09-29" || h.Day.Zone.String() != "Europe/Berlin" || len(h.Evidence) != 1 || h.Evidence[0].Label != "people/ana.md" {
		t.Fatalf("today %s zone %s evidence %+v", h.Day.Date, h.Day.Zone, h.Evidence)
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
	now.Advance(24 * time.Hour)
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

func routineOutcome(t *testing.T, s *Store) contract.UserStateView {
	t.Helper()
	row, _, err := s.HomeRow(context.Background(), "routine")
	if err != nil {
		t.Fatal(err)
	}
	return row.UserState
}

func TestRoutineCompletesOnlyWhenEveryStepIsCompleted(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	row, _, err := s.HomeRow(ctx, "routine")
	if err != nil || row.Done != 1 || row.Total != 2 || row.Settled() {
		t.Fatalf("after one step: %d/%d settled=%v err=%v", row.Done, row.Total, row.Settled(), err)
	}
	if _, err := s.SetActivityState(ctx, "stretch", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if st := routineOutcome(t, s); st.State != StateCompleted {
		t.Fatalf("routine after every step: %+v", st)
	}
	h := mustHome(t, s)
	if len(h.Done) != 1 || h.Done[0].ID != "routine" {
		t.Fatalf("done today %+v", h.Done)
	}
}

func TestRoutineWithASkippedStepIsPartialNeverCompleted(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "stretch", StateSkipped, "", "sore"); err != nil {
		t.Fatal(err)
	}
	if st := routineOutcome(t, s); st.State != StatePartial || st.Note != "1 of 2 steps completed" {
		t.Fatalf("routine with a skipped step: %+v", st)
	}
	if h := mustHome(t, s); len(h.Done) != 1 || h.Done[0].ID != "routine" || h.Done[0].UserState.State != StatePartial {
		t.Fatalf("done today %+v", h.Done)
	}
}

func TestRoutineWhoseStepsWereAllSkippedOrDismissedIsNotCompleted(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "weigh", StateDismissed, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "stretch", StateSkipped, "", ""); err != nil {
		t.Fatal(err)
	}
	if st := routineOutcome(t, s); st.State != StateSkipped || st.Note != "no step completed" {
		t.Fatalf("routine with no step done: %+v", st)
	}
}

func TestOwnerSettledRoutineKeepsTheOwnersWord(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "routine", StatePartial, "", "short on time"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "stretch", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	if st := routineOutcome(t, s); st.State != StatePartial || st.Note != "short on time" {
		t.Fatalf("routine %+v", st)
	}
}

func TestCompletedIsRefusedForMeasurementAndReplyAndWritesNothing(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	reply := map[string]any{"id": "reply", "kind": "reply", "title": "Answer", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "d"}}
	mustPublish(t, s, newPub("run-2", 1).Add("replyDrafts", draft("d", "hi")).Add("activities", reply))
	before := mustRevision(t, s)
	for _, id := range []string{"weigh", "reply"} {
		if _, err := s.SetActivityState(ctx, id, StateCompleted, "", ""); !errors.Is(err, ErrCompletedElsewhere) {
			t.Fatalf("completing %s by hand: %v", id, err)
		}
	}
	if _, err := s.SetActivityState(ctx, "focus", StatePartial, "", ""); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("a task marked partial: %v", err)
	}
	if rev := mustRevision(t, s); rev != before {
		t.Fatalf("a refused action moved the revision %d → %d", before, rev)
	}
	// Skipping and dismissing stay the owner's choice for every kind.
	if _, err := s.SetActivityState(ctx, "reply", StateDismissed, "", ""); err != nil {
		t.Fatal(err)
	}
}

func TestDeferredDatedOccurrenceReturnsOnItsDateOnly(t *testing.T) {
	s, now := homeFixture(t)
	ctx := context.Background()
	// Today's (Sept 29) stretch step deferred to Oct 1: gone on the 29th and 30th, back on Oct 1, gone again on Oct 2.
	if _, err := s.SetActivityState(ctx, "focus", StateDeferred, "2026-10-01", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "tomorrow", StateDeferred, "2026-10-01", ""); err != nil {
		t.Fatal(err)
	}
	onHome := func(id string) bool {
		h := mustHome(t, s)
		for _, sec := range h.Sections {
			for _, r := range sec.Rows {
				if r.ID == id {
					return true
				}
			}
		}
		return false
	}
	for _, c := range []struct {
		at             time.Time
		dated, undated bool
	}{
		{testNow, false, false},
		{testNow.Add(24 * time.Hour), false, false},
		{testNow.Add(48 * time.Hour), true, true},
		{testNow.Add(72 * time.Hour), false, true},
	} {
		now.Set(c.at)
		if got := onHome("tomorrow"); got != c.dated {
			t.Errorf("%s: dated occurrence deferred to Oct 1 on Home = %v, want %v", c.at.Format(time.DateOnly), got, c.dated)
		}
		if got := onHome("focus"); got != c.undated {
			t.Errorf("%s: undated task deferred to Oct 1 on Home = %v, want %v", c.at.Format(time.DateOnly), got, c.undated)
		}
	}
}

func TestOwnersDayIsTheBriefsZoneNearMidnight(t *testing.T) {
	for _, c := range []struct {
		zone           string
		at             time.Time
		today, tomorro string
	}{
		// 00:30 on Sept 30 in Tokyo is still Sept 29 in UTC.
		{"Asia/Tokyo", time.Date(2026, 9, 29, 15, 30, 0, 0, time.UTC), "2026-09-30", "2026-10-01"},
		// 23:30 on Sept 29 in New York is already Sept 30 in UTC.
		{"America/New_York", time.Date(2026, 9, 30, 3, 30, 0, 0, time.UTC), "2026-09-29", "2026-09-30"},
	} {
		t.Run(c.zone, func(t *testing.T) {
			s, now := newTestStore(t)
			key := c.today + "@" + c.zone
			today := task("today")
			today["occurrenceKey"] = key
			other := task("utc-day")
			other["occurrenceKey"] = c.at.Format(time.DateOnly) + "@" + c.zone
			p := newPub("run-1", 0).Add("activities", today, other)
			p["brief"] = map[string]any{"date": c.today, "timeZone": c.zone, "text": "Today.", "evidenceIds": []any{}}
			mustPublish(t, s, p)
			now.Set(c.at)
			h := mustHome(t, s)
			if h.Day.Date != c.today || h.Day.Tomorrow != c.tomorro || h.Day.Zone.String() != c.zone {
				t.Fatalf("Home's day %+v", h.Day)
			}
			if ids := sectionIDs(h)["other"]; len(ids) != 1 || ids[0] != "today" {
				t.Fatalf("Home lists %v, want only today's occurrence", ids)
			}
			_, day, err := s.HomeRow(context.Background(), "today")
			if err != nil || day.Date != c.today || day.Tomorrow != c.tomorro {
				t.Fatalf("row fragment's day %+v, %v", day, err)
			}
			ac, err := s.AgentContext(context.Background())
			if err != nil || ac.Today.Date != c.today || ac.Today.TimeZone != c.zone {
				t.Fatalf("context's today %+v, %v", ac.Today, err)
			}
		})
	}
}

func TestDayOfADSTDayIsTwentyFiveHoursLong(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	d := DayOf(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), ny)
	if d.Date != "2026-11-01" || d.Tomorrow != "2026-11-02" || d.End.Sub(d.Start) != 25*time.Hour {
		t.Fatalf("day %+v, %v long", d, d.End.Sub(d.Start))
	}
}

func TestSavingTheSameWordingAgainKeepsTheRevision(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-1", 0).Add("replyDrafts", draft("d", "hi")))
	ctx := context.Background()
	first, err := s.SaveDraftEdit(ctx, "d", "hello", "c0")
	if err != nil || first.Revision != 2 {
		t.Fatalf("first save %+v, %v", first, err)
	}
	again, err := s.SaveDraftEdit(ctx, "d", "hello", "c0")
	if err != nil || again.Revision != 2 || mustRevision(t, s) != 2 {
		t.Fatalf("same wording again: %+v, %v, revision %d", again, err, mustRevision(t, s))
	}
	if changed, err := s.SaveDraftEdit(ctx, "d", "hello!", "c0"); err != nil || changed.Revision != 3 {
		t.Fatalf("changed wording: %+v, %v", changed, err)
	}
}

func TestHomeMeasurementKeepsHistoryAndShowsCorrection(t *testing.T) {
	s, now := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	now.Advance(time.Minute)
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.2); err != nil {
		t.Fatal(err)
	}
	row, _, err := s.HomeRow(ctx, "weigh")
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
	if _, _, err := s.HomeRow(context.Background(), "nope"); err != ErrNotFound {
		t.Fatalf("got %v", err)
	}
}

func TestHomeShowsAWeighInOfTheOtherUnitConvertedWithTheExactPound(t *testing.T) {
	s, _ := newTestStore(t)
	key := "2026-09-29@Europe/Berlin"
	weigh := func(id, unit string) map[string]any {
		return map[string]any{"id": id, "kind": "measurement", "title": "Weigh in (" + unit + ")", "evidenceIds": []any{}, "occurrenceKey": key,
			"payload": map[string]any{"metric": "weight", "unit": unit}}
	}
	p := newPub("run-1", 0).Add("activities", weigh("weigh-kg", "kg"), weigh("weigh-lb", "lb"))
	p["brief"] = map[string]any{"date": "2026-09-29", "timeZone": "Europe/Berlin", "text": "Today.", "evidenceIds": []any{}}
	mustPublish(t, s, p)
	if _, err := s.RecordMeasurement(context.Background(), "weigh-kg", 72.5); err != nil {
		t.Fatal(err)
	}
	row, _, err := s.HomeRow(context.Background(), "weigh-lb")
	if err != nil {
		t.Fatal(err)
	}
	want := weight.Convert(72.5, "kg", "lb")
	if m := row.Measurement; m == nil || len(m.Recent) != 1 || m.Recent[0] != want {
		t.Fatalf("the pound row's sparkline is %+v, want [%v]", m, want)
	}
}

// homeUncapped is Home with no cost or token cap, for storetest.Read.
func (s *Store) homeUncapped(ctx context.Context) (HomeView, error) {
	return s.Home(ctx, costpolicy.Policy{})
}

// homeNotice is the run notice as Home shows it, read by Home under costs.
func homeNotice(ctx context.Context, s *Store, costs costpolicy.Policy) (RunNotice, error) {
	v, err := s.Home(ctx, costs)
	return v.Runs, err
}
