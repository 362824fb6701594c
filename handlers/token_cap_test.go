package handlers_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"hearth/handlers"
)

// TestTheTokenCapHoldsWatchRunsAndHomeAndRunsSayIt: 750 tokens reported
// with no cost, of a 500-token cap: low (from 500) and normal (from 750)
// wait, high (from 1000) goes; the cost cap, at $0, holds nothing.
func TestTheTokenCapHoldsWatchRunsAndHomeAndRunsSayIt(t *testing.T) {
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{DailyCostCap: 5, DailyTokenCap: 500}))
	token := ta.agentToken()
	cookie := ta.login()
	ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "morning-brief", "trigger": "manual"}))
	ta.do(agentPost(token, "/api/runs/run-1/invocations", nil))
	if r := ta.do(agentPost(token, "/api/runs/run-1/finish", map[string]any{"outcome": "succeeded", "tokens": 750})); r.status != http.StatusOK {
		t.Fatalf("finish: %s", r)
	}
	ta.clock.Advance(time.Minute) // Home is cached per minute; runs do not bump the revision
	d := ta.get("/", "", cookie).doc(t)
	if notice := d.Find(`[data-testid="token-cap"]`).Text(); !strings.Contains(notice, "Low- and normal-priority scheduled agent runs are paused") ||
		!strings.Contains(notice, "750 tokens reached the 500-token cap") {
		t.Fatalf("Home's token notice: %q", notice)
	}
	if d.Find(`[data-testid="cost-cap"]`).Length() != 0 {
		t.Fatal("Home says the cost cap holds at $0")
	}
	if today := ta.get("/runs", "", cookie).doc(t).Find(`[data-testid="tokens-today"]`).Text(); !strings.Contains(today, "750 of the 500-token daily cap") ||
		!strings.Contains(today, "Held: low, normal.") || !strings.Contains(today, "high at 1000 tokens") {
		t.Fatalf("Runs' token line: %q", today)
	}
	if r := ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-2", "job": "messages", "trigger": "watch"})); r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`"hold":"token_cap"`)) {
		t.Fatalf("a watch run past the token cap: %s", r)
	}
	if r := ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-3", "job": "daily-brief", "trigger": "watch"})); r.status != http.StatusCreated || !bytes.Contains(r.body, []byte(`"admitted":true`)) {
		t.Fatalf("a high-priority watch run under its tier: %s", r)
	}
}
