package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/models"
)

// refusedInPlace asserts a refused owner form's answer: status, HTML (never
// the JSON envelope), and field marked invalid with exactly one message,
// want, inside the field's form. It returns the document.
func refusedInPlace(t *testing.T, resp response, status int, field, want string) *goquery.Document {
	t.Helper()
	if resp.status != status {
		t.Fatalf("status %d, want %d: %.300s", resp.status, status, resp.body)
	}
	if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || strings.Contains(string(resp.body), `"code":`) {
		t.Fatalf("not an HTML answer (%s): %.200s", ct, resp.body)
	}
	d := resp.doc(t)
	errorAt(t, d, field, want)
	return d
}

// isPage reports whether an answer is a whole page (a plain form's answer),
// not a fragment for htmx to swap.
func isPage(d *goquery.Document) bool { return d.Find("nav, header").Length() > 0 }

func TestEmptyReplyIsRefusedAtItsTextareaOnAConversation(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	const empty = "There is nothing to send yet: write the reply first."
	for _, tc := range []struct{ name, path, action, editor, field string }{
		{"draft review", anaPath, "/review", `#draft-draft-ana-hike form[action$="/review"]`, `#draft-draft-ana-hike textarea[name="body"]`},
		{"draft hand-off", anaPath, "/hand-off", `#draft-draft-ana-hike form[action$="/review"]`, `#draft-draft-ana-hike textarea[name="body"]`},
		{"own review", tomasPath, "/review", `[data-testid="composer"] form`, `#own-body`},
		{"own hand-off", tomasPath, "/hand-off", `[data-testid="composer"] form`, `#own-body`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := has(t, ta.get(tc.path, "", cookie).doc(t), tc.editor)
			d := refusedInPlace(t, ta.post(tc.path+tc.action, formOf(form, url.Values{"body": {"  \n "}}), cookie), http.StatusUnprocessableEntity, tc.field, empty)
			if got := has(t, d, tc.field).Text(); got != "  \n " {
				t.Errorf("the text was not kept: %q", got)
			}
		})
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("an empty reply reached Beeper")
	}
}

func TestEmptyReplyOnHomeIsRefusedInsideItsEditor(t *testing.T) {
	ta, cookie := homeApp(t)
	for _, hx := range []bool{true, false} {
		resp := ta.ownerRequest(http.MethodPost, "/drafts/draft-ana-hike/edit?activity=reply-ana-hike", url.Values{"body": {"  "}, "next": {"review"}}, hx, cookie)
		d := refusedInPlace(t, resp, http.StatusUnprocessableEntity, `li[data-id="reply-ana-hike"] textarea[name="body"]`, "There is nothing to send yet: write the reply first.")
		if isPage(d) == hx {
			t.Errorf("hx=%v: a whole page is %v", hx, isPage(d))
		}
	}
}

func TestReviewAndSendIsTheReplyPrimaryAction(t *testing.T) {
	ta, cookie := homeApp(t)
	d := ta.ownerRequest(http.MethodGet, "/activities/reply-ana-hike?expanded=true", nil, true, cookie).doc(t)
	buttons := d.Find(`li[data-id="reply-ana-hike"] form[data-reply-editor] > .actions > button`)
	if buttons.Length() != 2 {
		t.Fatalf("%d buttons", buttons.Length())
	}
	first, second := buttons.Eq(0), buttons.Eq(1)
	if first.AttrOr("data-testid", "") != "review-link" || first.HasClass("secondary") || strings.TrimSpace(first.Text()) != "Review and send" {
		t.Errorf("first button %q (class %q), want Review and send, primary", first.Text(), first.AttrOr("class", ""))
	}
	if second.AttrOr("data-testid", "") != "draft-save" || !second.HasClass("secondary") {
		t.Errorf("second button %q (class %q), want Save edit, secondary", second.Text(), second.AttrOr("class", ""))
	}
}

func TestAskForADraftWithoutWordsIsRefusedInPlace(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	form := has(t, ta.get(anaPath, "", cookie).doc(t), `[data-testid="draft-request-form"]`)
	for _, hx := range []bool{true, false} {
		resp := ta.ownerRequest(http.MethodPost, "/requests", formOf(form, url.Values{"text": {"   "}}), hx, cookie)
		d := refusedInPlace(t, resp, http.StatusUnprocessableEntity, `#draft-ask`, "Say what the reply should say.")
		if isPage(d) == hx {
			t.Errorf("hx=%v: a whole page is %v", hx, isPage(d))
		}
		if !hx {
			has(t, d, `[data-testid="chat-title"]`) // the conversation it came from
		}
	}
}

func TestCorrectionWithoutWhatIsRefusedOnPeople(t *testing.T) {
	ta, cookie := homeApp(t)
	form := has(t, ta.get("/people", "", cookie).doc(t), `#person-ana-okafor [data-testid="correction-form"]`)
	resp := ta.ownerRequest(http.MethodPost, "/requests", formOf(form, url.Values{"field": {" "}, "value": {"Lisbon"}, "text": {"she moved"}}), false, cookie)
	d := refusedInPlace(t, resp, http.StatusUnprocessableEntity, `#person-ana-okafor [data-testid="correction-field"]`, "Name what is wrong, like city.")
	if v := has(t, d, `#person-ana-okafor [data-testid="correction-value"]`).AttrOr("value", ""); v != "Lisbon" {
		t.Errorf("value not kept: %q", v)
	}
	if v := has(t, d, `#person-ana-okafor [data-testid="correction-why"]`).AttrOr("value", ""); v != "she moved" {
		t.Errorf("why not kept: %q", v)
	}
	if has(t, d, `#person-ana-okafor details.correction`).AttrOr("open", "none") == "none" {
		t.Error("the refused correction is folded away")
	}
}

func TestRoutinesFormsAreRefusedAtTheirFields(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 14, cookie)
	ta.clock.Advance(48 * time.Hour) // Sept 30 passed with no record
	morning := `[data-testid="routine"][data-id="morning"] `
	for _, tc := range []struct {
		name, path  string
		form        url.Values
		field, want string
	}{
		{"try without days", "/routines/morning/trials", url.Values{"revision": {"1"}, "windowDays": {"14"}},
			morning + `[data-testid="try-day-1"]`, "Choose at least one day."},
		{"try with a long window", "/routines/morning/trials", url.Values{"revision": {"1"}, "windowDays": {"365"}, "days": {"1"}},
			morning + `[data-testid="try-window"]`, "A review window is 1 to 90 days."},
		{"not applicable without a reason", "/routines/morning/outcomes", url.Values{"date": {"2026-09-30"}, "outcome": {"not-applicable"}, "reason": {" "}},
			morning + `[data-testid="past-outcome"][data-date="2026-09-30"] [data-testid="past-outcome-reason"]`, "Not applicable needs a reason: say why."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := refusedInPlace(t, ta.in(t).form(tc.path, tc.form, false, cookie), http.StatusUnprocessableEntity, tc.field, tc.want)
			if !isPage(d) {
				t.Error("a plain form got a fragment")
			}
		})
	}
}

func TestModifyingAProposalWithoutWordsIsRefusedAtTheWords(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 7, cookie)
	ta.clock.Advance(7 * 24 * time.Hour)
	pub := minimalPublication("run-review", ta.revision())
	pub["reviews"] = []any{morningReview()}
	ta.mustPublish(ta.agentToken(), pub.JSON())
	id := has(t, ta.routinesPage(cookie), `[data-testid="proposal"][data-id="p1"] input[name="requestId"]`).AttrOr("value", "")
	resp := ta.form("/routines/reviews/rv-1/proposals/p1", url.Values{"requestId": {id}, "decision": {"modify"}, "words": {"  "}}, false, cookie)
	refusedInPlace(t, resp, http.StatusUnprocessableEntity, `[data-testid="proposal"][data-id="p1"] [data-testid="proposal-words"]`, "Say how you would change it.")
}

func TestExtendingAnEndedTrialSaysSoInsideTheRoutine(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 14, cookie)
	trial := has(t, ta.routinesPage(cookie), `[data-testid="active-trial"]`).AttrOr("data-trial", "")
	resp := ta.form("/routines/trials/"+trial+"/extend", url.Values{"days": {"0"}, "routine": {"morning"}}, false, cookie)
	if resp.status != http.StatusUnprocessableEntity {
		t.Fatal(resp)
	}
	form := has(t, parseHTML(t, resp), `form[action="/routines/trials/`+trial+`/extend"]`)
	if msg := strings.TrimSpace(form.Find(`[role="alert"]`).Text()); msg != "A trial is extended by 1 to 90 days, and runs at most a year." {
		t.Errorf("message in the extend form: %q", msg)
	}
}

func TestApprovingAScheduleThatChangedIsRefusedOnTheSchedulesPage(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	ta.mustCreateSchedule(ta.agentToken(models.ScopeSchedulesAdmin), "k", "q")
	resp := ta.ownerRequest(http.MethodPost, "/schedules/q/approve", url.Values{"fingerprint": {"sha256:" + strings.Repeat("0", 64)}}, false, cookie)
	if resp.status != http.StatusConflict || strings.Contains(string(resp.body), `"code":`) {
		t.Fatal(resp)
	}
	d := resp.doc(t)
	msg := has(t, d, `[data-testid="schedule"][data-id="q"] [role="alert"][data-testid="schedule-error"]`)
	if got := strings.TrimSpace(msg.Text()); got != "Not approved: the definition file is not the one the page showed you. Look at it again before approving." {
		t.Errorf("message %q", got)
	}
	if !isPage(d) || d.Find("h1").Text() != "Schedules" {
		t.Errorf("not the Schedules page: %q", d.Find("h1").Text())
	}
}

func TestOwnerFormsOnNothingArePagesNotJSON(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	for _, path := range []string{"/schedules/nope/cancel", "/schedules/nope/approve", "/routines/trials/999/end", "/routines/trials/999/extend",
		"/requests/nope/cancel", anaPath + "/reconcile", anaPath + "/not-sent"} {
		resp := ta.ownerRequest(http.MethodPost, path, url.Values{"draftId": {"nope"}, "sendKey": {"nope"}, "days": {"7"}, "date": {"2026-09-28"}, "outcome": {"completed"}}, false, cookie)
		if resp.status != http.StatusNotFound || !strings.HasPrefix(resp.header.Get("Content-Type"), "text/html") || strings.Contains(string(resp.body), `"code":`) {
			t.Errorf("%s: %d %s %.80s", path, resp.status, resp.header.Get("Content-Type"), resp.body)
		}
	}
}

func TestATamperedSendIsItsEditorAgainNotJSON(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := ta.reviewForm(cookie, "See you Saturday!")
	form.Set("body", "  ")
	resp := ta.postPage(anaPath+"/send", form, cookie)
	if resp.status != http.StatusUnprocessableEntity || !strings.HasPrefix(resp.header.Get("Content-Type"), "text/html") || strings.Contains(string(resp.body), `"code":`) {
		t.Fatalf("%d %s %.200s", resp.status, resp.header.Get("Content-Type"), resp.body)
	}
	d := resp.doc(t)
	errorAt(t, d, `#draft-draft-ana-hike textarea[name="body"]`, "There is nothing to send yet: write the reply first.")
	if len(fake.Sends()) != 0 {
		t.Fatal("an empty reply reached Beeper")
	}
}

// assertPage asserts an owner form's refusal is an HTML page (never the
// API's JSON envelope) with status, saying want.
func assertPage(t *testing.T, resp response, status int, want string) {
	t.Helper()
	if resp.status != status || !strings.HasPrefix(resp.header.Get("Content-Type"), "text/html") || strings.Contains(string(resp.body), `"code":`) {
		t.Fatalf("want an HTML %d: %d %s %.200s", status, resp.status, resp.header.Get("Content-Type"), resp.body)
	}
	if !strings.Contains(resp.doc(t).Text(), want) {
		t.Errorf("the page does not say %q", want)
	}
}

func TestRemindMeLaterForTodayIsRefusedAtTheDateOnMessages(t *testing.T) {
	ta, cookie, _ := owedApp(t)
	form := has(t, ta.get("/messages", "", cookie).doc(t), `[data-chat="!tomas-lindqvist:beeper.local"] [data-testid="owed-remind"]`).Closest("form")
	resp := ta.post(form.AttrOr("action", ""), formOf(form, url.Values{"until": {"2026-09-29"}}), cookie)
	d := refusedInPlace(t, resp, http.StatusUnprocessableEntity, `[data-chat="!tomas-lindqvist:beeper.local"] [data-testid="owed-remind-date"]`,
		"A reminder is for a day after today: choose a later date.")
	if v := has(t, d, `[data-chat="!tomas-lindqvist:beeper.local"] [data-testid="owed-remind-date"]`).AttrOr("value", ""); v != "2026-09-29" {
		t.Errorf("the date was not kept: %q", v)
	}
	if d.Find("h1").First().Text() != "Messages" {
		t.Errorf("not the Messages page: %q", d.Find("h1").Text())
	}
}

func TestMessagesWithoutBeeperIsAPageNotJSON(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	assertPage(t, ta.get("/messages", "", cookie), http.StatusServiceUnavailable, "No Beeper is configured")
	assertPage(t, ta.get("/messages/!ana:beeper.local", "", cookie), http.StatusServiceUnavailable, "No Beeper is configured")
}
