package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

// Hearth unreachable while the phone is online: navigator.onLine stays
// true (no emulation here), and the cable in front of serve either refuses
// connections (Tailscale or the server down) or answers as a proxy does
// when the server behind it does not (502).

// sentByOwner lists the messages the owner sent in Ana's chat, as the fake
// Beeper holds them.
func sentByOwner(t *testing.T, beeperURL string) []beeper.Message {
	t.Helper()
	page, err := beeper.NewClient(beeperURL, "e2e-token").Messages(context.Background(), beepertest.AnaChatID, beeper.MessagesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var mine []beeper.Message
	for _, m := range page.Items {
		if m.IsSender {
			mine = append(mine, m)
		}
	}
	return mine
}

// reviewAnaReplyBehindACable starts the demo with a fake Beeper behind a
// cable the test can cut, and opens the review of body as the reply to
// Ana, loaded.
func reviewAnaReplyBehindACable(t *testing.T, body string) (*tab, *cable, string) {
	t.Helper()
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL)
	line := plugCable(t, strings.TrimPrefix(srv.URL, "http://"))
	tb := newTab(t, &server{URL: line.URL, DataDir: srv.DataDir})
	tb.login()
	tb.do("review a reply",
		chromedp.Navigate(line.URL+"/messages/%21ana-okafor:beeper.local"),
		chromedp.WaitVisible(css(`#draft-draft-ana-hike`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="conversation-body"]').value = ""`),
		chromedp.SendKeys(css(`[data-testid="conversation-body"]`), body),
		tap(`[data-testid="review"]`),
		chromedp.WaitVisible(css(`[data-testid="review-summary"]`)),
	)
	get(tb, "review loaded", chromedp.Poll[bool](`document.readyState === "complete"`))
	return tb, line, beeperURL
}

func TestSendWithHearthUnreachableIsRefusedInPlaceAndNothingIsSent(t *testing.T) {
	body := "Saturday works! Trailhead at 8."
	tb, line, beeperURL := reviewAnaReplyBehindACable(t, body)

	for _, c := range []struct {
		name string
		cut  func()
	}{
		{"connection refused", func() { line.set(true) }},
		{"proxy 502", func() { line.setGateway(http.StatusBadGateway); line.set(false) }},
	} {
		c.cut()
		tb.do("send with hearth unreachable: "+c.name,
			// The refusal of the case before goes, so the one waited for is this one's.
			chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('[data-testid="unreachable-refused"]').forEach(p => p.remove())`),
			chromedp.Click(css(`[data-testid="confirm"]`)),
			chromedp.WaitVisible(css(`[data-testid="unreachable-refused"]`)),
		)
		refused := get(tb, "refusal", textOf(`[data-testid="unreachable-refused"]`))
		if !strings.Contains(refused, "hearth could not be reached; nothing was sent") {
			t.Errorf("%s: refusal %q", c.name, refused)
		}
		// In place: still the review, with its Send.
		if n := get(tb, "review still shown", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="review-summary"], [data-testid="confirm"]').length`)); n != 2 {
			t.Errorf("%s: the review is gone after the refusal", c.name)
		}
		if mine := sentByOwner(t, beeperURL); len(mine) != 0 {
			t.Fatalf("%s: Beeper has %+v, want nothing sent", c.name, mine)
		}
	}

	// hearth is back: the same Send goes, once, and its outcome is shown.
	line.setGateway(0)
	tb.do("send with hearth back",
		chromedp.Click(css(`[data-testid="confirm"]`)),
		chromedp.WaitVisible(css(`[data-testid="send-sent"]`)),
	)
	if mine := sentByOwner(t, beeperURL); len(mine) != 1 || mine[0].Text != body {
		t.Fatalf("Beeper has %+v, want %q once", mine, body)
	}
}

func TestTickWithHearthUnreachableIsQueuedSaidAndSyncedOnceWhenHearthIsBack(t *testing.T) {
	srv, line, tb := loggedInBehindCable(t)
	tb.expand("book-bike-service", "task")
	day := demoDay(t)
	tb.expand("morning-routine-"+day, "routine")
	stretch := "stretch-" + day

	line.set(true)
	tb.do("complete a task with hearth unreachable",
		chromedp.Click(css(rowSel("book-bike-service")+` [data-testid="complete"]`)),
		chromedp.WaitVisible(css(rowSel("book-bike-service")+` [data-testid="sync-note"]`)),
	)
	line.setGateway(http.StatusBadGateway)
	line.set(false)
	tb.do("tick a step behind a proxy answering 502",
		chromedp.Click(css(rowSel(stretch)+` > form [data-testid="tick"]`)),
		chromedp.WaitVisible(css(rowSel(stretch)+` [data-testid="sync-note"]`)),
	)
	if n := tb.queueLength(); n != 2 {
		t.Fatalf("%d actions queued, want 2", n)
	}
	banner := get(tb, "banner", textOf(`[data-testid="offline-banner"]`))
	if !strings.Contains(banner, "could not be reached") {
		t.Errorf("banner %q does not say hearth could not be reached", banner)
	}
	if n := get(tb, "502 swapped in", chromedp.Evaluate[int](`document.querySelectorAll('li[data-row][data-id="`+stretch+`"]').length`)); n != 1 {
		t.Errorf("the step's row is gone after a 502 (%d rows)", n)
	}
	if d := decisionsFor(t, srv, "book-bike-service"); len(d) != 0 {
		t.Fatalf("saved while unreachable: %v", d)
	}

	line.setGateway(0)
	get(tb, "synced", chromedp.Poll[bool](`document.querySelector('[data-sync]') === null && JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length === 0`,
		chromedp.WithPollingTimeout(stepTimeout)))
	if d := decisionsFor(t, srv, "book-bike-service"); len(d) != 1 || d[0]["state"] != "completed" {
		t.Errorf("after sync the agent sees decisions %v, want one completion", d)
	}
	if d := decisionsFor(t, srv, stretch); len(d) != 1 || d[0]["state"] != "completed" {
		t.Errorf("after sync the agent sees step decisions %v, want one completion", d)
	}
}

func TestHomeOpensFromTheCopyBehindAProxyAnswering502AndItsRowsStillWork(t *testing.T) {
	srv, line := installedBehindCable(t)

	line.setGateway(http.StatusBadGateway)
	tb := newTab(t, &server{URL: line.URL, DataDir: srv.DataDir})
	tb.do("open Home behind the 502", chromedp.Navigate(line.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	banner := get(tb, "banner", textOf(`[data-testid="offline-banner"]`))
	if !strings.Contains(banner, "could not be reached") {
		t.Errorf("banner %q", banner)
	}
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	tb.do("open a task from the copy", chromedp.Click(css(rowSel("book-bike-service")+` > a.row-head`)),
		chromedp.WaitVisible(css(rowSel("book-bike-service")+` [data-testid="control-task"]`)))
	get(tb, "settled after opening", chromedp.Poll[bool](htmxSettled))
	tb.do("move it to tomorrow", chromedp.Click(css(rowSel("book-bike-service")+` [data-testid="defer-tomorrow"]`)),
		chromedp.WaitVisible(css(rowSel("book-bike-service")+` [data-testid="sync-note"]`)))
	if d := decisionsFor(t, srv, "book-bike-service"); len(d) != 0 {
		t.Fatalf("saved behind the 502: %v", d)
	}

	line.setGateway(0)
	get(tb, "synced and said", chromedp.Poll[bool](`JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length === 0 && !document.querySelector('[data-testid="offline-banner"]')`))
	if d := decisionsFor(t, srv, "book-bike-service"); len(d) != 1 || d[0]["state"] != "deferred" {
		t.Errorf("after sync the agent sees decisions %v, want one deferral", d)
	}
}

func TestSendWhoseAnswerIsLostSaysItMayHaveGoneAndASecondTapSendsNothingMore(t *testing.T) {
	body := "Saturday works! See you at 8."
	tb, line, beeperURL := reviewAnaReplyBehindACable(t, body)

	line.setLoseAnswers(true)
	tb.do("send, its answer lost",
		chromedp.Click(css(`[data-testid="confirm"]`)),
		chromedp.WaitVisible(css(`[data-testid="unreachable-refused"]`)),
	)
	said := get(tb, "what the page says", textOf(`[data-testid="unreachable-refused"]`))
	if strings.Contains(said, "nothing was sent") || !strings.Contains(said, "cannot tell whether it went through") {
		t.Errorf("after a lost answer the page says %q", said)
	}
	if mine := sentByOwner(t, beeperURL); len(mine) != 1 {
		t.Fatalf("Beeper has %+v, want the one send that left", mine)
	}

	line.setLoseAnswers(false)
	tb.do("send again",
		chromedp.Click(css(`[data-testid="confirm"]`)),
		chromedp.WaitVisible(css(`[data-testid="send-sent"]`)),
	)
	if mine := sentByOwner(t, beeperURL); len(mine) != 1 || mine[0].Text != body {
		t.Fatalf("Beeper has %+v after a second tap, want %q once", mine, body)
	}
}

// A page form that is not a send (here Routines') is refused in place too
// when hearth does not answer: the owner stays on the page with what was
// there, never on the browser's error page.
func TestARoutinesFormWithHearthUnreachableIsRefusedInPlace(t *testing.T) {
	_, line, tb := loggedInBehindCable(t)
	// The first such form sits in a closed disclosure: present, not shown.
	tb.do("open Routines", chromedp.Navigate(line.URL+"/routines"), chromedp.WaitVisible(css(`main h1`)), chromedp.WaitReady(css(`main form[method="post"]`)))
	get(tb, "Routines loaded", chromedp.Poll[bool](`document.readyState === "complete"`))
	for _, c := range []struct {
		name string
		cut  func()
	}{
		{"connection refused", func() { line.set(true) }},
		{"proxy 502", func() { line.setGateway(http.StatusBadGateway); line.set(false) }},
	} {
		c.cut()
		tb.do("a Routines form with hearth unreachable: "+c.name,
			chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('[data-testid="unreachable-refused"]').forEach(p => p.remove());
				document.querySelector('main form[method="post"]').requestSubmit()`),
			chromedp.WaitReady(css(`[data-testid="unreachable-refused"]`)),
		)
		refused := get(tb, "refusal", chromedp.Evaluate[string](`document.querySelector('[data-testid="unreachable-refused"]').textContent`))
		if !strings.Contains(refused, "hearth could not be reached; nothing was sent") {
			t.Errorf("%s: refusal %q", c.name, refused)
		}
		if p := get(tb, "still on Routines", chromedp.Evaluate[string](`location.pathname + (document.querySelector("h1") || {}).textContent`)); p != "/routinesRoutines" {
			t.Errorf("%s: the page is %q after the refusal, want Routines", c.name, p)
		}
	}
}
