package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// htmxScript is the vendored htmx's file name, as the page asks for it.
const htmxScript = "/static/htmx-2.0.11.min.js"

// pauseScript keeps the tab's requests for paths ending in suffix from the
// network (CDP Fetch, bypassing the browser's cache and the service
// worker) until settle: each held request then goes on, or fails as a
// lost connection does. paused says one was held.
func (tb *tab) pauseScript(suffix string) (paused <-chan struct{}, settle func(fail bool)) {
	tb.t.Helper()
	var mu sync.Mutex
	var ids []fetch.RequestID
	ch := make(chan struct{}, 1)
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		e, ok := ev.(*fetch.EventRequestPaused)
		if !ok {
			return
		}
		mu.Lock()
		ids = append(ids, e.RequestID)
		mu.Unlock()
		select {
		case ch <- struct{}{}:
		default:
		}
	}); err != nil {
		tb.t.Fatalf("listen: %v", err)
	}
	tb.do("pause "+suffix, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
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
	return ch, func(fail bool) {
		tb.t.Helper()
		mu.Lock()
		pending := ids
		ids = nil
		mu.Unlock()
		tb.do("settle "+suffix, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			for _, id := range pending {
				var err error
				if fail {
					_, err = cdp.Call(ctx, target, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonConnectionRefused})
				} else {
					_, err = cdp.Call(ctx, target, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
				}
				if err != nil {
					return err
				}
			}
			_, err := cdp.Call(ctx, target, fetch.Disable, cdp.Empty{})
			return err
		}))
	}
}

// openUntilAsked starts loading path without waiting for its load event
// (a page whose scripts are held may never get one) and returns once the
// page has asked for the paused script and shows sel.
func (tb *tab) openUntilAsked(path string, paused <-chan struct{}, sel string) {
	tb.t.Helper()
	tb.do("open "+path, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, page.Navigate, page.NavigateParams{URL: tb.srv.URL + path})
		return err
	}))
	select {
	case <-paused:
	case <-time.After(navigationDeadline):
		tb.t.Fatalf("%s never asked for htmx", path)
	}
	eventually(tb, path+" shows "+sel, `!!document.querySelector('`+sel+`')`, navigationDeadline)
	// A navigation away (a plain link or form) clears this mark.
	tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.before = "true"; true`))
}

// The bike service row: a task, collapsed on the demo's Home.
const earlyRow = "book-bike-service"

// htmx loads once the page has loaded; a tap on a row's head before it ran
// is held, not sent around it as a plain link (a whole page load), and
// opens the row in place once htmx has run.
func TestATapOnARowBeforeHtmxRanOpensItInPlaceOnceHtmxHas(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	paused, settle := tb.pauseScript(htmxScript)
	head := rowSel(earlyRow) + ` > a.row-head`
	tb.openUntilAsked("/", paused, head)
	tb.do("tap the row", chromedp.Evaluate[chromedp.Void](`document.querySelector('`+head+`').click(); true`))
	if !get(tb, "still the same page", chromedp.Evaluate[bool](`document.documentElement.dataset.before === "true"`)) {
		t.Fatal("the tap before htmx ran left the page (a plain link's whole page load)")
	}
	settle(false)
	eventually(tb, "the row open in place", `document.documentElement.dataset.before === "true" && !!document.querySelector('`+rowSel(earlyRow)+`[data-expanded="true"]')`, navigationDeadline)
	if got := get(tb, "address", chromedp.Evaluate[string](`location.pathname + location.search`)); got != "/" {
		t.Errorf("the page's address is %q after the row opened in place, want /", got)
	}
}

// A weigh-in saved on Home before htmx ran is held and sent once, by
// htmx, in place: not posted around it as a plain form.
func TestAWeighInSavedBeforeHtmxRanIsSentOnceInPlaceOnceHtmxHas(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	var mu sync.Mutex
	var posts []string
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		e, ok := ev.(*network.EventRequestWillBeSent)
		if !ok || e.Request.Method != "POST" || !strings.HasSuffix(e.Request.URL, "/weight/entries") {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		posts = append(posts, string(e.Type))
	}); err != nil {
		t.Fatalf("listen: %v", err)
	}
	paused, settle := tb.pauseScript(htmxScript)
	tb.openUntilAsked("/", paused, `form.weigh-in-form [data-testid="weigh-in-save"]`)
	tb.typeInto("#weigh-in-value", "71.8")
	tb.do("save", chromedp.Evaluate[chromedp.Void](`document.querySelector('form.weigh-in-form [data-testid="weigh-in-save"]').click(); true`))
	if !get(tb, "still the same page", chromedp.Evaluate[bool](`document.documentElement.dataset.before === "true"`)) {
		t.Fatal("the save before htmx ran left the page (a plain form's post)")
	}
	settle(false)
	eventually(tb, "the weigh-in saved in place", `document.documentElement.dataset.before === "true" && !!document.querySelector('[data-testid="weigh-in-trend"], [data-testid="weigh-in-saved"]')`, navigationDeadline)
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 1 || posts[0] != string(network.ResourceTypeXHR) {
		t.Errorf("the weigh-in was posted as %v, want once, by htmx (XHR)", posts)
	}
}

// When htmx never comes (its request fails), a tap held for it goes as the
// plain link it is: Home opened with that row open.
func TestATapHeldForHtmxThatNeverCameGoesAsAPlainLink(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	paused, settle := tb.pauseScript(htmxScript)
	head := rowSel(earlyRow) + ` > a.row-head`
	tb.openUntilAsked("/", paused, head)
	tb.do("tap the row", chromedp.Evaluate[chromedp.Void](`document.querySelector('`+head+`').click(); true`))
	settle(true)
	eventually(tb, "Home opened with the row open", `!document.documentElement.dataset.before && document.readyState !== "loading" && new URLSearchParams(location.search).get("open") === "`+earlyRow+`" && !!document.querySelector('`+rowSel(earlyRow)+`[data-expanded="true"]')`, navigationDeadline)
}
