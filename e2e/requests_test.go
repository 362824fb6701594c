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
	)
	// Home says the request once: in the waiting list, asked of the agent.
	// The demo holds requests of its own: this one is found by its words.
	const ours = `Array.from(document.querySelectorAll('[data-testid="waiting-agent"] [data-testid="waiting-item"][data-kind="request"][data-status="pending"]')).find(function(e){return e.textContent.indexOf("Find a dentist near work") >= 0})`
	eventually(tb, "the request with the agent", `document.readyState === "complete" && !!`+ours, navigationDeadline)
	id := get(tb, "request id", chromedp.Evaluate[string](ours+`.dataset.key.slice("request:".length)`))
	ref := `{"id":"ref-1","kind":"life","path":"notes/dentist.md","contentHash":"sha256:` + strings.Repeat("1a", 32) + `","observedAt":"2026-12-01T08:00:00Z"}`
	completeRequest(t, srv, "run-dentist", id, ref)
	eventually(tb, "request finished without reload",
		`(function(){var r=document.querySelector('[data-testid="waiting-finished"] [data-key="request:`+id+`"]');return !!r && r.dataset.status==="completed" && !document.querySelector('[data-testid="waiting-agent"] [data-key="request:`+id+`"]')})()`, 5*time.Second)
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
	if got := get(tb, "state", textOf(`#person-ana-okafor [data-testid="request-state"]`)); got != "pending" {
		t.Fatalf("correction shows %q before the agent confirmed it", got)
	}
	id := get(tb, "request id", chromedp.Evaluate[string](`document.querySelector('#person-ana-okafor [data-testid="request"]').dataset.id`))
	ref := `{"id":"ref-1","kind":"life","path":"people/ana-okafor.md","contentHash":"sha256:` + strings.Repeat("2b", 32) + `","observedAt":"2026-12-01T08:00:00Z"}`
	completeRequest(t, srv, "run-city", id, ref)
	eventually(tb, "correction confirmed without reload",
		`(function(){var s=document.querySelector('#person-ana-okafor [data-testid="request-state"]');return !!s && s.textContent==="confirmed in life"})()`, 5*time.Second)
}
