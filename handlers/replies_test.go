package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/beeperflow"
	"hearth/models"
	"hearth/models/read"
)

const (
	warmText  = "Saturday works! Trailhead at 8?"
	briefText = "Yes, 8am?"
	tomasPath = "/messages/%21tomas-lindqvist:beeper.local"
)

// formOf collects a form's fields as the browser would submit them: hidden
// and text inputs, textareas, the checked radio; extra overrides.
func formOf(sel *goquery.Selection, extra url.Values) url.Values {
	form := url.Values{}
	sel.Find("input, textarea").Each(func(_ int, f *goquery.Selection) {
		name, ok := f.Attr("name")
		if !ok {
			return
		}
		switch typ, _ := f.Attr("type"); {
		case goquery.NodeName(f) == "textarea":
			form.Set(name, f.Text())
		case typ == "radio":
			if _, checked := f.Attr("checked"); checked {
				form.Set(name, f.AttrOr("value", ""))
			}
		default:
			form.Set(name, f.AttrOr("value", ""))
		}
	})
	for k, v := range extra {
		form[k] = v
	}
	return form
}

// within asserts that sel holds a match of css and returns it.
func within(t *testing.T, sel *goquery.Selection, css string) *goquery.Selection {
	t.Helper()
	s := sel.Find(css)
	if s.Length() == 0 {
		html, _ := goquery.OuterHtml(sel)
		t.Fatalf("no %s in\n%s", css, html)
	}
	return s
}

// homeReplyForm is the expanded reply row's editor form on Home.
func homeReplyForm(t *testing.T, ta *testApp, cookie *http.Cookie) *goquery.Selection {
	t.Helper()
	d := ta.get("/?open=reply-ana-hike", "", cookie).doc(t)
	return has(t, d, `li[data-id="reply-ana-hike"] form[action^="/drafts/"]`)
}

func TestHomeReviewAndSendReviewsWhatWasTypedWithoutSaving(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	form := homeReplyForm(t, ta, cookie)
	button := within(t, form, `[data-testid="review-link"]`)
	if goquery.NodeName(button) != "button" || button.AttrOr("name", "") != "next" || button.AttrOr("value", "") != "review" {
		html, _ := goquery.OuterHtml(button)
		t.Fatalf("Review and send is not a submit button of the editor's form: %s", html)
	}
	typed := "Saturday, but can we start at 9?"
	action := form.AttrOr("action", "")
	for _, hx := range []bool{false, true} {
		resp := ta.ownerRequest(http.MethodPost, action, formOf(form, url.Values{"body": {typed}, "next": {"review"}}), hx, cookie)
		next := resp.header.Get("Location")
		if hx {
			next = resp.header.Get("HX-Redirect")
		}
		if !strings.HasPrefix(next, anaPath+"/review?draftId=draft-ana-hike") {
			t.Fatalf("Review and send (htmx %v) answered %d, going to %q", hx, resp.status, next)
		}
		d := ta.get(next, "", cookie).doc(t)
		if got := has(t, d, testID("review-body")).Text(); got != typed {
			t.Fatalf("the review (htmx %v) shows %q, want what was typed %q", hx, got, typed)
		}
		has(t, d, testID("confirm"))
	}
}

func TestChoosingASuggestionWithoutJavaScriptReviewsThatSuggestion(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	d := ta.get(anaPath, "", cookie).doc(t)
	form := has(t, d, `#draft-draft-ana-hike form[action$="/review"]`)
	if got := within(t, form, `[data-testid="conversation-body"]`).Text(); got != warmText {
		t.Fatalf("the editor holds %q, want the warm suggestion", got)
	}
	// The brief radio is chosen; the editor still holds the warm text, as it does without JavaScript.
	resp := ta.postPage(anaPath+"/review", formOf(form, url.Values{"candidate": {"yes-short"}}), cookie)
	if got := has(t, resp.doc(t), testID("review-body")).Text(); got != briefText {
		t.Fatalf("choosing brief reviews %q, want %q", got, briefText)
	}
	// From Home too.
	home := homeReplyForm(t, ta, cookie)
	resp = ta.post(home.AttrOr("action", ""), formOf(home, url.Values{"candidate": {"yes-short"}, "next": {"review"}}), cookie)
	if got := has(t, ta.get(resp.header.Get("Location"), "", cookie).doc(t), testID("review-body")).Text(); got != briefText {
		t.Fatalf("choosing brief on Home reviews %q, want %q", got, briefText)
	}
}

func TestASuggestionChosenBesideAnEditNeverOverwritesTheEdit(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	form := has(t, ta.get(anaPath, "", cookie).doc(t), `#draft-draft-ana-hike form[action$="/review"]`)
	mine := "Saturday is good, I'll bring coffee."
	d := ta.postPage(anaPath+"/review", formOf(form, url.Values{"candidate": {"yes-short"}, "body": {mine}}), cookie).doc(t)
	if got := has(t, d, testID("review-body")).Text(); got != mine {
		t.Fatalf("the review shows %q, want the owner's edit %q", got, mine)
	}
	kept := has(t, d, testID("review-kept"))
	if !strings.Contains(kept.Text(), "brief") {
		t.Fatalf("the review does not offer the brief suggestion: %q", kept.Text())
	}
	// Asked, the owner takes the suggestion instead.
	again := ta.postPage(anaPath+"/review", formOf(kept, nil), cookie).doc(t)
	if got := has(t, again, testID("review-body")).Text(); got != briefText {
		t.Fatalf("using brief instead reviews %q", got)
	}
}

func TestReviewingAnEmptyReplyIsTheFormAgainWithAMessage(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	for _, tc := range []struct{ name, path, editor string }{
		{"draft", anaPath, `#draft-draft-ana-hike form[action$="/review"]`},
		{"own reply", tomasPath, `[data-testid="composer"] form`},
	} {
		form := has(t, ta.get(tc.path, "", cookie).doc(t), tc.editor)
		resp := ta.post(tc.path+"/review", formOf(form, url.Values{"body": {"  "}}), cookie)
		if resp.status != http.StatusUnprocessableEntity || !strings.HasPrefix(resp.header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: an empty review answered %d %s: %s", tc.name, resp.status, resp.header.Get("Content-Type"), resp.body)
		}
		d := resp.doc(t)
		if msg := has(t, d, tc.editor+` [data-testid="editor-error"]`).Text(); !strings.Contains(msg, "nothing to send") {
			t.Fatalf("%s: message %q", tc.name, msg)
		}
		if d.Find(testID("confirm")).Length() != 0 {
			t.Fatalf("%s: an empty reply was offered for sending", tc.name)
		}
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("an empty reply reached Beeper")
	}
}

func TestAChatWithoutADraftHasAComposerThatSendsOnceAndTheAgentSeesIt(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	d := ta.get(tomasPath, "", cookie).doc(t)
	if d.Find(testID("draft")).Length() != 0 {
		t.Fatal("Tomas's chat has a draft in this fixture")
	}
	form := has(t, d, `[data-testid="composer"] form`)
	own := "Thanks! I'll call them tomorrow."
	rd := ta.postPage(tomasPath+"/review", formOf(form, url.Values{"body": {own}}), cookie).doc(t)
	if got := has(t, rd, testID("review-body")).Text(); got != own {
		t.Fatalf("review of an own reply shows %q", got)
	}
	has(t, rd, testID("review-own"))
	confirm := formOf(has(t, rd, `form[action$="/send"]`), nil)
	if confirm.Get("sendKey") == "" || confirm.Has("draftId") {
		t.Fatalf("the own reply's confirmation %v", confirm)
	}
	for range 2 { // a double tap: one message
		resp := ta.postPage(tomasPath+"/send", confirm, cookie)
		has(t, resp.doc(t), testID("send-sent"))
	}
	if sends := fake.Sends(); len(sends) != 1 || sends[0].Text != own || sends[0].ChatID != beepertest.TomasChatID {
		t.Fatalf("Beeper got %+v", sends)
	}
	var ac struct {
		Sends struct {
			Items []struct {
				SendKey  string `json:"sendKey"`
				DraftID  string `json:"draftId"`
				OwnReply bool   `json:"ownReply"`
				Body     string `json:"body"`
				Status   string `json:"status"`
			} `json:"items"`
		} `json:"sends"`
	}
	if err := json.Unmarshal(ta.get("/api/agent-context", ta.agentToken(), nil).body, &ac); err != nil {
		t.Fatal(err)
	}
	if s := ac.Sends.Items; len(s) != 1 || !s[0].OwnReply || s[0].Body != own || s[0].Status != "sent" || s[0].SendKey != confirm.Get("sendKey") {
		t.Fatalf("the agent context's sends %+v", s)
	}
}

func TestOpeningAConversationMarksItReadInBeeper(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	has(t, ta.get("/messages", "", cookie).doc(t), `[data-chat="!ana-okafor:beeper.local"] [data-testid="unread"]`)
	ta.get(anaPath, "", cookie)
	chat, err := ta.beeper.Client.Chat(context.Background(), beepertest.AnaChatID)
	if err != nil || chat.UnreadCount != 0 {
		t.Fatalf("Ana's chat in Beeper after opening it: %+v, %v", chat, err)
	}
	if ta.get("/messages", "", cookie).doc(t).Find(`[data-chat="!ana-okafor:beeper.local"] [data-testid="unread"]`).Length() != 0 {
		t.Fatal("the unread badge is still shown")
	}
	if n := len(fake.Sends()); n != 0 {
		t.Fatalf("opening a conversation sent %d messages", n)
	}
}

func TestConversationShowsMessageTimesInTheOwnersZone(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	d := ta.get(anaPath, "", cookie).doc(t)
	// m-ana-3 came at 06:00 UTC; the brief's zone is Europe/Berlin (UTC+2 in September).
	if got := has(t, d, `[data-id="m-ana-3"] [data-testid="message-time"]`).Text(); got != "08:00" {
		t.Fatalf("m-ana-3 shows %q, want 08:00 in Europe/Berlin", got)
	}
	// Yesterday's message carries its date.
	if got := has(t, d, `[data-id="m-ana-2"] [data-testid="message-time"]`).Text(); got != "Mon 28 Sep 17:00" {
		t.Fatalf("m-ana-2 shows %q, want Mon 28 Sep 17:00", got)
	}
}

func TestAConversationNamesItsChatOnce(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	d := ta.get(anaPath, "", cookie).doc(t)
	// Evidence chips name what they cite (Ana's file, her chat): they are not the title repeated.
	main := d.Find("main").Clone()
	main.Find(".chips, details.tech").Remove()
	if got := strings.Count(main.Text(), "Ana Okafor"); got != 1 {
		t.Fatalf("the chat title appears %d times on its page:\n%s", got, d.Find("main").Text())
	}
	if got := strings.TrimSpace(d.Find("main h1").Text()); got != "Ana Okafor" {
		t.Fatalf("the heading is %q", got)
	}
}

func TestAskTheAgentFromAConversationConfirmsInPlaceAndNamesTheChat(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	form := has(t, ta.get(anaPath, "", cookie).doc(t), testID("draft-request-form"))
	asked := formOf(form, url.Values{"text": {"Say I can only do Sunday"}})
	resp := ta.ownerRequest(http.MethodPost, "/requests", asked, true, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("asking in place: %s", resp)
	}
	d := resp.doc(t)
	if got := has(t, d, testID("ask-confirmed")).Text(); !strings.Contains(got, "Ana Okafor") || !strings.Contains(got, "Say I can only do Sunday") {
		t.Fatalf("confirmation %q", got)
	}
	has(t, d, `#ask [data-testid="request"][data-status="pending"]`)
	// Without JavaScript the page comes back to the same place, listing it.
	back := ta.post("/requests", formOf(has(t, d, testID("draft-request-form")), url.Values{"text": {"Or Monday"}}), cookie)
	if loc := back.header.Get("Location"); back.status != http.StatusSeeOther || loc != anaPath+"#ask" {
		t.Fatalf("the plain form answered %d → %q", back.status, loc)
	}
	if n := ta.get(anaPath, "", cookie).doc(t).Find(`#ask [data-testid="request"]`).Length(); n != 2 {
		t.Fatalf("the conversation lists %d of its requests", n)
	}
	var ac struct {
		Requests struct {
			Items []struct {
				Kind, EntityID, EntityName, Text string
			} `json:"items"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(ta.get("/api/agent-context", ta.agentToken(), nil).body, &ac); err != nil {
		t.Fatal(err)
	}
	if r := ac.Requests.Items; len(r) != 2 || r[0].EntityName != "Ana Okafor" || r[0].EntityID != beepertest.AnaChatID || r[0].Kind != "reply-draft" {
		t.Fatalf("the agent receives %+v", r)
	}
}

// owedApp is messagesApp after the watch read Beeper once and a day passed:
// Tomas (28 h) and Ana (1 h, then a day) are owed, oldest first.
func owedApp(t *testing.T) (*testApp, *http.Cookie, *beepertest.Fake) {
	t.Helper()
	ta, cookie, fake := messagesApp(t)
	if _, err := beeperflow.NewWatch(ta.store, ta.beeper.Client, beeperflow.WatchOptions{}).Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	ta.clock.Advance(24 * time.Hour)
	return ta, cookie, fake
}

func owedOn(t *testing.T, ta *testApp, cookie *http.Cookie) []string {
	t.Helper()
	var chats []string
	ta.get("/messages", "", cookie).doc(t).Find(`[data-testid="owed-chat"]`).Each(func(_ int, s *goquery.Selection) {
		chats = append(chats, s.AttrOr("data-chat", ""))
	})
	return chats
}

func TestOwedRepliesAreListedOldestFirstWithTheirDraftAndCountedOnHome(t *testing.T) {
	ta, cookie, _ := owedApp(t)
	d := ta.get("/messages", "", cookie).doc(t)
	owed := d.Find(`[data-testid="owed-chat"]`)
	if owed.Length() != 2 || owed.Eq(0).AttrOr("data-chat", "") != beepertest.TomasChatID || owed.Eq(1).AttrOr("data-chat", "") != beepertest.AnaChatID {
		t.Fatalf("owed replies %v", owedOn(t, ta, cookie))
	}
	ana := owed.Eq(1)
	for _, id := range []string{"owed-review", "owed-write", "owed-no-reply", "owed-remind"} {
		if ana.Find(testID(id)).Length() != 1 {
			t.Errorf("Ana's owed reply lacks %s", id)
		}
	}
	if owed.Eq(0).Find(testID("owed-draft")).Length() != 0 {
		t.Error("Tomas's owed reply shows a draft it does not have")
	}
	// Review the draft straight from the list.
	rd := ta.postPage(anaPath+"/review", formOf(has(t, d, `[data-testid="owed-draft"][data-draft="draft-ana-hike"]`), nil), cookie).doc(t)
	if got := has(t, rd, testID("review-body")).Text(); got != warmText {
		t.Fatalf("reviewing the owed draft shows %q", got)
	}
	if got := has(t, ta.get("/", "", cookie).doc(t), testID("owed-count")).Text(); !strings.Contains(got, "2 replies owed") {
		t.Fatalf("Home says %q", got)
	}
}

func TestNoReplyNeededLeavesTheListAndIsSentToTheAgent(t *testing.T) {
	ta, cookie, _ := owedApp(t)
	d := ta.get("/messages", "", cookie).doc(t)
	form := has(t, d, `[data-chat="!ana-okafor:beeper.local"] [data-testid="owed-no-reply"]`).Closest("form")
	resp := ta.post(form.AttrOr("action", ""), formOf(form, nil), cookie)
	if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/messages#owed" {
		t.Fatalf("no reply needed answered %s", resp)
	}
	if got := owedOn(t, ta, cookie); strings.Join(got, ",") != beepertest.TomasChatID {
		t.Fatalf("owed after no reply needed: %v", got)
	}
	body := string(ta.get("/api/agent-context", ta.agentToken(), nil).body)
	if !strings.Contains(body, `"decision":"no-reply-needed"`) || !strings.Contains(body, `"kind":"declined"`) {
		t.Fatalf("the agent context does not carry the owner's decision:\n%s", body)
	}
}

func TestRemindMeLaterKeepsTheChatAwayUntilItsDate(t *testing.T) {
	ta, cookie, _ := owedApp(t)
	d := ta.get("/messages", "", cookie).doc(t)
	form := has(t, d, `[data-chat="!tomas-lindqvist:beeper.local"] [data-testid="owed-remind"]`).Closest("form")
	resp := ta.post(form.AttrOr("action", ""), formOf(form, url.Values{"until": {"2026-10-03"}}), cookie)
	if resp.status != http.StatusSeeOther {
		t.Fatalf("remind later answered %s", resp)
	}
	if got := owedOn(t, ta, cookie); strings.Join(got, ",") != beepertest.AnaChatID {
		t.Fatalf("owed with Tomas's reminder ahead: %v", got)
	}
	if r := ta.post(form.AttrOr("action", ""), url.Values{"until": {"2026-09-30"}}, cookie); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(has(t, r.doc(t), testID("form-errors")).Text(), "after today") {
		t.Fatalf("a reminder for today answered %s", r)
	}
	ta.clock.Set(time.Date(2026, 10, 3, 6, 0, 0, 0, time.UTC))
	back := ta.get("/messages", "", cookie).doc(t)
	if got := has(t, back, `[data-chat="!tomas-lindqvist:beeper.local"] [data-testid="owed-reminded"]`).Text(); !strings.Contains(got, "reminded") {
		t.Fatalf("on the day: %q", got)
	}
}

func TestContinueInBeeperHandsTheTextOffAndNeverSendsIt(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := has(t, ta.get(anaPath, "", cookie).doc(t), `#draft-draft-ana-hike form[action$="/review"]`)
	handed := "Let me check my calendar tonight"
	resp := ta.post(anaPath+"/hand-off", formOf(form, url.Values{"body": {handed}}), cookie)
	if resp.status != http.StatusSeeOther {
		t.Fatalf("hand off answered %s", resp)
	}
	if got := fake.Composer(beepertest.AnaChatID); got != handed {
		t.Fatalf("Beeper's composer holds %q", got)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("a hand-off sent a message")
	}
	d := ta.get(resp.header.Get("Location"), "", cookie).doc(t)
	if o := has(t, d, `#draft-draft-ana-hike [data-testid="draft-outcome"]`); o.AttrOr("data-kind", "") != models.DraftHandedOff || !strings.Contains(o.Text(), "did not send") {
		t.Fatalf("the draft says %q", o.Text())
	}
	if d.Find(testID("send-sent")).Length() != 0 {
		t.Fatal("a hand-off is shown as sent")
	}
	// The composer hands off the owner's own words too.
	composer := has(t, ta.get(tomasPath, "", cookie).doc(t), `[data-testid="composer"] form`)
	resp = ta.post(tomasPath+"/hand-off", formOf(composer, url.Values{"body": {"Will do"}}), cookie)
	has(t, ta.get(resp.header.Get("Location"), "", cookie).doc(t), testID("handed-off"))
	if got := fake.Composer(beepertest.TomasChatID); got != "Will do" || len(fake.Sends()) != 0 {
		t.Fatalf("Tomas's composer holds %q, sends %d", got, len(fake.Sends()))
	}
}

func TestAnAcceptedSendStaysPendingUntilBeeperSaysThenFailsWithBeepersMessage(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	fake.HoldSends(true)
	form := ta.reviewForm(cookie, "See you Saturday!")
	d := ta.postPage(anaPath+"/send", form, cookie).doc(t)
	if p := has(t, d, testID("send-pending")); p.AttrOr("data-accepted", "") != "true" || !strings.Contains(p.Text(), "still sending") {
		t.Fatalf("a send Beeper holds shows %q", p.Text())
	}
	conv := ta.get(anaPath, "", cookie).doc(t)
	if conv.Find(`#draft-draft-ana-hike [data-testid="review"]`).Length() != 0 {
		t.Fatal("the draft is offered again while Beeper is still sending it")
	}
	again := ta.postPage(anaPath+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {"And again"}}, cookie)
	if again.status != http.StatusOK || again.doc(t).Find(testID("confirm")).Length() != 0 {
		t.Fatalf("a review while Beeper is still sending: %d", again.status)
	}
	msgs := fake.Messages(beepertest.AnaChatID)
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, msgs[len(msgs)-1].ID, beeper.StatusFailPermanent, "Blocked by the recipient"); err != nil {
		t.Fatal(err)
	}
	conv = ta.get(anaPath, "", cookie).doc(t)
	if msg := has(t, conv, testID("draft-last-failed")).Text(); !strings.Contains(msg, "Blocked by the recipient") {
		t.Fatalf("after FAIL_PERMANENT the conversation says %q", msg)
	}
	has(t, conv, `#draft-draft-ana-hike [data-testid="review"]`)
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("Beeper got %d messages", n)
	}
}

func TestAnAcceptedSendIsSentOnceBeeperDeliversIt(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	fake.HoldSends(true)
	form := ta.reviewForm(cookie, "See you Saturday!")
	has(t, ta.postPage(anaPath+"/send", form, cookie).doc(t), testID("send-pending"))
	msgs := fake.Messages(beepertest.AnaChatID)
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, msgs[len(msgs)-1].ID, beeper.StatusSuccess, ""); err != nil {
		t.Fatal(err)
	}
	has(t, ta.postPage(anaPath+"/reconcile", url.Values{"sendKey": {form.Get("sendKey")}}, cookie).doc(t), testID("send-sent"))
	has(t, ta.get("/", "", cookie).doc(t), `[data-testid="done-today"] li[data-id="reply-ana-hike"]`)
}

func TestAnAgentCannotDecideOrHandOffTheOwnersReplies(t *testing.T) {
	ta, _, fake := owedApp(t)
	token := ta.agentToken()
	for _, path := range []string{anaPath + "/hand-off", anaPath + "/no-reply-needed", anaPath + "/remind", anaPath + "/review?draftId=draft-ana-hike"} {
		method := http.MethodPost
		if strings.Contains(path, "?") {
			method = http.MethodGet
		}
		req := httptest.NewRequest(method, path, strings.NewReader("draftId=draft-ana-hike&body=hi&until=2026-10-09"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+token)
		assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
	}
	if len(fake.Focuses()) != 0 || len(fake.Sends()) != 0 {
		t.Fatal("an agent reached Beeper")
	}
	ac, err := read.Of(ta.store).AgentContext(context.Background())
	if err != nil || len(ac.ReplyDecisions.Items) != 0 {
		t.Fatalf("an agent recorded decisions: %+v, %v", ac.ReplyDecisions.Items, err)
	}
}
