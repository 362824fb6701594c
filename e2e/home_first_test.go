package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeViolations runs axe on the page in both colour schemes and fails on
// any serious or critical violation (what every page's test holds).
func axeViolations(tb *tab, page string) {
	tb.t.Helper()
	axeCheck(tb, page, "serious or critical", `v.impact === "serious" || v.impact === "critical"`)
}

// axeNoViolations is axeViolations failing on a violation of any impact,
// minor ones included.
func axeNoViolations(tb *tab, page string) {
	tb.t.Helper()
	axeCheck(tb, page, "any impact", `true`)
}

// axeSource is axe 4.14.1, read once per test binary.
var axeSource = sync.OnceValues(func() ([]byte, error) { return os.ReadFile("testdata/axe-4.14.1.min.js") })

// axeCheck runs axe 4.14.1 on what tb shows, in the light and the dark
// scheme, and fails on each violation the JavaScript predicate counts (of v).
func axeCheck(tb *tab, page, impacts, counts string) {
	tb.t.Helper()
	axe, err := axeSource()
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.do("load axe", chromedp.Evaluate[chromedp.Void](string(axe)))
	for _, scheme := range []string{"light", "dark"} {
		tb.do("scheme "+scheme, emulateColorScheme(scheme))
		raw := get(tb, "axe run "+scheme, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.filter(v => `+counts+`).map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(" "))}))))`,
			chromedp.EvalAwaitPromise))
		if raw != "[]" {
			tb.t.Errorf("%s scheme: axe violations (%s) on %s: %s", scheme, impacts, page, raw)
		}
	}
}

// firstControl is the first button or field in Home's live part that is
// not a row's own (a row head, a tick, a row's control): the first action
// Home offers, by its data-testid.
const firstControl = `(function(){
  var all = document.querySelectorAll('#live button, #live input:not([type="hidden"]), #live a.button');
  for (var i = 0; i < all.length; i++) {
    var el = all[i];
    if (el.closest('[data-row], .chips, [data-testid="evidence-detail"]')) continue;
    return el.dataset.testid || el.outerHTML.slice(0, 80);
  }
  return "";
})()`

func TestHomesFirstActionMatchesTheBriefsFirstItem(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	// The demo's brief: "Weigh in and stretch before coffee, then answer Ana ...".
	if got := get(tb, "first control", chromedp.Evaluate[string](firstControl)); got != "weigh-in-value" {
		t.Fatalf("Home's first action is %q, want the weigh-in the brief names first", got)
	}
	if id := get(tb, "first action", chromedp.AttributeValue(css(`[data-testid="first-action"]`), "data-id")).Value; id != "weigh-in-"+day {
		t.Errorf("first action is for %q", id)
	}
	// On the first screen, above Start work, which is no longer the loud button.
	var at struct{ FirstBottom, Start, View float64 }
	raw := get(tb, "where", chromedp.Evaluate[string](`JSON.stringify({
		FirstBottom: document.querySelector('[data-testid="first-action"]').getBoundingClientRect().bottom,
		Start: document.querySelector('[data-testid="event-start-work"]').getBoundingClientRect().top,
		View: window.innerHeight})`))
	json.Unmarshal([]byte(raw), &at)
	if at.FirstBottom > at.View || at.FirstBottom > at.Start {
		t.Errorf("first action ends at %.0f px, Start work at %.0f px, screen %.0f px", at.FirstBottom, at.Start, at.View)
	}
	if !get(tb, "start work quiet", chromedp.Evaluate[bool](`document.querySelector('[data-testid="event-start-work"]').classList.contains("secondary")`)) {
		t.Error("Start work is still the loudest button")
	}
	if h := get(tb, "h1", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('h1')).map(h => h.textContent.trim())`)); len(h) != 1 || h[0] == "" {
		t.Errorf("Home's h1: %q", h)
	}
	axeViolations(tb, "Home")
}

func TestStartWorkAfterAWeighInAddsNoSecondWeighIn(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	// The morning routine's weigh-in, from its own row.
	routine, weigh := "morning-routine-"+day, "weigh-in-"+day
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")
	tb.do("weigh in",
		chromedp.SendKeys(css(`#value-`+weigh), "81,6"),
		tap(rowSel(weigh)+` [data-testid="measurement-save"]`),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="measurement-saved"]`)))
	get(tb, "settle", chromedp.Poll[bool](htmxSettled))
	tb.do("start work",
		tap(`[data-testid="event-start-work"]`),
		chromedp.WaitVisible(css(`[data-testid="event-done-start-work"]`)))
	if n := get(tb, "start work button", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="event-start-work"]').length`)); n != 0 {
		t.Error("Start work is still a button after work started")
	}
	occ := "hearth:start-of-work@" + day + ".start-work"
	tb.expand(occ, "routine")
	if st := tb.rowState(occ + ":weigh-in"); st != "completed" {
		t.Errorf("Start of work's weigh-in is %q after the morning's weigh-in, want completed", st)
	}
	open := get(tb, "open weigh-ins", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#live li[data-row][data-kind="measurement"]')).filter(r => r.dataset.state !== "completed").map(r => r.dataset.id)`))
	if len(open) != 0 {
		t.Errorf("Home asks to weigh in again: %v", open)
	}
}

func TestWeightPageRecordsAWeightAndShowsTheTrendChange(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("open /weight", chromedp.Navigate(srv.URL+"/weight"), chromedp.WaitVisible(css(`#weigh-in-value`)))
	entries := get(tb, "entries", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="weight-entry"]').length`))
	weighIn(tb, "", "81.2", `[data-testid="weigh-in-saved"]`)
	saved := get(tb, "saved", textOf(`[data-testid="weigh-in-saved"]`))
	if !strings.Contains(saved, "Trend ") || !strings.Contains(saved, " kg since yesterday") {
		t.Errorf("after saving: %q, want the trend and its change since yesterday", saved)
	}
	if n := get(tb, "entries after", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="weight-entry"]').length`)); n != entries+1 {
		t.Errorf("%d weigh-ins listed after saving, want %d", n, entries+1)
	}
	// The saved note is on the first screen, where the field was.
	if bottom := get(tb, "note place", chromedp.Evaluate[float64](`document.querySelector('[data-testid="weigh-in-saved"]').getBoundingClientRect().bottom`)); bottom > 844 {
		t.Errorf("the saved note is %0.f px down, off the first screen", bottom)
	}
	axeViolations(tb, "/weight")
}

// undoDockPlace is where the Undo bar is: within the viewport, just above the tab bar.
const undoDockPlace = `(function(){
  var d = document.querySelector('#undo-dock') || document.querySelector('[data-testid="undone-notice"]'), b = document.querySelector('.bar');
  if (!d || !d.querySelector('[data-testid="undo"]')) return "no undo bar";
  var r = d.getBoundingClientRect(), bar = b.getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) return "off screen: " + r.top + "–" + r.bottom;
  if (Math.abs(r.bottom - bar.top) > 1) return "not on the tab bar: ends " + r.bottom + ", bar at " + bar.top;
  if (r.top < window.innerHeight / 2) return "in the top half: " + r.top;
  return "";
})()`

func TestUndoBarIsAtTheBottomWithinTheViewportAfterAnAction(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	// A move off Home (its row leaves): the Undo was at the top, off screen.
	tb.expand("book-bike-service", "task")
	tb.do("dismiss", tap(rowSel("book-bike-service")+` [data-testid="dismiss"]`),
		chromedp.WaitNotPresent(css(rowSel("book-bike-service"))),
		chromedp.WaitReady(css(`[data-testid="undone-notice"] [data-testid="undo"]`)))
	if p := get(tb, "undo bar place", chromedp.Evaluate[string](undoDockPlace)); p != "" {
		t.Fatalf("after a dismiss: %s", p)
	}
	tb.do("undo", tap(`[data-testid="undone-notice"] [data-testid="undo"]`), chromedp.WaitVisible(css(rowSel("book-bike-service"))))
	if st := tb.rowState("book-bike-service"); st != "available" {
		t.Errorf("after undo: %q", st)
	}
	// A tick, answered by its row alone: the bar comes with the answer.
	routine := "morning-routine-" + demoDay(t)
	get(tb, "settle", chromedp.Poll[bool](htmxSettled))
	tb.do("scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	tb.do("tick a step", tap(rowSel(routine)+` [data-testid="step-tick"]`))
	eventually(tb, "the bar names the step", `(document.querySelector('#undo-dock') || {}).textContent.indexOf("Stretch for ten minutes: Done") >= 0`, 10*time.Second)
	if p := get(tb, "undo bar place", chromedp.Evaluate[string](undoDockPlace)); p != "" {
		t.Fatalf("after a tick: %s", p)
	}
}

func TestAStepIsTickedFromItsCollapsedRoutine(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	routine, stretch := "morning-routine-"+day, "stretch-"+day
	get(tb, "settle", chromedp.Poll[bool](htmxSettled))
	if exp := get(tb, "collapsed", chromedp.AttributeValue(css(rowSel(routine)), "data-expanded")).Value; exp != "false" {
		t.Fatalf("the routine is %q expanded at start", exp)
	}
	tb.do("tick the stretch", tap(rowSel(routine)+` [aria-label="Done: Stretch for ten minutes"]`))
	eventually(tb, "progress 1/3", `(function(){var p=document.querySelector('`+rowSel(routine)+` > a [data-testid="progress"]');return !!p&&p.textContent==="1/3"})()`, 10*time.Second)
	if exp := get(tb, "still collapsed", chromedp.AttributeValue(css(rowSel(routine)), "data-expanded")).Value; exp != "false" {
		t.Error("ticking a step opened its routine")
	}
	if n := get(tb, "stretch tick gone", chromedp.Evaluate[int](`document.querySelectorAll('`+rowSel(routine)+` [aria-label="Done: Stretch for ten minutes"]').length`)); n != 0 {
		t.Error("the ticked step is still offered")
	}
	tb.expand(routine, "routine")
	if st := tb.rowState(stretch); st != "completed" {
		t.Errorf("stretch is %q", st)
	}
}
