package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestAFormsAnswerNoLongerKeptShowsAGonePageWithTheTabsAndAWayHome(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.navigate("/answers/not-kept")
	if st := get(tb, "status", chromedp.Evaluate[int](`performance.getEntriesByType("navigation")[0].responseStatus`)); st != 410 {
		t.Errorf("the page came with status %d, want 410", st)
	}
	if words := get(tb, "words", textOf(`[data-testid="gone"]`)); !strings.Contains(words, "no longer kept") {
		t.Errorf("the page says %q", words)
	}
	if !get(tb, "tabs", chromedp.Evaluate[bool](`!!document.querySelector('nav[aria-label="Main"] a[href="/messages"]') && document.querySelector('nav[aria-label="Main"]').checkVisibility()`)) {
		t.Error("no tab bar on the gone page")
	}
	if w := get(tb, "width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("the page is %d px wide at 390", w)
	}
	tb.do("go Home", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="gone-home"]').click(); true`))
	eventually(tb, "on Home", `location.pathname === "/" && !!document.querySelector('[data-testid="brief"]')`, navigationDeadline)
}
