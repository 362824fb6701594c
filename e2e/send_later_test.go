package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/poll"
)

// laterBody is what the send-later tests confirm for Ana's hike draft.
const laterBody = "Saturday works! See you at the trailhead at 8."

// startLaterServer is the demo with the fake Beeper and a quick watch,
// whose passes are when scheduled sends go.
func startLaterServer(t *testing.T, beeperURL, dataDir string) *server {
	t.Helper()
	return startServerIn(t, dataDir, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL, "--watch-interval", "200ms")
}

// scheduleAnaReply reviews Ana's hike draft with laterBody and confirms it
// with the review's "Send later" picker to send after the given time from
// the confirmation (in the demo's zone, Europe/Berlin), to the second: the
// picker's step is made 1s, so a test waits seconds, not minutes. It
// returns when the send is due, once the conversation says when it sends.
func scheduleAnaReply(t *testing.T, tb *tab, srv *server, after time.Duration) time.Time {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tb.do("review Ana's draft",
		chromedp.Navigate(srv.URL+"/messages/%21ana-okafor:beeper.local"),
		chromedp.WaitVisible(css(`#draft-draft-ana-hike`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('#draft-draft-ana-hike [data-testid="conversation-body"]').value = ""`),
		chromedp.SendKeys(css(`#draft-draft-ana-hike [data-testid="conversation-body"]`), laterBody),
		tap(`#draft-draft-ana-hike [data-testid="review"]`),
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
		chromedp.WaitVisible(css(`#draft-draft-ana-hike [data-testid="scheduled-send"]`)),
	)
	if got, want := get(tb, "scheduled at", textOf(`#draft-draft-ana-hike [data-testid="scheduled-at"]`)), "Sends at "+due.In(loc).Format("15:04"); got != want && day == "today" {
		t.Fatalf("the conversation says %q, want %q", got, want)
	}
	return due.Truncate(time.Second)
}

// ownSendsOf counts the owner's messages in Ana's chat at the fake Beeper
// with text.
func ownSendsOf(t *testing.T, beeperURL, text string) int {
	t.Helper()
	page, err := beeper.NewClient(beeperURL, "e2e-token").Messages(context.Background(), beepertest.AnaChatID, beeper.MessagesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range page.Items {
		if m.IsSender && m.Text == text {
			n++
		}
	}
	return n
}

// waitRowState waits until Home (reloaded each try) shows the reply row in state.
func waitRowState(t *testing.T, tb *tab, srv *server, id, state string, within time.Duration) {
	t.Helper()
	poll.Eventually(t, within, func() (bool, string) {
		if got := tb.rowState(id); got != state {
			tb.do("reload Home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
			return false, fmt.Sprintf("row %s is %q, want %q", id, got, state)
		}
		return true, ""
	})
}

func TestASendLaterGoesAtItsTimeOnceAndHomeShowsItUntilThen(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	srv := startLaterServer(t, beeperURL, "")
	tb := newTab(t, srv)
	tb.login()
	due := scheduleAnaReply(t, tb, srv, 12*time.Second)
	home := tb
	home.do("open Home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	home.expand("reply-ana-hike", "reply")
	shown := get(home, "Home's line", chromedp.Evaluate[string](`(function(){var e=document.querySelector('`+rowSel("reply-ana-hike")+` [data-testid="scheduled-at"]');return e?e.textContent:""})()`))
	// Read before its time (a slow machine may not get here first), Home
	// says when it sends, and Beeper has nothing yet.
	if n := ownSendsOf(t, beeperURL, laterBody); time.Now().Before(due) {
		if n != 0 {
			t.Fatalf("%d sent before its time", n)
		}
		if !strings.HasPrefix(shown, "Sends at ") {
			t.Fatalf("Home shows %q before its time, want \"Sends at …\"", shown)
		}
	}
	waitRowState(t, home, srv, "reply-ana-hike", "completed", 30*time.Second)
	if n := ownSendsOf(t, beeperURL, laterBody); n != 1 {
		t.Fatalf("the fake Beeper has the reply %d times, want once", n)
	}
}

func TestASendLaterIsHeldWhenTheChatMovedOnAndShownBackOnHome(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	srv := startLaterServer(t, beeperURL, "")
	tb := newTab(t, srv)
	tb.login()
	due := scheduleAnaReply(t, tb, srv, 6*time.Second)
	// Stopped, hearth cannot send before Ana's message arrives.
	srv.terminate(t)
	fakeControl(t, beeperURL, beepertest.IncomingPath, map[string]string{"chatId": beepertest.AnaChatID, "senderId": "@ana:beeper.local", "text": "Wait, can we make it Sunday?"})
	time.Sleep(time.Until(due)) // the restarted hearth finds it due
	srv = startLaterServer(t, beeperURL, srv.DataDir)
	// The session outlives the restart (cookies do not name the port).
	home := newTab(t, srv)
	home.do("open Home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		home.do("reload Home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
		home.expand("reply-ana-hike", "reply")
		held := get(home, "held?", chromedp.Evaluate[bool](`!!document.querySelector('`+rowSel("reply-ana-hike")+` [data-testid="scheduled-held"]')`))
		return held, "Home never showed the held reply"
	})
	if got := get(home, "held words", textOf(rowSel("reply-ana-hike")+` [data-testid="scheduled-held"]`)); !strings.Contains(got, "The chat moved on: look again") {
		t.Fatalf("Home says %q", got)
	}
	if n := ownSendsOf(t, beeperURL, laterBody); n != 0 {
		t.Fatalf("the held reply reached Beeper %d times", n)
	}
	if st := home.rowState("reply-ana-hike"); st == "completed" {
		t.Fatal("the held reply's row is completed")
	}
}

func TestASendLaterSurvivesARestartOfHearthAndGoesOnce(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	srv := startLaterServer(t, beeperURL, "")
	tb := newTab(t, srv)
	tb.login()
	scheduleAnaReply(t, tb, srv, 6*time.Second)
	srv.terminate(t)
	if n := ownSendsOf(t, beeperURL, laterBody); n != 0 {
		t.Fatalf("sent %d times before the restart", n)
	}
	srv = startLaterServer(t, beeperURL, srv.DataDir)
	// The session outlives the restart (cookies do not name the port).
	home := newTab(t, srv)
	home.do("open Home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	waitRowState(t, home, srv, "reply-ana-hike", "completed", 30*time.Second)
	if n := ownSendsOf(t, beeperURL, laterBody); n != 1 {
		t.Fatalf("the fake Beeper has the reply %d times, want once", n)
	}
}
