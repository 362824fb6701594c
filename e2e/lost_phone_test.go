package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"hearth/handlers"
	"hearth/internal/poll"
)

// revocationDeadline bounds the waits for a logout-all from the CLI (another
// process) to reach the server and the phone: a deadline, not a measurement.
const revocationDeadline = handlers.SessionRecheck + 30*time.Second

// keepHome loads Home through the service worker, so the phone keeps a copy.
func (tb *tab) keepHome() {
	tb.t.Helper()
	tb.do("worker ready", chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	tb.do("reload through the worker", chromedp.Reload(), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	// Across a reload of the page meanwhile (a chromedp poll ends with "target navigated").
	eventually(tb, "controlled", `navigator.serviceWorker.controller !== null`, stepTimeout)
	eventually(tb, "Home kept", `caches.has("hearth-home")`, stepTimeout)
}

// waitHomeForgotten waits until the phone holds no copy of Home.
func (tb *tab) waitHomeForgotten() {
	tb.t.Helper()
	// Across the page's own move to the login page meanwhile (a failed
	// evaluation, "target navigated", is tried again).
	eventually(tb, "the phone forgot Home after logout-all, online", `caches.has("hearth-home").then(function (kept) { return !kept; })`, revocationDeadline)
}

// assertNoHomeOffline unplugs the phone and opens Home: it is not there.
func (tb *tab) assertNoHomeOffline(line *cable) {
	tb.t.Helper()
	tb.offline(line, true)
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(line.URL+"/"), chromedp.WaitReady(css("body"))); err == nil {
		if n := get(tb, "brief", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="brief"]').length`)); n != 0 {
			tb.t.Errorf("after logout-all, offline Home still shows the brief")
		}
	}
	tb.offline(line, false)
}

// sessionCookie is the phone's session cookie.
func (tb *tab) sessionCookie() *http.Cookie {
	tb.t.Helper()
	var c *http.Cookie
	tb.do("session cookie", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		res, err := cdp.Call(ctx, target, network.GetCookies, network.GetCookiesParams{URLs: []string{tb.srv.URL + "/"}})
		for _, k := range res.Cookies {
			if k.Name == "hearth_session" {
				c = &http.Cookie{Name: k.Name, Value: k.Value}
			}
		}
		return err
	}))
	if c == nil {
		tb.t.Fatal("the phone has no session cookie")
	}
	return c
}

// waitSessionRefused waits until the server sends the session to log in.
func waitSessionRefused(t *testing.T, base string, c *http.Cookie) {
	t.Helper()
	hc := &http.Client{Timeout: httpTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	poll.Eventually(t, revocationDeadline, func() (bool, string) {
		req, _ := http.NewRequest(http.MethodGet, base+"/more", nil)
		req.AddCookie(c)
		resp, err := hc.Do(req)
		must(t, err)
		resp.Body.Close()
		return resp.StatusCode == http.StatusSeeOther, "the server still admits the session after logout-all"
	})
}

// TestLogoutAllDropsTheKeptHomeFromAnOpenPhone: the lost phone is online
// with Home open when the owner runs logout-all on the host. The event
// stream ends with the session, its reconnect is sent to log in, and the
// phone forgets its copy of Home, so offline it can no longer show it.
func TestLogoutAllDropsTheKeptHomeFromAnOpenPhone(t *testing.T) {
	srv, line, tb := loggedInBehindCable(t)
	tb.keepHome()

	wantExit(t, runHearth(t, nil, "owner", "logout-all", "--data", srv.DataDir), 0, "stdout", "Ended")
	tb.waitHomeForgotten()
	tb.assertNoHomeOffline(line)
}

// TestLogoutAllWhileOfflineSendsNoQueuedActionAndDropsTheKeptHome: the
// phone is offline with an action queued when the owner runs logout-all.
// Back online, the queued action is refused with the session (nothing
// saved, it stays on the phone for after a new sign-in) and the phone
// forgets its copy of Home.
func TestLogoutAllWhileOfflineSendsNoQueuedActionAndDropsTheKeptHome(t *testing.T) {
	srv, line, tb := loggedInBehindCable(t)
	tb.keepHome()
	day := demoDay(t)
	weigh := "weigh-in-" + day
	tb.expand("morning-routine-"+day, "routine")
	tb.expand(weigh, "measurement")
	cookie := tb.sessionCookie()

	tb.offline(line, true)
	tb.do("save weight offline",
		chromedp.SendKeys(css(`#value-`+weigh), "71,8"),
		chromedp.Click(css(rowSel(weigh)+` [data-testid="measurement-save"]`)),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="sync-note"]`)),
	)
	wantExit(t, runHearth(t, nil, "owner", "logout-all", "--data", srv.DataDir), 0, "stdout", "Ended")
	waitSessionRefused(t, srv.URL, cookie)

	tb.offline(line, false)
	tb.waitHomeForgotten()
	if got := weightsSaved(t, srv, weigh); len(got) != 0 {
		t.Fatalf("a queued weight was saved under an ended session: %v", got)
	}
	if n := tb.queueLength(); n != 1 {
		t.Errorf("%d actions queued after the refusal, want the 1 kept for a new sign-in", n)
	}
	tb.assertNoHomeOffline(line)
}
