package models

import (
	"context"
	"errors"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
)

func TestAgentHealthReportsReplaceEachOtherAndHoldHomeUntilOK(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	rev := mustRevision(t, s)
	if _, err := s.ReportAgentHealth(ctx, "cred-runner", []byte(`{"agent":"codex","state":"needs_login","detail":"codex login status: Not logged in"}`)); err != nil {
		t.Fatal(err)
	}
	n, err := s.HomeRunNotice(ctx, costpolicy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if n.AuthHeld == nil || n.AuthHeld.State != contract.HealthNeedsLogin || !n.AuthHeld.CheckedAt.Equal(now.Now()) {
		t.Fatalf("Home's notice after needs_login = %+v", n.AuthHeld)
	}
	now.Advance(time.Minute)
	if _, err := s.ReportAgentHealth(ctx, "cred-runner", []byte(`{"agent":"codex","state":"ok","detail":""}`)); err != nil {
		t.Fatal(err)
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.Agents) != 1 || runs.Agents[0].State != contract.HealthOK || !runs.Agents[0].CheckedAt.Equal(now.Now()) {
		t.Fatalf("Runs' agents after ok = %+v", runs.Agents)
	}
	if n, _ = s.HomeRunNotice(ctx, costpolicy.Policy{}); n.AuthHeld != nil {
		t.Fatalf("Home still holds after ok: %+v", n.AuthHeld)
	}
	if got := mustRevision(t, s); got != rev {
		t.Fatalf("a health report moved the revision %d → %d: it would make the agent's publication stale", rev, got)
	}
}

func TestAgentHealthRefusesUnknownStatesFieldsAndLongDetail(t *testing.T) {
	s, _ := newTestStore(t)
	long := make([]byte, contract.MaxHealthDetail+1)
	for i := range long {
		long[i] = 'x'
	}
	for _, body := range []string{
		`{"agent":"codex","state":"asleep","detail":""}`,
		`{"agent":"codex","state":"ok","detail":"","token":"sk-secret"}`,
		`{"agent":"","state":"ok","detail":""}`,
		`{"agent":"codex","state":"ok","detail":"` + string(long) + `"}`,
	} {
		_, err := s.ReportAgentHealth(context.Background(), "cred", []byte(body))
		var v *contract.ValidationError
		if !errors.As(err, &v) {
			t.Errorf("%.60s…: err %v, want a validation error", body, err)
		}
	}
}
