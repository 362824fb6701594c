package models

import (
	"context"
	"errors"
	"testing"
	"time"
)

func startRun(t *testing.T, s *Store, runner string, in RunStartIn, costCap float64) RunStart {
	t.Helper()
	st, err := s.StartRun(context.Background(), runner, in, costCap)
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
	*now = at.Add(time.Minute)
	id := "brief"
	st := startRun(t, s, "cred-runner", RunStartIn{RunID: "run-1", Job: "morning", Trigger: TriggerSchedule, ScheduleID: &id}, 0)
	if !st.Admitted || st.Run.OccurrenceID == "" || st.Prompt == "" {
		t.Fatalf("start %+v", st)
	}
	// A second runner's claim of the same schedule admits nothing.
	if other := startRun(t, s, "cred-other", RunStartIn{RunID: "run-2", Job: "morning", Trigger: TriggerSchedule, ScheduleID: &id}, 0); other.Admitted {
		t.Fatalf("a second claim admitted %+v", other)
	}
	// The same runId again is the same run (a runner restarted around its claim), not a second claim.
	if again := startRun(t, s, "cred-runner", RunStartIn{RunID: "run-1", Job: "morning", Trigger: TriggerSchedule, ScheduleID: &id}, 0); !again.Admitted || again.Run.ID != "run-1" {
		t.Fatalf("restart %+v", again)
	}
	if _, err := s.StartInvocation(ctx, "cred-other", "run-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another runner's invocation: %v", err)
	}
	if _, err := s.StartInvocation(ctx, "cred-runner", "run-1"); err != nil {
		t.Fatal(err)
	}
	pubRun, rev, cost := "run-1-1", int64(2), 0.4
	run, err := s.FinishRun(ctx, "cred-runner", "run-1", RunFinishIn{Outcome: RunSucceeded, PublicationRunID: &pubRun, PublicationRevision: &rev, DurationMS: 1500, CostUSD: &cost})
	if err != nil || run.State != RunSucceeded || run.CostUSD != 0.4 {
		t.Fatalf("finish %+v, %v", run, err)
	}
	if v, _ := s.Schedule(ctx, "brief"); v.Counters.Succeeded != 1 {
		t.Fatalf("the occurrence's outcome was not recorded: %+v", v.Counters)
	}
	if _, err := s.FinishRun(ctx, "cred-runner", "run-1", RunFinishIn{Outcome: RunFailed}); !errors.Is(err, ErrRunFinished) {
		t.Fatalf("finishing twice: %v", err)
	}
}

func TestARunHasAtMostThreeAgentInvocations(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	startRun(t, s, "r", RunStartIn{RunID: "run-1", Job: "brief", Trigger: TriggerManual}, 0)
	for i := range MaxRunInvocations {
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
	startRun(t, s, "r", RunStartIn{RunID: "run-1", Job: "brief", Trigger: TriggerManual}, 1)
	cost := 1.25
	if _, err := s.StartInvocation(ctx, "r", "run-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishRun(ctx, "r", "run-1", RunFinishIn{Outcome: RunSucceeded, CostUSD: &cost}); err != nil {
		t.Fatal(err)
	}
	held := startRun(t, s, "r", RunStartIn{RunID: "run-2", Job: "messages", Trigger: TriggerWatch}, 1)
	if held.Admitted || held.Hold != HoldCostCap {
		t.Fatalf("a watch run past the cap: %+v", held)
	}
	if owner := startRun(t, s, "r", RunStartIn{RunID: "run-3", Job: "brief", Trigger: TriggerManual}, 1); !owner.Admitted {
		t.Fatalf("the owner's run was held: %+v", owner)
	}
	n, err := s.HomeRunNotice(ctx, 1)
	if err != nil || !n.CapHeld || n.Spent != 1.25 {
		t.Fatalf("Home's notice %+v, %v", n, err)
	}
}

func TestAnUnknownRunHoldsItsScheduleUntilTheOwnerLooked(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "daily", "cron": "0 * * * *", "zone": "UTC"}))
	*now = testNow.Truncate(time.Hour).Add(time.Hour + time.Minute)
	id := "daily"
	startRun(t, s, "r", RunStartIn{RunID: "run-1", Job: "morning", Trigger: TriggerSchedule, ScheduleID: &id}, 0)
	if _, err := s.StartInvocation(ctx, "r", "run-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishRun(ctx, "r", "run-1", RunFinishIn{Outcome: RunUnknown, Detail: "the runner stopped"}); err != nil {
		t.Fatal(err)
	}
	*now = now.Add(time.Hour)
	if held := startRun(t, s, "r", RunStartIn{RunID: "run-2", Job: "morning", Trigger: TriggerSchedule, ScheduleID: &id}, 0); held.Admitted {
		t.Fatalf("a schedule with an unknown outcome admitted its next occurrence: %+v", held)
	}
	if _, err := s.ResolveRun(ctx, "run-1"); err != nil {
		t.Fatal(err)
	}
	if next := startRun(t, s, "r", RunStartIn{RunID: "run-3", Job: "morning", Trigger: TriggerSchedule, ScheduleID: &id}, 0); !next.Admitted {
		t.Fatalf("after the owner looked, nothing was admitted: %+v", next)
	}
	n, _ := s.HomeRunNotice(ctx, 0)
	if n.Failed == nil || n.Failed.ID != "run-1" {
		t.Fatalf("Home's notice does not name the unknown run: %+v", n)
	}
}
