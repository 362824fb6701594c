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

// onEveryDocument has the tab run source in every document it loads from
// now on, before the page's own scripts.
func (tb *tab) onEveryDocument(name, source string) {
	tb.t.Helper()
	tb.do(name, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: source})
		return err
	}))
}

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
// streams it opened and has not closed (window.__streams) and all it opened
// (window.__opened).
func (tb *tab) countStreams() {
	tb.t.Helper()
	const counter = `(function () {
		var Native = window.EventSource;
		window.__streams = 0;
		window.__opened = 0;
		class Counted extends Native {
			constructor(url, opts) { super(url, opts); this.__open = true; window.__streams++; window.__opened++; }
			close() { if (this.__open) { this.__open = false; window.__streams--; } super.close(); }
		}
		window.EventSource = Counted;
	})();`
	tb.onEveryDocument("count streams", counter)
}

// Owner pages are kept in the back/forward cache (Cache-Control: private,
// no-cache, not no-store): Back restores Home as it was left, its stream
// closed while hidden and opened again once shown, and the first event after
// that brings it up to date with what was committed meanwhile. A page the
// browser freezes in place is driven through the page lifecycle: the stream
// closes while frozen and reopens after.
func TestBackNavigationAndAFrozenPageKeepOneLiveStream(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.countStreams()
	seen := tb.watchRestores()
	tb.login()
	tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.__kept = true; true`))
	tb.tapNav("/messages")
	if n := get(tb, "streams on messages", chromedp.Evaluate[int](`window.__streams`)); n != 1 {
		t.Errorf("messages has %d open streams, want 1", n)
	}
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	publishTask := func(runID, id, title string) {
		t.Helper()
		body := fmt.Sprintf(`{"runId":%q,"jobKey":"refresh","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[],"people":[],
		"activities":[{"id":%q,"kind":"task","title":%q,"evidenceIds":[],"recommendation":{"section":"focus","rank":0},"payload":{}}],
		"replyDrafts":[],"retractions":[],"completedRequests":[]}`, runID, client.context(t).Revision, time.Now().UTC().Format(time.RFC3339), id, title)
		if status, resp, err := client.publish([]byte(body)); err != nil || status != 201 {
			t.Fatalf("publish: %d %s %v", status, resp, err)
		}
	}
	// Committed while Home sits in the back/forward cache without a stream.
	publishTask("while-away", "water-plants", "Water the plants")
	tb.back("/")
	if seen.count() != 1 || !get(tb, "the same document", chromedp.Evaluate[bool](`window.__kept === true`)) {
		t.Errorf("Back loaded Home again instead of restoring it (%d restores); Chromium's reasons: %s", seen.count(), seen.why())
	}
	eventually(tb, "the restored Home caught up", `!!document.querySelector('`+rowSel("water-plants")+`')`, navigationDeadline)
	eventually(tb, "one stream on home", `window.__streams === 1`, navigationDeadline)

	opened := get(tb, "streams opened so far", chromedp.Evaluate[int](`window.__opened`))
	for _, state := range []page.SetWebLifecycleStateState{page.SetWebLifecycleStateStateFrozen, page.SetWebLifecycleStateStateActive} {
		tb.do("lifecycle "+string(state), chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			_, err := cdp.Call(ctx, target, page.SetWebLifecycleState, page.SetWebLifecycleStateParams{State: state})
			return err
		}))
	}
	eventually(tb, "the stream reopened after resume", fmt.Sprintf(`window.__opened === %d && window.__streams === 1`, opened+1), navigationDeadline)

	publishTask("after-resume", "feed-the-cat", "Feed the cat")
	eventually(tb, "live row after resume", `!!document.querySelector('`+rowSel("feed-the-cat")+`')`, navigationDeadline)
	if !get(tb, "still the same document", chromedp.Evaluate[bool](`window.__kept === true`)) {
		t.Error("the page reloaded instead of updating in place")
	}
	if n := get(tb, "streams after the update", chromedp.Evaluate[int](`window.__streams`)); n != 1 {
		t.Errorf("home has %d open streams after resume, want 1", n)
	}
}
