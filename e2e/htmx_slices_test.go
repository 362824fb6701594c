package e2e

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
)

// htmxReadRecorder notes, in every later document of the tab, in which
// task htmx read each element (window.__read.turns: one entry per
// element, the task's number) and when htmx's own start-up ran (its
// htmx:load on the body, read.loadedAfter: how many elements had been
// read by then).
const htmxReadRecorder = `(function () {
  var at = window.__read = { turns: [], loadedAfter: -1 };
  var turn = 0, ending = false;
  function thisTurn() {
    if (!ending) {
      ending = true;
      setTimeout(function () { ending = false; turn++; });
    }
    return turn;
  }
  document.addEventListener("htmx:afterProcessNode", function () { at.turns.push(thisTurn()); }, true);
  document.addEventListener("htmx:load", function (e) {
    if (e.target === document.body && at.loadedAfter < 0) at.loadedAfter = at.turns.length;
  }, true);
})();`

// Home is read by htmx a slice at a time, several tasks in all, and
// htmx's own start-up runs after the last slice with nothing left to read:
// no task reads the whole page, and htmx has started as it would have
// (its htmx:load), so a row's head still opens the row in place. The CPU
// runs ten times slower, slower than a phone's: a slice is a few
// milliseconds, and a fast machine read the demo's Home in one (a CI run).
func TestHtmxReadsHomeInSlicesAndThenStartsItself(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.onEveryDocument("record htmx's reading", htmxReadRecorder)
	tb.login()
	tb.do("slow the CPU", emulateSlowCPU(10))
	tb.navigate("/")
	eventually(tb, "htmx started on Home", `window.__read && window.__read.loadedAfter >= 0`, navigationDeadline)
	var got struct {
		Turns       []int `json:"turns"`
		LoadedAfter int   `json:"loadedAfter"`
	}
	if err := json.Unmarshal([]byte(get(tb, "htmx's reading", chromedp.Evaluate[string](`JSON.stringify(window.__read)`))), &got); err != nil {
		t.Fatal(err)
	}
	perTask := map[int]int{}
	for _, turn := range got.Turns {
		perTask[turn]++
	}
	if len(perTask) < 3 {
		t.Errorf("htmx read Home's %d elements in %d task(s) %v, want them read in slices", len(got.Turns), len(perTask), perTask)
	}
	// htmx:load comes a task after htmx's start-up: what that start-up read
	// itself is between the last slice and it.
	if extra := len(got.Turns) - got.LoadedAfter; extra > 1 {
		t.Errorf("htmx's own start-up read %d elements again, want only the body (the slices read the rest)", extra)
	}
	tb.do("open a row", chromedp.Click(css(`[data-row][data-kind="task"] [data-testid="row-head"]`)))
	eventually(tb, "the row opened in place", `location.pathname === "/" && location.search === "" &&
		!!document.querySelector('[data-row][data-kind="task"][data-expanded="true"]')`, navigationDeadline)
}

// A tap on Home before htmx has read it is still htmx's: the tap starts
// htmx at once, in its capture phase, so the row opens in place instead of
// the row's link loading Home again.
func TestATapBeforeHtmxHasReadHomeOpensTheRowInPlace(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	// In the first task after the parse's, ahead of htmx's first slice
	// (this listener comes before hearth.js's, and so does its timer).
	tb.onEveryDocument("tap at once", `window.addEventListener("DOMContentLoaded", function (e) {
  if (!e.isTrusted || location.pathname !== "/" || sessionStorage.getItem("tapped")) return;
  sessionStorage.setItem("tapped", "1"); // once: a plain link would load Home again
  setTimeout(function () {
    var head = document.querySelector('[data-row][data-kind="task"] [data-testid="row-head"]');
    window.__tapped = { read: !!(head && head["htmx-internal-data"] && head["htmx-internal-data"].initHash) };
    if (head) head.click();
  });
}, true);`)
	tb.navigate("/")
	eventually(tb, "the row opened in place, in the document that was tapped", `!!window.__tapped && location.search === "" &&
		!!document.querySelector('[data-row][data-kind="task"][data-expanded="true"]')`, navigationDeadline)
	if get(tb, "whether htmx had read the row before the tap", chromedp.Evaluate[bool](`window.__tapped.read`)) {
		t.Error("htmx had read the row before the tap: the test taps too late to prove anything")
	}
}
