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

// weighInFields are the weigh-in fields no row names: Home's first screen
// (the demo's brief names the weigh-in first) and the Weight page's.
var weighInFields = []keptField{
	{name: "Home's weigh-in", path: "/", sel: "#weigh-in-value", text: "71.3", submit: `form.weigh-in-form [data-testid="weigh-in-save"]`},
	{name: "the Weight page's weigh-in", path: "/weight", sel: "#weigh-in-value", text: "71.4", submit: `form.weigh-in-form [data-testid="weigh-in-save"]`},
}

func TestATypedWeighInIsKeptAcrossAReload(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	for _, f := range weighInFields {
		t.Run(f.name, func(t *testing.T) {
			tb := &tab{t: t, ctx: tb.ctx, srv: srv}
			tb.navigate(f.path)
			tb.showField(f.sel)
			tb.typeInto(f.sel, f.text)
			tb.do("reload", chromedp.Reload())
			eventually(tb, "the typed weight back after the reload", fieldJS(f.sel, fmt.Sprintf(`!!f && f.value === %q && f.checkVisibility()`, f.text)), navigationDeadline)
			if note := tb.restoredNote(f.sel); !strings.Contains(note, "Restored what you typed here.") {
				t.Errorf("no quiet restored note beside the field (got %q)", note)
			}
		})
	}
}

// Back shows the page the back/forward cache kept; coming back by the
// tab bar reads the page anew: the typed weight is there either way.
func TestATypedWeighInIsKeptAcrossLeavingAndComingBack(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	for _, f := range weighInFields {
		t.Run(f.name, func(t *testing.T) {
			tb := &tab{t: t, ctx: tb.ctx, srv: srv}
			tb.navigate(f.path)
			tb.showField(f.sel)
			tb.typeInto(f.sel, f.text)
			tb.tapNav("/messages")
			tb.back(f.path)
			eventually(tb, "the typed weight there after Back", fieldJS(f.sel, fmt.Sprintf(`!!f && f.value === %q && f.checkVisibility()`, f.text)), navigationDeadline)
			tb.tapNav("/messages")
			tb.navigate(f.path)
			eventually(tb, "the typed weight there when the page is read anew", fieldJS(f.sel, fmt.Sprintf(`!!f && f.value === %q && f.checkVisibility()`, f.text)), navigationDeadline)
		})
	}
}

// Home first: once today's weight is saved there, Home asks for it no
// more, while the Weight page always does.
func TestASavedWeighInForgetsItsKeptText(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	for _, f := range weighInFields {
		t.Run(f.name, func(t *testing.T) {
			tb := &tab{t: t, ctx: tb.ctx, srv: srv}
			tb.navigate(f.path)
			tb.showField(f.sel)
			tb.typeInto(f.sel, f.text)
			// keep.js runs once the page has loaded: what was typed before is kept then.
			eventually(tb, "the typed weight kept on the device", fieldJS(f.sel,
				`Object.keys(localStorage).some(function(k){return k.indexOf("hearth.keep:")===0 && k.indexOf("|"+f.id+"|")>0})`), navigationDeadline)
			keys := tb.keptKeys(f.sel)
			if len(keys) != 1 {
				t.Fatalf("typing kept %d copies on the device, want 1", len(keys))
			}
			tb.do("save", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click(); true`, f.submit)))
			eventually(tb, "the save said with the trend", `(function(){var n=document.querySelector('[data-testid="weigh-in-trend"], [data-testid="weigh-in-saved"]');return !!n && document.readyState === "complete"})()`, navigationDeadline)
			tb.navigate(f.path)
			if n := tb.stillKept(keys); n != 0 {
				t.Errorf("after hearth took the weigh-in, %d copies are still kept on the device", n)
			}
			if n := get(tb, "restored notes", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="restored"]').length`)); n != 0 {
				t.Errorf("after hearth took the weigh-in, the page says %d times that it restored typing", n)
			}
		})
	}
}

// hold keeps the tab's requests for paths ending in suffix from the
// network until the returned release is called (CDP Fetch); held says
// one was. It bypasses the browser's cache and the service worker, so
// every request is the page's own.
func (tb *tab) hold(suffix string) (held <-chan struct{}, release func()) {
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
		// A script already in the browser's cache never reaches the network.
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
		mu.Lock()
		pending := ids
		ids = nil
		mu.Unlock()
		tb.do("release "+suffix, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			for _, id := range pending {
				if _, err := cdp.Call(ctx, target, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}); err != nil {
					return err
				}
			}
			_, err := cdp.Call(ctx, target, fetch.Disable, cdp.Empty{})
			return err
		}))
	}
}

// offline.js loads once the page has loaded; a form posted before it ran is
// held, not lost nor sent around it as a plain form (which, with hearth
// unreachable, ends on the browser's error page), and sent through
// offline.js once it has: one POST, a fetch.
func TestAFormPostedBeforeTheOfflinePartRanIsSentOnceItHas(t *testing.T) {
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
	held, release := tb.hold("/static/offline.js")
	tb.navigate("/weight")
	select {
	case <-held:
	case <-time.After(navigationDeadline):
		t.Fatal("the page never asked for offline.js")
	}
	tb.typeInto("#weigh-in-value", "71.6")
	tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`document.documentElement.dataset.before = "true"; true`))
	tb.do("save", chromedp.Evaluate[chromedp.Void](`document.querySelector('form.weigh-in-form [data-testid="weigh-in-save"]').click(); true`))
	release()
	eventually(tb, "the weigh-in saved and said", `!document.documentElement.dataset.before && document.readyState === "complete" && !!document.querySelector('[data-testid="weigh-in-saved"]')`, navigationDeadline)
	if got := get(tb, "saved weigh-ins of 71.6", chromedp.Evaluate[int](`Array.from(document.querySelectorAll('[data-testid="weight-entry"]')).filter(function(e){return /71[.,]6/.test(e.textContent)}).length`)); got != 1 {
		t.Errorf("the weight page lists %d weigh-ins of 71.6, want 1", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 1 || posts[0] != string(network.ResourceTypeFetch) {
		t.Errorf("the weigh-in was posted as %v, want once, by fetch", posts)
	}
}
