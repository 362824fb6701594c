package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/poll"
)

// startFakeBeeper runs `hearth fake-beeper` (with extra args) as its own
// process on a port of its choosing and returns its URL.
func startFakeBeeper(tb testing.TB, args ...string) string {
	tb.Helper()
	url, _ := startFakeBeeperAt(tb, "127.0.0.1:0", args...)
	return url
}

var fakeBeeperLine = regexp.MustCompile(`fake Beeper Desktop API at (http://\S+)`)

// startFakeBeeperAt runs `hearth fake-beeper` on addr, waits until it
// answers, and returns the URL it printed; stop kills it (Beeper closed),
// and a later call on the same address starts it again.
func startFakeBeeperAt(tb testing.TB, addr string, args ...string) (url string, stop func()) {
	tb.Helper()
	out := &logBuffer{}
	cmd := exec.Command(hearthBin, append([]string{"fake-beeper", "--addr", addr, "--token", "e2e-token"}, args...)...)
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	tb.Cleanup(stop)
	poll.Eventually(tb, 10*time.Second, func() (bool, string) {
		m := fakeBeeperLine.FindStringSubmatch(out.All())
		if m == nil {
			return false, fmt.Sprintf("fake Beeper did not say where it listens: %s", out.All())
		}
		url = m[1]
		client := beeper.NewClient(url, "e2e-token", beeper.WithTimeout(time.Second))
		_, err := client.Accounts(tb.Context())
		return err == nil, fmt.Sprintf("fake Beeper did not start: %v", err)
	})
	return url, stop
}

func TestReplyReviewedAndSentReachesBeeperOnceAndCompletesHome(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL)
	home := newTab(t, srv)
	home.login()
	convo := newTab(t, srv)
	convo.do("open the conversation in another tab", chromedp.Navigate(srv.URL+"/messages/%21ana-okafor:beeper.local"),
		chromedp.WaitVisible(css(`[data-testid="messages"]`)))
	tb := newTab(t, srv)
	body := "Saturday works! Trailhead at 8, I'll bring snacks and the map."
	tb.do("open the conversation",
		chromedp.Navigate(srv.URL+"/messages"),
		chromedp.Click(css(`[data-chat="!ana-okafor:beeper.local"] a`)),
		chromedp.WaitVisible(css(`#draft-draft-ana-hike`)),
		chromedp.Click(css(`#draft-draft-ana-hike input[value="yes-short"]`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="conversation-body"]').value = ""`),
		chromedp.SendKeys(css(`[data-testid="conversation-body"]`), body),
		chromedp.Click(css(`[data-testid="review"]`)),
		chromedp.WaitVisible(css(`[data-testid="review-summary"]`)),
	)
	if got := get(tb, "review body", textOf(`[data-testid="review-body"]`)); got != body {
		t.Fatalf("review shows %q", got)
	}
	// A double tap on Send posts the same sendKey twice: one message.
	tb.do("confirm", chromedp.DoubleClick(css(`[data-testid="confirm"]`)), chromedp.WaitVisible(css(`[data-testid="send-sent"]`)))

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
	if len(mine) != 1 || mine[0].Text != body || mine[0].LinkedMessageID != "m-ana-3" {
		t.Fatalf("Beeper has %+v, want exactly %q replying to m-ana-3", mine, body)
	}
	// The first tab never reloaded: the reply row moves to Done today live.
	get(home, "reply done live", chromedp.Poll[bool](`(function(){var r=document.querySelector('[data-testid="done-today"] li[data-id="reply-ana-hike"]');return !!r && r.dataset.state==="completed"})()`,
		chromedp.WithPollingTimeout(5*time.Second)))
	// The other conversation tab reloads itself and shows the sent message.
	eventually(convo, "sent message live", `(function(){var m=document.querySelector('.message.mine');return !!m && m.textContent.indexOf("snacks")>=0})()`, 5*time.Second)
	if !strings.Contains(get(tb, "result", textOf(`[data-testid="send-body"]`)), "snacks") {
		t.Error("result page does not show what was sent")
	}
}

// eventually polls js (a value, or a promise of one) until it is true,
// across the page's own reloads (a poll does not survive a navigation, so
// each try is short and retried).
func eventually(tb *tab, what, js string, within time.Duration) {
	tb.t.Helper()
	if !poll.Within(within, func() bool {
		ctx, cancel := context.WithTimeout(tb.ctx, 500*time.Millisecond)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
		cancel()
		return err == nil && ok
	}) {
		tb.fail(what, context.DeadlineExceeded)
	}
}
