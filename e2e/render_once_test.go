package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// liveReads counts the page's reads of Home's live fragment from now on.
const liveReads = `window.__liveReads = 0; (function () {
	var f = window.fetch;
	window.fetch = function (u) {
		if (String(u).indexOf("/home/live") >= 0) window.__liveReads++;
		return f.apply(this, arguments);
	};
})(); true`

// A tick on a routine's step is answered by the routine's
// row with the tick's revision, and the live event for that revision does
// not make the page read and render all of Home again; a change made
// elsewhere still does.
func TestAStepTickRendersOnceAndAChangeElsewhereStillRefreshes(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	day := demoDay(t)
	routine, step := "morning-routine-"+day, "stretch-"+day
	tb.waitRevision(client.context(t).Revision)
	tb.expand(routine, "routine")
	tb.do("count live reads", chromedp.Evaluate[chromedp.Void](liveReads))

	tb.do("tick the step",
		tap(rowSel(step)+` > form [data-testid="tick"]`),
		chromedp.WaitVisible(css(rowSel(step)+`[data-state="completed"] [data-testid="undo-bar"]`)),
	)
	rev := client.context(t).Revision
	// The tick's event has come (data-seen) and Home counts as showing it.
	eventually(tb, fmt.Sprintf("revision %d seen and shown", rev), fmt.Sprintf(
		`Number(document.body.dataset.seen)>=%d && Number(document.getElementById("live").dataset.revision)>=%d`, rev, rev), 10*time.Second)
	if n := get(tb, "live reads", chromedp.Evaluate[int](`window.__liveReads`)); n != 0 {
		t.Fatalf("the tick's own revision made the page read Home %d time(s), want none", n)
	}
	if p := get(tb, "progress", textOf(rowSel(routine)+` > a [data-testid="progress"]`)); p != "1/3" {
		t.Errorf("routine progress %q after the tick, want 1/3", p)
	}
	if exp := get(tb, "expanded", chromedp.Evaluate[string](`document.querySelector('`+rowSel(step)+`').dataset.expanded`)); exp != "false" {
		t.Errorf("the ticked step is expanded=%s", exp)
	}

	// The agent changes another row: Home is read again and shows it.
	republish(t, srv, "elsewhere", `{"id":"book-bike-service","kind":"task","title":"Book the bike service (again)",
		"evidenceIds":["life-people-tomas"],"recommendation":{"section":"optional","rank":1},"payload":{}}`)
	tb.waitRevision(client.context(t).Revision)
	eventually(tb, "other row refreshed", `(function(){var r=document.querySelector('`+rowSel("book-bike-service")+` [data-testid="row-title"]');return !!r&&r.textContent.indexOf("again")>=0})()`, 10*time.Second)
	if n := get(tb, "live reads", chromedp.Evaluate[int](`window.__liveReads`)); n < 1 {
		t.Fatalf("a publication elsewhere was shown without reading Home (%d reads)", n)
	}
	// The tick is still shown after that read.
	if st := tb.rowState(step); st != "completed" {
		t.Errorf("step state %q after the refresh", st)
	}

	// Another tab's tick is a change elsewhere for this one.
	other := newTab(t, srv)
	other.do("open Home", chromedp.Navigate(srv.URL+"/?open="+routine), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	get(other, "settled", chromedp.Poll[bool](htmxSettled))
	tb.do("count live reads again", chromedp.Evaluate[chromedp.Void](liveReads))
	other.do("tick in the other tab",
		tap(rowSel("water-"+day)+` > form [data-testid="tick"]`),
		chromedp.WaitVisible(css(rowSel("water-"+day)+`[data-state="completed"]`)),
	)
	tb.waitRevision(client.context(t).Revision)
	if st := tb.rowState("water-" + day); st != "completed" {
		t.Errorf("the other tab's tick shows %q here", st)
	}
	if n := get(tb, "live reads", chromedp.Evaluate[int](`window.__liveReads`)); n < 1 {
		t.Fatalf("another tab's tick was shown here without reading Home (%d reads)", n)
	}
	if p := get(tb, "progress", textOf(rowSel(routine)+` > a [data-testid="progress"]`)); !strings.HasPrefix(p, "2/") {
		t.Errorf("routine progress %q after the other tab's tick", p)
	}
}
