package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// True offline in these tests is the cable going down, not an emulation:
// Network.overrideNetworkState (or emulateNetworkConditions) on the page's
// target does not reach the service worker, which is a target of its own
// and would still fetch over the network. With the cable down every
// connection fails for real, the page's and the worker's alike; the
// emulation is added on the page only for what it alone gives,
// navigator.onLine and the offline/online events.

// emulateOffline sets navigator.onLine (and fires offline/online) on the
// tab's page, without touching the network.
func (tb *tab) emulateOffline(off bool) {
	tb.t.Helper()
	tb.do("network state", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, network.OverrideNetworkState, network.OverrideNetworkStateParams{
			Offline: off, DownloadThroughput: -1, UploadThroughput: -1,
		})
		return err
	}))
}

// homeKept says whether the service worker holds a copy of Home.
const homeKept = `caches.open("hearth-home").then(c => c.match("/")).then(r => !!r)`

// installedBehindCable is a phone that has hearth installed: a demo behind a
// cable the test can unplug, a first tab logged in through it until the
// worker keeps Home (the worker installs on the login page, before there is
// a session: the Home the login lands on must be kept without any further
// visit), then left.
func installedBehindCable(t *testing.T) (*server, *cable) {
	t.Helper()
	srv, line, first := loggedInBehindCable(t)
	first.do("worker ready", chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	get(first, "Home kept", chromedp.Poll[bool](homeKept, chromedp.WithPollingArgs()))
	first.do("leave", chromedp.Navigate("about:blank"))
	return srv, line
}

func TestColdStartOfflineWeightAndTickFromAFreshlyInstalledHomeSyncOnceAndShowTheSavedValue(t *testing.T) {
	srv, line := installedBehindCable(t)

	day := demoDay(t)
	routine, weigh, stretch := "morning-routine-"+day, "weigh-in-"+day, "stretch-"+day

	// A cold start without a network: a new tab opens Home from the worker.
	line.set(true)
	tb := newTab(t, &server{URL: line.URL, DataDir: srv.DataDir})
	tb.emulateOffline(true)
	tb.do("open Home offline", chromedp.Navigate(line.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	banner := get(tb, "offline banner", textOf(`[data-testid="offline-banner"]`))
	for _, want := range []string{"offline", "weight", "tick", "wait"} {
		if !strings.Contains(strings.ToLower(banner), want) {
			t.Errorf("offline banner %q does not say %q", banner, want)
		}
	}
	get(tb, "settled", chromedp.Poll[bool](`document.readyState === "complete" && !!window.htmx`))
	tb.do("open the routine offline", chromedp.Click(css(rowSel(routine)+` > a.row-head`)), chromedp.WaitVisible(css(rowSel(routine)+` [data-testid="control-routine"]`)))
	// Its steps are htmx's once the swap has settled: a tap on one before
	// that is a plain link, which offline loads the kept Home again.
	get(tb, "routine settled", chromedp.Poll[bool](htmxSettled))
	tb.do("open the weigh-in offline", chromedp.Click(css(rowSel(weigh)+` > a.row-head`)), chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="control-measurement"]`)))
	get(tb, "weigh-in settled", chromedp.Poll[bool](htmxSettled))
	tb.do("save a weight offline",
		chromedp.SendKeys(css(`#value-`+weigh), "71,8"),
		chromedp.Click(css(rowSel(weigh)+` [data-testid="measurement-save"]`)),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="sync-note"]`)),
	)
	tb.do("tick a step offline",
		chromedp.Click(css(rowSel(stretch)+` > form [data-testid="tick"]`)),
		chromedp.WaitVisible(css(rowSel(stretch)+` [data-testid="sync-note"]`)),
	)
	if n := tb.queueLength(); n != 2 {
		t.Fatalf("%d actions queued, want 2", n)
	}
	if got := weightsSaved(t, srv, weigh); len(got) != 0 {
		t.Fatalf("saved while offline: %v", got)
	}

	// Back online: the queue is sent once, and each row shows what was saved.
	line.set(false)
	tb.emulateOffline(false)
	get(tb, "synced", chromedp.Poll[bool](`document.querySelector('[data-sync]') === null && JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length === 0`))
	if got := weightsSaved(t, srv, weigh); len(got) != 1 || got[0] != 71.8 {
		t.Fatalf("after sync the agent sees %v, want [71.8] once", got)
	}
	if d := decisionsFor(t, srv, stretch); len(d) != 1 || d[0]["state"] != "completed" {
		t.Errorf("after sync the agent sees decisions %v, want one completion", d)
	}
	// Fresh: the live part catches up with the server, and the rows the owner
	// changed offline show the saved values, not "changed elsewhere".
	rev := newAgentClient(srv.URL, demoToken(t, srv.DataDir)).context(t).Revision
	get(tb, "caught up", chromedp.Poll[bool](`Number(document.getElementById("live").dataset.revision) >= `+fmt.Sprint(rev)+` && !document.querySelector('[data-testid="offline-banner"]:not([hidden])')`))
	get(tb, "settled after sync", chromedp.Poll[bool](htmxSettled))
	if !get(tb, "weigh-in shown", chromedp.Evaluate[bool](`!!document.querySelector('`+rowSel(weigh)+` [data-testid="control-measurement"]')`)) {
		tb.expand(routine, "routine")
		tb.expand(weigh, "measurement")
	}
	saved := get(tb, "saved", textOf(rowSel(weigh)+` [data-testid="measurement-saved"]`))
	if !strings.Contains(saved, "71.8 kg") {
		t.Errorf("the weigh-in shows %q after sync, want the saved 71.8 kg", saved)
	}
	if st := tb.rowState(stretch); st != "completed" {
		t.Errorf("the ticked step shows state %q after sync", st)
	}
	if n := get(tb, "stale notes", chromedp.Evaluate[int](`document.querySelectorAll('[data-stale-note]:not([hidden])').length`)); n != 0 {
		t.Errorf("%d rows say they changed elsewhere after the owner's own queued entries synced", n)
	}
}

func TestWeightQueuedOnAnOpenRowShowsTheSavedValueAfterSyncNotChangedElsewhere(t *testing.T) {
	srv, line, tb := loggedInBehindCable(t)
	day := demoDay(t)
	routine, weigh := "morning-routine-"+day, "weigh-in-"+day
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")

	tb.offline(line, true)
	tb.do("save a weight offline",
		chromedp.SendKeys(css(`#value-`+weigh), "70,6"),
		chromedp.Click(css(rowSel(weigh)+` [data-testid="measurement-save"]`)),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="sync-note"]`)),
	)
	tb.offline(line, false)
	get(tb, "synced", chromedp.Poll[bool](`document.querySelector('[data-sync]') === null && JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length === 0`))
	// The save's own live event comes too: wait until the page has read up
	// to the server's revision, then look.
	rev := newAgentClient(srv.URL, demoToken(t, srv.DataDir)).context(t).Revision
	get(tb, "caught up", chromedp.Poll[bool](`Number(document.getElementById("live").dataset.revision) >= `+fmt.Sprint(rev)))
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	saved := get(tb, "saved", chromedp.Evaluate[string](`(function(){var s=document.querySelector('`+rowSel(weigh)+` [data-testid="measurement-saved"]');return s?s.textContent:""})()`))
	if !strings.Contains(saved, "70.6 kg") {
		t.Errorf("after sync the open weigh-in shows %q, want the saved 70.6 kg", saved)
	}
	if n := get(tb, "stale notes", chromedp.Evaluate[int](`document.querySelectorAll('[data-stale-note]:not([hidden])').length`)); n != 0 {
		t.Errorf("%d rows say they changed elsewhere after the owner's own queued weight synced", n)
	}
	if got := weightsSaved(t, srv, weigh); len(got) != 1 || got[0] != 70.6 {
		t.Errorf("the agent sees %v, want [70.6] once", got)
	}
}
