package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/handlers"
	"hearth/internal/contract"
	"hearth/models"
)

func agentPost(token, path string, body any) *http.Request {
	b, _ := json.Marshal(body)
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func TestRunsAreStartedInvokedAndFinishedByTheirRunnerOnly(t *testing.T) {
	ta := newTestApp(t, withOwner())
	token := ta.agentToken()
	r := ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "morning-brief", "trigger": "manual"}))
	if r.status != http.StatusCreated {
		t.Fatalf("start: %s", r)
	}
	assertError(t, ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-2", "job": "x", "trigger": "schedule"})),
		http.StatusUnprocessableEntity, "invalid_request")
	assertError(t, ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "other", "trigger": "manual"})),
		http.StatusConflict, "run_exists")
	other := ta.agentToken()
	assertError(t, ta.do(agentPost(other, "/api/runs/run-1/invocations", nil)), http.StatusNotFound, "not_found")
	for range 3 {
		if r := ta.do(agentPost(token, "/api/runs/run-1/invocations", nil)); r.status != http.StatusOK {
			t.Fatalf("invocation: %s", r)
		}
	}
	assertError(t, ta.do(agentPost(token, "/api/runs/run-1/invocations", nil)), http.StatusConflict, "attempts_exhausted")
	if r := ta.do(agentPost(token, "/api/runs/run-1/finish", map[string]any{"outcome": "unknown", "detail": "stopped", "durationMs": 10})); r.status != http.StatusOK {
		t.Fatalf("finish: %s", r)
	}
	assertError(t, ta.do(agentPost(token, "/api/runs/run-1/finish", map[string]any{"outcome": "failed"})), http.StatusConflict, "run_finished")
	// The owner sees it, unknown, and says they looked.
	cookie := ta.login()
	d := ta.get("/runs", "", cookie).doc(t)
	has(t, d, `[data-testid="run"][data-id="run-1"][data-state="unknown"] [data-testid="resolve-run"]`)
	has(t, d, `[data-testid="last-failure"]`)
	if r := ta.post("/runs/run-1/resolve", url.Values{}, cookie); r.status != http.StatusSeeOther {
		t.Fatalf("resolve: %s", r)
	}
	if ta.get("/runs", "", cookie).doc(t).Find(`[data-testid="resolve-run"]`).Length() != 0 {
		t.Fatal("a resolved run still asks to be looked at")
	}
}

func TestRunRoutesNeedTheRunsScope(t *testing.T) {
	ta := newTestApp(t, withOwner())
	token := ta.agentToken("context:read", "results:publish")
	env := assertError(t, ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "x", "trigger": "manual"})), http.StatusForbidden, "forbidden")
	if env.Details["requiredScope"] != "runs:write" {
		t.Fatalf("details %+v", env.Details)
	}
	req := httptest.NewRequest(http.MethodGet, "/runs", nil)
	req.Header.Set("Authorization", "Bearer "+ta.agentToken())
	assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
}

func TestHomeSaysWhenTheLastRunFailedOrTheCostCapHolds(t *testing.T) {
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{DailyCostCap: 0.5}))
	token := ta.agentToken()
	cookie := ta.login()
	if d := ta.get("/", "", cookie).doc(t); d.Find(`[data-testid="run-failed"], [data-testid="cost-cap"]`).Length() != 0 {
		t.Fatal("a notice before any run")
	}
	ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "morning-brief", "trigger": "manual"}))
	ta.do(agentPost(token, "/api/runs/run-1/invocations", nil))
	if r := ta.do(agentPost(token, "/api/runs/run-1/finish", map[string]any{"outcome": "failed", "detail": "agent: exited 3", "costUsd": 0.75})); r.status != http.StatusOK {
		t.Fatalf("finish: %s", r)
	}
	ta.clock.Advance(time.Minute) // Home is cached per minute; runs do not bump the revision
	d := ta.get("/", "", cookie).doc(t)
	has(t, d, `[data-testid="run-failed"]`)
	// $0.75 of a $0.50 cap: low (from $0.50) and normal (from $0.75) wait, high (from $1.00) goes.
	if notice := d.Find(`[data-testid="cost-cap"]`).Text(); !strings.Contains(notice, "Low- and normal-priority scheduled agent runs are paused") {
		t.Fatalf("Home's cost notice: %q", notice)
	}
	if today := ta.get("/runs", "", cookie).doc(t).Find(`[data-testid="cost-today"]`).Text(); !strings.Contains(today, "Held: low, normal.") ||
		!strings.Contains(today, "high at $1.00") {
		t.Fatalf("Runs' cost line: %q", today)
	}
	// A watch run is held by the cap; the owner's run still starts.
	if r := ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-2", "job": "messages", "trigger": "watch"})); r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`"hold":"cost_cap"`)) {
		t.Fatalf("watch run past the cap: %s", r)
	}
	if r := ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-3", "job": "morning-brief", "trigger": "manual"})); r.status != http.StatusCreated {
		t.Fatalf("the owner's run: %s", r)
	}
}

func TestRunsPageShowsEachScheduleOccurrenceWithItsAttempts(t *testing.T) {
	ta := newTestApp(t, withOwner())
	ops := ta.agentToken("schedules:admin")
	ta.mustCreateSchedule(ops, "k1", "brief")
	ta.clock.Advance(2 * time.Hour) // testNow is 07:00 UTC: 08:00 has come
	token := ta.agentToken()
	if r := ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "morning", "trigger": "schedule", "scheduleId": "brief"})); r.status != http.StatusCreated {
		t.Fatalf("start: %s", r)
	}
	ta.do(agentPost(token, "/api/runs/run-1/invocations", nil))
	ta.clock.Advance(time.Minute)
	d := ta.get("/runs", "", ta.login()).doc(t)
	if got := text(has(t, d, `[data-testid="run-schedule"][data-id="brief"] [data-testid="run-schedule-outstanding"]`)); !strings.Contains(got, "running now, try 1 of 3") {
		t.Fatalf("the occurrence reads %q", got)
	}
	has(t, d, `[data-testid="run"][data-id="run-1"][data-state="running"]`)
	sd := ta.get("/schedules", "", ta.login()).doc(t)
	if got := text(has(t, sd, `[data-testid="schedule"][data-id="brief"] [data-testid="schedule-outstanding"]`)); !strings.Contains(got, "running now") {
		t.Fatalf("the Schedules page's occurrence reads %q, want it in words", got)
	}
}

// dueOccurrences lists the occurrence IDs GET /api/schedules/due reports.
func (ta *testApp) dueOccurrences(token string) []string {
	ta.t.Helper()
	r := ta.schedReq(http.MethodGet, "/api/schedules/due", token, nil, "")
	var rep contract.DueReport
	if r.status != http.StatusOK || json.Unmarshal(r.body, &rep) != nil {
		ta.t.Fatalf("due: %s", r)
	}
	out := []string{}
	for _, d := range rep.Due {
		out = append(out, d.OccurrenceID)
	}
	return out
}

func TestARefusedRunStartLeavesTheOccurrenceDue(t *testing.T) {
	const occurrence = "brief/2026-09-29T08:00:00Z"
	good := `{"runId":"run-1","job":"morning","trigger":"schedule","scheduleId":"brief"}`
	for _, tc := range []struct {
		name, body string
		status     int
		code, path string // path: the field the 422 names
	}{
		{"mistyped job", `{"runId":"run-1","job":"mornin","trigger":"schedule","scheduleId":"brief"}`, 422, "invalid_request", "/job"},
		{"bad run ID", `{"runId":"run 1","job":"morning","trigger":"schedule","scheduleId":"brief"}`, 422, "invalid_request", "/runId"},
		{"dot run ID", `{"runId":".","job":"morning","trigger":"schedule","scheduleId":"brief"}`, 422, "invalid_request", "/runId"},
		{"dot-dot run ID", `{"runId":"..","job":"morning","trigger":"schedule","scheduleId":"brief"}`, 422, "invalid_request", "/runId"},
		{"dots job", `{"runId":"run-1","job":"...","trigger":"schedule","scheduleId":"brief"}`, 422, "invalid_request", "/job"},
		{"dots schedule ID", `{"runId":"run-1","job":"morning","trigger":"schedule","scheduleId":".."}`, 422, "invalid_request", "/scheduleId"},
		{"unknown trigger", `{"runId":"run-1","job":"morning","trigger":"cron","scheduleId":"brief"}`, 422, "invalid_request", "/trigger"},
		{"a manual run naming a schedule", `{"runId":"run-1","job":"morning","trigger":"manual","scheduleId":"brief"}`, 422, "invalid_request", "/scheduleId"},
		{"unknown field", `{"runId":"run-1","job":"morning","trigger":"schedule","scheduleId":"brief","jobs":"x"}`, 422, "invalid_request", "/jobs"},
		{"null field", `{"runId":"run-1","job":"morning","trigger":"schedule","scheduleId":null}`, 422, "invalid_request", "/scheduleId"},
		{"wrong type", `{"runId":"run-1","job":5,"trigger":"schedule","scheduleId":"brief"}`, 422, "invalid_request", "/job"},
		{"missing job", `{"runId":"run-1","trigger":"schedule","scheduleId":"brief"}`, 422, "invalid_request", "/job"},
		{"duplicate key", `{"runId":"run-1","runId":"run-2","job":"morning","trigger":"schedule","scheduleId":"brief"}`, 400, "malformed_json", ""},
		{"a run ID of another run", `{"runId":"taken","job":"morning","trigger":"schedule","scheduleId":"brief"}`, 409, "run_exists", ""},
		{"an unknown schedule", `{"runId":"run-1","job":"morning","trigger":"schedule","scheduleId":"brie"}`, 404, "not_found", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ta := newTestApp(t)
			ta.mustCreateSchedule(ta.agentToken(models.ScopeSchedulesAdmin), "k1", "brief")
			ta.clock.Advance(2 * time.Hour) // 09:00 UTC: the 08:00 occurrence is due
			token := ta.agentToken()
			ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "taken", "job": "other", "trigger": "manual"}))
			env := assertError(t, ta.schedReq(http.MethodPost, "/api/runs", token, nil, tc.body), tc.status, tc.code)
			if tc.path != "" && !slices.ContainsFunc(fieldErrors(t, env), func(e fieldError) bool { return e.Path == tc.path }) {
				t.Errorf("details %v, want an error naming %s", env.Details, tc.path)
			}
			if due := ta.dueOccurrences(token); len(due) != 1 || due[0] != occurrence {
				t.Errorf("after the refusal due is %v, want [%s]", due, occurrence)
			}
			r := ta.schedReq(http.MethodPost, "/api/runs", token, nil, good)
			var start contract.RunStart
			if r.status != http.StatusCreated || json.Unmarshal(r.body, &start) != nil || start.Run == nil || start.Run.OccurrenceID != occurrence {
				t.Errorf("the correct start after the refusal: %s", r)
			}
		})
	}
}

func TestAgentHealthIsReportedWithTheRunsScopeAndShownOnRunsAndHome(t *testing.T) {
	ta := newTestApp(t, withOwner())
	report := map[string]any{"agent": "codex", "state": "needs_login", "detail": "codex login status: Not logged in"}
	env := assertError(t, ta.do(agentPost(ta.agentToken("context:read", "results:publish"), "/api/agent-health", report)), http.StatusForbidden, "forbidden")
	if env.Details["requiredScope"] != "runs:write" {
		t.Fatalf("details %+v", env.Details)
	}
	token := ta.agentToken("runs:write")
	assertError(t, ta.do(agentPost(token, "/api/agent-health", map[string]any{"agent": "codex", "state": "sleepy", "detail": ""})),
		http.StatusUnprocessableEntity, "invalid_request")
	if r := ta.do(agentPost(token, "/api/agent-health", report)); r.status != http.StatusOK || !strings.Contains(string(r.body), `"state":"needs_login"`) {
		t.Fatalf("report: %s", r)
	}
	cookie := ta.login()
	runs := ta.get("/runs", "", cookie).doc(t)
	has(t, runs, `[data-testid="agent-health-state"][data-agent="codex"][data-state="needs_login"]`)
	if fix := runs.Find(`[data-testid="agent-health-fix"]`).Text(); !strings.Contains(fix, "codex login") {
		t.Fatalf("the fix in words: %q", fix)
	}
	has(t, ta.get("/", "", cookie).doc(t), `[data-testid="auth-held"]`)
}

func TestRunsPageShowsWhatEachRunsWorkBecameAndEachJobsSums(t *testing.T) {
	ta := newTestApp(t, withOwner())
	token := ta.agentToken()
	ctx := t.Context()
	// 40 days ago: a run of another job, outside both windows.
	ta.clock.Advance(-40 * 24 * time.Hour)
	ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "old", "job": "requests", "trigger": "manual"}))
	ta.do(agentPost(token, "/api/runs/old/invocations", nil))
	ta.do(agentPost(token, "/api/runs/old/finish", map[string]any{"outcome": "failed", "detail": "exited 1"}))
	ta.clock.Advance(40 * 24 * time.Hour)

	if r := ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "daily-brief", "trigger": "manual"})); r.status != http.StatusCreated {
		t.Fatalf("start: %s", r)
	}
	ta.do(agentPost(token, "/api/runs/run-1/invocations", nil))
	rc := ta.mustPublish(token, validPublication("run-1-1", ta.revision()).JSON())
	if r := ta.do(agentPost(token, "/api/runs/run-1/invocations/1/finish", map[string]any{"publicationRunId": "run-1-1", "outcome": "published", "costUsd": 0.5})); r.status != http.StatusOK {
		t.Fatalf("invocation: %s", r)
	}
	ta.do(agentPost(token, "/api/runs/run-1/finish", map[string]any{"outcome": "succeeded", "publicationRunId": "run-1-1", "publicationRevision": rc.Revision}))
	// A run that published nothing, and reported no cost.
	ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-2", "job": "daily-brief", "trigger": "manual"}))
	ta.do(agentPost(token, "/api/runs/run-2/invocations", nil))
	ta.do(agentPost(token, "/api/runs/run-2/finish", map[string]any{"outcome": "failed", "detail": "exited 1"}))
	if _, err := ta.store.SetActivityState(ctx, "book-bike-service", models.StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}

	d := ta.get("/runs", "", ta.login()).doc(t)
	row := text(has(t, d, `[data-testid="run"][data-id="run-1"] [data-testid="run-fates"]`))
	for _, want := range []string{"1 draft: 1 open", "4 tasks: 1 done, 3 open", "$0.50 per accepted item"} {
		if !strings.Contains(row, want) {
			t.Errorf("run-1's work reads %q, want %q in it", row, want)
		}
	}
	if d.Find(`[data-testid="run"][data-id="run-2"] [data-testid="run-fates"]`).Length() != 0 {
		t.Error("a run that published nothing shows what its work became")
	}
	week := text(has(t, d, `[data-testid="job-fate"][data-job="daily-brief"] [data-testid="job-fate-window"][data-days="7"]`))
	if !strings.HasPrefix(week, "Last 7 days, 2 runs: 1 draft: 1 open; 4 tasks: 1 done, 3 open; $0.50 per accepted item.") {
		t.Errorf("daily-brief's week reads %q", week)
	}
	if d.Find(`[data-testid="job-fate"][data-job="requests"]`).Length() != 0 {
		t.Error("a job with no run in 30 days has a sum")
	}
}
