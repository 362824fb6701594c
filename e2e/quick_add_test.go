package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestQuickAddAt390PutsCallAnaUnderTomorrowAndInTheContextExport types a
// task with a day into Home's quick add on the demo, as the owner's phone
// does, checks it is under Later on tomorrow (the demo owner's, in
// Europe/Berlin) without sideways scroll, that the agent's context export
// (hearth context --json --full) carries it as the owner's own, and saves
// quick-add-390.png (`make screenshots` writes it into docs/).
func TestQuickAddAt390PutsCallAnaUnderTomorrowAndInTheContextExport(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("add call Ana tomorrow",
		chromedp.WaitVisible(css(`[data-testid="quick-add-text"]`)),
		chromedp.SendKeys(css(`[data-testid="quick-add-text"]`), "call Ana tomorrow"),
		tap(`[data-testid="quick-add-save"]`),
		chromedp.WaitVisible(css(`[data-testid="mine-ahead"] [data-testid="mine-item"]`)),
	)
	var page struct {
		Heading, Text, Day, ID, Field string
		ScrollWidth, ClientWidth      int
	}
	raw := get(tb, "read the quick add", chromedp.Evaluate[string](`(function(){
		var item = document.querySelector('[data-testid="mine-ahead"] [data-testid="mine-item"]');
		var heading = item.closest('ul').previousElementSibling;
		return JSON.stringify({
			Heading: heading.textContent.trim(), Text: item.querySelector('[data-testid="mine-text"]').textContent.trim(),
			Day: item.dataset.day, ID: item.dataset.id, Field: document.querySelector('[data-testid="quick-add-text"]').value,
			ScrollWidth: document.documentElement.scrollWidth, ClientWidth: document.documentElement.clientWidth});
	})()`))
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().In(berlin)
	tomorrow := time.Date(now.Year(), now.Month(), now.Day()+1, 12, 0, 0, 0, berlin).Format(time.DateOnly)
	if page.Heading != "Tomorrow" || page.Text != "call Ana" || page.Day != tomorrow {
		t.Errorf("Later shows %q under %q on %s, want %q under %q on %s", page.Text, page.Heading, page.Day, "call Ana", "Tomorrow", tomorrow)
	}
	if page.Field != "" {
		t.Errorf("the field still holds %q after the add: a second tap would add it twice", page.Field)
	}
	if page.ScrollWidth > page.ClientWidth || page.ClientWidth != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", page.ScrollWidth, page.ClientWidth)
	}

	token := mintToken(t, srv.DataDir)
	tokenFile := writeFile(t, t.TempDir(), "token", []byte(token), 0o600)
	res := runHearth(t, nil, "context", "--json", "--full", "--url", srv.URL, "--credential-file", tokenFile)
	if res.code != 0 {
		t.Fatalf("hearth context: exit %d, stderr %q", res.code, res.stderr)
	}
	var export struct {
		OwnerItems []struct{ ID, Text, Day, AddedBy string } `json:"ownerItems"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &export); err != nil {
		t.Fatal(err)
	}
	if len(export.OwnerItems) != 1 {
		t.Fatalf("the context export has ownerItems %+v, want the one quick add", export.OwnerItems)
	}
	if got := export.OwnerItems[0]; got.ID != page.ID || got.Text != "call Ana" || got.Day != tomorrow || got.AddedBy != "owner" {
		t.Errorf("the context export has %+v, want %s: %q on %s, addedBy owner", got, page.ID, "call Ana", tomorrow)
	}

	tb.do("scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	shot := get(tb, "screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(screenshotDir(t), "quick-add-390.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the quick add at 390×844: %s (%d bytes)", path, len(shot))

	tb.do("open its edit", tap(`[data-testid="mine-item"] details.mine-edit > summary`),
		chromedp.WaitVisible(css(`[data-testid="mine-edit-day"]`)))
	axeViolations(tb, "Home with a quick add and its edit open")
}

// TestWordsTypedIntoQuickAddOutliveALiveRefresh types into the quick add
// without sending it while a publication refreshes Home's live part: the
// field keeps the words and the focus; Add then stores them and empties it.
func TestWordsTypedIntoQuickAddOutliveALiveRefresh(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	field := css(`[data-testid="quick-add-text"]`)
	tb.do("type without sending", chromedp.WaitVisible(field), chromedp.Focus(field), chromedp.SendKeys(field, "buy stamps"))
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	body := fmt.Sprintf(`{"runId":"live-under-quick-add","jobKey":"refresh","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[],"people":[],
		"activities":[{"id":"call-mum","kind":"task","title":"Call Mum","evidenceIds":[],"recommendation":{"section":"focus","rank":0},"payload":{}}],
		"replyDrafts":[],"retractions":[],"completedRequests":[]}`, client.context(t).Revision, time.Now().UTC().Format(time.RFC3339))
	if status, resp, err := client.publish([]byte(body)); err != nil || status != 201 {
		t.Fatalf("publish: %d %s %v", status, resp, err)
	}
	tb.do("wait for the live refresh", chromedp.WaitVisible(css(rowSel("call-mum"))))
	var kept struct {
		Value   string
		Focused bool
	}
	raw := get(tb, "read the field", chromedp.Evaluate[string](`(function(){
		var f = document.querySelector('[data-testid="quick-add-text"]');
		return JSON.stringify({Value: f.value, Focused: document.activeElement === f});
	})()`))
	if err := json.Unmarshal([]byte(raw), &kept); err != nil {
		t.Fatal(err)
	}
	if kept.Value != "buy stamps" || !kept.Focused {
		t.Errorf("after the live refresh the field holds %q (focused %v), want %q still being typed", kept.Value, kept.Focused, "buy stamps")
	}
	tb.do("add it", tap(`[data-testid="quick-add-save"]`),
		chromedp.WaitVisible(css(`[data-testid="mine-today"] [data-testid="mine-item"]`)))
	if v := get(tb, "field after the add", chromedp.Evaluate[string](`document.querySelector('[data-testid="quick-add-text"]').value`)); v != "" {
		t.Errorf("the field holds %q after the add, want it empty", v)
	}
	if text := get(tb, "the item", chromedp.Evaluate[string](`document.querySelector('[data-testid="mine-today"] [data-testid="mine-text"]').textContent.trim()`)); text != "buy stamps" {
		t.Errorf("today's item reads %q, want %q", text, "buy stamps")
	}
}
