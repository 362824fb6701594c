package models

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
)

// routineDef is a daily two-step routine: a required weigh-in and an optional stretch.
func routineDef(id string, revision int64) map[string]any {
	return map[string]any{
		"id": id, "revision": revision, "title": "Morning", "purpose": "Start the day steady",
		"trigger": map[string]any{"kind": "daily", "timeOfDay": "07:30"},
		"steps": []any{
			map[string]any{"id": "weigh", "title": "Weigh in", "kind": "measurement", "required": true, "payload": map[string]any{"metric": "weight", "unit": "kg"}},
			map[string]any{"id": "stretch", "title": "Stretch", "kind": "task", "required": false, "payload": map[string]any{}},
		},
		"completionRule": map[string]any{"kind": "all-required"},
		"status":         "candidate",
		"evidenceIds":    []any{"life-1"},
	}
}

// routineStore publishes a New York brief and the routine, with the clock at
// 09:00 New York time on 2026-10-01.
func routineStore(t *testing.T) (*Store, *time.Time) {
	t.Helper()
	s, now := newTestStore(t)
	*now = time.Date(2026, 10, 1, 13, 0, 0, 0, time.UTC)
	p := newPub("run-routine", 0).add("routineDefinitions", routineDef("morning", 1))
	p["brief"] = map[string]any{"date": "2026-10-01", "timeZone": "America/New_York", "text": "Today.", "evidenceIds": []any{}}
	mustPublish(t, s, p)
	return s, now
}

func metricsOf(t *testing.T, s *Store, routine string, revision int64, from, to string) RoutineMetrics {
	t.Helper()
	var m RoutineMetrics
	err := s.read(context.Background(), func(tx *gorm.DB) error {
		var err error
		m, err = routineMetrics(tx, routine, revision, from, to, s.clock())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestImportingADefinitionActivatesNothing(t *testing.T) {
	s, _ := routineStore(t)
	if n, err := s.EnsureOccurrences(context.Background()); err != nil || n != 0 {
		t.Fatalf("instantiated %d, %v before any trial", n, err)
	}
	if h := mustHome(t, s); len(h.Sections) != 0 {
		t.Fatalf("Home lists %v", sectionIDs(h))
	}
}

func TestConcurrentInstantiationMakesOneOccurrence(t *testing.T) {
	s, _ := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.EnsureOccurrences(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var n int64
	s.rdb.Model(&RoutineOccurrence{}).Count(&n)
	if n != 1 {
		t.Fatalf("%d occurrences, want 1", n)
	}
	row, _, err := s.HomeRow(ctx, "hearth:morning@2026-10-01")
	if err != nil || len(row.Children) != 2 || row.OccurrenceKey != "2026-10-01@America/New_York" {
		t.Fatalf("today's occurrence on Home: %+v, %v", row, err)
	}
}

// workDay moves the clock to 09:00 New York on date and instantiates it.
func workDay(t *testing.T, s *Store, now *time.Time, date string) {
	t.Helper()
	d, _ := time.ParseInLocation(time.DateOnly, date, mustZone(t, "America/New_York"))
	*now = d.Add(9 * time.Hour).UTC()
	if _, err := s.EnsureOccurrences(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestSeedExampleAttainmentFiveOfSevenCoverageSixOfSeven(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1, WindowDays: 7}); err != nil {
		t.Fatal(err)
	}
	for i, date := range []string{"2026-10-01", "2026-10-02", "2026-10-03", "2026-10-04", "2026-10-05", "2026-10-06", "2026-10-07"} {
		workDay(t, s, now, date)
		act := "hearth:morning@" + date
		switch i {
		case 5: // explicitly skipped
			if _, err := s.SetActivityState(ctx, act, StateSkipped, "", "travelling"); err != nil {
				t.Fatal(err)
			}
		case 6: // nothing recorded
		default:
			if _, err := s.RecordMeasurement(ctx, act+":weigh", 72.4); err != nil {
				t.Fatal(err)
			}
		}
	}
	*now = now.Add(24 * time.Hour) // the 7th day has ended
	m := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-10-07")
	if m.Applicable != 7 || m.Completed != 5 || m.Skipped != 1 || m.Unrecorded != 1 ||
		m.Attainment != (Ratio{5, 7}) || m.Coverage != (CoverageRatio{6, 7}) {
		t.Fatalf("metrics %+v", m)
	}
	if st := m.Steps[0]; st.StepID != "weigh" || st.Saved != 5 || st.Completed != 5 {
		t.Fatalf("weigh-in step %+v", st)
	}
}

func TestNotApplicableLeavesTheDenominatorWithItsReason(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "hearth:morning@2026-10-01", StateDismissed, "", ""); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("not applicable without a reason: %v", err)
	}
	if _, err := s.SetActivityState(ctx, "hearth:morning@2026-10-01", StateDismissed, "", "sick day"); err != nil {
		t.Fatal(err)
	}
	workDay(t, s, now, "2026-10-02")
	if _, err := s.RecordMeasurement(ctx, "hearth:morning@2026-10-02:weigh", 72); err != nil {
		t.Fatal(err)
	}
	m := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-10-02")
	if m.NotApplicable != 1 || m.Applicable != 1 || m.Completed != 1 || len(m.Reasons) != 1 || m.Reasons[0] != "2026-10-01: sick day" {
		t.Fatalf("metrics %+v", m)
	}
}

func TestPartialIsNeverCountedAsCompleted(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	def := routineDef("focus", 1)
	def["completionRule"] = map[string]any{"kind": "min-steps", "n": 2}
	mustPublish(t, s, newPub("run-focus", mustRevision(t, s)).add("routineDefinitions", def))
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "focus", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordMeasurement(ctx, "hearth:focus@2026-10-01:weigh", 72); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "hearth:focus@2026-10-01:stretch", StateSkipped, "", ""); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(24 * time.Hour)
	m := metricsOf(t, s, "focus", 1, "2026-10-01", "2026-10-01")
	if m.Partial != 1 || m.Completed != 0 || m.Attainment.Completed != 0 || m.Coverage.Observed != 1 {
		t.Fatalf("metrics %+v", m)
	}
}

func TestANewRevisionLeavesPastOccurrencesAndTheirMetricsUntouched(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordMeasurement(ctx, "hearth:morning@2026-10-01:weigh", 72); err != nil {
		t.Fatal(err)
	}
	workDay(t, s, now, "2026-10-02")
	before := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-10-02")

	// Revision 2 drops the stretch; the owner tries it while today's r1 occurrence exists.
	r2 := routineDef("morning", 2)
	r2["steps"] = r2["steps"].([]any)[:1]
	mustPublish(t, s, newPub("run-r2", mustRevision(t, s)).add("routineDefinitions", r2))
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 2}); err != nil {
		t.Fatal(err)
	}
	row, _, err := s.HomeRow(ctx, "hearth:morning@2026-10-02")
	if err != nil || len(row.Children) != 2 {
		t.Fatalf("today's r1 occurrence was reopened or replaced: %+v %v", row.Children, err)
	}
	workDay(t, s, now, "2026-10-03")
	row, _, err = s.HomeRow(ctx, "hearth:morning@2026-10-03")
	if err != nil || len(row.Children) != 1 {
		t.Fatalf("tomorrow's occurrence is not r2: %+v %v", row.Children, err)
	}
	after := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-10-02")
	if after.Completed != before.Completed || after.Applicable != 2 || len(after.Days) != 2 {
		t.Fatalf("r1 metrics changed: before %+v after %+v", before, after)
	}
	// Republishing revision 1 with other steps is refused.
	changed := routineDef("morning", 1)
	changed["title"] = "Morning, rewritten"
	_, _, err = s.Publish(ctx, "cred-test", newPub("run-rewrite", mustRevision(t, s)).add("routineDefinitions", changed).body())
	assertFieldError(t, err, "/routineDefinitions/0/revision")
}

func TestUnrecordedAtTheDaysEndInTheOwnersZoneAcrossADSTDay(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	// Try from Oct 31: Nov 1 2026 is the 25-hour fall-back day in New York.
	workDay(t, s, now, "2026-10-31")
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1, WindowDays: 3}); err != nil {
		t.Fatal(err)
	}
	workDay(t, s, now, "2026-11-01")
	ny := mustZone(t, "America/New_York")
	endOfNov1 := time.Date(2026, 11, 2, 0, 0, 0, 0, ny) // 05:00Z: 25 hours after midnight
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{endOfNov1.Add(-time.Minute), OutcomeOpen},
		{endOfNov1, OutcomeUnrecorded},
	} {
		*now = c.at
		m := metricsOf(t, s, "morning", 1, "2026-11-01", "2026-11-01")
		if len(m.Days) != 1 || m.Days[0].Outcome != c.want {
			t.Fatalf("at %s Nov 1 is %+v, want %s", c.at.Format(time.RFC3339), m.Days, c.want)
		}
	}
	if endOfNov1.Sub(time.Date(2026, 11, 1, 0, 0, 0, 0, ny)) != 25*time.Hour {
		t.Fatal("Nov 1 2026 in New York is not the 25-hour day this test needs")
	}
}

func TestUnfinishedOccurrencesDoNotPileUpOnHome(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"2026-10-02", "2026-10-03", "2026-10-04"} {
		workDay(t, s, now, d)
	}
	h := mustHome(t, s)
	if ids := sectionIDs(h)["routine"]; len(ids) != 1 || ids[0] != "hearth:morning@2026-10-04" {
		t.Fatalf("Home's routine section: %v", ids)
	}
	m := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-10-04")
	if m.Unrecorded != 3 || m.Open != 1 || m.Applicable != 3 {
		t.Fatalf("metrics %+v", m)
	}
}

func TestEventRoutineOccursOncePerDayWhenTheOwnerStartsWork(t *testing.T) {
	s, _ := routineStore(t)
	ctx := context.Background()
	def := routineDef("startup", 1)
	def["trigger"] = map[string]any{"kind": "event", "event": "start-work"}
	mustPublish(t, s, newPub("run-ev", mustRevision(t, s)).add("routineDefinitions", def))
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "startup", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.EnsureOccurrences(ctx); n != 0 {
		t.Fatalf("an event routine was instantiated by the clock: %d", n)
	}
	for range 2 {
		if _, err := s.TriggerEvent(ctx, EventStartWork); err != nil {
			t.Fatal(err)
		}
	}
	var n int64
	s.rdb.Model(&RoutineOccurrence{}).Where("routine_id = 'startup'").Count(&n)
	if n != 1 {
		t.Fatalf("%d occurrences after two taps", n)
	}
	if _, _, err := s.HomeRow(ctx, "hearth:startup@2026-10-01.start-work"); err != nil {
		t.Fatal(err)
	}
}

func TestOutcomeCorrectionsAndFeedbackKeepHistory(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	occ := OccurrenceID("morning", "2026-10-01")
	if err := s.RecordFeedback(ctx, occ, "hard", ""); !errors.Is(err, ErrNoOutcomeYet) {
		t.Fatalf("feedback before an outcome: %v", err)
	}
	if _, err := s.SetActivityState(ctx, "hearth:"+occ, StateSkipped, "", ""); err != nil {
		t.Fatal(err)
	}
	// Corrected: it was done after all (the owner reopens and completes the step).
	if _, err := s.SetActivityState(ctx, "hearth:"+occ, StateAvailable, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordMeasurement(ctx, "hearth:"+occ+":weigh", 72); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordFeedback(ctx, occ, "easy", "yes"); err != nil {
		t.Fatal(err)
	}
	var rows []RoutineOutcome
	s.rdb.Where("occurrence_id = ?", occ).Order("id").Find(&rows)
	got := []string{}
	for _, r := range rows {
		got = append(got, r.Outcome+"/"+r.Effort)
	}
	want := []string{"skipped/", "/", "completed/", "completed/easy"}
	if len(got) != len(want) || got[0] != want[0] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("history %v, want %v", got, want)
	}
	*now = now.Add(24 * time.Hour)
	m := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-10-01")
	if m.Completed != 1 || m.Feedback.Easy != 1 || m.Feedback.Helped != 1 {
		t.Fatalf("metrics %+v", m)
	}
}

func TestOwnerRecordsYesterdayInsideTheReviewWindow(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	workDay(t, s, now, "2026-10-03") // Oct 2 was never opened
	if err := s.RecordPastOutcome(ctx, PastOutcomeCommand{RoutineID: "morning", Date: "2026-10-02", Outcome: OutcomeCompleted}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []PastOutcomeCommand{
		{RoutineID: "morning", Date: "2026-10-03", Outcome: OutcomeCompleted},     // today: use Home
		{RoutineID: "morning", Date: "2026-09-30", Outcome: OutcomeCompleted},     // before the trial
		{RoutineID: "morning", Date: "2026-10-01", Outcome: OutcomeNotApplicable}, // no reason
		{RoutineID: "morning", Date: "2026-10-01", Outcome: "deferred"},           // not a past outcome
	} {
		if err := s.RecordPastOutcome(ctx, bad); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	m := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-10-02")
	if m.Completed != 1 || m.Unrecorded != 1 || !m.Days[1].Late {
		t.Fatalf("metrics %+v", m)
	}
}
