package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// readsCounted installs the live-read counter once per page (liveReads
// wraps fetch, so installing it twice would count twice).
const readsCounted = `if (window.__liveReads === undefined) { ` + liveReads + ` } else { window.__liveReads = 0; } true`

// holdNextPost makes the page's next XMLHttpRequest wait before it is
// sent, until window.__release() is called: htmx has begun the request
// (the action is in flight) but the server has not seen it.
const holdNextPost = `(function () {
	var send = XMLHttpRequest.prototype.send;
	window.__held = false;
	XMLHttpRequest.prototype.send = function (body) {
		var x = this;
		XMLHttpRequest.prototype.send = send;
		window.__held = true;
		window.__release = function () { send.call(x, body); };
	};
})(); true`

// savedShows is true once row's saved value reads value.
func savedShows(row, value string) string {
	return `(function(){var s=document.querySelector('` + rowSel(row) + ` [data-testid="measurement-saved"]');return !!s&&s.textContent.indexOf("` + value + `")>=0})()`
}

// For every owner action on Home: a tap whose answer is
// all its commit changed on Home (a draft's edit, a weight corrected,
// feedback, a tick, an Undo answered with the live part) makes the page
// read Home's live fragment no time at all; a tap whose effects reach past
// its row (a task moving to Done today, a first weight the brief names)
// reads it once; and a change another client commits while a tap is in
// flight is read once, together with the tap.
func TestEveryOwnActionRendersOnceAndAChangeElsewhereIsReadOnce(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	day := demoDay(t)
	routine, weigh, stretch, evening := "morning-routine-"+day, "weigh-in-"+day, "stretch-"+day, "hearth:evening-wind-down@"+day
	tb.waitRevision(client.context(t).Revision)

	// act runs a tap, waits until its commit's event has come and Home
	// counts as showing it, and checks how often the page read Home.
	act := func(what string, reads int, until string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		get(tb, "settle before "+what, chromedp.Poll[bool](htmxSettled))
		tb.do("count live reads", chromedp.Evaluate[chromedp.Void](readsCounted))
		tb.do(what, steps...)
		if until != "" {
			eventually(tb, what+": answered", until, 10*time.Second)
		}
		rev := client.context(t).Revision
		eventually(tb, fmt.Sprintf("%s: revision %d seen and shown", what, rev), fmt.Sprintf(
			`Number(document.body.dataset.seen)>=%d && Number(document.getElementById("live").dataset.revision)>=%d`, rev, rev), 10*time.Second)
		get(tb, "settle after "+what, chromedp.Poll[bool](htmxSettled))
		if n := get(tb, "live reads", chromedp.Evaluate[int](`window.__liveReads`)); n != reads {
			t.Errorf("%s: the page read Home %d time(s), want %d", what, n, reads)
		}
	}
	typeValue := func(sel, value string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](`(function(){var f=document.querySelector('` + sel + `');f.value=` + fmt.Sprintf("%q", value) + `;f.dispatchEvent(new Event("input",{bubbles:true}));})()`)
	}

	tb.expand("reply-ana-hike", "reply")
	act("save a draft's edit", 0, "",
		typeValue(rowSel("reply-ana-hike")+` textarea`, "Saturday works, see you at 8."),
		tap(rowSel("reply-ana-hike")+` [data-testid="draft-save"]`),
		chromedp.WaitVisible(css(rowSel("reply-ana-hike")+` [data-testid="draft-edited"]`)),
	)

	tb.expand(routine, "routine")
	act("tick a step", 0, "",
		tap(rowSel(stretch)+` > form [data-testid="tick"]`),
		chromedp.WaitVisible(css(rowSel(stretch)+`[data-state="completed"] [data-testid="undo-bar"]`)),
	)
	tb.expand(weigh, "measurement")
	// The brief names "Weigh in", and strikes it once saved: Home is read.
	act("save a first weight", 1, "",
		typeValue(`#value-`+weigh, "72,4"),
		tap(rowSel(weigh)+` [data-testid="measurement-save"]`),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="measurement-saved"]`)),
	)
	tb.expand(weigh, "measurement")
	act("correct the weight", 0, savedShows(weigh, "72.6"),
		typeValue(`#value-`+weigh, "72,6"),
		tap(rowSel(weigh)+` [data-testid="measurement-save"]`),
	)

	tb.expand(evening, "routine")
	act("skip the evening routine", 1, "",
		tap(rowSel(evening)+` [data-testid="outcome-skip"]`),
		chromedp.WaitVisible(css(`[data-testid="done-today"] `+rowSel(evening)+` [data-testid="feedback"]`)),
	)
	act("give feedback", 0, "",
		tap(rowSel(evening)+` [data-testid="feedback-effort-hard"]`),
		chromedp.WaitVisible(css(rowSel(evening)+` [data-testid="feedback-effort-chosen"]`)),
	)

	tb.expand("book-bike-service", "task")
	act("complete a task", 1, "",
		tap(rowSel("book-bike-service")+` [data-testid="complete"]`),
		chromedp.WaitVisible(css(`[data-testid="done-today"] `+rowSel("book-bike-service")+` [data-testid="undo-word"]`)),
	)
	// The newest decision's Undo is the bottom bar's.
	act("undo it", 0, "",
		tap(`#undo-dock [data-testid="undo"]`),
		chromedp.WaitVisible(css(`section `+rowSel("book-bike-service")+`[data-state="available"]`)),
	)

	// The agent publishes while a correction is in flight: its event is
	// held until the answer is in, and one read shows both.
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")
	get(tb, "settle before the held tap", chromedp.Poll[bool](htmxSettled))
	tb.do("count live reads", chromedp.Evaluate[chromedp.Void](readsCounted))
	tb.do("correct the weight, held", chromedp.Evaluate[chromedp.Void](holdNextPost),
		typeValue(`#value-`+weigh, "72,8"),
		tap(rowSel(weigh)+` [data-testid="measurement-save"]`),
	)
	get(tb, "the correction held", chromedp.Poll[bool](`window.__held === true`))
	republish(t, srv, "while-in-flight", `{"id":"book-bike-service","kind":"task","title":"Book the bike service (again)",
		"evidenceIds":["life-people-tomas"],"recommendation":{"section":"optional","rank":1},"payload":{}}`)
	other := client.context(t).Revision
	eventually(tb, fmt.Sprintf("revision %d seen", other), fmt.Sprintf(`Number(document.body.dataset.seen)>=%d`, other), 10*time.Second)
	if n := get(tb, "live reads while held", chromedp.Evaluate[int](`window.__liveReads`)); n != 0 {
		t.Errorf("the page read Home %d time(s) while its own tap was in flight, want it to wait for the answer", n)
	}
	tb.do("release the correction", chromedp.Evaluate[chromedp.Void](`window.__release(); true`))
	eventually(tb, "the correction answered", savedShows(weigh, "72.8"), 10*time.Second)
	rev := client.context(t).Revision
	if rev <= other {
		t.Fatalf("the correction committed no revision after the publication's %d", other)
	}
	eventually(tb, "both shown", fmt.Sprintf(`Number(document.body.dataset.seen)>=%d && Number(document.getElementById("live").dataset.revision)>=%d && (function(){var r=document.querySelector('`+rowSel("book-bike-service")+` [data-testid="row-title"]');return !!r&&r.textContent.indexOf("again")>=0})()`, rev, rev), 10*time.Second)
	get(tb, "settle after the held tap", chromedp.Poll[bool](htmxSettled))
	if n := get(tb, "live reads", chromedp.Evaluate[int](`window.__liveReads`)); n != 1 {
		t.Errorf("a publication during the tap: the page read Home %d time(s), want 1", n)
	}
	if saved := get(tb, "saved", textOf(rowSel(weigh)+` [data-testid="measurement-saved"]`)); !strings.Contains(saved, "72.8") {
		t.Errorf("after the read the weigh-in shows %q", saved)
	}
}
