package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// What the Home changes added (a weight field on Home's first screen and
// on the Weight page, ticks on a collapsed routine's row, the Undo bar at
// the bottom) meets the offline work here: each capture waits on the phone
// like a row's own, offline and with hearth unreachable.

// weighInsOf lists every saved weight of value (a step's or one of its own).
func weighInsOf(t *testing.T, srv *server, value float64) int {
	t.Helper()
	var ac struct {
		Measurements struct {
			Items []struct {
				Value float64 `json:"value"`
			} `json:"items"`
		} `json:"measurements"`
	}
	decodeJSON(t, newAgentClient(srv.URL, demoToken(t, srv.DataDir)).contextJSON(t), &ac)
	n := 0
	for _, m := range ac.Measurements.Items {
		if m.Value == value {
			n++
		}
	}
	return n
}

// weighIn types value into the weigh-in form under scope (Home's first
// screen, or the form on the page: "") and taps Save, then waits for
// shows (its note, saved or waiting, or its error).
func weighIn(tb *tab, scope, value, shows string) {
	tb.t.Helper()
	if scope != "" {
		scope += " "
	}
	tb.do("weigh in "+value,
		chromedp.SendKeys(css(scope+`#weigh-in-value`), value),
		tap(scope+`[data-testid="weigh-in-save"]`),
		chromedp.WaitVisible(css(shows)),
	)
}

// queueSynced: nothing waits on the page or in the queue.
const queueSynced = `document.querySelector('[data-sync]') === null && JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length === 0`

// down cuts hearth off in one of the ways the phone meets: offline (the
// network gone, navigator.onLine false), or online with hearth not
// answering (refused, or a proxy's 502); up undoes it.
type downWay struct {
	name     string
	down, up func(tb *tab, line *cable)
}

var downWays = []downWay{
	{"offline", func(tb *tab, line *cable) { tb.offline(line, true) }, func(tb *tab, line *cable) { tb.offline(line, false) }},
	{"hearth refused", func(tb *tab, line *cable) { line.set(true) }, func(tb *tab, line *cable) { line.set(false) }},
	{"proxy 502", func(tb *tab, line *cable) { line.setGateway(http.StatusBadGateway) }, func(tb *tab, line *cable) { line.setGateway(0) }},
}

// onEachDownWay runs test once for each way hearth is cut off (i is the
// way's place in downWays), each on a fresh demo behind a cable with a tab
// logged in through it.
func onEachDownWay(t *testing.T, test func(t *testing.T, i int, w downWay, srv *server, line *cable, tb *tab)) {
	t.Helper()
	for i, w := range downWays {
		t.Run(w.name, func(t *testing.T) {
			srv, line, tb := loggedInBehindCable(t)
			test(t, i, w, srv, line, tb)
		})
	}
}

// waitsToSync checks that the note at sel says each of says, that queued
// actions wait in the queue, and that the page shows no refusal for them.
func waitsToSync(t *testing.T, tb *tab, sel string, queued int, says ...string) {
	t.Helper()
	note := get(tb, "waiting", textOf(sel))
	for _, s := range says {
		if !strings.Contains(note, s) {
			t.Errorf("the page says %q at %s, want it to say %q", note, sel, s)
		}
	}
	if n := tb.queueLength(); n != queued {
		t.Fatalf("%d actions queued, want %d", n, queued)
	}
	if n := get(tb, "refusals", chromedp.Evaluate[int](`document.querySelectorAll('[data-offline-refused]').length`)); n != 0 {
		t.Errorf("%d refusals shown for what waits", n)
	}
}

func TestAWeightTypedIntoHomesOwnFieldWithoutHearthWaitsAndSyncsOnceWithTheTrend(t *testing.T) {
	onEachDownWay(t, func(t *testing.T, i int, w downWay, srv *server, line *cable, tb *tab) {
		get(tb, "settled", chromedp.Poll[bool](htmxSettled))
		value := fmt.Sprintf("71.%d", i+2)
		w.down(tb, line)
		weighIn(tb, `[data-testid="first-action"]`, value, `[data-testid="first-action"] [data-testid="sync-note"]`)
		waitsToSync(t, tb, `[data-testid="first-action"] [data-testid="sync-note"]`, 1, "Waiting to sync: "+value)
		w.up(tb, line)
		get(tb, "synced", chromedp.Poll[bool](queueSynced))
		// Read in the page, in one task: a live refresh of Home may replace
		// the line between a DevTools lookup and a read of its text.
		trend := get(tb, "trend shown", chromedp.Poll[string](`(function () {
			var e = document.querySelector('[data-testid="weigh-in-trend"]');
			return e ? e.textContent : "";
		})()`))
		if !strings.Contains(trend, value+" kg") || !strings.Contains(trend, "Trend ") {
			t.Errorf("after sync Home says %q, want the saved %s kg and the trend", trend, value)
		}
		savedOnce(t, srv, value)
	})
}

func TestAWeightTypedOnTheWeightPageWithoutHearthWaitsAndSyncsOnceWithTheTrend(t *testing.T) {
	onEachDownWay(t, func(t *testing.T, i int, w downWay, srv *server, line *cable, tb *tab) {
		tb.do("open /weight", chromedp.Navigate(line.URL+"/weight"), chromedp.WaitVisible(css(`#weigh-in-value`)))
		get(tb, "loaded", chromedp.Poll[bool](`document.readyState === "complete"`))
		value := fmt.Sprintf("72.%d", i+2)
		w.down(tb, line)
		weighIn(tb, "", value, `.weigh-in-form [data-testid="sync-note"]`)
		if p := get(tb, "still the page", chromedp.Evaluate[string](`location.pathname`)); p != "/weight" {
			t.Fatalf("the page is %q, want /weight kept", p)
		}
		waitsToSync(t, tb, `.weigh-in-form [data-testid="sync-note"]`, 1, "Waiting to sync: "+value)
		w.up(tb, line)
		// The page reads itself again once the weigh-in synced.
		eventually(tb, "saved note", `!!document.querySelector('[data-testid="weigh-in-saved"]') && `+queueSynced, 30*time.Second)
		saved := get(tb, "saved", textOf(`[data-testid="weigh-in-saved"]`))
		if !strings.Contains(saved, "Trend ") {
			t.Errorf("after sync the page says %q, want the trend", saved)
		}
		entries := get(tb, "entries", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid="weight-entry"]')).map(e => e.textContent).join(" | ")`))
		if !strings.Contains(entries, value) {
			t.Errorf("the entries %q do not list the saved %s", entries, value)
		}
		savedOnce(t, srv, value)
	})
}

func TestATickOnACollapsedRoutineWithoutHearthWaitsAndSyncsOnce(t *testing.T) {
	onEachDownWay(t, func(t *testing.T, _ int, w downWay, srv *server, line *cable, tb *tab) {
		day := demoDay(t)
		routine, stretch := "morning-routine-"+day, "stretch-"+day
		get(tb, "settled", chromedp.Poll[bool](htmxSettled))
		w.down(tb, line)
		tb.do("tick the stretch on the collapsed routine",
			chromedp.Click(css(rowSel(routine)+` [aria-label="Done: Stretch for ten minutes"]`)),
			chromedp.WaitVisible(css(rowSel(routine)+` [data-testid="sync-note"]`)),
		)
		waitsToSync(t, tb, rowSel(routine)+` [data-testid="sync-note"]`, 1, "Waiting to sync")
		if d := decisionsFor(t, srv, stretch); len(d) != 0 {
			t.Fatalf("decided while cut off: %v", d)
		}
		w.up(tb, line)
		get(tb, "synced", chromedp.Poll[bool](queueSynced))
		if d := decisionsFor(t, srv, stretch); len(d) != 1 || d[0]["state"] != "completed" {
			t.Errorf("after sync the agent sees decisions %v, want one completion", d)
		}
		get(tb, "settled after sync", chromedp.Poll[bool](htmxSettled))
		tb.expand(routine, "routine")
		if st := tb.rowState(stretch); st != "completed" {
			t.Errorf("after sync the stretch shows %q, want completed", st)
		}
	})
}

// overlaps lists the pairs of the offline banner, the Undo bar and the tab
// bar whose boxes overlap on screen.
const overlaps = `(function(){
  var els = {banner: document.querySelector('[data-testid="offline-banner"]'), undo: document.querySelector('#undo-dock .undo-bar'), tabs: document.querySelector('.bar')};
  for (var k in els) if (!els[k]) return ["no " + k];
  var r = {}; for (var k in els) r[k] = els[k].getBoundingClientRect();
  var out = [];
  [["banner","undo"],["banner","tabs"],["undo","tabs"]].forEach(function(p){
    var a = r[p[0]], b = r[p[1]];
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push(p[0] + " " + a.top + "–" + a.bottom + " overlaps " + p[1] + " " + b.top + "–" + b.bottom);
  });
  [["banner", r.banner], ["undo", r.undo]].forEach(function(p){
    if (p[1].top < 0 || p[1].bottom > window.innerHeight) out.push(p[0] + " off screen: " + p[1].top + "–" + p[1].bottom);
  });
  return out;
})()`

func TestTheUndoBarAndTheOfflineBannerDoNotOverlapEachOtherOrTheTabs(t *testing.T) {
	_, line, tb := loggedInBehindCable(t)
	routine := "morning-routine-" + demoDay(t)
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	tb.do("tick a step", tap(rowSel(routine)+` [aria-label="Done: Stretch for ten minutes"]`))
	get(tb, "undo bar", chromedp.Poll[bool](`!!document.querySelector('#undo-dock [data-testid="undo"]')`))
	for _, w := range downWays[:2] {
		w.down(tb, line)
		if w.name != "offline" {
			// Online and cut off: the page learns it at its next try.
			tb.do("try to open a row", tap(rowSel("book-bike-service")+` > a.row-head`))
		}
		tb.do(w.name+": banner", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`), chromedp.WaitVisible(css(`[data-testid="offline-banner"]`)))
		get(tb, "settled", chromedp.Poll[bool](htmxSettled))
		if o := get(tb, "overlaps", chromedp.Evaluate[[]string](overlaps)); len(o) != 0 {
			t.Errorf("%s: %v", w.name, o)
		}
		w.up(tb, line)
		get(tb, "synced", chromedp.Poll[bool](queueSynced+` && !document.querySelector('[data-testid="offline-banner"]')`))
	}
}

func TestARowOpenedFromTheKeptHomeFoldsBackOffline(t *testing.T) {
	_, line, tb := loggedInBehindCable(t)
	tb.do("worker ready", chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	get(tb, "Home kept", chromedp.Poll[bool](homeKept, chromedp.WithPollingArgs()))
	routine := "morning-routine-" + demoDay(t)
	tb.offline(line, true)
	tb.do("open Home offline", chromedp.Navigate(line.URL+"/"), chromedp.WaitVisible(css(`[data-testid="offline-banner"]`)))
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	tb.do("open the routine", chromedp.Click(css(rowSel(routine)+` > a.row-head`)), chromedp.WaitVisible(css(rowSel(routine)+` [data-testid="control-routine"]`)))
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	tb.do("fold it back", chromedp.Click(css(rowSel(routine)+` > a.row-head`)))
	get(tb, "folded", chromedp.Poll[bool](`(function(){var r=document.querySelector('`+rowSel(routine)+`');return !!r && (r.dataset.expanded === "false" || r.dataset.sync === "needs-hearth")})()`))
	if exp := get(tb, "expanded", chromedp.AttributeValue(css(rowSel(routine)), "data-expanded")).Value; exp != "false" {
		note := get(tb, "note", chromedp.Evaluate[string](`(document.querySelector('`+rowSel(routine)+` [data-testid="sync-note"]')||{}).textContent||""`))
		t.Fatalf("the routine is still open offline (%q)", note)
	}
	if n := get(tb, "ticks", chromedp.Evaluate[int](`document.querySelectorAll('`+rowSel(routine)+` [data-testid="step-tick"]').length`)); n == 0 {
		t.Error("the folded routine has lost its ticks")
	}
}

func TestAWeighInWhoseAnswerWasLostIsSentAgainAndSavedOnce(t *testing.T) {
	for i, page := range []string{"/", "/weight"} {
		t.Run(page, func(t *testing.T) {
			srv, line, tb := loggedInBehindCable(t)
			tb.do("open "+page, chromedp.Navigate(line.URL+page), chromedp.WaitVisible(css(`#weigh-in-value`)))
			settled := `document.readyState === "complete"`
			if page == "/" {
				settled = htmxSettled
			}
			get(tb, "settled", chromedp.Poll[bool](settled))
			value := fmt.Sprintf("73.%d", i+2)
			// The weigh-in reaches hearth and fills the day's step; its answer
			// never comes back, so the phone keeps it and sends it again.
			line.setLoseAnswers(true)
			weighIn(tb, "", value, `.weigh-in-form [data-testid="sync-note"]`)
			var v float64
			fmt.Sscan(value, &v)
			if n := weighInsOf(t, srv, v); n != 1 {
				t.Fatalf("%d weigh-ins of %s saved by the first send, want 1", n, value)
			}
			line.setLoseAnswers(false)
			eventually(tb, "synced", queueSynced, 30*time.Second)
			if n := weighInsOf(t, srv, v); n != 1 {
				t.Errorf("%d weigh-ins of %s saved after the replay, want 1", n, value)
			}
			// The replay is answered as the first send would have been: with the trend.
			sel := `[data-testid="weigh-in-trend"]`
			if page == "/weight" {
				sel = `[data-testid="weigh-in-saved"]`
			}
			eventually(tb, "the trend after the replay", `!!document.querySelector('`+sel+`')`, 10*time.Second)
			if refused := get(tb, "refusals", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-sync="refused"] [data-sync-note], [role="alert"]')).map(e => e.textContent.trim()).filter(Boolean).join(" | ")`)); refused != "" {
				t.Errorf("the replay was refused: %q", refused)
			}
		})
	}
}

func TestAWeightTheWeightPageRefusesIsSaidInItsFormInPlace(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("open /weight", chromedp.Navigate(srv.URL+"/weight"), chromedp.WaitVisible(css(`#weigh-in-value`)))
	get(tb, "loaded", chromedp.Poll[bool](`document.readyState === "complete"`))
	tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`document.querySelector("main").dataset.samePage = "1"`))
	weighIn(tb, "", "abc", `[data-testid="weigh-in-error"]`)
	if got := get(tb, "error", textOf(`[data-testid="weigh-in-error"]`)); got != "Enter a number, like 72.4." {
		t.Errorf("refusal %q", got)
	}
	if focused := get(tb, "focus", chromedp.Evaluate[string](`document.activeElement.id`)); focused != "weigh-in-value" {
		t.Errorf("focus on %q, want the field", focused)
	}
	if !get(tb, "in place", chromedp.Evaluate[bool](`document.querySelector("main").dataset.samePage === "1" && location.pathname === "/weight"`)) {
		t.Error("the page was replaced, not the form")
	}
	if n := get(tb, "queue", chromedp.Evaluate[int](`JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length`)); n != 0 {
		t.Errorf("%d refused weigh-ins queued", n)
	}
}

func TestFromAColdStartOfflineHomesWeightFieldAndAFoldedRoutinesTickWaitAndSyncOnce(t *testing.T) {
	srv, line := installedBehindCable(t)
	day := demoDay(t)
	routine, stretch := "morning-routine-"+day, "stretch-"+day

	line.set(true)
	tb := newTab(t, &server{URL: line.URL, DataDir: srv.DataDir})
	tb.emulateOffline(true)
	tb.do("open Home offline", chromedp.Navigate(line.URL+"/"), chromedp.WaitVisible(css(`[data-testid="offline-banner"]`)))
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	weighIn(tb, `[data-testid="first-action"]`, "70.4", `[data-testid="first-action"] [data-testid="sync-note"]`)
	tb.do("tick the stretch on the folded routine",
		chromedp.Click(css(rowSel(routine)+` [aria-label="Done: Stretch for ten minutes"]`)),
		chromedp.WaitVisible(css(rowSel(routine)+` [data-testid="sync-note"]`)),
	)
	if n := tb.queueLength(); n != 2 {
		t.Fatalf("%d actions queued, want 2", n)
	}

	line.set(false)
	tb.emulateOffline(false)
	get(tb, "synced", chromedp.Poll[bool](queueSynced))
	if n := weighInsOf(t, srv, 70.4); n != 1 {
		t.Errorf("%d weigh-ins of 70.4 saved, want exactly one", n)
	}
	if d := decisionsFor(t, srv, stretch); len(d) != 1 || d[0]["state"] != "completed" {
		t.Errorf("after sync the agent sees decisions %v, want one completion", d)
	}
	rev := newAgentClient(srv.URL, demoToken(t, srv.DataDir)).context(t).Revision
	get(tb, "caught up", chromedp.Poll[bool](`Number(document.getElementById("live").dataset.revision) >= `+fmt.Sprint(rev)+` && !document.querySelector('[data-testid="offline-banner"]')`))
	get(tb, "settled after sync", chromedp.Poll[bool](htmxSettled))
	if n := get(tb, "stretch tick gone", chromedp.Evaluate[int](`document.querySelectorAll('`+rowSel(routine)+` [aria-label="Done: Stretch for ten minutes"]').length`)); n != 0 {
		t.Error("after sync the folded routine still offers the stretch")
	}
	tb.expand(routine, "routine")
	if st := tb.rowState(stretch); st != "completed" {
		t.Errorf("after sync the stretch shows %q", st)
	}
	if n := get(tb, "stale notes", chromedp.Evaluate[int](`document.querySelectorAll('[data-stale-note]:not([hidden])').length`)); n != 0 {
		t.Errorf("%d rows say they changed elsewhere after the owner's own queued entries synced", n)
	}
}

// savedOnce checks that the weigh-in of value was saved exactly once.
func savedOnce(t *testing.T, srv *server, value string) {
	t.Helper()
	var v float64
	fmt.Sscan(value, &v)
	if n := weighInsOf(t, srv, v); n != 1 {
		t.Errorf("%d weigh-ins of %s saved, want exactly one", n, value)
	}
}
