package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"
)

func TestEmptyReplyOnAConversationIsRefusedInPlaceAndFocused(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	section := `#draft-draft-ana-hike`
	body := section + ` textarea[name="body"]`
	tb.do("empty the reply and review it", chromedp.Navigate(srv.URL+"/messages/%21ana-okafor:beeper.local"),
		chromedp.WaitVisible(css(body)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+body+`').value = ""`),
		chromedp.Click(css(section+` [data-testid="review"]`)),
		chromedp.WaitVisible(css(section+` .field-error`)))
	eventually(tb, "focus on the reply", `(function(){var a=document.activeElement;return !!a&&a.matches('`+body+`')&&a.getAttribute("aria-invalid")==="true"})()`, 5*time.Second)
	html := get(tb, "the draft", chromedp.OuterHTML(css(section)))
	d, _ := goquery.NewDocumentFromReader(strings.NewReader(html))
	assertErrorInPlace(t, d, body, "", "There is nothing to send yet: write the reply first.")
	// The review is not offered: the owner is still at the editor.
	if n := get(tb, "confirm buttons", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="confirm"]').length`)); n != 0 {
		t.Fatal("an empty reply was offered for sending")
	}
}
