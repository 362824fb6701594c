package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// visibleUndos counts, by the decision each undoes, the Undo controls an
// owner can see on Home, and names the decision the bottom bar offers.
type visibleUndos struct {
	ByDecision map[string]int
	Dock       string
}

const undosOnHome = `(function(){
  var by = {};
  document.querySelectorAll('[data-testid="undo"]').forEach(function(b){
    if (!b.checkVisibility()) return;
    var a = b.form.getAttribute("action");
    by[a] = (by[a] || 0) + 1;
  });
  var d = document.querySelector('#undo-dock form.undo-form');
  return {ByDecision: by, Dock: d ? d.getAttribute("action") : ""};
})()`

func (tb *tab) undos() visibleUndos {
	return get(tb, "visible Undo controls", chromedp.Evaluate[visibleUndos](undosOnHome))
}

// checkOneUndoEach fails unless every decision shown has one visible Undo,
// and the newest's is the bottom bar's.
func checkOneUndoEach(t *testing.T, after string, u visibleUndos) {
	t.Helper()
	if u.Dock == "" {
		t.Fatalf("after %s: no Undo in the bottom bar", after)
	}
	for action, n := range u.ByDecision {
		if n != 1 {
			t.Errorf("after %s: %d visible Undo controls for %s, want 1", after, n, action)
		}
	}
	if u.ByDecision[u.Dock] != 1 {
		t.Errorf("after %s: the bottom bar's Undo (%s) is not visible once: %v", after, u.Dock, u.ByDecision)
	}
}

func TestTheNewestUndoIsShownOnceInTheBottomBar(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	routine := "morning-routine-" + demoDay(t)
	stretch := "stretch-" + demoDay(t)

	// A step ticked in its open routine: the step's row is on screen.
	tb.expand(routine, "routine")
	tb.do("tick a step", tap(rowSel(stretch)+` > form [data-testid="tick"]`))
	eventually(tb, "the bar offers the step's Undo", `(document.querySelector('#undo-dock') || {}).textContent.indexOf("Stretch for ten minutes: Done") >= 0`, navigationDeadline)
	get(tb, "settle", chromedp.Poll[bool](htmxSettled))
	first := tb.undos()
	checkOneUndoEach(t, "a tick", first)

	// A newer decision takes the bar: the step's Undo is back on its row,
	// still once.
	tb.expand("book-bike-service", "task")
	tb.do("complete", tap(rowSel("book-bike-service")+` [data-testid="complete"]`))
	eventually(tb, "the bar moved to the task", fmt.Sprintf(`(function(){var d=document.querySelector('#undo-dock form.undo-form');return !!d && d.getAttribute("action") !== %q})()`, first.Dock), navigationDeadline)
	get(tb, "settle", chromedp.Poll[bool](htmxSettled))
	second := tb.undos()
	checkOneUndoEach(t, "a second decision", second)
	if second.ByDecision[first.Dock] != 1 {
		t.Errorf("the step's earlier decision shows %d Undo controls once the bar moved on, want 1 (on its row): %v", second.ByDecision[first.Dock], second.ByDecision)
	}

	// Read afresh, Home says the same.
	tb.do("reload", chromedp.Reload())
	eventually(tb, "Home again", `document.readyState === "complete" && !!document.querySelector("#undo-dock form.undo-form")`, navigationDeadline)
	tb.expand(routine, "routine")
	checkOneUndoEach(t, "a reload", tb.undos())
}
