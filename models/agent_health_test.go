package models

import (
	"context"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
)

func TestAgentHealthReportsReplaceEachOtherAndHoldHomeUntilOK(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	rev := mustRevision(t, s)
	if _, err := s.ReportAgentHealth(ctx, "cred-runner", contract.AgentHealthIn{Agent: "codex", State: contract.HealthNeedsLogin, Detail: "codex login status: Not logged in"}); err != nil {
		t.Fatal(err)
	}
	n, err := homeNotice(ctx, s, costpolicy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if n.AuthHeld == nil || n.AuthHeld.State != contract.HealthNeedsLogin || !n.AuthHeld.CheckedAt.Equal(now.Now()) {
		t.Fatalf("Home's notice after needs_login = %+v", n.AuthHeld)
	}
	now.Advance(time.Minute)
	if _, err := s.ReportAgentHealth(ctx, "cred-runner", contract.AgentHealthIn{Agent: "codex", State: contract.HealthOK}); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.Agents) != 1 || runs.Agents[0].State != contract.HealthOK || !runs.Agents[0].CheckedAt.Equal(now.Now()) {
		t.Fatalf("Runs' agents after ok = %+v", runs.Agents)
	}
	if n, _ = homeNotice(ctx, s, costpolicy.Policy{}); n.AuthHeld != nil {
		t.Fatalf("Home still holds after ok: %+v", n.AuthHeld)
	}
	if got := mustRevision(t, s); got != rev {
		t.Fatalf("a health report moved the revision %d → %d: it would make the agent's publication stale", rev, got)
	}
}
