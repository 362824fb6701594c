package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// staleNoteShown reports whether the row's "This changed elsewhere" note is visible.
func (tb *tab) staleNoteShown(id string) bool {
	return get(tb, "stale note", chromedp.Evaluate[bool](`(function(){var n=document.querySelector('`+rowSel(id)+` [data-stale-note]');return !!n&&!n.hidden})()`))
}

// waitRevision waits until Home's live fragment shows at least rev.
func (tb *tab) waitRevision(rev int64) {
	tb.t.Helper()
	eventually(tb, fmt.Sprintf("live revision %d", rev), fmt.Sprintf(`Number(document.getElementById("live").dataset.revision)>=%d`, rev), 10*time.Second)
}

func TestChangedElsewhereOnlyWhenTheEditedRowChanged(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	tb.expand("reply-ana-hike", "reply")
	tb.do("type in draft", chromedp.SendKeys(css(rowSel("reply-ana-hike")+` textarea`), " Can't wait!"))

	// An unrelated row changes elsewhere: Home refreshes, the edited row is
	// kept as typed and no notice appears.
	republish(t, srv, "touch-other", `{"id":"book-bike-service","kind":"task","title":"Book the bike service (again)",
		"evidenceIds":["life-people-tomas"],"recommendation":{"section":"optional","rank":1},"payload":{}}`)
	tb.waitRevision(client.context(t).Revision)
	eventually(tb, "other row refreshed", `(function(){var r=document.querySelector('`+rowSel("book-bike-service")+` [data-testid="row-title"]');return !!r&&r.textContent.indexOf("again")>=0})()`, 10*time.Second)
	if tb.staleNoteShown("reply-ana-hike") {
		t.Fatal(`"This changed elsewhere" shown on the edited row after an unrelated row changed`)
	}
	if body := get(tb, "draft", chromedp.Value(css(rowSel("reply-ana-hike")+` textarea`))); !strings.Contains(body, " Can't wait!") {
		t.Fatalf("typed text lost: %q", body)
	}

	// The edited row itself changes: the notice appears.
	republish(t, srv, "touch-reply", `{"id":"reply-ana-hike","kind":"reply","title":"Answer Ana about Saturday's hike (updated)",
		"evidenceIds":["beeper-ana-chat"],"personId":"ana-okafor","recommendation":{"section":"focus","rank":1},"payload":{"draftId":"draft-ana-hike"}}`)
	tb.do("see stale note", chromedp.WaitVisible(css(rowSel("reply-ana-hike")+` [data-stale-note]`)))
}
