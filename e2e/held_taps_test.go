package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// replies.js starts after the first paint; on a busy phone the owner's tap
// on a suggestion can come first. hearth.js holds the tap and makes it again
// once replies.js has run: the editor then holds the suggestion chosen.
func TestASuggestionChosenBeforeRepliesJsRanFillsTheEditorOnceItHas(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	held, release := tb.hold("/static/replies.js")
	body := `#draft-draft-ana-hike [data-testid="conversation-body"]`
	tb.do("open Ana's conversation", chromedp.Navigate(srv.URL+"/messages/%21ana-okafor:beeper.local"),
		chromedp.WaitVisible(css(body)))
	select {
	case <-held:
	case <-time.After(navigationDeadline):
		t.Fatal("the page never asked for replies.js")
	}
	tb.do("choose brief", chromedp.Click(css(`#draft-draft-ana-hike input[name="candidate"][value="yes-short"]`)))
	if got := tb.value(body); got != demoWarm {
		t.Fatalf("before replies.js ran the editor holds %q", got)
	}
	release()
	eventually(tb, "the editor holds the brief suggestion once replies.js ran",
		`document.querySelector('`+body+`').value === `+jsString(demoBrief)+
			` && document.querySelector('#draft-draft-ana-hike input[name="candidate"]:checked').value === "yes-short"`, navigationDeadline)
}
