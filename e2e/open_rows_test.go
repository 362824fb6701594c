package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// holdJS holds, in the page, the requests of the kind named by the string
// it is called with, until window.__holds[kind].release(), and counts those
// of every kind, held or not, in window.__holds[kind] (sent, answered):
//   - "read": Home's live read (hearth.js's fetch of /home/live); its answer
//     is read from hearth at once and given to the page on release, and
//     landed is set once the page has had it and a task more;
//   - "open": a row's opening (htmx's GET of ?expanded=true), sent on release;
//   - "add": a quick add (htmx's POST of /mine), sent on release.
//
// It counts the live refreshes swapped in, in window.__refreshes. The hold
// takes the requests made until its release.
const holdJS = `(function (held) {
	var holds = window.__holds = {};
	["read", "open", "add"].forEach(function (name) {
		var h = holds[name] = { sent: 0, answered: 0, landed: false, release: function () {} };
		h.gate = name !== held ? Promise.resolve() : new Promise(function (r) { h.release = r; });
	});
	window.__refreshes = 0;
	document.addEventListener("hearth:refreshed", function () { window.__refreshes++; });
	var fetch0 = window.fetch;
	window.fetch = function (input) {
		var p = fetch0.apply(this, arguments);
		if (String(input && input.url || input).indexOf("/home/live") < 0) return p;
		var h = holds.read;
		h.sent++;
		var given = h.gate.then(function () { return p; });
		given.then(function (r) { return r.clone().text(); })
			.then(function () { h.answered++; return new Promise(function (r) { setTimeout(r, 50); }); })
			.then(function () { h.landed = true; });
		return given;
	};
	var open0 = XMLHttpRequest.prototype.open, send0 = XMLHttpRequest.prototype.send;
	XMLHttpRequest.prototype.open = function (verb, url) {
		verb = String(verb).toUpperCase();
		url = String(url);
		this.__hold = verb === "GET" && /expanded=true/.test(url) ? holds.open : verb === "POST" && /\/mine$/.test(url) ? holds.add : null;
		return open0.apply(this, arguments);
	};
	XMLHttpRequest.prototype.send = function () {
		var xhr = this, args = arguments, h = xhr.__hold;
		if (!h) return send0.apply(xhr, args);
		h.sent++;
		xhr.addEventListener("loadend", function () { h.answered++; });
		h.gate.then(function () { send0.apply(xhr, args); });
	};
	return true;
})`

// holdInPage installs holdJS on the page, holding the requests of kind.
func holdInPage(tb *tab, kind string) {
	tb.t.Helper()
	tb.do("hold "+kind, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`%s(%q)`, holdJS, kind)))
}

// publishTask commits a new task through the agent API: a change made
// elsewhere, which Home's live part reads again.
func publishTask(t *testing.T, srv *server, id, title string) {
	t.Helper()
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	rev := client.context(t).Revision
	body := fmt.Sprintf(`{"runId":"run-%s","jobKey":"refresh","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[],"people":[],
		"activities":[{"id":%q,"kind":"task","title":%q,"evidenceIds":[],"recommendation":{"section":"focus","rank":0},"payload":{}}],
		"replyDrafts":[],"retractions":[],"completedRequests":[]}`, id, rev, time.Now().UTC().Format(time.RFC3339), id, title)
	if status, resp, err := client.publish([]byte(body)); err != nil || status != 201 {
		t.Fatalf("publish %s: %d %s %v", id, status, resp, err)
	}
}

// rowOpenJS is true while the row is open with its control shown.
func rowOpenJS(id, kind string) string {
	return `(function () {
		var row = document.querySelector('` + rowSel(id) + `');
		var c = row && row.querySelector('[data-testid="control-` + kind + `"]');
		return !!c && row.dataset.expanded === "true" && c.getClientRects().length > 0;
	})()`
}

// inFlight is one request of the page's a test races against another:
// hold names its kind in holdJS (needed only of the one held), send sets
// it off, and landed is true in the page once its answer is in.
type inFlight struct {
	what, hold string
	send       func()
	landed     string
}

// liveRead is Home's live read of a task published elsewhere.
func liveRead(t *testing.T, tb *tab) inFlight {
	return inFlight{"the live read", "read", func() { publishTask(t, tb.srv, "call-mum", "Call Mum") },
		`window.__refreshes > 0 && !!document.querySelector('` + rowSel("call-mum") + `')`}
}

// rowTap is the owner's tap on a row's head, tapped in the page in one
// task, and its opening.
func rowTap(tb *tab, id string) inFlight {
	return inFlight{"the tap on " + id, "open", func() {
		tb.do("tap "+id, chromedp.Evaluate[chromedp.Void](`document.querySelector('`+rowSel(id)+` > a.row-head').click(); true`))
	}, `window.__holds.open.answered > 0`}
}

// quickAddOf is the owner's quick add of words, answered with Home's live part.
func quickAddOf(tb *tab, words string) inFlight {
	return inFlight{"the quick add", "add", func() { quickAdd(tb, words) },
		`window.__holds.add.answered > 0 && !!document.querySelector('[data-testid="mine-item"]')`}
}

// overtaken sets early off and holds it on its way, sets late off and
// waits for it to land, then lets early land, and returns once htmx has
// settled: the page has had both answers in the order the race gives.
func overtaken(tb *tab, early, late inFlight) {
	tb.t.Helper()
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	holdInPage(tb, early.hold)
	early.send()
	eventually(tb, early.what+" is on its way", `window.__holds.`+early.hold+`.sent > 0`, 10*time.Second)
	late.send()
	eventually(tb, late.what+" lands", late.landed, 10*time.Second)
	tb.do(early.what+" lands", chromedp.Evaluate[chromedp.Void](`window.__holds.`+early.hold+`.release(); true`))
	eventually(tb, early.what+" landed", early.landed, 10*time.Second)
	// A read of Home may follow an answer: both are in once nothing is in flight.
	get(tb, "settled after both", chromedp.Poll[bool](htmxSettled))
}

// TestRowOpenedWhileALiveRefreshIsOnItsWayStaysOpen: a live refresh read
// before the owner's tap, whose answer lands after the tap opened the row,
// does not shut it again.
func TestRowOpenedWhileALiveRefreshIsOnItsWayStaysOpen(t *testing.T) {
	tb := demoTab(t)
	overtaken(tb, liveRead(t, tb), rowTap(tb, "book-bike-service"))
	eventually(tb, "the row the owner opened is still open after the refresh", rowOpenJS("book-bike-service", "task"), 5*time.Second)
}

// TestRowBeingOpenedWhenALiveRefreshLandsOpens: a live refresh that lands
// while the tap's own answer is still on its way shows the row open (the
// tap's answer then has no row of the page left to open).
func TestRowBeingOpenedWhenALiveRefreshLandsOpens(t *testing.T) {
	tb := demoTab(t)
	overtaken(tb, rowTap(tb, "book-bike-service"), liveRead(t, tb))
	eventually(tb, "the row is open after the refresh that landed during the tap", rowOpenJS("book-bike-service", "task"), 5*time.Second)
}

// TestRowOpenedWhileAnActionsAnswerIsOnItsWayStaysOpen: an owner action
// answered with Home's live part (a quick add), sent before the tap and
// answered after it, does not shut the row the tap opened.
func TestRowOpenedWhileAnActionsAnswerIsOnItsWayStaysOpen(t *testing.T) {
	tb := demoTab(t)
	overtaken(tb, quickAddOf(tb, "buy milk"), rowTap(tb, "book-bike-service"))
	eventually(tb, "the row the owner opened is still open after the add's answer", rowOpenJS("book-bike-service", "task"), 5*time.Second)
}
