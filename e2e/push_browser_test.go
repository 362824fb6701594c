package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"hearth/internal/poll"
	"hearth/models"
)

// Headless Chromium reaches no real push service, so these tests hand
// pushes to hearth's registered worker through DevTools
// (ServiceWorker.deliverPushMessage), as the push service would, and read
// what it shows with registration.getNotifications().

// shown is a notification as the page reads it.
type shown struct {
	Title  string `json:"title"`
	Body   string `json:"body"`
	Tag    string `json:"tag"`
	URL    string `json:"url"`
	Silent bool   `json:"silent"`
}

// workerTab is a signed-in tab controlled by hearth's service worker, with
// notifications allowed for the server's origin.
type workerTab struct {
	*tab
	mu        sync.Mutex
	reg       serviceworker.RegistrationID
	activated map[serviceworker.RegistrationID]bool
	errors    []string // what the worker reported, for a failure's message
}

func newWorkerTab(t *testing.T, srv *server) *workerTab {
	t.Helper()
	tb := &workerTab{tab: newTab(t, srv)}
	tb.allow(cdpbrowser.PermissionSettingGranted)
	tb.activated = map[serviceworker.RegistrationID]bool{}
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch e := ev.(type) {
		case *serviceworker.EventWorkerRegistrationUpdated:
			for _, r := range e.Registrations {
				if r.ScopeURL == srv.URL+"/" && !r.IsDeleted {
					tb.reg = r.RegistrationID
				}
			}
		case *serviceworker.EventWorkerVersionUpdated:
			for _, v := range e.Versions {
				if v.Status == serviceworker.VersionStatusActivated {
					tb.activated[v.RegistrationID] = true
				}
			}
		case *serviceworker.EventWorkerErrorReported:
			tb.errors = append(tb.errors, e.ErrorMessage.ErrorMessage)
		}
	}); err != nil {
		t.Fatalf("listen: %v", err)
	}
	tb.login()
	tb.do("worker ready", chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	// A page loaded before the worker was active may stay uncontrolled
	// until the worker claims it; one loaded after is controlled from the
	// start (a tap navigates only a window the worker controls).
	tb.do("reload under the worker", chromedp.Navigate(srv.URL+"/more"), chromedp.WaitVisible(css(`[data-testid="push"]`)))
	get(tb.tab, "worker controls the page", chromedp.Poll[bool](`!!navigator.serviceWorker.controller`))
	tb.do("enable ServiceWorker", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, serviceworker.Enable, cdp.Empty{})
		return err
	}))
	poll.Eventually(t, stepTimeout, func() (bool, string) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		return tb.reg != "" && tb.activated[tb.reg], "no activated worker of hearth's registration reported"
	})
	return tb
}

// allow sets the notifications permission of the server's origin.
func (tb *workerTab) allow(setting cdpbrowser.PermissionSetting) {
	tb.t.Helper()
	tb.do("notifications permission", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := cdp.Call(ctx, chromedp.FromContext(ctx).Browser, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: setting, Origin: tb.srv.URL})
		return err
	}))
}

// push delivers a payload to the worker as a push service would.
func (tb *workerTab) push(p any) {
	tb.t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.inWorker("count what the worker shows", showingHook)
	tb.mu.Lock()
	reg := tb.reg
	tb.mu.Unlock()
	tb.do("deliver push", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: tb.srv.URL, RegistrationID: reg, Data: string(b)})
		return err
	}))
}

// showingHook wraps the running worker's showNotification to count those
// not yet settled and keep the tags shown. Chromium drops from its store a
// notification a getNotifications() call finds written but not yet counted
// as displayed (headless Chromium's display is slow to count it), so a read
// must wait until nothing is being shown. A worker restarted after the hook
// loses it: waitShown then says so.
const showingHook = `(function () {
	if (self.__showing) return "";
	var reg = self.registration, show = reg.showNotification.bind(reg);
	self.__showing = {pending: 0, tags: []};
	reg.showNotification = function (title, options) {
		self.__showing.pending++;
		return show(title, options).finally(function () {
			self.__showing.pending--;
			self.__showing.tags.push((options && options.tag) || "");
		});
	};
	return "";
})()`

// settled reports whether the worker has no notification being shown and
// has shown every tag in tags since the hook was set.
func (tb *workerTab) settled(tags []string) (bool, string) {
	want, _ := json.Marshal(append([]string{}, tags...))
	got := tb.inWorker("is the worker showing", `(function () {
		var s = self.__showing;
		if (!s) return "the worker restarted and lost its hook";
		if (s.pending) return s.pending + " notifications being shown";
		var missing = `+string(want)+`.filter(function (t) { return s.tags.indexOf(t) < 0; });
		return missing.length ? "the worker has not shown " + missing.join(", ") : "";
	})()`)
	return got == "", got
}

// readNotifications is what the worker's registration shows now, read in
// the worker (a page may have been navigated by it, or left).
func (tb *workerTab) readNotifications() []shown {
	tb.t.Helper()
	raw := tb.inWorker("read notifications", `self.registration.getNotifications().then(ns =>
		JSON.stringify(ns.map(n => ({title: n.title, body: n.body, tag: n.tag, url: (n.data && n.data.url) || "", silent: !!n.silent}))))`)
	var out []shown
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		tb.t.Fatalf("notifications %q: %v", raw, err)
	}
	return out
}

// waitShown waits until the notifications shown are exactly want's tags
// (in any order) and returns them.
func (tb *workerTab) waitShown(tags ...string) []shown {
	tb.t.Helper()
	poll.Eventually(tb.t, stepTimeout, func() (bool, string) { return tb.settled(tags) })
	var got []shown
	poll.Eventually(tb.t, stepTimeout, func() (bool, string) {
		got = tb.readNotifications()
		var have []string
		for _, n := range got {
			have = append(have, n.Tag)
		}
		tb.mu.Lock()
		defer tb.mu.Unlock()
		return sameSet(have, tags), fmt.Sprintf("shown %+v, want the tags %v (the worker reported %q)", got, tags, tb.errors)
	})
	return got
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		if seen[s] == 0 {
			return false
		}
		seen[s]--
	}
	return true
}

// inWorker evaluates expression in hearth's service worker (its DevTools
// target), awaiting a promise, and returns its string.
func (tb *workerTab) inWorker(what, expression string) string {
	tb.t.Helper()
	// An idle worker is stopped, and has no target until started.
	tb.do("start the worker", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, serviceworker.StartWorker, serviceworker.StartWorkerParams{ScopeURL: tb.srv.URL + "/"})
		return err
	}))
	var id string
	poll.Eventually(tb.t, stepTimeout, func() (bool, string) {
		infos, err := chromedp.Targets(tb.ctx)
		if err != nil {
			return false, err.Error()
		}
		for _, in := range infos {
			if in.Type == "service_worker" && strings.HasPrefix(in.URL, tb.srv.URL+"/sw.js") {
				id = string(in.TargetID)
				return true, ""
			}
		}
		return false, "hearth's worker is not running"
	})
	// Detach on cancel: closing a worker's target would stop the worker.
	ctx, cancel := chromedp.NewContext(tb.ctx, chromedp.WithTargetID(target.ID(id)), chromedp.WithDetachOnCancel())
	defer cancel()
	step, stop := context.WithTimeout(ctx, stepTimeout)
	defer stop()
	out, err := chromedp.Run(step, chromedp.Evaluate[*string](expression, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
	if out == nil {
		return ""
	}
	return *out
}

// location is the URL of the tab's page as the browser reports it (the
// worker may have navigated it).
func (tb *workerTab) location() string {
	tb.t.Helper()
	me := chromedp.FromContext(tb.ctx).Target.TargetID
	infos, err := chromedp.Targets(tb.ctx)
	if err != nil {
		tb.t.Fatal(err)
	}
	for _, in := range infos {
		if in.TargetID == me {
			return in.URL
		}
	}
	return ""
}

// TestAPushShowsItsItemAndATapOpensIt delivers what hearth sends for an
// item: the worker shows its title and body under the item's tag, and a tap
// opens the item in the open hearth window. DevTools cannot tap a
// notification, so the tap is a notificationclick dispatched in the worker
// with the notification it shows.
func TestAPushShowsItsItemAndATapOpensIt(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newWorkerTab(t, srv)
	tb.push(models.PushPayload{Title: "Reply draft to review", Body: "Answer Ana about Saturday", URL: "/more#push-heading", Tag: "activity:r-1"})
	got := tb.waitShown("activity:r-1")
	if n := got[0]; n.Title != "Reply draft to review" || n.Body != "Answer Ana about Saturday" || n.URL != "/more#push-heading" || n.Silent {
		t.Fatalf("shown %+v", n)
	}
	tb.inWorker("tap the notification", `self.registration.getNotifications({tag: "activity:r-1"}).then(ns => {
		self.dispatchEvent(new NotificationEvent("notificationclick", {notification: ns[0]}));
	})`)
	poll.Eventually(t, stepTimeout, func() (bool, string) {
		at := tb.location()
		return at == srv.URL+"/more#push-heading", "the tab is at " + at + ", want the item's URL"
	})
	tb.waitShown()
}

// TestAClosePushClosesItsNotificationAndShowsNothingElse: an item decided
// elsewhere is closed on the phone by a push with its tag; nothing else is
// shown while another of hearth's notifications is, or a hearth window is
// in view. With neither, the worker must still show something (Chrome's
// userVisibleOnly rule): a silent "done elsewhere" under the same tag.
func TestAClosePushClosesItsNotificationAndShowsNothingElse(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newWorkerTab(t, srv)
	tb.push(models.PushPayload{Title: "Reply draft to review", Body: "Answer Ana", URL: "/", Tag: "activity:a"})
	tb.push(models.PushPayload{Title: "A run needs a look", Body: "daily-brief", URL: "/runs", Tag: "run:b"})
	tb.waitShown("activity:a", "run:b")

	tb.push(models.PushPayload{Title: "Done elsewhere", URL: "/", Tag: "activity:a", Close: true})
	tb.waitShown("run:b")
	// The page is in view: closing the last one shows nothing.
	tb.push(models.PushPayload{Title: "Done elsewhere", URL: "/runs", Tag: "run:b", Close: true})
	tb.waitShown()

	// No hearth window and nothing else showing: the close is replaced by
	// a silent notice, never Chrome's own "updated in the background".
	tb.push(models.PushPayload{Title: "Reply draft to review", Body: "Answer Ben", URL: "/", Tag: "activity:c"})
	tb.waitShown("activity:c")
	tb.do("leave hearth", chromedp.Navigate("about:blank"))
	tb.push(models.PushPayload{Title: "Done elsewhere", Body: "Decided in hearth", URL: "/", Tag: "activity:c", Close: true})
	tb.do("back to hearth", chromedp.Navigate(srv.URL+"/more"))
	var got []shown
	poll.Eventually(t, stepTimeout, func() (bool, string) {
		got = tb.readNotifications()
		return len(got) == 1 && got[0].Title == "Done elsewhere", fmt.Sprintf("shown %+v, want the silent notice", got)
	})
	if n := got[0]; n.Tag != "activity:c" || !n.Silent || n.Body != "Decided in hearth" {
		t.Fatalf("shown %+v, want a silent notice under the item's tag", n)
	}
}

// TestMoreSaysWhyThisPhoneWasNotSubscribed: headless Chromium has no push
// service, so subscribing fails there as it does on a phone that cannot
// reach its own; More says so in words, and says when notifications are
// blocked for hearth.
func TestMoreSaysWhyThisPhoneWasNotSubscribed(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newWorkerTab(t, srv)
	tb.do("open More", chromedp.Navigate(srv.URL+"/more"), chromedp.WaitVisible(css(`[data-testid="push-subscribe"]`)))
	tb.do("subscribe", chromedp.Click(css(`[data-testid="push-subscribe"]`)))
	// push.js gives a push service that does not answer 15 s.
	wait, cancel := context.WithTimeout(tb.ctx, 45*time.Second)
	defer cancel()
	state, err := chromedp.Run(wait, chromedp.Poll[string](`(function(){var s=document.getElementById("push-state").textContent;return s.indexOf("Not subscribed")>=0?s:""})()`,
		chromedp.WithPollingTimeout(40*time.Second)))
	if err != nil {
		tb.fail("the answer", err)
	}
	if !strings.Contains(state, "push service") {
		t.Errorf("More says %q, want why: the push service could not be reached", state)
	}

	tb.allow(cdpbrowser.PermissionSettingDenied)
	tb.do("open More again", chromedp.Navigate(srv.URL+"/more"), chromedp.WaitVisible(css(`[data-testid="push-subscribe"]`)))
	tb.do("subscribe", chromedp.Click(css(`[data-testid="push-subscribe"]`)))
	state = get(tb.tab, "the answer", chromedp.Poll[string](`(function(){var s=document.getElementById("push-state").textContent;return s.indexOf("Not subscribed")>=0?s:""})()`))
	if !strings.Contains(state, "blocked") {
		t.Errorf("More says %q, want that notifications are blocked for hearth", state)
	}
	if !get(tb.tab, "subscribe offered still", chromedp.Evaluate[bool](`!document.getElementById("push-subscribe").hidden`)) {
		t.Error("the subscribe button is gone after a failure")
	}
}
