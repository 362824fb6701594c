package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestALiveReadOlderThanAnActionsAnswerIsNotShownOverIt: a live read of
// Home sent before the owner's tap on Start work, and landing after the
// tap's answer showed work started, does not put the older Home back (the
// owner would see Start work undone, and no later event would correct it:
// the newer revision is the page's own).
func TestALiveReadOlderThanAnActionsAnswerIsNotShownOverIt(t *testing.T) {
	tb := demoTab(t)
	read := liveRead(t, tb)
	// The older read is dropped, not swapped in: it has landed once the
	// page has had its answer.
	read.landed = `window.__holds.read.landed`
	answered := 0
	startWork := inFlight{"Start work", "", func() {
		tb.do("start work", tap(`[data-testid="event-start-work"]`), chromedp.WaitVisible(css(`[data-testid="event-done-start-work"]`)))
		answered = get(tb, "the answer's revision", chromedp.Evaluate[int](`Number(document.getElementById("live").dataset.revision)`))
	}, `!!document.querySelector('[data-testid="event-done-start-work"]')`}
	overtaken(tb, read, startWork)
	if n := get(tb, "Start work buttons", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="event-start-work"]').length`)); n != 0 {
		shown := get(tb, "shown revision", chromedp.Evaluate[int](`Number(document.getElementById("live").dataset.revision)`))
		t.Fatalf("the older live read put Start work back (revision %d shown, the tap's answer was %d)", shown, answered)
	}
}
