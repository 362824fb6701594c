package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// holdJS holds, in the page, Home's live refresh (hearth.js's fetch of
// /home/live: its answer, read from hearth at once, is given to the page
// only on __releaseRefresh()) and a row's opening (htmx's GET of
// ?expanded=true: sent only on __releaseOpen(), its answers counted in
// __openAnswered), and counts the refreshes swapped in. Each hold takes the requests made until its release.
const holdJS = `(function () {
	window.__refreshes = 0;
	document.addEventListener("hearth:refreshed", function () { window.__refreshes++; });
	window.__heldRefresh = 0;
	var refreshGate = new Promise(function (r) { window.__releaseRefresh = r; });
	var fetch0 = window.fetch;
	window.fetch = function (input) {
		var p = fetch0.apply(this, arguments);
		if (String(input && input.url || input).indexOf("/home/live") < 0) return p;
		window.__heldRefresh++;
		return refreshGate.then(function () { return p; });
	};
	window.__heldOpen = 0;
	window.__openAnswered = 0;
	var openGate = new Promise(function (r) { window.__releaseOpen = r; });
	var open0 = XMLHttpRequest.prototype.open, send0 = XMLHttpRequest.prototype.send;
	XMLHttpRequest.prototype.open = function (verb, url) {
		this.__url = String(url);
		return open0.apply(this, arguments);
	};
	XMLHttpRequest.prototype.send = function () {
		var xhr = this, args = arguments;
		if (!/expanded=true/.test(xhr.__url || "")) return send0.apply(xhr, args);
		window.__heldOpen++;
		xhr.addEventListener("loadend", function () { window.__openAnswered++; });
		openGate.then(function () { send0.apply(xhr, args); });
	};
	return true;
})()`

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

// tapJS taps a row's head in the page, in one task.
func tapJS(id string) string {
	return `document.querySelector('` + rowSel(id) + ` > a.row-head').click(); true`
}

// TestRowOpenedWhileALiveRefreshIsOnItsWayStaysOpen: a live refresh read
// before the owner's tap, whose answer lands after the tap opened the row,
// does not shut it again.
func TestRowOpenedWhileALiveRefreshIsOnItsWayStaysOpen(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	const row = "book-bike-service"
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	tb.do("hold the refresh", chromedp.Evaluate[chromedp.Void](holdJS+`; window.__releaseOpen(); true`))
	publishTask(t, srv, "call-mum", "Call Mum")
	eventually(tb, "the refresh is on its way", `window.__heldRefresh > 0`, 10*time.Second)
	tb.do("tap the row open", chromedp.Evaluate[chromedp.Void](tapJS(row)))
	eventually(tb, "the row opens", rowOpenJS(row, "task"), 10*time.Second)
	tb.do("the refresh lands", chromedp.Evaluate[chromedp.Void](`window.__releaseRefresh(); true`))
	eventually(tb, "the refresh is shown", `window.__refreshes > 0 && !!document.querySelector('`+rowSel("call-mum")+`')`, 10*time.Second)
	get(tb, "settled after the refresh", chromedp.Poll[bool](htmxSettled))
	if !get(tb, "open after the refresh", chromedp.Evaluate[bool](rowOpenJS(row, "task"))) {
		t.Fatalf("the live refresh read before the tap shut the row the owner had opened")
	}
}

// TestRowBeingOpenedWhenALiveRefreshLandsOpens: a live refresh that lands
// while the tap's own answer is still on its way shows the row open (the
// tap's answer then has no row of the page left to open).
func TestRowBeingOpenedWhenALiveRefreshLandsOpens(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	const row = "book-bike-service"
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	tb.do("hold the opening", chromedp.Evaluate[chromedp.Void](holdJS+`; window.__releaseRefresh(); true`))
	tb.do("tap the row open", chromedp.Evaluate[chromedp.Void](tapJS(row)))
	eventually(tb, "the opening is on its way", `window.__heldOpen > 0`, 10*time.Second)
	publishTask(t, srv, "call-mum", "Call Mum")
	eventually(tb, "the refresh is shown", `window.__refreshes > 0 && !!document.querySelector('`+rowSel("call-mum")+`')`, 10*time.Second)
	tb.do("the opening's answer comes", chromedp.Evaluate[chromedp.Void](`window.__releaseOpen(); true`))
	eventually(tb, "the opening is answered", `window.__openAnswered > 0`, 10*time.Second)
	get(tb, "settled after the answer", chromedp.Poll[bool](htmxSettled))
	if !get(tb, "open after both", chromedp.Evaluate[bool](rowOpenJS(row, "task"))) {
		t.Fatalf("the live refresh that landed during the tap left the row shut")
	}
}

// TestRowOpenedWhileAnActionsAnswerIsOnItsWayStaysOpen: an owner action
// answered with Home's live part (a quick add), sent before the tap and
// answered after it, does not shut the row the tap opened.
func TestRowOpenedWhileAnActionsAnswerIsOnItsWayStaysOpen(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	const row = "book-bike-service"
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	// The add's answer is held in the page until released.
	tb.do("hold the add's answer", chromedp.Evaluate[chromedp.Void](`(function () {
		window.__addHeld = 0;
		window.__addAnswered = 0;
		var gate = new Promise(function (r) { window.__releaseAdd = r; });
		var open0 = XMLHttpRequest.prototype.open, send0 = XMLHttpRequest.prototype.send;
		XMLHttpRequest.prototype.open = function (verb, url) {
			this.__add = verb.toUpperCase() === "POST" && /\/mine$/.test(String(url));
			return open0.apply(this, arguments);
		};
		XMLHttpRequest.prototype.send = function () {
			var xhr = this, args = arguments;
			if (!xhr.__add) return send0.apply(xhr, args);
			window.__addHeld++;
			xhr.addEventListener("loadend", function () { window.__addAnswered++; });
			gate.then(function () { send0.apply(xhr, args); });
		};
		return true;
	})()`))
	quickAdd(tb, "buy milk")
	eventually(tb, "the add is on its way", `window.__addHeld > 0`, 10*time.Second)
	tb.do("tap the row open", chromedp.Evaluate[chromedp.Void](tapJS(row)))
	eventually(tb, "the row opens", rowOpenJS(row, "task"), 10*time.Second)
	tb.do("the add's answer comes", chromedp.Evaluate[chromedp.Void](`window.__releaseAdd(); true`))
	eventually(tb, "the add is shown", `window.__addAnswered > 0 && !!document.querySelector('[data-testid="mine-item"]')`, 10*time.Second)
	// A read of Home may follow the answer: both are in once nothing is in flight.
	get(tb, "settled after the answer", chromedp.Poll[bool](htmxSettled))
	eventually(tb, "open after the answer", rowOpenJS(row, "task"), 5*time.Second)
}
