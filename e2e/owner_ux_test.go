package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
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

// decisionsFor reads the agent context's activityDecisions of one activity.
func decisionsFor(t *testing.T, srv *server, id string) []map[string]any {
	t.Helper()
	var ac struct {
		ActivityDecisions struct {
			Items []map[string]any `json:"items"`
		} `json:"activityDecisions"`
	}
	decodeJSON(t, newAgentClient(srv.URL, demoToken(t, srv.DataDir)).contextJSON(t), &ac)
	var out []map[string]any
	for _, d := range ac.ActivityDecisions.Items {
		if d["activityId"] == id {
			out = append(out, d)
		}
	}
	return out
}

func TestCompleteThenUndoReopensTheRowAndTheAgentSeesBoth(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	row := rowSel("book-bike-service")
	tb.expand("book-bike-service", "task")
	tb.do("complete", tap(row+` [data-testid="complete"]`),
		chromedp.WaitVisible(css(row+` [data-testid="undo-bar"]`)))
	// The row may be swapped once more by the commit's live update: read
	// the word from whichever node is there, not a node found before.
	eventually(tb, "the row says Done", `(function(){var w=document.querySelector('`+row+` [data-testid="undo-word"]');return !!w&&w.textContent.trim()==="Done"})()`, 10*time.Second)
	// The newest decision's Undo is the bottom bar's.
	tb.do("undo", tap(`#undo-dock [data-testid="undo"]`))
	eventually(tb, "row open again", `(function(){var r=document.querySelector('`+row+`');return !!r&&r.dataset.state==="available"&&!r.closest('[data-testid="done-today"]')&&!r.querySelector('[data-testid="undo-bar"]')})()`, 10*time.Second)
	ds := decisionsFor(t, srv, "book-bike-service")
	if len(ds) != 2 || ds[0]["cause"] != "home" || ds[0]["state"] != "completed" || ds[1]["cause"] != "undo" ||
		ds[1]["state"] != "available" || ds[1]["undoes"] != ds[0]["id"] {
		t.Fatalf("agent context decisions: %v", ds)
	}
}

func TestDismissedRowIsListedUnderLaterWithItsDateAndComesBack(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand("book-bike-service", "task")
	tb.do("dismiss", tap(rowSel("book-bike-service")+` [data-testid="dismiss"]`),
		chromedp.WaitNotPresent(css(rowSel("book-bike-service"))),
		chromedp.WaitVisible(css(`#later-book-bike-service`)))
	if w := get(tb, "later date", textOf(`#later-book-bike-service [data-testid="later-when"]`)); w != "Dismissed today" {
		t.Errorf("Later says %q for the dismissed row", w)
	}
	if n := get(tb, "undone notice", textOf(`[data-testid="undone-notice"]`)); !strings.Contains(n, "Dismissed") {
		t.Errorf("no Undo on Home for the dismissed row: %q", n)
	}
	tb.do("bring back", tap(`#later-book-bike-service [data-testid="bring-back"]`),
		chromedp.WaitVisible(css(rowSel("book-bike-service"))))
	if st := tb.rowState("book-bike-service"); st != "available" {
		t.Errorf("brought back as %q", st)
	}
	if n := get(tb, "later gone", chromedp.Evaluate[int](`document.querySelectorAll('#later-book-bike-service').length`)); n != 0 {
		t.Error("brought-back row still under Later")
	}
}

func TestTomorrowShowsTheDateInWordsUnderLater(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand("book-bike-service", "task")
	tb.do("tomorrow", tap(rowSel("book-bike-service")+` [data-testid="defer-tomorrow"]`),
		chromedp.WaitVisible(css(`#later-book-bike-service`)))
	day, _ := time.Parse(time.DateOnly, demoDay(t))
	want := "Tomorrow, " + day.AddDate(0, 0, 1).Format("Mon 2 Jan")
	if w := get(tb, "later date", textOf(`#later-book-bike-service [data-testid="later-when"]`)); w != want {
		t.Errorf("Later says %q, want %q", w, want)
	}
	tb.do("undo", tap(`[data-testid="undone-notice"] [data-testid="undo"]`),
		chromedp.WaitVisible(css(rowSel("book-bike-service"))))
	if st := tb.rowState("book-bike-service"); st != "available" {
		t.Errorf("after undo: %q", st)
	}
}

// noJS is an owner on plain HTML forms: no htmx, no redirects followed.
type noJS struct {
	*ownerClient
}

// post submits a form the way a browser without JavaScript does and
// returns the status, the Location and the parsed answer.
func (o noJS) post(path string, form url.Values) (int, string, *goquery.Document) {
	o.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, o.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := o.hc.Do(req)
	if err != nil {
		o.t.Fatal(err)
	}
	defer resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(loc, "/answers/") {
		// A page answering the form is its own GET (post/redirect/get),
		// shown by the browser with the status it was answered with.
		get, _ := http.NewRequest(http.MethodGet, o.base+loc, nil)
		if resp, err = o.hc.Do(get); err != nil {
			o.t.Fatal(err)
		}
		defer resp.Body.Close()
	}
	d, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		o.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), d
}

func TestUndoWithoutJavaScriptReturnsToTheReopenedRow(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo")
	o := noJS{loginOwner(t, srv.URL)}
	status, loc, _ := o.post("/activities/book-bike-service/state", url.Values{"state": {"completed"}})
	if status != http.StatusSeeOther {
		t.Fatalf("complete: %d", status)
	}
	home := o.mustPage(http.MethodGet, loc, nil)
	action, ok := home.Find(rowSel("book-bike-service") + ` [data-testid="undo-bar"] form`).Attr("action")
	if !ok {
		t.Fatal("no Undo form on the completed row")
	}
	status, loc, _ = o.post(action, url.Values{})
	if status != http.StatusSeeOther || !strings.HasSuffix(loc, "#row-book-bike-service") {
		t.Fatalf("undo: %d to %q", status, loc)
	}
	home = o.mustPage(http.MethodGet, loc, nil)
	if st, _ := home.Find(rowSel("book-bike-service")).Attr("data-state"); st != "available" {
		t.Fatalf("after undo the row is %q", st)
	}
	// Again (a resubmitted form): nothing more happens.
	if status, _, _ = o.post(action, url.Values{}); status != http.StatusSeeOther {
		t.Fatalf("second undo: %d", status)
	}
	if n := len(decisionsFor(t, srv, "book-bike-service")); n != 2 {
		t.Fatalf("%d decisions after a repeated undo, want 2", n)
	}
}

// assertErrorInPlace checks a re-rendered form: the field keeps value, is
// marked invalid and described by the message, which appears once, inside
// the same form, in sentence case.
func assertErrorInPlace(t *testing.T, d *goquery.Document, field, value, message string) {
	t.Helper()
	f := d.Find(field)
	if f.Length() != 1 {
		t.Fatalf("field %s: %d found", field, f.Length())
	}
	if v := f.AttrOr("value", f.Text()); v != value {
		t.Errorf("field %s keeps %q, want %q", field, v, value)
	}
	if f.AttrOr("aria-invalid", "") != "true" {
		t.Errorf("field %s not aria-invalid", field)
	}
	var msgs []string
	for _, id := range strings.Fields(f.AttrOr("aria-describedby", "")) {
		m := d.Find("#" + id + ".field-error")
		if m.Length() == 1 {
			msgs = append(msgs, strings.TrimSpace(m.Text()))
			if m.Closest("form").Get(0) != f.Closest("form").Get(0) {
				t.Errorf("message %q is outside the field's form", m.Text())
			}
		}
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], message) {
		t.Fatalf("field %s described by %q, want one message with %q", field, msgs, message)
	}
	m := msgs[0]
	if strings.ToUpper(m[:1]) != m[:1] || !strings.HasSuffix(m, ".") {
		t.Errorf("message %q is not a sentence", m)
	}
	if n := strings.Count(d.Text(), m); n != 1 {
		t.Errorf("message %q shown %d times", m, n)
	}
	if strings.Contains(d.Text(), `{"code"`) {
		t.Error("raw JSON on the page")
	}
}

func TestEmptyNoteWithoutJavaScriptIsRefusedInTheAskForm(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo")
	o := noJS{loginOwner(t, srv.URL)}
	home := o.mustPage(http.MethodGet, "/", nil)
	rid := home.Find(`[data-testid="ask-form"] input[name="requestId"]`).AttrOr("value", "")
	status, _, d := o.post("/requests", url.Values{"requestId": {rid}, "return": {"/"}, "kind": {"note"}, "text": {"   "}})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("empty note: %d", status)
	}
	if d.Find(`[data-testid="live"]`).Length() != 1 {
		t.Fatal("an empty note did not come back to Home")
	}
	assertErrorInPlace(t, d, `[data-testid="ask-form"] textarea[name="text"]`, "   ", "Write")
}

func TestInvalidWeightInARoutineWithoutJavaScriptKeepsValueAndMessage(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo")
	o := noJS{loginOwner(t, srv.URL)}
	day := demoDay(t)
	status, _, d := o.post("/activities/weigh-in-"+day+"/measurement?open=morning-routine-"+day, url.Values{"value": {"heavy"}})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("invalid weight: %d", status)
	}
	assertErrorInPlace(t, d, rowSel("weigh-in-"+day)+` input[name="value"]`, "heavy", "Enter a number")
	status, _, d = o.post("/activities/weigh-in-"+day+"/measurement", url.Values{"value": {"7000"}})
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("out-of-range weight: %d", status)
	}
	assertErrorInPlace(t, d, rowSel("weigh-in-"+day)+` input[name="value"]`, "7000", "between 20 and 400 kg")
}

func TestInvalidWeightWithJavaScriptIsMarkedAndFocused(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	tb.expand("morning-routine-"+day, "routine")
	tb.expand("weigh-in-"+day, "measurement")
	input := rowSel("weigh-in-"+day) + ` input[name="value"]`
	tb.do("type", chromedp.SendKeys(css(input), "heavy"), tap(rowSel("weigh-in-"+day)+` [data-testid="measurement-save"]`),
		chromedp.WaitVisible(css(rowSel("weigh-in-"+day)+` .field-error`)))
	eventually(tb, "focus on the invalid field", `(function(){var a=document.activeElement;return !!a&&a.matches('`+input+`')&&a.getAttribute("aria-invalid")==="true"})()`, 5*time.Second)
	html := get(tb, "row", chromedp.OuterHTML(css(rowSel("morning-routine-"+day))))
	d, _ := goquery.NewDocumentFromReader(strings.NewReader(html))
	assertErrorInPlace(t, d, `li[data-id="weigh-in-`+day+`"] input[name="value"]`, "heavy", "Enter a number")
}

func TestPageChangedElsewhereOnlyWhenTheEditedDraftChanged(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	body := `#draft-draft-ana-hike [data-testid="conversation-body"]`
	tb.do("open Ana's conversation", chromedp.Navigate(srv.URL+"/messages/%21ana-okafor:beeper.local"),
		chromedp.WaitVisible(css(body)),
		chromedp.Evaluate[chromedp.Void](`window.__kept = true`),
		chromedp.SendKeys(css(body), " Can't wait!"))
	// The owner pauses and the draft is autosaved: a save that landed
	// between the publish tool's read of the revision and its publish
	// would refuse the publish as stale.
	eventually(tb, "autosaved", `Number(document.querySelector('`+body+`').dataset.keepVersion) > 0`, navigationDeadline)
	// Another row changes elsewhere while the owner types: no notice, no reload.
	republish(t, srv, "touch-other", `{"id":"book-bike-service","kind":"task","title":"Book the bike service (again)",
		"evidenceIds":["life-people-tomas"],"recommendation":{"section":"optional","rank":1},"payload":{}}`)
	rev := client.context(t).Revision
	// hearth.js marks the body with each revision it has handled (or shows the notice).
	eventually(tb, "the event handled", fmt.Sprintf(`Number(document.body.dataset.seen||0)>=%d||!document.getElementById("page-stale").hidden`, rev), 10*time.Second)
	if shown := get(tb, "notice", chromedp.Evaluate[bool](`!document.getElementById("page-stale").hidden`)); shown {
		t.Fatal(`"This page changed elsewhere" shown after an unrelated change`)
	}
	if kept := get(tb, "not reloaded", chromedp.Evaluate[bool](`window.__kept === true`)); !kept {
		t.Fatal("the page reloaded under the owner's typing")
	}
	// The draft being edited changes: the notice appears.
	republish(t, srv, "touch-reply", `{"id":"reply-ana-hike","kind":"reply","title":"Answer Ana about Saturday's hike (updated)",
		"evidenceIds":["beeper-ana-chat"],"personId":"ana-okafor","recommendation":{"section":"focus","rank":1},"payload":{"draftId":"draft-ana-hike"}}`)
	tb.do("see page notice", chromedp.WaitVisible(css(`#page-stale`)))
	if v := tb.value(body); !strings.Contains(v, " Can't wait!") {
		t.Fatalf("typed text lost: %q", v)
	}
}

func TestHomeWithUndoLaterAndAnErrorFitsAndHasNoSeriousAccessibilityViolations(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	tb.expand("book-bike-service", "task")
	tb.do("dismiss", tap(rowSel("book-bike-service")+` [data-testid="dismiss"]`),
		chromedp.WaitVisible(css(`#later-book-bike-service`)), chromedp.WaitVisible(css(`[data-testid="undone-notice"]`)))
	tb.expand("morning-routine-"+day, "routine")
	tb.expand("weigh-in-"+day, "measurement")
	tb.do("refused weight", chromedp.SendKeys(css(rowSel("weigh-in-"+day)+` input[name="value"]`), "heavy"),
		tap(rowSel("weigh-in-"+day)+` [data-testid="measurement-save"]`),
		chromedp.WaitVisible(css(rowSel("weigh-in-"+day)+` .field-error`)))
	widths := get(tb, "widths", chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`))
	if widths[0] > widths[1] {
		t.Errorf("scrollWidth %d > clientWidth %d", widths[0], widths[1])
	}
	axeViolations(tb, "Home with Undo, Later and a refused weight")
}
