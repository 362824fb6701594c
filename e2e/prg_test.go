package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

// again reloads the page, then goes back and forward through it, each
// time waiting for sel, and fails when any of it posted a form again:
// every page-level POST is answered by a redirect to a GET (or by a swap),
// so the browser never asks "Confirm Form Resubmission" and never repeats
// an action.
func (tb *tab) again(p *tailnetProxy, what, sel string) {
	tb.t.Helper()
	before := p.posts("")
	tb.do(what+": reload", chromedp.Reload(), chromedp.WaitVisible(css(sel)))
	tb.history(what+": back", -1)
	tb.history(what+": forward", 1)
	tb.shows(what, sel)
	if n := p.posts(""); n != before {
		tb.t.Errorf("%s: a reload, Back and Forward posted %d forms again; want none (%v)", what, n-before, p.seen()[len(p.seen())-(n-before):])
	}
}

// shows waits for sel on the page, by script: chromedp's DOM queries lose
// track of a page restored from the back/forward cache.
func (tb *tab) shows(what, sel string) {
	tb.t.Helper()
	pollAcross(tb, what+": shows "+sel, `document.querySelector(`+jsString(sel)+`) ? "yes" : ""`)
}

// tapAndWait taps sel, a control that leaves the page, and waits for
// waitSel on the page it leads to. The tap is the element's click() in the
// page: chromedp's Click waits on the document it clicked in, and with the
// back/forward cache on, the document left is frozen into the cache (and
// one restored from it is lost to chromedp's DOM queries), so it would
// never answer.
func (tb *tab) tapAndWait(what, sel, waitSel string) {
	tb.t.Helper()
	tb.do(what, chromedp.Evaluate[chromedp.Void](`document.querySelector(`+jsString(sel)+`).click(); true`))
	pollAcross(tb, what+": shows "+waitSel, `document.readyState === "complete" && document.querySelector(`+jsString(waitSel)+`) ? "yes" : ""`)
}

// historySteps numbers the history steps of a run.
var historySteps atomic.Int64

// history goes delta steps through the tab's history, as Back and Forward
// do (the browser's own: a script's history.go is skipped over entries it
// deems unvisited), and waits for the page shown: a new load, or one
// restored from the back/forward cache, which fires no load event for
// chromedp's NavigateBack to wait on.
func (tb *tab) history(what string, delta int) {
	tb.t.Helper()
	// A page restored from the cache keeps what was set on it when it
	// was left: each step marks the page it leaves with its own number.
	mark := historySteps.Add(1)
	tb.do(what, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`window.hearthLeft = %d`, mark)), chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		h, err := cdp.Call(ctx, target, page.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return err
		}
		i := int(h.CurrentIndex) + delta
		if i < 0 || i >= len(h.Entries) {
			return fmt.Errorf("no history entry %d of %d", i, len(h.Entries))
		}
		_, err = cdp.Call(ctx, target, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID})
		return err
	}))
	pollAcross(tb, what, fmt.Sprintf(`window.hearthLeft !== %d && document.readyState === "complete" ? location.href : ""`, mark))
}

func TestNoFormIsPostedAgainByAReloadOrBack(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, append(append([]string{}, tailnetServeArgs...), "--demo", "--beeper-url", beeperURL)...)
	p := startTailnetProxy(t, srv)
	tb := phoneTab(t, p, srv)
	before := ownMessages(t, beeperURL)

	// The weight import: its check and the import itself.
	file := filepath.Join(t.TempDir(), "weights.csv")
	if err := os.WriteFile(file, []byte("date,weight\n2020-02-01,80.1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tb.do("check a file",
		chromedp.Navigate(p.URL+"/weight"),
		chromedp.SetUploadFiles(css(`#file`), []string{file}),
	)
	tb.tapAndWait("check it", `.import-form button[type="submit"]`, `[data-testid="import-confirm"] button`)
	tb.again(p, "the import's check", `[data-testid="import-confirm"] button`)
	tb.tapAndWait("import", `[data-testid="import-confirm"] button`, `#import-answer:not(:has(form))`)
	tb.again(p, "the import's answer", `#import-answer:not(:has(form))`)

	// A draft's review and its send.
	ana := p.URL + "/messages/" + url.PathEscape(beepertest.AnaChatID)
	tb.do("review a draft",
		chromedp.Navigate(ana),
		chromedp.WaitVisible(css(`#draft-draft-ana-hike`)),
		chromedp.Click(css(`#draft-draft-ana-hike input[value="yes-short"]`)),
	)
	tb.tapAndWait("review it", `[data-testid="review"]`, `[data-testid="review-summary"]`)
	tb.again(p, "a draft's review", `[data-testid="confirm"]`)
	tb.tapAndWait("send it", `[data-testid="confirm"]`, `[data-testid="send-sent"]`)
	tb.again(p, "a draft's send", `[data-testid="send-sent"]`)

	// The own-reply composer's review and its send.
	own := "Thanks Tomas, talk tomorrow."
	tb.do("review an own reply",
		chromedp.Navigate(p.URL+"/messages/"+url.PathEscape(beepertest.TomasChatID)),
		chromedp.WaitVisible(css(`[data-testid="composer"]`)),
		chromedp.SendKeys(css(`[data-testid="own-body"]`), own),
	)
	tb.tapAndWait("review it", `[data-testid="own-review"]`, `[data-testid="review-own"]`)
	tb.again(p, "an own reply's review", `[data-testid="confirm"]`)
	tb.tapAndWait("send it", `[data-testid="confirm"]`, `[data-testid="send-sent"]`)
	tb.again(p, "an own reply's send", `[data-testid="send-sent"]`)
	// Back to the review once it is sent: read again (the review is never
	// kept by the browser), so it shows the one send's outcome, no Send.
	tb.history("back to the sent review", -1)
	if get(tb, "a Send on the page", chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="confirm"]')`)) {
		t.Errorf("Back after the send shows the review with its Send again")
	}
	tb.shows("the sent review", `[data-testid="send-sent"]`)

	for chat, n := range ownMessages(t, beeperURL) {
		if n-before[chat] != 1 {
			t.Errorf("%s got %d messages from the owner, want 1", chat, n-before[chat])
		}
	}
}

// ownMessages counts the owner's messages in Ana's and Tomas's chats.
func ownMessages(t *testing.T, beeperURL string) map[string]int {
	t.Helper()
	bc := beeper.NewClient(beeperURL, "e2e-token")
	out := map[string]int{}
	for _, chat := range []string{beepertest.AnaChatID, beepertest.TomasChatID} {
		page, err := bc.Messages(context.Background(), chat, beeper.MessagesQuery{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page.Items {
			if m.IsSender {
				out[chat]++
			}
		}
	}
	return out
}
