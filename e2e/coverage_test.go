package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/internal/contract"
	"hearth/internal/poll"
)

// TestHomeSaysBeeperWasNotVisibleWhileItsProcessWasStopped stops the fake
// Beeper serve's watch reads, then starts it again on the same address:
// Home says Beeper is not visible while it is away and, once it is back,
// the span it was not visible; the agent context carries the span.
func TestHomeSaysBeeperWasNotVisibleWhileItsProcessWasStopped(t *testing.T) {
	t.Parallel()
	began := time.Now()
	beeperURL, stop := startFakeBeeperAt(t, "127.0.0.1:0")
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL,
		"--watch-interval", "200ms", "--wake-debounce", "0s")
	owner := watchHasRead(t, srv.URL)
	agent := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	gapText := func() string {
		return strings.Join(owner.mustPage(http.MethodGet, "/", nil).Find(`[data-testid="coverage-gap"]`).Map(func(_ int, s *goquery.Selection) string { return s.Text() }), " | ")
	}
	if got := gapText(); got != "" {
		t.Fatalf("Home speaks of a gap before any: %q", got)
	}

	stop()
	if !poll.Within(20*time.Second, func() bool { return strings.Contains(gapText(), "Beeper has not been visible since") }) {
		t.Fatalf("Home never said Beeper is away: %q\n%s", gapText(), srv.log.String())
	}
	startFakeBeeperAt(t, strings.TrimPrefix(beeperURL, "http://"))
	if !poll.Within(30*time.Second, func() bool { return strings.Contains(gapText(), "Beeper was not visible from") }) {
		t.Fatalf("Home never said the span once Beeper was back: %q\n%s", gapText(), srv.log.String())
	}
	if got := gapText(); !strings.Contains(got, "replies may be missing") || strings.Count(got, "|") != 0 {
		t.Fatalf("Home: %q; want one span", got)
	}
	var ac struct {
		CoverageGaps []contract.CoverageGapView `json:"coverageGaps"`
	}
	if err := json.Unmarshal(agent.contextJSON(t), &ac); err != nil {
		t.Fatal(err)
	}
	// The demo's own past night is in the context too; this test's gap is the one since it began.
	var ours []contract.CoverageGapView
	for _, g := range ac.CoverageGaps {
		if !g.From.Before(began) {
			ours = append(ours, g)
		}
	}
	if len(ours) != 1 || ours[0].To == nil || ours[0].What != contract.CoverageUnreachable || !ours[0].To.After(ours[0].From) {
		t.Fatalf("the agent context's gaps since the test began: %+v (all: %+v)", ours, ac.CoverageGaps)
	}
}
