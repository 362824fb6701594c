package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTheCostCapHoldsCodexRunsByPriorityInOrder: the real Codex CLI runs
// scheduled jobs against the scripted Responses endpoint, whose usage
// carries all four token kinds; the runner prices each invocation with
// the owner's --prices file ($1.00 each, every kind at its own rate), so
// with a $1 cap and tiers 1,2,3 low-priority runs wait from $1, normal
// from $2 and high from $3, in that order. The Runs page shows each
// invocation's cost and the cost per accepted item.
func TestTheCostCapHoldsCodexRunsByPriorityInOrder(t *testing.T) {
	t.Parallel()
	const prompt = "Scheduled: write today's brief in two sentences."
	var date, zone string
	api := startResponses(t, prompt, func(n int64) string {
		// Each answer's task is its own, so each run's work is told apart.
		return strings.Replace(strictBrief(date, zone, fmt.Sprintf("Answer %d.", n)), "codex-plan-the-day", fmt.Sprintf("codex-task-%d", n), 1)
	})
	// 8000 fresh input, 2000 cached, 600 output, 400 reasoning tokens.
	api.usage = func(int64) map[string]any {
		return map[string]any{"input_tokens": 10000, "input_tokens_details": map[string]any{"cached_tokens": 2000},
			"output_tokens": 1000, "output_tokens_details": map[string]any{"reasoning_tokens": 400}, "total_tokens": 11000}
	}
	srv := startServerEnv(t, nil, "--demo", "--daily-cost-cap", "1", "--cost-tiers", "1,2,3",
		"--priority", "routine-review=low", "--priority", "requests=normal") // daily-brief is high
	o := newCodexOwnerOn(t, srv, codexBinDir(t), api)
	_, date, zone, _, _ = o.context()
	// The config's model (gpt-5.5) has no built-in price: the file gives one.
	// $50, $100, $500 and $250 per 1M: 0.40 + 0.20 + 0.30 + 0.10 = $1.00; a kind
	// priced at another's rate would not make $1.00.
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"takenOn":"2026-12-04","models":{"gpt-5.5":{"input":50,"cachedInput":100,"output":500,"reasoning":250}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ops := newScheduleCLI(t, o.srv, "ops", "schedules:admin")
	agent := newAgentClient(o.srv.URL, o.token)
	occurrences := map[string]string{}
	add := func(ids ...string) {
		t.Helper()
		at := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
		for _, id := range ids {
			job := map[byte]string{'l': "routine-review", 'n': "requests", 'h': "daily-brief"}[id[0]]
			if res := ops.run(t, "add", "--job", job, "--at", at.Format(time.RFC3339), "--prompt", prompt, "--id", id); res.code != 0 {
				t.Fatalf("schedule add %s: exit %d\n%s", id, res.code, res.stderr)
			}
			occurrences[id] = id + "/" + at.Format(time.RFC3339)
		}
		for _, id := range ids {
			waitDue(t, agent, occurrences[id])
		}
	}
	ran := map[string]bool{}
	due := func(wantRan []string, wantHeld []string) {
		t.Helper()
		res := o.run("--due", "--prices", prices)
		if res.code != 0 {
			t.Fatalf("hearth run --due: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
		}
		for _, r := range o.runs() {
			for id := range occurrences {
				if strings.Contains(r.text, "Schedule "+id+",") && !ran[id] {
					if r.state != "succeeded" || !strings.Contains(r.text, "$1.00") {
						t.Fatalf("schedule %s's run: %s, want succeeded at $1.00:\n%s", id, r.state, r.text)
					}
					ran[id] = true
				}
			}
		}
		for _, id := range wantRan {
			if !ran[id] {
				t.Fatalf("schedule %s did not run; ran %v\n%s", id, ran, res.stderr)
			}
		}
		for _, id := range wantHeld {
			if ran[id] || !strings.Contains(res.stderr, "schedule="+id+" hold=cost_cap") {
				t.Fatalf("schedule %s was not held by the cost cap; ran %v\n%s", id, ran, res.stderr)
			}
			waitDue(t, agent, occurrences[id]) // held, not claimed: still due
		}
		if n := int(api.requests.Load()); n != len(ran) {
			t.Fatalf("%d model request(s) for %d run(s)", n, len(ran))
		}
	}

	add("low-1")
	due([]string{"low-1"}, nil) // $0 → $1: low waits from here
	add("low-2", "normal-1")
	due([]string{"normal-1"}, []string{"low-2"}) // $1 → $2: normal waits from here
	add("normal-2", "high-1")
	due([]string{"high-1"}, []string{"low-2", "normal-2"}) // $2 → $3: high waits from here
	add("high-2")
	due(nil, []string{"low-2", "normal-2", "high-2"})

	owner := loginOwner(t, o.srv.URL)
	runs := owner.mustPage(http.MethodGet, "/runs", nil)
	if got := runs.Find(`[data-testid="cost-today"]`).Text(); !strings.Contains(got, "$3.00 of the $1.00 daily cap") || !strings.Contains(got, "Held: low, normal, high.") {
		t.Fatalf("Runs' cost today reads %q", got)
	}
	if got := owner.mustPage(http.MethodGet, "/", nil).Find(`[data-testid="cost-cap"]`).Text(); !strings.Contains(got, "Scheduled agent runs are paused") {
		t.Fatalf("Home's cost cap notice reads %q", got)
	}
	// The owner does the morning brief's task: one accepted item at $1.00.
	owner.mustPage(http.MethodPost, "/activities/codex-task-3/state", url.Values{"state": {"completed"}})
	runs = owner.mustPage(http.MethodGet, "/runs", nil)
	if got := runs.Find(`[data-testid="job-fate"][data-job="daily-brief"] [data-testid="job-fate-window"][data-days="7"]`).Text(); !strings.Contains(got, "1 done") || !strings.Contains(got, "$1.00 per accepted item") {
		t.Fatalf("the morning brief's week reads %q, want its task done at $1.00 per accepted item", got)
	}
}
