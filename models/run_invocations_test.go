package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/internal/strictjson"
)

// startedRun is a manual run of runner with n invocations started.
func startedRun(t *testing.T, s *Store, runner, runID string, n int) {
	t.Helper()
	startRun(t, s, runner, contract.RunStartIn{RunID: runID, Job: "brief", Trigger: contract.TriggerManual}, 0)
	for range n {
		if _, err := s.StartInvocation(context.Background(), runner, runID); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAnInvocationsEndIsRecordedOnceAndCountsTowardsTheRun(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	startedRun(t, s, "r", "run-1", 1)
	in := contract.InvocationFinishIn{PublicationRunID: "run-1-1", Outcome: contract.InvocationRefused, Tokens: ptr(int64(1200)), CostUSD: ptr(0.25), DurationMS: 900,
		Errors: []contract.RefusalError{{Path: "/activities/0/kind", Expected: "one of: task, reply", Found: `"chore"`}}}
	v, err := s.FinishInvocation(ctx, "r", "run-1", 1, in)
	if err != nil || v.N != 1 || v.Outcome != contract.InvocationRefused || len(v.Errors) != 1 || v.Errors[0].Path != "/activities/0/kind" {
		t.Fatalf("finish invocation: %+v, %v", v, err)
	}
	// The same report again (a runner restarted after reporting) changes nothing.
	if again, err := s.FinishInvocation(ctx, "r", "run-1", 1, in); err != nil || again.Outcome != contract.InvocationRefused {
		t.Fatalf("the same report again: %+v, %v", again, err)
	}
	runs, err := s.Runs(ctx)
	if err != nil || len(runs.Runs) != 1 {
		t.Fatal(runs, err)
	}
	r := runs.Runs[0]
	if r.Tokens != 1200 || r.CostUSD != 0.25 || r.DurationMS != 900 || len(r.InvocationList) != 1 || r.InvocationList[0].Errors[0].Found != `"chore"` {
		t.Fatalf("a replayed report was counted twice or not kept: %+v", r)
	}
	// A different report for the same invocation is a conflict, not an overwrite.
	changed := in
	changed.Outcome = contract.InvocationPublished
	changed.Errors = nil
	if _, err := s.FinishInvocation(ctx, "r", "run-1", 1, changed); !errors.Is(err, contract.ErrIdempotencyConflict) {
		t.Fatalf("a different report: %v", err)
	}
	// The run's finish sums from the invocations: it reports no usage of its own.
	fin, err := s.FinishRun(ctx, "r", "run-1", contract.RunFinishIn{Outcome: contract.RunFailed, Detail: "refused"})
	if err != nil || fin.CostUSD != 0.25 || fin.Tokens != 1200 {
		t.Fatalf("finish %+v, %v", fin, err)
	}
}

func TestAnInvocationReportIsRefusedForAnotherRunnerAnUnstartedOrOverBudgetInvocationAndABadBody(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	startedRun(t, s, "r", "run-1", 1)
	ok := contract.InvocationFinishIn{PublicationRunID: "run-1-1", Outcome: contract.InvocationPublished}
	if _, err := s.FinishInvocation(ctx, "other", "run-1", 1, ok); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another runner's run: %v", err)
	}
	if _, err := s.FinishInvocation(ctx, "r", "no-such-run", 1, ok); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no such run: %v", err)
	}
	two := contract.InvocationFinishIn{PublicationRunID: "run-1-2", Outcome: contract.InvocationPublished}
	if _, err := s.FinishInvocation(ctx, "r", "run-1", 2, two); !errors.Is(err, ErrInvocationNotStarted) {
		t.Fatalf("an invocation not started: %v", err)
	}
	for _, n := range []int{0, contract.MaxRunInvocations + 1} {
		if _, err := s.FinishInvocation(ctx, "r", "run-1", n, ok); !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("invocation %d: %v", n, err)
		}
	}
	var invalid *contract.ValidationError
	for name, in := range map[string]contract.InvocationFinishIn{
		"wrong publication runId": {PublicationRunID: "run-1-2", Outcome: contract.InvocationPublished},
		"unknown outcome":         {PublicationRunID: "run-1-1", Outcome: "maybe"},
		"negative cost":           {PublicationRunID: "run-1-1", Outcome: contract.InvocationFailed, CostUSD: ptr(-1.0)},
		"negative tokens":         {PublicationRunID: "run-1-1", Outcome: contract.InvocationFailed, Tokens: ptr(int64(-1))},
		"negative duration":       {PublicationRunID: "run-1-1", Outcome: contract.InvocationFailed, DurationMS: -1},
		"errors on a publication": {PublicationRunID: "run-1-1", Outcome: contract.InvocationPublished, Errors: []contract.RefusalError{{Path: "/x"}}},
		"too many errors":         {PublicationRunID: "run-1-1", Outcome: contract.InvocationRefused, Errors: make([]contract.RefusalError, contract.MaxRefusalErrors+1)},
		"a huge path":             {PublicationRunID: "run-1-1", Outcome: contract.InvocationRefused, Errors: []contract.RefusalError{{Path: "/" + strings.Repeat("a", 2000)}}},
	} {
		if _, err := s.FinishInvocation(ctx, "r", "run-1", 1, in); !errors.As(err, &invalid) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := s.FinishRun(ctx, "r", "run-1", contract.RunFinishIn{Outcome: contract.RunSucceeded}); err != nil {
		t.Fatal(err)
	}
	// A finished run takes no new report.
	if _, err := s.FinishInvocation(ctx, "r", "run-1", 1, ok); !errors.Is(err, ErrRunFinished) {
		t.Fatalf("a report after the run finished: %v", err)
	}
}

func TestTheCostCapCountsInvocationsOfRunsThatEndUnknownOrAreStillRunning(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	startedRun(t, s, "r", "run-1", 2)
	if _, err := s.FinishInvocation(ctx, "r", "run-1", 1, contract.InvocationFinishIn{PublicationRunID: "run-1-1", Outcome: contract.InvocationConflict, CostUSD: ptr(0.5)}); err != nil {
		t.Fatal(err)
	}
	// Still running: its first invocation's cost already counts.
	if held := startRun(t, s, "r", contract.RunStartIn{RunID: "run-2", Job: "messages", Trigger: contract.TriggerWatch}, 0.25); held.Admitted { // normal priority waits from 1.5 × $0.25
		t.Fatalf("a running run's reported invocation did not count: %+v", held)
	}
	if _, err := s.FinishInvocation(ctx, "r", "run-1", 2, contract.InvocationFinishIn{PublicationRunID: "run-1-2", Outcome: contract.InvocationUnknown, CostUSD: ptr(0.25)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishRun(ctx, "r", "run-1", contract.RunFinishIn{Outcome: contract.RunUnknown, Detail: "stopped"}); err != nil {
		t.Fatal(err)
	}
	n, err := homeNotice(ctx, s, costpolicy.Policy{Cap: 1})
	if err != nil || n.Spent != 0.75 {
		t.Fatalf("spent %v, %v: want both invocations of the unknown run", n.Spent, err)
	}
}

func TestARefusalsFoundNeverCarriesMessageText(t *testing.T) {
	body := "Hi Ana, I can't make Thursday after all because my mother is in hospital again"
	for _, c := range []struct {
		in   strictjson.FieldError
		want contract.RefusalError
	}{
		{strictjson.FieldError{Path: "/replyDrafts/0/candidates/0", Expected: "at most 10 characters", Found: contract.QuoteFound(body)},
			contract.RefusalError{Path: "/replyDrafts/0/candidates/0", Expected: "at most 10 characters", Found: "a text of more than 60 characters"}},
		{strictjson.FieldError{Path: "/activities/0/title", Expected: "string", Found: "string " + contract.QuoteFound("lunch with Ana")},
			contract.RefusalError{Path: "/activities/0/title", Expected: "string", Found: "string, a text of 14 characters"}},
		{strictjson.FieldError{Path: "/activities/0/id", Expected: "an ID", Found: `"bad/id"`},
			contract.RefusalError{Path: "/activities/0/id", Expected: "an ID", Found: `"bad/id"`}},
		{strictjson.FieldError{Path: "/activities/0/" + body, Expected: "kind, title", Found: `field "` + body + `"`},
			contract.RefusalError{Path: "/activities/0/…", Expected: "kind, title", Found: "field, a text of 78 characters"}},
		{strictjson.FieldError{Path: "/people/0/score", Expected: "number", Found: "null"},
			contract.RefusalError{Path: "/people/0/score", Expected: "number", Found: "null"}},
	} {
		got := contract.RefusalErrorOf(c.in)
		if got != c.want {
			t.Errorf("RefusalErrorOf(%+v)\n got %+v\nwant %+v", c.in, got, c.want)
		}
		if again := got.Redacted(); again != got {
			t.Errorf("redaction is not stable: %+v then %+v", got, again)
		}
	}
}

func TestAReportedCountAboveItsLimitIsRefusedNamingTheFieldAndTheLimit(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	startedRun(t, s, "r", "run-1", 1)
	huge := int64(math.MaxInt64 - 1)
	for name, c := range map[string]struct {
		in    contract.InvocationFinishIn
		field string
		limit string
	}{
		"tokens":   {contract.InvocationFinishIn{PublicationRunID: "run-1-1", Outcome: contract.InvocationFailed, Tokens: &huge}, "/tokens", fmt.Sprint(contract.MaxReportedTokens)},
		"duration": {contract.InvocationFinishIn{PublicationRunID: "run-1-1", Outcome: contract.InvocationFailed, DurationMS: huge}, "/durationMs", fmt.Sprint(contract.MaxReportedDurationMS)},
	} {
		_, err := s.FinishInvocation(ctx, "r", "run-1", 1, c.in)
		var invalid *contract.ValidationError
		if !errors.As(err, &invalid) || len(invalid.Errors) != 1 || invalid.Errors[0].Path != c.field || !strings.Contains(invalid.Errors[0].Expected, c.limit) {
			t.Fatalf("%s near 2^63: %v", name, err)
		}
	}
	_, err := s.FinishRun(ctx, "r", "run-1", contract.RunFinishIn{Outcome: contract.RunFailed, Tokens: &huge})
	var invalid *contract.ValidationError
	if !errors.As(err, &invalid) || invalid.Errors[0].Path != "/tokens" {
		t.Fatalf("a run's finish with tokens near 2^63: %v", err)
	}
	// Counts at the limit are taken, in every report of the run, and the page reads.
	most := int64(contract.MaxReportedTokens)
	if _, err := s.FinishInvocation(ctx, "r", "run-1", 1, contract.InvocationFinishIn{PublicationRunID: "run-1-1", Outcome: contract.InvocationFailed,
		Tokens: &most, DurationMS: contract.MaxReportedDurationMS}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishRun(ctx, "r", "run-1", contract.RunFinishIn{Outcome: contract.RunFailed, Tokens: &most, DurationMS: contract.MaxReportedDurationMS}); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil || runs.Runs[0].Tokens != 2*most || runs.Runs[0].DurationMS != 2*contract.MaxReportedDurationMS {
		t.Fatalf("the run's sums: %+v, %v", runs.Runs, err)
	}
}

func TestRunsPageReadsRunsWhoseStoredSumsOverflowed(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	startedRun(t, s, "r", "run-1", 1)
	// What an overflowing "tokens + ?" left before reports were bounded: SQLite turns the sum into a REAL.
	if err := s.db.Exec("UPDATE runs SET tokens = 1.8446744073709552e19, duration_ms = 9.3e18 WHERE id = 'run-1'").Error; err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil || len(runs.Runs) != 1 || runs.Runs[0].Tokens != math.MaxInt64 || runs.Runs[0].DurationMS != math.MaxInt64 {
		t.Fatalf("the Runs page over an overflowed sum: %+v, %v", runs.Runs, err)
	}
}
