package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// laterForm reviews body for Ana's draft and returns the review's "Send
// later" form, its hidden fields and its picker's first choice.
func (ta *testApp) laterForm(cookie *http.Cookie, body string) url.Values {
	ta.t.Helper()
	t := ta.t.(*testing.T)
	d := ta.postPage(anaPath+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {body}}, cookie).doc(t)
	later := has(t, d, `form[action$="/send-later"]`)
	form := formOf(later, nil)
	form.Set("day", has(t, d, `#later-day option[selected]`).AttrOr("value", ""))
	return form
}

func TestTheReviewSendsLaterAndTheConversationSaysWhenWithCancel(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := ta.laterForm(cookie, "Saturday at 8!")
	if form.Get("at") != "08:00" || form.Get("day") == "" {
		t.Fatalf("the picker first offers %q %q, want the next 08:00", form.Get("day"), form.Get("at"))
	}
	form.Set("day", "tomorrow")
	resp := ta.post(anaPath+"/send-later", form, cookie)
	if resp.status != http.StatusSeeOther {
		t.Fatalf("send later answered %s", resp)
	}
	if len(fake.Sends()) != 0 {
		t.Fatalf("a send for later reached Beeper now: %+v", fake.Sends())
	}
	d := ta.get(anaPath, "", cookie).doc(t)
	line := has(t, d, `#draft-draft-ana-hike [data-testid="scheduled-send"]`)
	if at := line.Find(`[data-testid="scheduled-at"]`).Text(); !strings.HasPrefix(at, "Sends at ") || !strings.HasSuffix(at, "08:00") {
		t.Fatalf("the conversation says %q", at)
	}
	home := ta.get("/?open=reply-ana-hike", "", cookie).doc(t)
	has(t, home, `li[data-id="reply-ana-hike"] [data-testid="scheduled-cancel"]`)

	// The same confirmation again schedules nothing more.
	if again := ta.post(anaPath+"/send-later", form, cookie); again.status != http.StatusSeeOther {
		t.Fatalf("the same confirmation again answered %s", again)
	}
	cancel := formOf(line, nil)
	if resp := ta.post(anaPath+"/send-later/cancel", cancel, cookie); resp.status != http.StatusSeeOther {
		t.Fatalf("cancel answered %s", resp)
	}
	if d := ta.get(anaPath, "", cookie).doc(t); d.Find(`[data-testid="scheduled-send"]`).Length() != 0 {
		t.Fatal("a cancelled send still shows when it sends")
	}
	if resp := ta.post(anaPath+"/send-later/cancel", cancel, cookie); resp.status != http.StatusConflict {
		t.Fatalf("cancelling it again answered %s, want 409", resp)
	}
	if resp := ta.post("/messages/%21tomas:beeper.local/send-later/cancel", cancel, cookie); resp.status != http.StatusNotFound {
		t.Fatalf("cancelling it from another chat answered %s, want 404", resp)
	}
}

func TestSendLaterRefusesATimeNotLaterTodayOrTomorrow(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := ta.laterForm(cookie, "Saturday at 8!")
	for _, c := range []struct{ day, at string }{{"yesterday", "08:00"}, {"tomorrow", "25:00"}, {"tomorrow", ""}, {"today", "00:00"}} {
		form.Set("day", c.day)
		form.Set("at", c.at)
		resp := ta.post(anaPath+"/send-later", form, cookie)
		if resp.status != http.StatusUnprocessableEntity || !strings.Contains(string(resp.body), "later today or tomorrow") {
			t.Fatalf("%s %s answered %s", c.day, c.at, resp)
		}
	}
	if d := ta.get(anaPath, "", cookie).doc(t); d.Find(`[data-testid="scheduled-send"]`).Length() != 0 || len(fake.Sends()) != 0 {
		t.Fatal("a refused time scheduled or sent something")
	}
}
