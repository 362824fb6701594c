package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
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
	tb.onEveryDocument("watch keep.js starts", fmt.Sprintf(`sessionStorage.removeItem(%q)`, keepOwnerMark))
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
	tb.typeIntoBeforeKeep("#goal", "64.5")
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

// holdAll keeps the tab's requests for paths ending in suffix from the
// network until release; a request of a page left meanwhile is gone then,
// and is let go of quietly. Like hold, it bypasses the cache and the worker.
func (tb *tab) holdAll(suffix string) (held <-chan struct{}, release func()) {
	tb.t.Helper()
	var mu sync.Mutex
	var ids []fetch.RequestID
	paused := make(chan struct{}, 1)
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		e, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		mu.Lock()
		ids = append(ids, e.RequestID)
		mu.Unlock()
		select {
		case paused <- struct{}{}:
		default:
		}
	}); err != nil {
		tb.t.Fatalf("listen: %v", err)
	}
	tb.do("hold "+suffix, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		if _, err := cdp.Call(ctx, target, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, target, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, target, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, target, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*" + suffix + "*", RequestStage: fetch.RequestStageRequest}}})
		return err
	}))
	return paused, func() {
		tb.t.Helper()
		tb.do("release "+suffix, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			mu.Lock()
			pending := ids
			ids = nil
			mu.Unlock()
			for _, id := range pending {
				// A left page's request is gone: nothing to continue.
				_, _ = cdp.Call(ctx, target, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
			}
			_, err := cdp.Call(ctx, target, fetch.Disable, cdp.Empty{})
			return err
		}))
	}
}

// The owner may leave a form's answer before keep.js has started there
// (a tab tapped at once): a refusal still keeps what was typed for the
// form's page, and a save hearth took still forgets it.
func TestAnAnswerLeftBeforeKeepJsStartedKeepsARefusedTextAndForgetsATakenOne(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.watchKeepStarts()
	for _, c := range []struct {
		name, text string
		refused    bool
	}{
		{name: "refused", text: "sixty", refused: true},
		{name: "taken", text: "63.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tb := &tab{t: t, ctx: tb.ctx, srv: srv}
			tb.navigate("/weight")
			tb.keepStarted("/weight")
			tb.typeInto("#goal", c.text)
			keys := tb.keptKeys("#goal")
			if len(keys) != 1 {
				t.Fatalf("typing kept %d copies on the device, want 1", len(keys))
			}
			held, release := tb.holdAll("/static/keep.js")
			tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.before = "true"; true`))
			tb.do("save", chromedp.Evaluate[chromedp.Void](`document.querySelector('#goal-form button[type="submit"]:not([name])').click(); true`))
			select {
			case <-held:
			case <-time.After(navigationDeadline):
				t.Fatal("the answer never asked for keep.js")
			}
			eventually(tb, "hearth's answer shown", `!document.documentElement.dataset.before && document.readyState === "complete" && !!document.querySelector("main")`, navigationDeadline)
			if got := get(tb, "refused", chromedp.Evaluate[bool](`!!document.querySelector('main [role="alert"]')`)); got != c.refused {
				t.Fatalf("hearth's answer is a refusal: %v, want %v", got, c.refused)
			}
			tb.navigate("/weight")
			release()
			tb.keepStarted("/weight")
			if c.refused {
				if n := tb.stillKept(keys); n != 1 {
					t.Errorf("after hearth refused the save, %d of 1 copies are kept on the device", n)
				}
				if got := tb.valueOf("#goal"); got != c.text {
					t.Errorf("back on /weight after the refusal the field holds %q, want %q", got, c.text)
				}
				if note := tb.restoredNote("#goal"); !strings.Contains(note, "Restored what you typed here.") {
					t.Errorf("no quiet restored note beside the field (got %q)", note)
				}
				return
			}
			if n := tb.stillKept(keys); n != 0 {
				t.Errorf("after hearth took the save, %d copies are still kept on the device", n)
			}
			if note := tb.restoredNote("#goal"); note != "" {
				t.Errorf("after hearth took the save the Weight page says %q", note)
			}
		})
	}
}
