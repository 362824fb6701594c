package models

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// routineDef is a daily two-step routine: a required weigh-in and an optional stretch.
var routineDef = storetest.Routine

// routineStore publishes a New York brief and the routine, with the clock at
// 09:00 New York time on 2026-10-01.
func routineStore(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	s, now := newTestStore(t)
	now.Set(time.Date(2026, 10, 1, 13, 0, 0, 0, time.UTC))
	p := newPub("run-routine", 0).Add("routineDefinitions", routineDef("morning", 1))
	p["brief"] = map[string]any{"date": "2026-10-01", "timeZone": "America/New_York", "text": "Today.", "evidenceIds": []any{}}
	mustPublish(t, s, p)
	return s, now
}

func metricsOf(t *testing.T, s *Store, routine string, revision int64, from, to string) contract.RoutineMetrics {
	t.Helper()
	var m contract.RoutineMetrics
	err := s.Read(context.Background(), func(tx *gorm.DB) error {
		var err error
		m, err = RoutineMetrics(tx, routine, revision, from, to, s.clock())
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
func workDay(t *testing.T, s *Store, now *storetest.Clock, date string) {
	t.Helper()
	d, _ := time.ParseInLocation(time.DateOnly, date, mustZone(t, "America/New_York"))
	now.Set(d.Add(9 * time.Hour).UTC())
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
	now.Advance(24 * time.Hour) // the 7th day has ended
	m := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-10-07")
	if m.Applicable != 7 || m.Completed != 5 || m.Skipped != 1 || m.Unrecorded != 1 ||
		m.Attainment != (contract.Ratio{Completed: 5, Applicable: 7}) || m.Coverage != (contract.CoverageRatio{Observed: 6, Applicable: 7}) {
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
	mustPublish(t, s, newPub("run-focus", mustRevision(t, s)).Add("routineDefinitions", def))
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "focus", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordMeasurement(ctx, "hearth:focus@2026-10-01:weigh", 72); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "hearth:focus@2026-10-01:stretch", StateSkipped, "", ""); err != nil {
		t.Fatal(err)
	}
	now.Advance(24 * time.Hour)
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
	mustPublish(t, s, newPub("run-r2", mustRevision(t, s)).Add("routineDefinitions", r2))
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
	_, _, err = publish(s, ctx, "cred-test", newPub("run-rewrite", mustRevision(t, s)).Add("routineDefinitions", changed).JSON())
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
		now.Set(c.at)
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
	mustPublish(t, s, newPub("run-ev", mustRevision(t, s)).Add("routineDefinitions", def))
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "startup", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.EnsureOccurrences(ctx); n != 0 {
		t.Fatalf("an event routine was instantiated by the clock: %d", n)
	}
	for i := range 2 {
		n, err := s.TriggerEvent(ctx, contract.EventStartWork)
		if err != nil || n != 1-i {
			t.Fatalf("tap %d created %d, %v: want 1, then 0", i+1, n, err)
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
	now.Advance(24 * time.Hour)
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

func TestRoutineContractRefusesBadDefinitionsAndReviewsWithPaths(t *testing.T) {
	for _, c := range []struct {
		name, path string
		mutate     func(p pub)
	}{
		{"unknown trigger", "/routineDefinitions/0/trigger/kind", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["trigger"] = map[string]any{"kind": "hourly"}
		}},
		{"weekly without days", "/routineDefinitions/0/trigger/days", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["trigger"] = map[string]any{"kind": "weekly"}
		}},
		{"bad weekday", "/routineDefinitions/0/trigger/days/0", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["trigger"] = map[string]any{"kind": "weekly", "days": []any{8}}
		}},
		{"event without event", "/routineDefinitions/0/trigger/event", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["trigger"] = map[string]any{"kind": "event"}
		}},
		{"bad time", "/routineDefinitions/0/trigger/timeOfDay", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["trigger"] = map[string]any{"kind": "daily", "timeOfDay": "25:00"}
		}},
		{"min-steps beyond steps", "/routineDefinitions/0/completionRule/n", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["completionRule"] = map[string]any{"kind": "min-steps", "n": 3}
		}},
		{"no steps", "/routineDefinitions/0/steps", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["steps"] = []any{}
		}},
		{"routine step kind", "/routineDefinitions/0/steps/0/kind", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["steps"].([]any)[0].(map[string]any)["kind"] = "routine"
		}},
		{"unknown status", "/routineDefinitions/0/status", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["status"] = "active"
		}},
		{"revision zero", "/routineDefinitions/0/revision", func(p pub) {
			p["routineDefinitions"].([]any)[0].(map[string]any)["revision"] = 0
		}},
		{"no hashed life source", "/routineDefinitions/0/evidenceIds", func(p pub) {
			p["sourceRefs"] = append(p["sourceRefs"].([]any), map[string]any{"id": "chat", "kind": "beeper", "accountId": "a", "chatId": "c", "observedAt": "2026-09-29T06:58:00Z"})
			p["routineDefinitions"].([]any)[0].(map[string]any)["evidenceIds"] = []any{"chat"}
		}},
		{"review of an unknown revision", "/reviews/0/revision", func(p pub) {
			p["reviews"] = []any{review("rv", "morning", 9)}
		}},
		{"review window backwards", "/reviews/0/window", func(p pub) {
			rv := review("rv", "morning", 1)
			rv["window"] = map[string]any{"from": "2026-10-07", "to": "2026-10-01"}
			p["reviews"] = []any{rv}
		}},
		{"hearth: activity ID", "/activities/0/id", func(p pub) { p.Add("activities", task("hearth:mine")) }},
		{"retracting an occurrence", "/retractions/0/id", func(p pub) {
			p.Add("retractions", map[string]any{"kind": "activity", "id": "hearth:morning@2026-09-29"})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newTestStore(t)
			p := newPub("run-1", 0).Add("routineDefinitions", routineDef("morning", 1))
			c.mutate(p)
			_, _, err := publish(s, context.Background(), "cred-test", p.JSON())
			assertFieldError(t, err, c.path)
			if mustRevision(t, s) != 0 {
				t.Fatal("a refused publication wrote")
			}
		})
	}
	s, _ := newTestStore(t)
	p := newPub("run-null", 0)
	p["routineDefinitions"] = nil
	if _, _, err := publish(s, context.Background(), "cred-test", p.JSON()); err == nil {
		t.Fatal("routineDefinitions: null was accepted")
	}
}

func review(id, routine string, revision int64) map[string]any {
	return map[string]any{"id": id, "routineId": routine, "revision": revision,
		"window":       map[string]any{"from": "2026-10-01", "to": "2026-10-07"},
		"observations": []any{"Weigh-ins happened on workdays"}, "uncertainties": []any{"One week is little data"},
		"proposals":   []any{map[string]any{"id": "p1", "text": "Drop the stretch on weekends"}, map[string]any{"id": "p2", "text": "Move it to 8:00"}},
		"evidenceIds": []any{"life-1"}}
}

func TestReviewKeepsItsCountsAndProposalDecisionsBecomeRequests(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1, WindowDays: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordMeasurement(ctx, "hearth:morning@2026-10-01:weigh", 72); err != nil {
		t.Fatal(err)
	}
	workDay(t, s, now, "2026-10-08")
	mustPublish(t, s, newPub("run-review", mustRevision(t, s)).Add("reviews", review("rv-1", "morning", 1)))
	v, err := s.Routines(ctx)
	if err != nil || len(v.Routines) != 1 || len(v.Routines[0].Reviews) != 1 {
		t.Fatalf("routines %+v, %v", v, err)
	}
	rv := v.Routines[0].Reviews[0]
	if rv.BasedOn.Completed != 1 || rv.BasedOn.Applicable != 7 || rv.BasedOn.Unrecorded != 6 {
		t.Fatalf("the review's counts %+v", rv.BasedOn)
	}
	if _, err := s.DecideProposal(ctx, ProposalDecision{RequestID: "req-p1", ReviewID: "rv-1", ProposalID: "p1", Decision: DecisionModify}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("modify without words: %v", err)
	}
	req, err := s.DecideProposal(ctx, ProposalDecision{RequestID: "req-p1", ReviewID: "rv-1", ProposalID: "p1", Decision: DecisionModify, Words: "Only on Sundays"})
	if err != nil || req.Kind != contract.RequestRoutineChange || req.Status != contract.RequestPending || req.EntityID != "morning" || req.Proposal.Decision != DecisionModify {
		t.Fatalf("request %+v, %v", req, err)
	}
	if again, err := s.DecideProposal(ctx, ProposalDecision{RequestID: "req-p1", ReviewID: "rv-1", ProposalID: "p1", Decision: DecisionModify, Words: "Only on Sundays"}); err != nil || again.RequestID != "req-p1" {
		t.Fatalf("double submit: %+v, %v", again, err)
	}
	if _, err := s.DecideProposal(ctx, ProposalDecision{RequestID: "req-other", ReviewID: "rv-1", ProposalID: "p1", Decision: DecisionReject}); !errors.Is(err, ErrAlreadyDecided) {
		t.Fatalf("a second decision: %v", err)
	}
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range ac.Requests.Items {
		found = found || (r.RequestID == "req-p1" && r.Kind == contract.RequestRoutineChange && r.Text == `Modify "Drop the stretch on weekends": Only on Sundays`)
	}
	if !found {
		t.Fatalf("the agent does not see the decision: %+v", ac.Requests.Items)
	}
}

func TestAgentContextCarriesRoutinesTrialsOccurrencesAndMetrics(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "hearth:morning@2026-10-01", StateSkipped, "", "late start"); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordFeedback(ctx, OccurrenceID("morning", "2026-10-01"), "hard", "unsure"); err != nil {
		t.Fatal(err)
	}
	workDay(t, s, now, "2026-10-02")
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := ac.RoutineDefinitions.Items; len(d) != 1 || d[0].Revision != 1 || len(d[0].RevisionsWithOccurrences) != 1 {
		t.Fatalf("definitions %+v", d)
	}
	if tr := ac.Trials.Items; len(tr) != 1 || tr[0].State != "active" || tr[0].StartsOn != "2026-10-01" {
		t.Fatalf("trials %+v", tr)
	}
	occ := ac.Occurrences.Items
	if len(occ) != 2 || occ[0].Outcome != OutcomeSkipped || occ[0].Effort != "hard" || len(occ[0].History) != 2 || occ[1].Outcome != OutcomeOpen {
		t.Fatalf("occurrences %+v", occ)
	}
	if m := ac.RoutineMetrics.Items; len(m) != 1 || m[0].Skipped != 1 || m[0].Applicable != 1 || m[0].Open != 1 || m[0].Days != nil {
		t.Fatalf("metrics %+v", m)
	}
	body, _ := json.Marshal(ac)
	for _, key := range []string{`"routineDefinitions"`, `"trials"`, `"occurrences"`, `"routineMetrics"`, `"attainment":{"completed":0,"applicable":1}`, `"coverage":{"observed":1,"applicable":1}`} {
		if !strings.Contains(string(body), key) {
			t.Errorf("context JSON lacks %s", key)
		}
	}
}

// trialCounts reads the Routines page and returns the metrics of routine's newest trial.
func trialCounts(t *testing.T, s *Store, routine string) contract.RoutineMetrics {
	t.Helper()
	v, err := s.Routines(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Routines {
		if c.ID == routine && len(c.Trials) > 0 {
			return c.Trials[0].Metrics
		}
	}
	t.Fatalf("no trial of %s on the Routines page", routine)
	return contract.RoutineMetrics{}
}

func TestRoutinesPageCountsFollowEveryChange(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	other := routineDef("evening", 1)
	// No weigh-in in the evening: the morning's would count for it too.
	other["steps"] = []any{map[string]any{"id": "read", "title": "Read", "kind": "task", "required": true, "payload": map[string]any{}}}
	mustPublish(t, s, newPub("run-evening", mustRevision(t, s)).Add("routineDefinitions", other))
	for _, id := range []string{"morning", "evening"} {
		if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: id, Revision: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if m := trialCounts(t, s, "morning"); m.Open != 1 || m.Applicable != 0 {
		t.Fatalf("before any outcome: %+v", m)
	}
	trialCounts(t, s, "evening") // counted once, then reused
	// A step's value completes the routine (its only required step).
	if _, err := s.RecordMeasurement(ctx, "hearth:morning@2026-10-01:weigh", 72); err != nil {
		t.Fatal(err)
	}
	if m := trialCounts(t, s, "morning"); m.Completed != 1 || m.Applicable != 1 || m.Steps[0].Saved != 1 {
		t.Fatalf("after the weigh-in: %+v", m)
	}
	// A step that does not change the outcome still changes the step counts.
	if _, err := s.SetActivityState(ctx, "hearth:morning@2026-10-01:stretch", StateSkipped, "", ""); err != nil {
		t.Fatal(err)
	}
	if m := trialCounts(t, s, "morning"); m.Steps[1].Skipped != 1 || m.Completed != 1 {
		t.Fatalf("after skipping the stretch: %+v", m.Steps)
	}
	if err := s.RecordFeedback(ctx, OccurrenceID("morning", "2026-10-01"), "easy", ""); err != nil {
		t.Fatal(err)
	}
	if m := trialCounts(t, s, "morning"); m.Feedback.Easy != 1 {
		t.Fatalf("after feedback: %+v", m.Feedback)
	}
	// The evening's day ends with no commit: it is no record from then on.
	if m := trialCounts(t, s, "evening"); m.Open != 1 {
		t.Fatalf("evening before midnight: %+v", m)
	}
	now.Advance(24 * time.Hour)
	if m := trialCounts(t, s, "evening"); m.Open != 1 || m.Unrecorded != 1 {
		t.Fatalf("evening the next day: %+v", m)
	}
	// "I did it yesterday" replaces that no record.
	if err := s.RecordPastOutcome(ctx, PastOutcomeCommand{RoutineID: "evening", Date: "2026-10-01", Outcome: OutcomeCompleted}); err != nil {
		t.Fatal(err)
	}
	if m := trialCounts(t, s, "evening"); m.Unrecorded != 0 || m.Completed != 1 || !m.Days[0].Late {
		t.Fatalf("evening after the late record: %+v", m)
	}
}

func TestHomeOffersEventButtonsAndShowsOccurrenceOutcomes(t *testing.T) {
	s, _ := routineStore(t)
	ctx := context.Background()
	def := routineDef("startup", 1)
	def["trigger"] = map[string]any{"kind": "event", "event": "start-work"}
	def["steps"] = []any{map[string]any{"id": "inbox", "title": "Answer the team", "kind": "reply", "required": true, "payload": map[string]any{"chatId": "chat-team"}}}
	mustPublish(t, s, newPub("run-ev", mustRevision(t, s)).Add("routineDefinitions", def))
	if h := mustHome(t, s); len(h.Events) != 0 {
		t.Fatalf("events before any trial: %+v", h.Events)
	}
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "startup", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if h := mustHome(t, s); len(h.Events) != 1 || h.Events[0] != (EventTrigger{Event: contract.EventStartWork}) {
		t.Fatalf("events with a trial: %+v", h.Events)
	}
	if _, err := s.TriggerEvent(ctx, contract.EventStartWork); err != nil {
		t.Fatal(err)
	}
	h := mustHome(t, s)
	if len(h.Events) != 1 || !h.Events[0].Done {
		t.Fatalf("events after the tap: %+v", h.Events)
	}
	row, _, err := s.HomeRow(ctx, "hearth:startup@2026-10-01.start-work")
	if err != nil || row.Occurrence == nil || row.Occurrence.ID != "startup@2026-10-01.start-work" || row.Occurrence.Outcome != "" {
		t.Fatalf("occurrence row %+v, %v", row.Occurrence, err)
	}
	if chat, ok := row.Children[0].RoutineReplyChat(); !ok || chat != "chat-team" {
		t.Fatalf("reply step chat %q %v", chat, ok)
	}
	if _, err := s.SetActivityState(ctx, row.ID, StatePartial, "", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordFeedback(ctx, row.Occurrence.ID, "", "unsure"); err != nil {
		t.Fatal(err)
	}
	row, _, _ = s.HomeRow(ctx, row.ID)
	if o := row.Occurrence; o.Outcome != OutcomePartial || o.Helped != "unsure" || o.Effort != "" {
		t.Fatalf("after partial and feedback: %+v", o)
	}
}

func TestRoutinesPageCountsByMonthEqualTheWholeWindow(t *testing.T) {
	s, now := routineStore(t)
	ctx := context.Background()
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1, WindowDays: 60}); err != nil {
		t.Fatal(err)
	}
	start, _ := time.Parse(time.DateOnly, "2026-10-01")
	unrecorded := []string{}
	for i := range 45 { // Oct 1 to Nov 14, across a DST change and a month end
		date := start.AddDate(0, 0, i).Format(time.DateOnly)
		workDay(t, s, now, date)
		act := "hearth:morning@" + date
		var err error
		switch i % 6 {
		case 0:
			_, err = s.RecordMeasurement(ctx, act+":weigh", 72)
		case 1:
			_, err = s.SetActivityState(ctx, act, StateSkipped, "", "late")
		case 2:
			_, err = s.SetActivityState(ctx, act, StateDismissed, "", "travelling")
		case 3:
			_, err = s.SetActivityState(ctx, act+":stretch", StateSkipped, "", "")
		case 4:
			_, err = s.SetActivityState(ctx, act, StatePartial, "", "")
			if err == nil {
				err = s.RecordFeedback(ctx, OccurrenceID("morning", date), "hard", "no")
			}
		default:
			unrecorded = append(unrecorded, date)
		}
		if err != nil {
			t.Fatalf("%s: %v", date, err)
		}
	}
	workDay(t, s, now, "2026-11-15")
	same := func(when string) {
		t.Helper()
		page := trialCounts(t, s, "morning")
		whole := metricsOf(t, s, "morning", 1, "2026-10-01", "2026-11-15")
		if !reflect.DeepEqual(page, whole) {
			t.Fatalf("%s: by month %+v\nwhole %+v", when, page, whole)
		}
	}
	same("first read")
	// A late record in October and feedback in November change only their months.
	if err := s.RecordPastOutcome(ctx, PastOutcomeCommand{RoutineID: "morning", Date: unrecorded[0], Outcome: OutcomeCompleted}); err != nil {
		t.Fatal(err)
	}
	same("after a late record in October")
	if err := s.RecordFeedback(ctx, OccurrenceID("morning", "2026-11-13"), "easy", ""); err != nil {
		t.Fatal(err)
	}
	same("after feedback in November")
	if m := trialCounts(t, s, "morning"); m.Applicable+m.NotApplicable+m.Open != 46 || m.Feedback.Easy != 1 {
		t.Fatalf("counts %+v", m)
	}
}

func TestARestingWeeklyRoutineDoesNotMakeHomeWrite(t *testing.T) {
	s, _ := routineStore(t)
	ctx := context.Background()
	def := routineDef("weekly", 1)
	def["trigger"] = map[string]any{"kind": "weekly", "days": []any{1}} // Mondays; 2026-10-01 is a Thursday
	mustPublish(t, s, newPub("run-weekly", mustRevision(t, s)).Add("routineDefinitions", def))
	if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "weekly", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	before := mustRevision(t, s)
	var writes int // any statement on the writer pool: a write transaction was opened
	s.db.Callback().Query().Before("gorm:query").Register("count-writer-queries", func(*gorm.DB) { writes++ })
	if n, err := s.EnsureOccurrences(ctx); err != nil || n != 0 || mustRevision(t, s) != before || writes != 0 {
		t.Fatalf("a resting weekly routine: created %d, %v, revision %d → %d, %d writes", n, err, before, mustRevision(t, s), writes)
	}
}
