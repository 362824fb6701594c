package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// keepOwnerMark is what keep.js's start writes first on an owner page.
const keepOwnerMark = "hearth.keep.owner"

// watchKeepStarts makes every later document of the tab begin without
// keep.js's owner mark, so keepStarted can tell when keep.js (loaded after
// the page's load event) has started on the page now shown: its start
// writes the mark, then forgets what a taken form held and restores.
func (tb *tab) watchKeepStarts() {
	tb.t.Helper()
	tb.do("watch keep.js starts", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: fmt.Sprintf(`sessionStorage.removeItem(%q)`, keepOwnerMark),
		})
		return err
	}))
}

// keepStarted waits until keep.js has started on the owner page shown
// (watchKeepStarts must have been called before it was read).
func (tb *tab) keepStarted(where string) {
	tb.t.Helper()
	eventually(tb, "keep.js started on "+where, fmt.Sprintf(`document.readyState === "complete" && sessionStorage.getItem(%q) === "1"`, keepOwnerMark), navigationDeadline)
}

// The owner may type and save before keep.js has run (it loads after the
// page's load event; hearth.js holds the save until the offline part, loaded
// after keep.js, has run). hearth took the save: nothing typed is kept or
// restored afterwards.
func TestASaveTakenBeforeKeepJsStartedLeavesNothingKept(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.watchKeepStarts()
	held, release := tb.hold("/static/keep.js")
	tb.navigate("/weight")
	select {
	case <-held:
	case <-time.After(navigationDeadline):
		t.Fatal("the page never asked for keep.js")
	}
	tb.typeInto("#goal", "64.5")
	tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.before = "true"; true`))
	tb.do("save", chromedp.Evaluate[chromedp.Void](`document.querySelector('#goal-form button[type="submit"]:not([name])').click(); true`))
	release()
	eventually(tb, "hearth's answer shown", `!document.documentElement.dataset.before && document.readyState === "complete" && !!document.querySelector("main")`, navigationDeadline)
	tb.keepStarted("the answer")
	if refused := get(tb, "refusals", chromedp.Evaluate[string](`Array.from(document.querySelectorAll('main [role="alert"]')).map(function(e){return e.textContent.trim()}).join(" | ")`)); refused != "" {
		t.Fatalf("hearth refused the save: %s", refused)
	}
	tb.navigate("/weight")
	tb.keepStarted("/weight")
	if keys := tb.keptKeys("#goal"); len(keys) != 0 {
		t.Errorf("after hearth took the save, the device still keeps %v", keys)
	}
	if note := tb.restoredNote("#goal"); note != "" {
		t.Errorf("after hearth took the save the Weight page says %q", note)
	}
	if got := tb.valueOf("#goal"); got != "64.5" {
		t.Errorf("the goal field holds %q after the save, want 64.5", got)
	}
}
