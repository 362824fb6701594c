package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"hearth/internal/poll"
)

// The fake agent's refused field holds these words of a message.
const refusedMessageWords = "Thursday"

// runInvocations is the Runs page's invocations of the only run, as
// "n outcome" strings, and the page's text.
func (f *runnerFixture) runInvocations() ([]string, []string, string) {
	f.t.Helper()
	d := loginOwner(f.t, f.srv.URL).mustPage(http.MethodGet, "/runs", nil)
	var invs, errs []string
	d.Find(`[data-testid="run"] [data-testid="invocation"]`).Each(func(_ int, s *goquery.Selection) {
		n, _ := s.Attr("data-n")
		o, _ := s.Attr("data-outcome")
		invs = append(invs, n+" "+o)
	})
	d.Find(`[data-testid="invocation-error"]`).Each(func(_ int, s *goquery.Selection) {
		errs = append(errs, strings.Join(strings.Fields(s.Text()), " "))
	})
	return invs, errs, d.Text()
}

func TestARefusedPublicationIsRepairedByAnInvocationGivenItsErrors(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	log := filepath.Join(t.TempDir(), "prompts")
	res := f.run("", []string{"FAKE_AGENT_MODE=invalid-once", "FAKE_AGENT_PROMPT_LOG=" + log}, "--job", "daily-brief", "--json")
	if res.code != 0 || !strings.Contains(res.stdout, `"state":"succeeded"`) || !strings.Contains(res.stdout, `"invocations":2`) {
		t.Fatalf("run: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	inv := f.invocations()
	runID, _ := f.lastPublicationRunID()
	if len(inv) != 2 || !strings.HasSuffix(inv[0], "-1") || !strings.HasSuffix(inv[1], "-2") || runID != inv[1] {
		t.Fatalf("invocations %v, last publication %s: want the repair published under a new runId", inv, runID)
	}
	ps := prompts(t, log)
	if len(ps) != 2 {
		t.Fatalf("prompts %q", ps)
	}
	for _, want := range []string{"/activities/0/id", "1-128 characters of [A-Za-z0-9._:@-]", "a text of more than 60 characters"} {
		if strings.Contains(ps[0], want) || !strings.Contains(ps[1], want) {
			t.Errorf("the repair prompt does not carry %q (or the first one does):\n%s", want, ps[1])
		}
	}
	if strings.Contains(ps[1], refusedMessageWords) {
		t.Errorf("the repair prompt carries the refused field's text:\n%s", ps[1])
	}
	// The run's prompt, then the errors, then the Run section naming the new runId.
	kit, _, _ := strings.Cut(ps[0], "\n## Run\n")
	refusal, run := strings.Index(ps[1], "## Your last publication was refused"), strings.Index(ps[1], "\n## Run\n")
	if !strings.HasPrefix(ps[1], kit) || refusal < len(kit) || run < refusal || !strings.Contains(runSection(t, ps[1]), "- runId: "+inv[1]+"\n") {
		t.Errorf("the repair prompt is not the run's prompt, the errors, then the Run section with runId %s:\n%s", inv[1], ps[1])
	}
	// The refused bytes are kept for the owner.
	if _, err := os.Stat(filepath.Join(f.state, "runner", "failed", inv[0]+".json")); err != nil {
		t.Errorf("the refused publication is not in failed/: %v", err)
	}
	invs, errs, page := f.runInvocations()
	if strings.Join(invs, ",") != "1 refused,2 published" || len(errs) != 1 || !strings.Contains(errs[0], "/activities/0/id") || !strings.Contains(errs[0], "a text of more than 60 characters") {
		t.Fatalf("Runs page: invocations %v, errors %q", invs, errs)
	}
	if strings.Contains(page, refusedMessageWords) {
		t.Fatal("the Runs page shows the refused field's text")
	}
}

func TestThreeRefusalsFailTheRunNamingTheLastErrors(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	res := f.run("", []string{"FAKE_AGENT_MODE=invalid-always"}, "--job", "daily-brief", "--json")
	if res.code != 1 || !strings.Contains(res.stdout, `"state":"failed"`) || !strings.Contains(res.stdout, `"invocations":3`) ||
		!strings.Contains(res.stdout, "1 error") || !strings.Contains(res.stdout, "/activities/0/id") {
		t.Fatalf("run: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if inv := f.invocations(); len(inv) != 3 {
		t.Fatalf("invocations %v", inv)
	}
	invs, errs, _ := f.runInvocations()
	if strings.Join(invs, ",") != "1 refused,2 refused,3 refused" || len(errs) != 3 {
		t.Fatalf("Runs page: invocations %v, errors %q", invs, errs)
	}
	if strings.Contains(res.stdout+res.stderr, refusedMessageWords) {
		t.Fatal("the runner's output carries the refused field's text")
	}
}

func TestAnInvocationsUsageSurvivesASIGKILLBeforeItIsReported(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	cmd := f.startRunner([]string{"HEARTH_RUNNER_PAUSE_AT=published"}, "published", "--job", "daily-brief")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	res := f.run("", nil, "--due", "--json")
	if res.code != 0 || !strings.Contains(res.stdout, `"state":"succeeded"`) || !strings.Contains(res.stdout, `"costUsd":0.25`) || !strings.Contains(res.stdout, `"tokens":1200`) {
		t.Fatalf("recovery lost the invocation's usage: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if invs, _, _ := f.runInvocations(); strings.Join(invs, ",") != "1 published" {
		t.Fatalf("invocations %v", invs)
	}
}

func TestEarlierInvocationsUsageCountsWhenTheRunEndsUnknown(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	other := mintNamedToken(t, f.srv.DataDir, "interferer")
	pidFile := filepath.Join(t.TempDir(), "agent.pid")
	cmd := f.startRunner([]string{"FAKE_AGENT_MODE=conflict-then-sleep", "FAKE_AGENT_URL=" + f.srv.URL, "FAKE_AGENT_OWN_TOKEN=" + other,
		"FAKE_AGENT_PID_FILE=" + pidFile}, "", "--job", "daily-brief")
	// Wait for the second invocation (it sleeps), then kill the runner and it.
	poll.Eventually(t, 20*time.Second, func() (bool, string) {
		if len(f.invocations()) == 2 {
			if b, err := os.ReadFile(pidFile); err == nil {
				if pid, err := strconv.Atoi(string(b)); err == nil && syscall.Kill(pid, 0) == nil {
					cmd.Process.Signal(syscall.SIGKILL)
					cmd.Wait()
					syscall.Kill(-pid, syscall.SIGKILL)
					syscall.Kill(pid, syscall.SIGKILL)
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("the second invocation never ran: %v", f.invocations())
	})
	res := f.run("", nil, "--due", "--json")
	// The first invocation (a conflict) and the second (its usage file was written before the runner stopped) both count.
	if res.code != 0 || !strings.Contains(res.stdout, `"state":"unknown"`) || !strings.Contains(res.stdout, `"costUsd":0.5`) {
		t.Fatalf("recovery: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if invs, _, _ := f.runInvocations(); strings.Join(invs, ",") != "1 conflict,2 unknown" {
		t.Fatalf("invocations %v", invs)
	}
	if inv := f.invocations(); len(inv) != 2 {
		t.Fatalf("the agent was invoked again after a crash: %v", inv)
	}
}

func TestRunsPageWithARefusedInvocationFitsAPhone(t *testing.T) {
	f := newRunnerFixture(t)
	if res := f.run("", []string{"FAKE_AGENT_MODE=invalid-once"}, "--job", "daily-brief"); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	tb := newTab(t, f.srv)
	tb.login()
	tb.do("open the Runs page and the refusal's detail",
		chromedp.Navigate(f.srv.URL+"/runs"),
		chromedp.WaitVisible(css(`[data-testid="invocation-error"] summary`)),
		chromedp.Click(css(`[data-testid="invocation-error"] summary`)),
		chromedp.WaitVisible(css(`[data-testid="invocation-error"] details code`)),
	)
	widths := get(tb, "widths", chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`))
	if widths[0] > widths[1] || widths[1] != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", widths[0], widths[1])
	}
	if shot := os.Getenv("HEARTH_E2E_SCREENSHOT"); shot != "" {
		png := get(tb, "screenshot", chromedp.FullScreenshot(100))
		os.WriteFile(shot, png, 0o600)
	}
}
