package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// navigationDeadline fails a navigation that never completes; a real one
// takes milliseconds. It is a hang detector, not a timing assertion.
const navigationDeadline = 10 * time.Second

// navigate loads path in the tab and waits for its main, failing after
// navigationDeadline; it returns how long the load took.
func (tb *tab) navigate(path string) time.Duration {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, navigationDeadline)
	defer cancel()
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(tb.srv.URL+path), chromedp.WaitReady(css("main"))); err != nil {
		tb.fail(fmt.Sprintf("navigate to %s (did not load within %s)", path, navigationDeadline), err)
	}
	return time.Since(start)
}

func TestTenNavigationsInARowEachLoad(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	// Home is already loaded; every page below leaves the one before it in
	// the back/forward cache, each of which used to hold its /events stream.
	pages := []string{"/messages", "/people", "/routines", "/schedules", "/runs", "/", "/messages", "/people", "/routines", "/schedules"}
	var took []string
	for _, p := range pages {
		d := tb.navigate(p)
		took = append(took, fmt.Sprintf("%s %d ms", p, d.Milliseconds()))
	}
	fmt.Printf("e2e: ten navigations: %s\n", strings.Join(took, ", "))
}

// countStreams makes every later document of the tab count the /events
// streams it opened and has not closed, in window.__streams.
func (tb *tab) countStreams() {
	tb.t.Helper()
	const counter = `(function () {
		var Native = window.EventSource;
		window.__streams = 0;
		class Counted extends Native {
			constructor(url, opts) { super(url, opts); this.__open = true; window.__streams++; }
			close() { if (this.__open) { this.__open = false; window.__streams--; } super.close(); }
		}
		window.EventSource = Counted;
	})();`
	tb.do("count streams", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: counter})
		return err
	}))
}

func TestBackNavigationRestoresHomeWithLiveStream(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.countStreams()
	tb.login()
	tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.__kept = true;
		window.addEventListener("pageshow", function (e) { window.__restored = e.persisted; }); true`))
	tb.navigate("/messages")
	if n := get(tb, "streams on messages", chromedp.Evaluate[int](`window.__streams`)); n != 1 {
		t.Errorf("messages has %d open streams, want 1", n)
	}
	tb.do("go back", chromedp.Evaluate[chromedp.Void](`history.back(); true`))
	// Restored from the back/forward cache: the same document, not a reload.
	eventually(tb, "home restored from the back/forward cache", `window.__kept === true && window.__restored === true`, navigationDeadline)
	eventually(tb, "one stream again", `window.__streams === 1`, navigationDeadline)

	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	rev := client.context(t).Revision
	body := fmt.Sprintf(`{"runId":"after-back","jobKey":"refresh","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[],"people":[],
		"activities":[{"id":"water-plants","kind":"task","title":"Water the plants","evidenceIds":[],"recommendation":{"section":"focus","rank":0},"payload":{}}],
		"replyDrafts":[],"retractions":[],"completedRequests":[]}`, rev, time.Now().UTC().Format(time.RFC3339))
	if status, resp, err := client.publish([]byte(body)); err != nil || status != 201 {
		t.Fatalf("publish: %d %s %v", status, resp, err)
	}
	eventually(tb, "live row after coming back", `!!document.querySelector('`+rowSel("water-plants")+`')`, navigationDeadline)
	if !get(tb, "still the restored document", chromedp.Evaluate[bool](`window.__kept === true`)) {
		t.Error("the page reloaded instead of updating in place")
	}
	// pageshow and resume both follow a restore: still one stream, not two.
	if n := get(tb, "streams after the update", chromedp.Evaluate[int](`window.__streams`)); n != 1 {
		t.Errorf("home has %d open streams after coming back, want 1", n)
	}
}
