package handlers_test

import (
	"net/http"
	"strings"
	"testing"

	"hearth/internal/contract"
)

func TestTheRunnerReportsEachInvocationsEndOnceAndTheRunsPageShowsARefusalsErrors(t *testing.T) {
	ta := newTestApp(t, withOwner())
	token := ta.agentToken()
	if r := ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "morning-brief", "trigger": "manual"})); r.status != http.StatusCreated {
		t.Fatalf("start: %s", r)
	}
	ta.do(agentPost(token, "/api/runs/run-1/invocations", nil))
	body := "Hi Ana, I can't make Thursday after all because my mother is in hospital again"
	refused := map[string]any{"publicationRunId": "run-1-1", "outcome": "refused", "tokens": 1200, "costUsd": 0.25, "durationMs": 900,
		"errors": []map[string]any{{"path": "/replyDrafts/0/candidates/0", "expected": "at most 10 characters", "found": `"` + body + `"`}}}
	for range 2 { // the same report twice (a restarted runner) is one invocation
		if r := ta.do(agentPost(token, "/api/runs/run-1/invocations/1/finish", refused)); r.status != http.StatusOK || !strings.Contains(string(r.body), `"outcome":"refused"`) {
			t.Fatalf("report: %s", r)
		}
	}
	// A report as the runner marshals it, from an agent that reported no usage.
	ta.do(agentPost(token, "/api/runs/run-1/invocations", nil))
	if r := ta.do(agentPost(token, "/api/runs/run-1/invocations/2/finish", contract.InvocationFinishIn{PublicationRunID: "run-1-2", Outcome: contract.InvocationConflict})); r.status != http.StatusOK {
		t.Fatalf("a report without usage: %s", r)
	}
	changed := map[string]any{"publicationRunId": "run-1-1", "outcome": "failed"}
	assertError(t, ta.do(agentPost(token, "/api/runs/run-1/invocations/1/finish", changed)), http.StatusConflict, "idempotency_conflict")
	// Wrong run, another runner, an invocation not started, over budget, a bad body.
	other := ta.agentToken()
	assertError(t, ta.do(agentPost(other, "/api/runs/run-1/invocations/1/finish", refused)), http.StatusNotFound, "not_found")
	assertError(t, ta.do(agentPost(token, "/api/runs/run-9/invocations/1/finish", refused)), http.StatusNotFound, "not_found")
	assertError(t, ta.do(agentPost(token, "/api/runs/run-1/invocations/3/finish", map[string]any{"publicationRunId": "run-1-3", "outcome": "published"})),
		http.StatusConflict, "invocation_not_started")
	assertError(t, ta.do(agentPost(token, "/api/runs/run-1/invocations/4/finish", map[string]any{"publicationRunId": "run-1-4", "outcome": "published"})),
		http.StatusUnprocessableEntity, "invalid_request")
	assertError(t, ta.do(agentPost(token, "/api/runs/run-1/invocations/x/finish", refused)), http.StatusUnprocessableEntity, "invalid_request")
	env := assertError(t, ta.do(agentPost(token, "/api/runs/run-1/invocations/1/finish", map[string]any{"publicationRunId": "run-1-1", "outcome": "refused", "cost": 1})),
		http.StatusUnprocessableEntity, "invalid_request")
	if errs := fieldErrors(t, env); len(errs) != 1 || errs[0].Path != "/cost" {
		t.Fatalf("a mistyped field: %+v", errs)
	}
	if r := ta.do(agentPost(token, "/api/runs/run-1/finish", map[string]any{"outcome": "failed", "detail": "hearth refused the publication"})); r.status != http.StatusOK || !strings.Contains(string(r.body), `"costUsd":0.25`) {
		t.Fatalf("finish: %s", r)
	}
	d := ta.get("/runs", "", ta.login()).doc(t)
	inv := has(t, d, `[data-testid="run"][data-id="run-1"] [data-testid="invocation"][data-n="1"][data-outcome="refused"]`)
	errRow := text(has(t, d, `[data-testid="invocation-error"]`))
	if !strings.Contains(errRow, "/replyDrafts/0/candidates/0") || !strings.Contains(errRow, "at most 10 characters") || !strings.Contains(errRow, "a text of 78 characters") {
		t.Fatalf("the refused invocation's error reads %q", errRow)
	}
	if strings.Contains(d.Text(), "Thursday") {
		t.Fatal("the Runs page shows the refused draft's text")
	}
	if inv.Find(`[data-testid="invocation-error"] details`).Length() != 1 {
		t.Fatal("no technical details for the refusal")
	}
}
