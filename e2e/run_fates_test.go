package e2e

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRunsSaysWhatARunsWorkBecameOnAPhoneAndTheContextCarriesIt: the real
// runner runs the fake agent (one task, $0.25 reported), the owner marks
// the task done, and the Runs page at 390 px says so on the run's row and
// in the job's sums, as the agent context does.
func TestRunsSaysWhatARunsWorkBecameOnAPhoneAndTheContextCarriesIt(t *testing.T) {
	f := newRunnerFixture(t)
	if res := f.run("", nil, "--job", "daily-brief"); res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	inv := f.invocations()
	if len(inv) != 1 {
		t.Fatalf("invocations %v", inv)
	}
	runID := strings.TrimSuffix(inv[0], "-1")
	loginOwner(t, f.srv.URL).mustPage(http.MethodPost, "/activities/agent-"+inv[0]+"/state", url.Values{"state": {"completed"}})

	tb := newTab(t, f.srv)
	tb.login()
	row := `[data-testid="run"][data-id="` + runID + `"] [data-testid="run-fates"]`
	week := `[data-testid="job-fate"][data-job="daily-brief"] [data-testid="job-fate-window"][data-days="7"]`
	tb.do("open the Runs page", chromedp.Navigate(f.srv.URL+"/runs"), chromedp.WaitVisible(css(row)), chromedp.WaitVisible(css(week)))
	if got := get(tb, "the run's work", chromedp.Evaluate[string](`document.querySelector('`+row+`').textContent`)); got != "Its work: 1 task: 1 done; $0.25 per accepted item." {
		t.Errorf("the run's row reads %q", got)
	}
	if got := get(tb, "the job's week", chromedp.Evaluate[string](`document.querySelector('`+week+`').textContent`)); !strings.Contains(got, "1 done") || !strings.Contains(got, "per accepted item") {
		t.Errorf("daily-brief's 7 days read %q", got)
	}
	widths := get(tb, "widths", chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`))
	if widths[0] > widths[1] || widths[1] != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", widths[0], widths[1])
	}
	right := get(tb, "the lines' right edges", chromedp.Evaluate[[]float64](`[document.querySelector('`+row+`').getBoundingClientRect().right, document.querySelector('`+week+`').getBoundingClientRect().right]`))
	for _, r := range right {
		if r > 390 {
			t.Errorf("a fates line ends at %.0f px, past the 390 px screen", r)
		}
	}

	var ac struct {
		JobFates []struct {
			Job                string   `json:"job"`
			Days               int      `json:"days"`
			Done               int      `json:"done"`
			CostPerAcceptedUSD *float64 `json:"costPerAcceptedUsd"`
		} `json:"jobFates"`
	}
	b, err := os.ReadFile(f.token)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(string(b))
	decodeJSON(t, newAgentClient(f.srv.URL, tok).contextJSON(t), &ac)
	found := false
	for _, jf := range ac.JobFates {
		if jf.Job == "daily-brief" && jf.Days == 7 {
			found = jf.Done >= 1 && jf.CostPerAcceptedUSD != nil
		}
	}
	if !found {
		t.Fatalf("the agent context's jobFates: %+v", ac.JobFates)
	}
}
