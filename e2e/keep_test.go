package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// restores counts, across every document of a tab, the pages Chromium showed
// from the back/forward cache (pageshow with persisted true), and keeps the
// reasons it gave (Page.backForwardCacheNotUsed) when it could not.
type restores struct {
	tb      *tab
	mu      sync.Mutex
	reasons map[string]int
}

// watchRestores installs the counter in every later document of the tab.
// sessionStorage carries the count from one document to the next.
func (tb *tab) watchRestores() *restores {
	tb.t.Helper()
	const counter = `addEventListener("pageshow", function (e) {
		if (e.persisted) sessionStorage.setItem("__restored", String(Number(sessionStorage.getItem("__restored") || 0) + 1));
	});`
	tb.do("count restores", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: counter})
		return err
	}))
	r := &restores{tb: tb, reasons: map[string]int{}}
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		e, ok := ev.(*page.EventBackForwardCacheNotUsed)
		if !ok {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, x := range e.NotRestoredExplanations {
			r.reasons[string(x.Type)+" "+string(x.Reason)]++
		}
	}); err != nil {
		tb.t.Fatalf("listen: %v", err)
	}
	return r
}

// count is how many pages of this tab were restored so far.
func (r *restores) count() int {
	return get(r.tb, "restores", chromedp.Evaluate[int](`Number(sessionStorage.getItem("__restored") || 0)`))
}

// why lists the reasons Chromium gave for not restoring, with how often.
func (r *restores) why() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k, n := range r.reasons {
		out = append(out, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "none given"
	}
	return strings.Join(out, ", ")
}

// tapNav taps a tab of the navigation bar and waits for its page. The tap
// is the link's click() in the page: chromedp's Click waits on the document
// it clicked in, and a document kept in the back/forward cache is frozen,
// so it would never answer.
func (tb *tab) tapNav(path string) {
	tb.t.Helper()
	tb.do("tap "+path, chromedp.Evaluate[chromedp.Void](`document.querySelector('nav a[href="`+path+`"]').click(); true`))
	eventually(tb, "on "+path, fmt.Sprintf(`location.pathname === %q && document.readyState === "complete" && !!document.querySelector("main")`, path), navigationDeadline)
}

// back goes back in the tab's history, as the phone's Back does, and waits
// for path to be shown.
func (tb *tab) back(path string) {
	tb.t.Helper()
	tb.do("go back", chromedp.Evaluate[chromedp.Void](`history.back(); true`))
	eventually(tb, "back on "+path, fmt.Sprintf(`location.pathname === %q && document.readyState === "complete" && !!document.querySelector("main")`, path), navigationDeadline)
}

func TestBackRestoresHomeMessagesAndPeopleFromTheBackForwardCache(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	seen := tb.watchRestores()
	tb.login()
	for _, hop := range []struct{ from, to string }{{"/", "/messages"}, {"/messages", "/people"}, {"/people", "/"}} {
		if !get(tb, "where", chromedp.Evaluate[bool](fmt.Sprintf(`location.pathname === %q`, hop.from))) {
			tb.tapNav(hop.from)
		}
		before := seen.count()
		tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.__kept = true; true`))
		tb.tapNav(hop.to)
		tb.back(hop.from)
		if n := seen.count(); n != before+1 {
			t.Errorf("back to %s from %s: restored %d pages, want %d; Chromium's reasons: %s", hop.from, hop.to, n-before, 1, seen.why())
		}
		if !get(tb, "same document", chromedp.Evaluate[bool](`window.__kept === true`)) {
			t.Errorf("back to %s: the page was loaded again, not restored", hop.from)
		}
	}
	fmt.Printf("e2e: back/forward cache: %d restores; reasons when not: %s\n", seen.count(), seen.why())
}
