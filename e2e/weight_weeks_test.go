package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// On the demo's weight page the owner picks the routine the weeks are
// compared by, with one thumb at 390 px, and the table and the split
// follow it without horizontal scrolling.
func TestWeightWeeksAreComparedByTheRoutineTheOwnerPicksAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("open /weight",
		chromedp.Navigate(srv.URL+"/weight"),
		chromedp.WaitVisible(css(`[data-testid="weight-weeks"]`)),
	)
	header := func() string {
		return get(tb, "read the routine column", chromedp.Evaluate[string](`document.querySelector('[data-testid="weight-weeks"] thead th:last-child').textContent.trim()`))
	}
	if h := header(); h != "Evening wind-down" {
		t.Fatalf("the weeks are compared by %q, want the first routine, Evening wind-down", h)
	}
	tb.do("pick the weekly review",
		chromedp.SetValue(css(`select#routine`), "weekly-review"),
		chromedp.Click(css(`.weeks-form button[type="submit"]`)),
		// The form's page, not the one it left: the select says what was picked.
		chromedp.WaitReady(css(`select#routine option[value="weekly-review"][selected]`)),
	)
	if h := header(); h != "Weekly review" {
		t.Fatalf("after picking the weekly review the weeks are compared by %q", h)
	}
	split := get(tb, "read the split", chromedp.Evaluate[string](`document.querySelector('[data-testid="weight-split"]').textContent`))
	cells := get(tb, "read a week", chromedp.Evaluate[string](`document.querySelector('[data-testid="weight-week"] td:last-child').textContent.trim()`))
	overflow := get(tb, "measure", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > document.documentElement.clientWidth`))
	if !strings.Contains(split, "Weekly review") && !strings.Contains(split, "Too few weeks") || !strings.HasSuffix(cells, "of 1 day") || overflow {
		t.Fatalf("split %q, newest week %q (a weekly routine plans one day), overflow %v", split, cells, overflow)
	}
}
