package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/beeper/beepertest"
	"hearth/internal/poll"
)

// ownLaterBody is what the own send-later tests write in Ana's chat.
const ownLaterBody = "On my way, see you at the trailhead."

// scheduleOwnReply writes ownLaterBody in Ana's conversation's own-words
// composer, reviews it and confirms it with the review's "Send later"
// picker to send after the given time from now (to the second, as
// scheduleAnaReply does). It returns the due time, once the conversation
// shows the reply waiting above the composer.
func scheduleOwnReply(t *testing.T, tb *tab, srv *server, after time.Duration) time.Time {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tb.do("review an own reply to Ana",
		chromedp.Navigate(srv.URL+"/messages/%21ana-okafor:beeper.local"),
		chromedp.WaitVisible(css(`[data-testid="own-body"]`)),
		chromedp.SendKeys(css(`[data-testid="own-body"]`), ownLaterBody),
		tap(`[data-testid="own-review"]`),
		chromedp.WaitVisible(css(`[data-testid="review-own"]`)),
		chromedp.WaitVisible(css(`[data-testid="send-later"]`)),
	)
	due := time.Now().Add(after)
	day := "today"
	if due.In(loc).Format(time.DateOnly) != time.Now().In(loc).Format(time.DateOnly) {
		day = "tomorrow"
	}
	tb.do("send it later",
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector('#later-day').value = %q; var at = document.querySelector('#later-time'); at.step = "1"; at.value = %q`,
			day, due.In(loc).Format("15:04:05"))),
		tap(`[data-testid="confirm-later"]`),
		chromedp.WaitVisible(css(`[data-testid="composer"] [data-testid="scheduled-send"]`)),
	)
	if got := get(tb, "own line", textOf(`[data-testid="composer"] [data-testid="scheduled-body"]`)); got != ownLaterBody {
		t.Fatalf("the conversation shows %q waiting, want the own reply", got)
	}
	return due.Truncate(time.Second)
}

// ownLaterOnHome reloads Home and reads the state of Ana's own reply for
// later there ("" when Home lists none).
func ownLaterOnHome(tb *tab, srv *server) string {
	tb.do("reload Home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	return get(tb, "own later on Home", chromedp.Evaluate[string](
		`(function(){var e=document.querySelector('[data-testid="own-later-item"][data-chat="!ana-okafor:beeper.local"]');return e?e.dataset.state:""})()`))
}

func TestAnOwnReplySentLaterSurvivesARestartOfHearthAndGoesOnce(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	srv := startLaterServer(t, beeperURL, "")
	tb := newTab(t, srv)
	tb.login()
	scheduleOwnReply(t, tb, srv, 8*time.Second)
	tb.do("open Messages", chromedp.Navigate(srv.URL+"/messages"), chromedp.WaitVisible(css(`[data-testid="chats"]`)))
	if got := get(tb, "chat list", chromedp.Evaluate[string](
		`(function(){var e=document.querySelector('[data-chat="!ana-okafor:beeper.local"] [data-testid="chat-later-at"]');return e?e.textContent:""})()`)); !strings.HasPrefix(got, "Scheduled ") {
		t.Fatalf("the chat list says %q for Ana's chat, want \"Scheduled …\"", got)
	}
	srv.terminate(t)
	if n := ownSendsOf(t, beeperURL, ownLaterBody); n != 0 {
		t.Fatalf("sent %d times before the restart", n)
	}
	srv = startLaterServer(t, beeperURL, srv.DataDir)
	// The session outlives the restart (cookies do not name the port).
	home := newTab(t, srv)
	if st := ownLaterOnHome(home, srv); st == "" {
		t.Fatal("after the restart Home does not list the own reply for later")
	}
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		n := ownSendsOf(t, beeperURL, ownLaterBody)
		return n > 0, fmt.Sprintf("the fake Beeper has the own reply %d times", n)
	})
	// Once it went, Home no longer lists it; by then every pass that could
	// send it again has had its chance.
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		st := ownLaterOnHome(home, srv)
		return st == "", "Home lists the own reply as " + st
	})
	if n := ownSendsOf(t, beeperURL, ownLaterBody); n != 1 {
		t.Fatalf("the fake Beeper has the own reply %d times, want once", n)
	}
}

func TestAnOwnReplySentLaterIsHeldWhenAnswerArrivesWhileHearthIsStopped(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	srv := startLaterServer(t, beeperURL, "")
	tb := newTab(t, srv)
	tb.login()
	due := scheduleOwnReply(t, tb, srv, 6*time.Second)
	srv.terminate(t)
	fakeControl(t, beeperURL, beepertest.IncomingPath, map[string]string{"chatId": beepertest.AnaChatID, "senderId": "@ana:beeper.local", "text": "Wait, can we make it Sunday?"})
	time.Sleep(time.Until(due)) // the restarted hearth finds it due
	srv = startLaterServer(t, beeperURL, srv.DataDir)
	home := newTab(t, srv)
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		st := ownLaterOnHome(home, srv)
		return st == "held", "Home lists the own reply as " + st
	})
	if got := get(home, "held words", textOf(`[data-testid="own-later-item"] [data-testid="scheduled-held"]`)); !strings.Contains(got, "The chat moved on: look again") {
		t.Fatalf("Home says %q", got)
	}
	if n := ownSendsOf(t, beeperURL, ownLaterBody); n != 0 {
		t.Fatalf("the held own reply reached Beeper %d times", n)
	}
}
