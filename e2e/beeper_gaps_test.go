package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"hearth/internal/poll"
)

// typeInBeeper puts text in a chat's composer of the fake Beeper at
// beeperURL, as the owner typing there would: through Beeper's own PATCH.
func typeInBeeper(t *testing.T, beeperURL, chatPath, text string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPatch, beeperURL+"/v1/chats/"+chatPath, strings.NewReader(`{"draft":{"text":"`+text+`"}}`))
	req.Header.Set("Authorization", "Bearer e2e-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("typing in Beeper's composer: %d", resp.StatusCode)
	}
}

// TestAHandOffBeeperRefusedOffersTheTextToCopyInTheBrowser: the owner's
// own reply, handed off while Beeper's composer holds other text, is
// refused; the conversation keeps the text and "Copy the text" puts it on
// the clipboard.
func TestAHandOffBeeperRefusedOffersTheTextToCopyInTheBrowser(t *testing.T) {
	tb := ownReplyToTomasTyped(t, handOffMine)
	tb.do("hand off an own reply",
		chromedp.Click(css(`[data-testid="own-hand-off"]`)),
		chromedp.WaitVisible(css(`[data-testid="copy-text"]`)),
	)
	if got := get(tb, "the editor's text", chromedp.Evaluate[string](`document.getElementById("own-body").value`)); got != handOffMine {
		t.Fatalf("the refused hand-off left %q in the editor; want the owner's text", got)
	}
	if got := get(tb, "the refusal", chromedp.Evaluate[string](`document.querySelector('[data-testid="editor-error"]').textContent`)); got == "" {
		t.Fatal("the refused hand-off says nothing at the editor")
	}
	tb.do("copy the text", chromedp.Click(css(`[data-testid="copy-text"]`)))
	copiedToTheClipboard(tb, handOffMine)
}

// Copy the text tapped before replies.js ran (it starts after the first
// paint) copies once it has, and says so: hearth.js held the tap.
func TestCopyTappedBeforeRepliesJsRanCopiesOnceItHas(t *testing.T) {
	tb := ownReplyToTomasTyped(t, handOffMine)
	held, release := tb.hold("/static/replies.js")
	tb.do("hand it off", chromedp.Click(css(`[data-testid="own-hand-off"]`)),
		chromedp.WaitVisible(css(`[data-testid="copy-text"]`)))
	select {
	case <-held:
	case <-time.After(navigationDeadline):
		t.Fatal("the refusal never asked for replies.js")
	}
	tb.do("copy the text", chromedp.Click(css(`[data-testid="copy-text"]`)))
	release()
	copiedToTheClipboard(tb, handOffMine)
}

const handOffMine = "I'll call the shop today"

// ownReplyToTomasTyped logs in to a demo whose Beeper composer for Tomas
// holds other text (so a hand-off is refused), with clipboard access, and
// types mine into the own-reply editor of his conversation.
func ownReplyToTomasTyped(t *testing.T, mine string) *tab {
	t.Helper()
	beeperURL := startFakeBeeper(t)
	const tomas = "%21tomas-lindqvist:beeper.local"
	typeInBeeper(t, beeperURL, tomas, "Half a thought of my own")
	srv := startServerEnv(t, []string{"BEEPER_BASE_URL=" + beeperURL, "BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo")
	tb := newTab(t, srv)
	tb.do("allow the clipboard", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		// The Permissions API's names, as the descriptor takes them.
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := cdp.Call(ctx, target, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted, Origin: srv.URL}); err != nil {
				return err
			}
		}
		return nil
	}))
	tb.login()
	tb.do("type an own reply",
		chromedp.Navigate(srv.URL+"/messages/"+tomas),
		chromedp.WaitVisible(css(`[data-testid="composer"]`)),
		chromedp.SendKeys(css(`[data-testid="own-body"]`), mine),
	)
	return tb
}

// copiedToTheClipboard waits for "Copied." beside the button and text on
// the clipboard.
func copiedToTheClipboard(tb *tab, text string) {
	tb.t.Helper()
	poll.Eventually(tb.t, 10*time.Second, func() (bool, string) {
		said := get(tb, "copied status", chromedp.Evaluate[string](`document.querySelector('[data-copied]').textContent`))
		return said == "Copied.", "the status beside the button says " + said
	})
	tb.do("read the clipboard", chromedp.Evaluate[chromedp.Void](`navigator.clipboard.readText().then(t => { window.__clip = t; }); true`))
	poll.Eventually(tb.t, 10*time.Second, func() (bool, string) {
		clip := get(tb, "clipboard", chromedp.Evaluate[string](`window.__clip || ""`))
		return clip == text, "the clipboard holds " + clip
	})
}
