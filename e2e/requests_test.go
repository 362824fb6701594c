package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// completeRequest completes requestID through `hearth publish`, citing sourceRef as ref-1.
func completeRequest(t *testing.T, srv *server, runID, requestID, sourceRef string) {
	t.Helper()
	publishWithCLI(t, srv, runID, sourceRef, "", fmt.Sprintf(`{"requestId":%q,"sourceRefIds":["ref-1"]}`, requestID))
}

func TestRequestTypedOnHomeIsCompletedLive(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("ask",
		chromedp.SendKeys(css(`[data-testid="ask-text"]`), "Find a dentist near work"),
		chromedp.Click(css(`[data-testid="ask-note"]`)),
		chromedp.WaitVisible(css(`[data-testid="request"][data-status="pending"]`)),
	)
	id := get(tb, "request id", chromedp.Evaluate[string](`document.querySelector('[data-testid="request"]').dataset.id`))
	ref := `{"id":"ref-1","kind":"life","path":"notes/dentist.md","contentHash":"sha256:` + strings.Repeat("1a", 32) + `","observedAt":"2026-12-01T08:00:00Z"}`
	completeRequest(t, srv, "run-dentist", id, ref)
	eventually(tb, "request completed without reload",
		`(function(){var r=document.querySelector('[data-testid="request"][data-id="`+id+`"]');return !!r && r.dataset.status==="completed"})()`, 5*time.Second)
}

func TestPersonCorrectionShowsPendingThenConfirmed(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("suggest a correction",
		chromedp.Navigate(srv.URL+"/people"),
		chromedp.Click(css(`#person-ana-okafor details.correction summary`)),
		chromedp.SendKeys(css(`#person-ana-okafor [data-testid="correction-field"]`), "city"),
		chromedp.SendKeys(css(`#person-ana-okafor [data-testid="correction-value"]`), "Lisbon"),
		chromedp.SendKeys(css(`#person-ana-okafor [data-testid="correction-why"]`), "She moved in May"),
		chromedp.Click(css(`#person-ana-okafor [data-testid="correction-submit"]`)),
		chromedp.WaitVisible(css(`#person-ana-okafor [data-testid="request"][data-status="pending"]`)),
	)
	if got := get(tb, "state", chromedp.Text(css(`#person-ana-okafor [data-testid="request-state"]`))); got != "pending" {
		t.Fatalf("correction shows %q before the agent confirmed it", got)
	}
	id := get(tb, "request id", chromedp.Evaluate[string](`document.querySelector('#person-ana-okafor [data-testid="request"]').dataset.id`))
	ref := `{"id":"ref-1","kind":"life","path":"people/ana-okafor.md","contentHash":"sha256:` + strings.Repeat("2b", 32) + `","observedAt":"2026-12-01T08:00:00Z"}`
	completeRequest(t, srv, "run-city", id, ref)
	eventually(tb, "correction confirmed without reload",
		`(function(){var s=document.querySelector('#person-ana-okafor [data-testid="request-state"]');return !!s && s.textContent==="confirmed in life"})()`, 5*time.Second)
}
