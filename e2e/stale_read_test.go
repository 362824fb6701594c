package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestALiveReadOlderThanAnActionsAnswerIsNotShownOverIt: a live read of
// Home sent before the owner's tap on Start work, and landing after the
// tap's answer showed work started, does not put the older Home back (the
// owner would see Start work undone, and no later event would correct it:
// the newer revision is the page's own).
func TestALiveReadOlderThanAnActionsAnswerIsNotShownOverIt(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	// The read's answer is given to the page only on release; __landed is
	// set once the page has had it and a task more.
	tb.do("hold the live read", chromedp.Evaluate[chromedp.Void](`(function () {
		window.__held = 0;
		var gate = new Promise(function (r) { window.__release = r; });
		var fetch0 = window.fetch;
		window.fetch = function (input) {
			var p = fetch0.apply(this, arguments);
			if (String(input && input.url || input).indexOf("/home/live") < 0) return p;
			window.__held++;
			var given = gate.then(function () { return p; });
			given.then(function (r) { return r.clone().text(); })
				.then(function () { return new Promise(function (r) { setTimeout(r, 50); }); })
				.then(function () { window.__landed = true; });
			return given;
		};
		return true;
	})()`))
	publishTask(t, srv, "call-mum", "Call Mum")
	eventually(tb, "the live read is on its way", `window.__held > 0`, 10*time.Second)
	tb.do("start work", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="event-start-work"]').click(); true`),
		chromedp.WaitVisible(css(`[data-testid="event-done-start-work"]`)))
	answered := get(tb, "the answer's revision", chromedp.Evaluate[int](`Number(document.getElementById("live").dataset.revision)`))
	tb.do("the older read lands", chromedp.Evaluate[chromedp.Void](`window.__release(); true`))
	eventually(tb, "the read landed", `window.__landed === true`, 10*time.Second)
	get(tb, "settled after the read", chromedp.Poll[bool](htmxSettled))
	if n := get(tb, "Start work buttons", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="event-start-work"]').length`)); n != 0 {
		shown := get(tb, "shown revision", chromedp.Evaluate[int](`Number(document.getElementById("live").dataset.revision)`))
		t.Fatalf("the older live read put Start work back (revision %d shown, the tap's answer was %d)", shown, answered)
	}
}
