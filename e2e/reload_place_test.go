package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A page without a live part reloads itself on a change made elsewhere;
// the disclosure the owner opened there stays open and the page stays
// where the owner had scrolled it (Routines and Weight, at 390×844).
func TestAReloadForAChangeElsewhereKeepsOpenDisclosuresAndScroll(t *testing.T) {
	srv := startServer(t, "", "--demo")
	ref := `{"id":"life-place","kind":"life","path":"areas/evenings.md","contentHash":"sha256:` + strings.Repeat("4d", 32) + `","observedAt":"2026-12-01T08:00:00Z"}`
	def := `"routineDefinitions":[{"id":"place-evening","revision":1,"title":"Place evening","purpose":"Wind down.",
		"trigger":{"kind":"daily","timeOfDay":"21:00"},"steps":[
		{"id":"read","title":"Read","kind":"task","required":true,"payload":{}}],
		"completionRule":{"kind":"all-required"},"status":"candidate","evidenceIds":["life-place"]}]`
	publishFieldsWithCLI(t, srv, "routine-place", ref, "", "", def)
	ac := newAgentClient(srv.URL, demoToken(t, srv.DataDir))

	tb := newTab(t, srv)
	tb.login()
	for i, page := range []struct{ path, details string }{
		{"/routines#routine-place-evening", routineCard("place-evening") + ` details[data-testid="definition"]`},
		{"/weight", `details[data-testid="trend-method"]`},
	} {
		tb.do("open "+page.path,
			chromedp.Navigate(srv.URL+page.path),
			chromedp.WaitVisible(css(page.details+` > summary`)),
			chromedp.Click(css(page.details+` > summary`)),
		)
		get(tb, "stream open on "+page.path, chromedp.Poll[bool](`document.readyState === "complete" && Number(document.body.dataset.seen || 0) > 0`))
		// The opened disclosure at the top of the screen, the page scrolled to it.
		y := get(tb, "scroll to the disclosure", chromedp.Evaluate[float64](`(function(){
			document.querySelector('`+page.details+`').scrollIntoView({block: "start"});
			window.hearthBefore = true;
			return window.scrollY; })()`))
		if y < 100 {
			t.Fatalf("%s does not scroll at 390×844 (scrollY %v): the test needs a page taller than the screen", page.path, y)
		}

		rev := ac.context(t).Revision
		if code, body, err := ac.publish(newPublication("elsewhere-"+strconv.Itoa(i), rev, 1).Body); err != nil || code != 201 {
			t.Fatalf("publish: %d %s %v", code, body, err)
		}
		eventually(tb, page.path+" reloads on the change", `!window.hearthBefore && document.readyState === "complete" && Number(document.body.dataset.revision || 0) > `+strconv.FormatInt(rev, 10), 10*time.Second)

		if !get(tb, "disclosure", chromedp.Evaluate[bool](`!!document.querySelector('`+page.details+`[open]')`)) {
			t.Errorf("%s: the disclosure the owner opened is shut after the reload", page.path)
		}
		if after := get(tb, "scroll after", chromedp.Evaluate[float64](`window.scrollY`)); after < y-2 || after > y+2 {
			t.Errorf("%s: scrolled to %v after the reload, was %v", page.path, after, y)
		}
		if left := get(tb, "place consumed", chromedp.Evaluate[bool](`!!(history.state && history.state.hearthPlace)`)); left {
			t.Errorf("%s: the remembered place is still in the history entry after the reload read it", page.path)
		}
	}
}
