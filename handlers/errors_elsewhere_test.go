package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
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
