package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/beeper"
	"hearth/handlers"
)

// messagesApp is the demo-like publication with the fake Beeper behind
// Messages; the draft is for the fake's chat with Ana.
func messagesApp(t *testing.T) (*testApp, *http.Cookie, *beeper.Fake) {
	t.Helper()
	fake := beeper.NewFake("tok", beeper.WithFakeClock(func() time.Time { return testNow }))
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	client := beeper.NewClient(srv.URL, "tok", beeper.WithTimeout(2*time.Second))
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{Beeper: client}))
	ta.mustPublish(ta.agentToken(), validPublication("run-1", 0).bytes(t))
	return ta, ta.login(), fake
}

const anaPath = "/messages/%21ana-okafor:beeper.local"

func TestMessagesListsChatsWithTheirPeople(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	d := ta.get("/messages", "", cookie).doc(t)
	ana := has(t, d, `[data-testid="chat"][data-chat="!ana-okafor:beeper.local"]`)
	if !strings.Contains(ana.Text(), "Ana Okafor") || ana.Find(`[data-testid="unread"]`).Length() != 1 {
		t.Errorf("Ana's chat row: %q", ana.Text())
	}
	if d.Find(`[data-testid="beeper-down"]`).Length() != 0 {
		t.Error("Beeper shown as down")
	}
}

func TestConversationShowsMessagesAndTheDraft(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	d := ta.get(anaPath, "", cookie).doc(t)
	if n := d.Find(`[data-testid="message"]`).Length(); n != 3 {
		t.Errorf("messages %d, want 3", n)
	}
	has(t, d, `#draft-draft-ana-hike textarea[data-testid="conversation-body"]`)
	ctx := has(t, d, `[data-testid="person-context"]`)
	if !strings.Contains(ctx.Text(), "Ana Okafor") || ctx.Find(`[data-testid="chip"]`).Length() != 2 {
		t.Errorf("person context %q", ctx.Text())
	}
}

func (ta *testApp) post(path string, form url.Values, cookie *http.Cookie) response {
	ta.t.Helper()
	return ta.ownerRequest(http.MethodPost, path, form, false, cookie)
}

func TestReviewShowsExactlyWhatWillBeSentAndConfirmSendsOnce(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	resp := ta.post(anaPath+"/review", url.Values{"draft": {"draft-ana-hike"}, "candidate": {"yes-early"}, "body": {"Saturday at 8, see you!"}}, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("review: %s", resp)
	}
	d := resp.doc(t)
	if got := has(t, d, `[data-testid="review-body"]`).Text(); got != "Saturday at 8, see you!" {
		t.Errorf("review body %q", got)
	}
	if to := has(t, d, `[data-testid="review-to"]`).Text(); to != "Ana Okafor" {
		t.Errorf("to %q", to)
	}
	has(t, d, `[data-testid="review-reply-to"]`)
	form := url.Values{}
	d.Find(`form input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		value, _ := s.Attr("value")
		form.Set(name, value)
	})
	for range 2 { // a double tap posts the same form twice
		resp = ta.post(anaPath+"/send", form, cookie)
		if resp.status != http.StatusOK {
			t.Fatalf("send: %s", resp)
		}
		has(t, resp.doc(t), `[data-testid="send-sent"]`)
	}
	sends := fake.Sends()
	if len(sends) != 1 || sends[0].Text != "Saturday at 8, see you!" || sends[0].ReplyToMessageID != "m-ana-3" {
		t.Fatalf("fake received %+v", sends)
	}
	home := ta.get("/", "", cookie).doc(t)
	has(t, home, `[data-testid="done-today"] li[data-id="reply-ana-hike"]`)
}

func TestStaleReviewIsShownAgainWithTheNewMessage(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	d := ta.post(anaPath+"/review", url.Values{"draft": {"draft-ana-hike"}, "body": {"Yes!"}}, cookie).doc(t)
	form := url.Values{}
	d.Find(`form input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		value, _ := s.Attr("value")
		form.Set(name, value)
	})
	fake.Incoming("!ana-okafor:beeper.local", "@ana:beeper.local", "Or Sunday?")
	resp := ta.post(anaPath+"/send", form, cookie)
	if resp.status != http.StatusConflict {
		t.Fatalf("stale send: %s", resp)
	}
	if got := has(t, resp.doc(t), `[data-testid="newer-messages"]`).Text(); !strings.Contains(got, "Or Sunday?") {
		t.Errorf("newer messages %q", got)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("a stale review was sent")
	}
}

func TestMessagesSaysWhenBeeperRejectsTheToken(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	fake.SetToken("rotated")
	d := ta.get("/messages", "", cookie).doc(t)
	if got := has(t, d, `[data-testid="beeper-down"]`).Text(); !strings.Contains(got, "token was rejected") {
		t.Errorf("state %q", got)
	}
	if r := ta.get("/", "", cookie); r.status != http.StatusOK {
		t.Errorf("Home with Beeper down: %d", r.status)
	}
}

func TestAgentCredentialCannotReachSendRoutes(t *testing.T) {
	ta, _, fake := messagesApp(t)
	token := ta.agentToken()
	for _, path := range []string{anaPath + "/send", anaPath + "/review", anaPath + "/reconcile"} {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader("sendKey=k&draft=draft-ana-hike&body=hi"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+token)
		assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("an agent sent a message")
	}
}
