package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

// The demo's draft for Ana, as internal/demo/demo.json.tmpl publishes it.
const (
	demoWarm  = "Saturday works! Shall we meet at the trailhead at 8? I'll bring snacks."
	demoBrief = "Yes to Saturday, 8am at the trailhead?"
)

// value reads a form field's current value (what the owner sees).
func (tb *tab) value(sel string) string {
	tb.t.Helper()
	return get(tb, "value of "+sel, chromedp.Evaluate[string](`document.querySelector('`+sel+`').value`))
}

func TestHomeReviewShowsTheEditTypedThereWithoutSaving(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand("reply-ana-hike", "reply")
	typed := "Saturday, yes! Could we start at 9 instead?"
	body := rowSel("reply-ana-hike") + ` [data-testid="draft-body"]`
	tb.do("edit and review without saving",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+body+`').value = ""`),
		chromedp.SendKeys(css(body), typed),
		chromedp.Click(css(rowSel("reply-ana-hike")+` [data-testid="review-link"]`)),
		chromedp.WaitVisible(css(`[data-testid="review-summary"]`)),
	)
	if got := get(tb, "review body", textOf(`[data-testid="review-body"]`)); got != typed {
		t.Fatalf("the review shows %q, want what was typed: %q", got, typed)
	}
}

func TestChoosingASuggestionFillsTheEditorButAsksBeforeReplacingAnEdit(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("open Ana's conversation", chromedp.Navigate(srv.URL+"/messages/%21ana-okafor:beeper.local"),
		chromedp.WaitVisible(css(`#draft-draft-ana-hike [data-testid="conversation-body"]`)))
	body := `#draft-draft-ana-hike [data-testid="conversation-body"]`
	if got := tb.value(body); got != demoWarm {
		t.Fatalf("the editor starts with %q", got)
	}
	tb.do("choose brief", chromedp.Click(css(`#draft-draft-ana-hike input[name="candidate"][value="yes-short"]`)))
	// A tap before replies.js ran is made again once it has.
	eventually(tb, "the editor holds the brief suggestion", `document.querySelector('`+body+`').value === `+jsString(demoBrief), navigationDeadline)
	// The owner edits; choosing warm now asks, and keeping the edit keeps it (and brief chosen).
	mine := demoBrief + " I'll bring coffee."
	tb.do("edit, then choose warm",
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+body+`').value = ""`),
		chromedp.SendKeys(css(body), mine),
		chromedp.Click(css(`#draft-draft-ana-hike input[name="candidate"][value="yes-early"]`)),
		chromedp.WaitVisible(css(`#draft-draft-ana-hike [data-testid="replace-ask"]`)),
	)
	if got := tb.value(body); got != mine {
		t.Fatalf("choosing warm replaced the edit without asking: %q", got)
	}
	tb.do("keep my text", chromedp.Click(css(`#draft-draft-ana-hike [data-testid="replace-no"]`)),
		chromedp.WaitNotVisible(css(`#draft-draft-ana-hike [data-testid="replace-ask"]`)))
	checked := get(tb, "checked", chromedp.Evaluate[string](`document.querySelector('#draft-draft-ana-hike input[name="candidate"]:checked').value`))
	if got := tb.value(body); got != mine || checked != "yes-short" {
		t.Fatalf("after keeping the text: %q with %s chosen", got, checked)
	}
	// Asked again, the owner replaces it; the review shows what the editor holds.
	tb.do("choose warm and replace",
		chromedp.Click(css(`#draft-draft-ana-hike input[name="candidate"][value="yes-early"]`)),
		chromedp.WaitVisible(css(`#draft-draft-ana-hike [data-testid="replace-ask"]`)),
		chromedp.Click(css(`#draft-draft-ana-hike [data-testid="replace-yes"]`)),
	)
	if got := tb.value(body); got != demoWarm {
		t.Fatalf("after replacing: %q", got)
	}
	tb.do("review", chromedp.Click(css(`#draft-draft-ana-hike [data-testid="review"]`)), chromedp.WaitVisible(css(`[data-testid="review-summary"]`)))
	if got := get(tb, "review body", textOf(`[data-testid="review-body"]`)); got != demoWarm {
		t.Fatalf("the review shows %q", got)
	}
}

func TestChatListNeverBreaksANameMidWordAt390px(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	fakeControl(t, beeperURL, beepertest.ChatPath, map[string]string{"chatId": "!max:beeper.local",
		"title": "Maximiliana Featherstonehaughton-Okonkwo", "text": "Are you coming to the reunion?"})
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL)
	tb := newTab(t, srv)
	tb.login()
	tb.do("open Messages", chromedp.Navigate(srv.URL+"/messages"), chromedp.WaitVisible(css(`[data-testid="chats"]`)))
	// A word broken across lines has client rects on more than one line; a
	// hyphen is a fair place to break a compound name, so each part counts.
	broken := get(tb, "words split across lines", chromedp.Evaluate[[]string](`(function(){
		var out = [];
		document.querySelectorAll('[data-testid="chat"] .row-head > span').forEach(function (el) {
			var text = el.firstChild;
			if (!text || text.nodeType !== 3) return;
			var re = /[^\s-]+/g, m;
			while ((m = re.exec(text.data))) {
				var r = document.createRange();
				r.setStart(text, m.index);
				r.setEnd(text, m.index + m[0].length);
				var lines = new Set(Array.from(r.getClientRects()).map(function (x) { return Math.round(x.top); }));
				if (lines.size > 1) out.push(m[0]);
			}
		});
		return out;
	})()`))
	if len(broken) > 0 {
		t.Fatalf("at 390 px these words break across lines: %v", broken)
	}
	// Nothing spills past the viewport either.
	if w := get(tb, "scroll width", chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Fatalf("the page is %d px wide at a 390 px viewport", w)
	}
}

func TestOwnReplyIsOneBeeperMessageEvenWithTwoConfirms(t *testing.T) {
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL)
	tb := newTab(t, srv)
	tb.login()
	own := "Thanks Tomas, I'll call them tomorrow morning."
	tb.do("write an own reply to Tomas",
		chromedp.Navigate(srv.URL+"/messages/%21tomas-lindqvist:beeper.local"),
		chromedp.WaitVisible(css(`[data-testid="composer"]`)),
		chromedp.SendKeys(css(`[data-testid="own-body"]`), own),
		chromedp.Click(css(`[data-testid="own-review"]`)),
		chromedp.WaitVisible(css(`[data-testid="review-own"]`)),
	)
	if got := get(tb, "review body", textOf(`[data-testid="review-body"]`)); got != own {
		t.Fatalf("the review shows %q", got)
	}
	// A double tap posts the same sendKey twice: one message.
	tb.do("confirm twice", chromedp.DoubleClick(css(`[data-testid="confirm"]`)), chromedp.WaitVisible(css(`[data-testid="send-sent"]`)))
	page, err := beeper.NewClient(beeperURL, "e2e-token").Messages(context.Background(), beepertest.TomasChatID, beeper.MessagesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range page.Items {
		if m.IsSender && m.Text == own {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("Tomas's chat in Beeper holds %d copies of %q, want 1", n, own)
	}
}
