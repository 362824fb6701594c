package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/internal/storetest"
)

func startRun(t *testing.T, s *Store, runner string, in contract.RunStartIn, costCap float64) contract.RunStart {
	t.Helper()
	st, err := s.StartRun(context.Background(), runner, in, costpolicy.Policy{Cap: costCap})
	if err != nil {
		t.Fatalf("StartRun(%+v): %v", in, err)
	}
	return st
}

func TestAScheduleRunClaimsItsOccurrenceAndFinishesIt(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	at := testNow.Add(time.Hour)
	mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "brief", "at": at.Format(time.RFC3339)}))
	now.Set(at.Add(time.Minute))
	id := "brief"
	st := startRun(t, s, "cred-runner", contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &id}, 0)
	if !st.Admitted || st.Run.OccurrenceID == "" || st.Prompt == "" {
		t.Fatalf("start %+v", st)
	}
	// A second runner's claim of the same schedule admits nothing.
	if other := startRun(t, s, "cred-other", contract.RunStartIn{RunID: "run-2", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &id}, 0); other.Admitted {
		t.Fatalf("a second claim admitted %+v", other)
	}
	// The same runId again is the same run (a runner restarted around its claim), not a second claim.
	if again := startRun(t, s, "cred-runner", contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &id}, 0); !again.Admitted || again.Run.ID != "run-1" {
		t.Fatalf("restart %+v", again)
	}
	if _, err := s.StartInvocation(ctx, "cred-other", "run-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another runner's invocation: %v", err)
	}
	if _, err := s.StartInvocation(ctx, "cred-runner", "run-1"); err != nil {
		t.Fatal(err)
	}
	pubRun, rev, cost := "run-1-1", int64(2), 0.4
	run, err := s.FinishRun(ctx, "cred-runner", "run-1", contract.RunFinishIn{Outcome: contract.RunSucceeded, PublicationRunID: &pubRun, PublicationRevision: &rev, DurationMS: 1500, CostUSD: &cost})
	if err != nil || run.State != contract.RunSucceeded || run.CostUSD != 0.4 {
		t.Fatalf("finish %+v, %v", run, err)
	}
	if v, _ := s.Schedule(ctx, "brief"); v.Counters.Succeeded != 1 {
		t.Fatalf("the occurrence's outcome was not recorded: %+v", v.Counters)
	}
	if _, err := s.FinishRun(ctx, "cred-runner", "run-1", contract.RunFinishIn{Outcome: contract.RunFailed}); !errors.Is(err, ErrRunFinished) {
		t.Fatalf("finishing twice: %v", err)
	}
}

func TestARunHasAtMostThreeAgentInvocations(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	startRun(t, s, "r", contract.RunStartIn{RunID: "run-1", Job: "brief", Trigger: contract.TriggerManual}, 0)
	for i := range contract.MaxRunInvocations {
		if v, err := s.StartInvocation(ctx, "r", "run-1"); err != nil || v.Invocations != i+1 {
			t.Fatalf("invocation %d: %+v, %v", i+1, v, err)
		}
	}
	if _, err := s.StartInvocation(ctx, "r", "run-1"); !errors.Is(err, ErrAttemptsExhausted) {
		t.Fatalf("a fourth invocation: %v", err)
	}
}

func TestTheCostCapHoldsAutonomousRunsButNotTheOwners(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	startRun(t, s, "r", contract.RunStartIn{RunID: "run-1", Job: "brief", Trigger: contract.TriggerManual}, 1)
	cost := 2.25 // past every priority's limit (the high tier is 2× the cap)
	if _, err := s.StartInvocation(ctx, "r", "run-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishRun(ctx, "r", "run-1", contract.RunFinishIn{Outcome: contract.RunSucceeded, CostUSD: &cost}); err != nil {
		t.Fatal(err)
	}
	held := startRun(t, s, "r", contract.RunStartIn{RunID: "run-2", Job: "messages", Trigger: contract.TriggerWatch}, 1)
	if held.Admitted || held.Hold != contract.HoldCostCap {
		t.Fatalf("a watch run past the cap: %+v", held)
	}
	if owner := startRun(t, s, "r", contract.RunStartIn{RunID: "run-3", Job: "brief", Trigger: contract.TriggerManual}, 1); !owner.Admitted {
		t.Fatalf("the owner's run was held: %+v", owner)
	}
	n, err := homeNotice(ctx, s, costpolicy.Policy{Cap: 1})
	if err != nil || !n.CapHeld || n.Spent != 2.25 {
		t.Fatalf("Home's notice %+v, %v", n, err)
	}
}

// TestCostTiersHoldPrioritiesInOrderAsTheDaysCostRises: with a $1 cap, low
// waits from $1, normal from $1.50 and high (the morning brief by default)
// from $2; a job's configured priority wins; the owner's runs always go.
func TestCostTiersHoldPrioritiesInOrderAsTheDaysCostRises(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	costs := costpolicy.Policy{Cap: 1, Jobs: map[string]string{"tidy": costpolicy.Low}}
	run := 0
	spend := func(usd float64) {
		t.Helper()
		run++
		id := fmt.Sprintf("spend-%d", run)
		if st, err := s.StartRun(ctx, "r", contract.RunStartIn{RunID: id, Job: "owner", Trigger: contract.TriggerManual}, costs); err != nil || !st.Admitted {
			t.Fatalf("the owner's run: %+v, %v", st, err)
		}
		if _, err := s.FinishRun(ctx, "r", id, contract.RunFinishIn{Outcome: contract.RunSucceeded, CostUSD: &usd}); err != nil {
			t.Fatal(err)
		}
	}
	admitted := func(job string) bool {
		t.Helper()
		run++
		st, err := s.StartRun(ctx, "r", contract.RunStartIn{RunID: fmt.Sprintf("w-%d", run), Job: job, Trigger: contract.TriggerWatch}, costs)
		if err != nil {
			t.Fatal(err)
		}
		if st.Admitted {
			s.FinishRun(ctx, "r", fmt.Sprintf("w-%d", run), contract.RunFinishIn{Outcome: contract.RunSucceeded})
		} else if st.Hold != contract.HoldCostCap {
			t.Fatalf("%s held for %q", job, st.Hold)
		}
		return st.Admitted
	}
	for _, step := range []struct {
		spend             float64
		low, normal, high bool
		held              []string
	}{
		{0.5, true, true, true, nil},
		{0.5, false, true, true, []string{costpolicy.Low}},                                       // $1.00
		{0.5, false, false, true, []string{costpolicy.Low, costpolicy.Normal}},                   // $1.50
		{0.5, false, false, false, []string{costpolicy.Low, costpolicy.Normal, costpolicy.High}}, // $2.00
	} {
		spend(step.spend)
		if got := [3]bool{admitted("tidy"), admitted("messages"), admitted("daily-brief")}; got != [3]bool{step.low, step.normal, step.high} {
			t.Fatalf("after spending to %+v: low, normal, high admitted %v", step, got)
		}
		n, err := homeNotice(ctx, s, costs)
		if err != nil || !slices.Equal(n.Held, step.held) || n.CapHeld != (len(step.held) > 0) {
			t.Fatalf("Home's notice %+v (%v), want held %v", n, err, step.held)
		}
	}
}

func TestAnUnknownRunHoldsItsScheduleUntilTheOwnerLooked(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "daily", "cron": "0 * * * *", "zone": "UTC"}))
	now.Set(testNow.Truncate(time.Hour).Add(time.Hour + time.Minute))
	id := "daily"
	startRun(t, s, "r", contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &id}, 0)
	if _, err := s.StartInvocation(ctx, "r", "run-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishRun(ctx, "r", "run-1", contract.RunFinishIn{Outcome: contract.RunUnknown, Detail: "the runner stopped"}); err != nil {
		t.Fatal(err)
	}
	now.Advance(time.Hour)
	if held := startRun(t, s, "r", contract.RunStartIn{RunID: "run-2", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &id}, 0); held.Admitted {
		t.Fatalf("a schedule with an unknown outcome admitted its next occurrence: %+v", held)
	}
	if _, err := s.ResolveRun(ctx, "run-1"); err != nil {
		t.Fatal(err)
	}
	if next := startRun(t, s, "r", contract.RunStartIn{RunID: "run-3", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &id}, 0); !next.Admitted {
		t.Fatalf("after the owner looked, nothing was admitted: %+v", next)
	}
	n, _ := homeNotice(ctx, s, costpolicy.Policy{})
	if n.Failed == nil || n.Failed.ID != "run-1" {
		t.Fatalf("Home's notice does not name the unknown run: %+v", n)
	}
}

// dueBrief creates the one-off schedule "brief" (job morning) and moves the
// clock past its instant, so its occurrence is due and unclaimed.
func dueBrief(t *testing.T, s *Store, now *storetest.Clock) string {
	t.Helper()
	at := testNow.Add(time.Hour)
	mustCreate(t, s, opsActor, schedBody("k-brief", map[string]any{"id": "brief", "at": at.Format(time.RFC3339)}))
	now.Set(at.Add(time.Minute))
	return "brief/" + at.UTC().Format(time.RFC3339)
}

// assertStillDue fails unless schedule brief's occurrence is due and nothing claimed it.
func assertStillDue(t *testing.T, s *Store, occurrence string) {
	t.Helper()
	if v := mustView(t, s, "brief"); v.Outstanding != nil || v.Counters.Admitted != 0 {
		t.Errorf("the occurrence was claimed: outstanding %+v, %d admitted", v.Outstanding, v.Counters.Admitted)
	}
	if got := dueIDs(mustDue(t, s, s.Now())); len(got) != 1 || got[0] != occurrence {
		t.Errorf("due %v, want [%s]", got, occurrence)
	}
}

func TestARefusedRunStartClaimsNothing(t *testing.T) {
	ctx := context.Background()
	brief, dots := "brief", "..."
	for _, tc := range []struct {
		name string
		in   contract.RunStartIn
		path string // the field named in the 422; "" for another refusal
		want error
	}{
		{"mistyped job", contract.RunStartIn{RunID: "run-1", Job: "mornin", Trigger: contract.TriggerSchedule, ScheduleID: &brief}, "/job", nil},
		{"bad run ID", contract.RunStartIn{RunID: "run 1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &brief}, "/runId", nil},
		{"dot run ID", contract.RunStartIn{RunID: ".", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &brief}, "/runId", nil},
		{"dots job", contract.RunStartIn{RunID: "run-1", Job: "..", Trigger: contract.TriggerSchedule, ScheduleID: &brief}, "/job", nil},
		{"dots schedule ID", contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &dots}, "/scheduleId", nil},
		{"unknown trigger", contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: "cron", ScheduleID: &brief}, "/trigger", nil},
		{"a run ID of another run", contract.RunStartIn{RunID: "taken", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &brief}, "", ErrRunExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, now := newTestStore(t)
			occurrence := dueBrief(t, s, now)
			startRun(t, s, "r", contract.RunStartIn{RunID: "taken", Job: "other", Trigger: contract.TriggerManual}, 0)
			_, err := s.StartRun(ctx, "r", tc.in, costpolicy.Policy{})
			switch {
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("StartRun: %v, want %v", err, tc.want)
			case tc.path != "" && !isInvalidAt(err, tc.path):
				t.Errorf("StartRun: %v, want a 422 naming %s", err, tc.path)
			}
			assertStillDue(t, s, occurrence)
			st := startRun(t, s, "r", contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &brief}, 0)
			if !st.Admitted || st.Run.OccurrenceID != occurrence {
				t.Errorf("the correct start after the refusal: %+v", st)
			}
		})
	}
}

func TestAFailedRunRowRollsBackItsClaim(t *testing.T) {
	s, now := newTestStore(t)
	occurrence := dueBrief(t, s, now)
	// A real failure of the run insert, inside the database: the claim has
	// already been applied when it fires.
	must(t, s.db.Exec(`CREATE TRIGGER refuse_runs BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'injected: the run row cannot be written'); END`).Error)
	brief := "brief"
	in := contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &brief}
	if st, err := s.StartRun(context.Background(), "r", in, costpolicy.Policy{}); err == nil {
		t.Fatalf("StartRun succeeded with the run insert failing: %+v", st)
	}
	assertStillDue(t, s, occurrence)
	must(t, s.db.Exec(`DROP TRIGGER refuse_runs`).Error)
	if st := startRun(t, s, "r", in, 0); !st.Admitted || st.Run.OccurrenceID != occurrence {
		t.Fatalf("the retry: %+v", st)
	}
}

func TestTheClaimAndTheRunRowCommitTogether(t *testing.T) {
	dir := t.TempDir()
	clock := storetest.NewClock(testNow)
	paused, release := make(chan struct{}), make(chan struct{})
	s, err := Open(context.Background(), dir, Options{Clock: clock.Now, Pause: func(point string) {
		if point == PauseRunClaimed {
			close(paused)
			<-release
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	occurrence := dueBrief(t, s, clock)
	brief := "brief"
	done := make(chan error, 1)
	go func() {
		_, err := s.StartRun(context.Background(), "r", contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &brief}, costpolicy.Policy{})
		done <- err
	}()
	<-paused
	// Another connection (as another process would) sees neither the claim nor the run.
	other, err := OpenExisting(context.Background(), dir, Options{Clock: func() time.Time { return testNow.Add(time.Hour + time.Minute) }})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	assertStillDue(t, other, occurrence)
	if runs, err := other.Runs(context.Background()); err != nil || len(runs.Runs) != 0 {
		t.Errorf("runs while the start is in flight: %+v, %v", runs.Runs, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	v := mustView(t, other, "brief")
	runs, err := other.Runs(context.Background())
	if err != nil || len(runs.Runs) != 1 || v.Outstanding == nil || runs.Runs[0].OccurrenceID != v.Outstanding.ID {
		t.Fatalf("after the commit: outstanding %+v, runs %+v, %v", v.Outstanding, runs.Runs, err)
	}
}

func TestARetriedScheduleRunStartAnswersTheApprovedPromptAgain(t *testing.T) {
	s, now := newTestStore(t)
	mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "brief", "cron": "0 8 * * *", "zone": "UTC", "limits": map[string]any{"deadlineSeconds": 120, "maxInvocations": 2}}))
	now.Set(testNow.Add(2 * time.Hour))
	brief := "brief"
	in := contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &brief}
	first := startRun(t, s, "r", in, 0)
	// The runner stopped before it saved the answer and starts the same run again.
	again := startRun(t, s, "r", in, 0)
	if !again.Admitted || again.Run.ID != "run-1" || again.Prompt != first.Prompt || again.Prompt == "" ||
		again.DeadlineSecs != 120 || again.MaxInvocations != 2 {
		t.Fatalf("first start %+v, the retry %+v: want the same run, prompt and limits", first, again)
	}
	// The same runId for another schedule is another run's ID.
	other := "other"
	mustCreate(t, s, opsActor, schedBody("k2", map[string]any{"id": "other", "cron": "0 8 * * *", "zone": "UTC"}))
	if _, err := s.StartRun(context.Background(), "r", contract.RunStartIn{RunID: "run-1", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &other}, costpolicy.Policy{}); !errors.Is(err, ErrRunExists) {
		t.Fatalf("run-1 for another schedule: %v, want ErrRunExists", err)
	}
}
