package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// completeRequest publishes a result completing requestID through `hearth publish`.
func completeRequest(t *testing.T, srv *server, runID, requestID, sourceRef string) {
	t.Helper()
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	rev := client.context(t).Revision
	body := fmt.Sprintf(`{"runId":%q,"jobKey":"inbox","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[%s],
		"people":[],"activities":[],"replyDrafts":[],"retractions":[],"completedRequests":[{"requestId":%q,"sourceRefIds":["ref-1"]}]}`,
		runID, rev, time.Now().UTC().Format(time.RFC3339), sourceRef, requestID)
	file := writeFile(t, t.TempDir(), "result.json", []byte(body), 0o600)
	tokenFile := writeFile(t, t.TempDir(), "token", []byte(demoToken(t, srv.DataDir)), 0o600)
	wantExit(t, runHearth(t, nil, "publish", file, "--url", srv.URL, "--credential-file", tokenFile), 0, "stdout", "published")
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
