package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
)

// TestTheTokenCapHoldsPrioritiesInOrderWhereNoCostIsKnown: runs that
// report tokens and no cost (a model with no price) leave the cost cap at
// $0, and the daily token cap holds low from 1000 tokens, normal from
// 1500 and high from 2000; the owner's runs always go.
func TestTheTokenCapHoldsPrioritiesInOrderWhereNoCostIsKnown(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	costs := costpolicy.Policy{Cap: 1, TokenCap: 1000, Jobs: map[string]string{"tidy": costpolicy.Low}}
	run := 0
	spend := func(tokens int64) {
		t.Helper()
		run++
		id := fmt.Sprintf("spend-%d", run)
		if st, err := s.StartRun(ctx, "r", contract.RunStartIn{RunID: id, Job: "owner", Trigger: contract.TriggerManual}, costs); err != nil || !st.Admitted {
			t.Fatalf("the owner's run: %+v, %v", st, err)
		}
		if _, err := s.StartInvocation(ctx, "r", id); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FinishInvocation(ctx, "r", id, 1, contract.InvocationFinishIn{PublicationRunID: contract.PublicationRunID(id, 1), Outcome: contract.InvocationFailed, Tokens: &tokens}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.FinishRun(ctx, "r", id, contract.RunFinishIn{Outcome: contract.RunFailed}); err != nil {
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
		} else if st.Hold != contract.HoldTokenCap || !strings.Contains(st.Reason, "token cap is 1000") {
			t.Fatalf("%s held for %q: %s", job, st.Hold, st.Reason)
		}
		return st.Admitted
	}
	for _, step := range []struct {
		spend             int64
		low, normal, high bool
		held              []string
	}{
		{500, true, true, true, nil},
		{500, false, true, true, []string{costpolicy.Low}},                                       // 1000
		{500, false, false, true, []string{costpolicy.Low, costpolicy.Normal}},                   // 1500
		{500, false, false, false, []string{costpolicy.Low, costpolicy.Normal, costpolicy.High}}, // 2000
	} {
		spend(step.spend)
		if got := [3]bool{admitted("tidy"), admitted("messages"), admitted("daily-brief")}; got != [3]bool{step.low, step.normal, step.high} {
			t.Fatalf("after spending to %+v: low, normal, high admitted %v", step, got)
		}
		n, err := homeNotice(ctx, s, costs)
		if err != nil || !slices.Equal(n.TokensHeld, step.held) || n.CapHeld || n.Spent != 0 {
			t.Fatalf("Home's notice %+v (%v), want held by tokens %v and the cost cap at $0", n, err, step.held)
		}
	}
	if owner, err := s.StartRun(ctx, "r", contract.RunStartIn{RunID: "owner-last", Job: "daily-brief", Trigger: contract.TriggerManual}, costs); err != nil || !owner.Admitted {
		t.Fatalf("the owner's run was held: %+v %v", owner, err)
	}
	if v, err := s.Runs(ctx); err != nil || v.TokensToday != 2000 {
		t.Fatalf("Runs' tokens today %v (%v), want 2000", v.TokensToday, err)
	}
}
