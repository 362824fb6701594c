package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/beeper/beepertest"
	"hearth/handlers"
	"hearth/internal/beeperflow"
	"hearth/internal/storetest"
)

// messagesApp is the demo-like publication with the fake Beeper behind
// Messages; the draft is for the fake's chat with Ana.
func messagesApp(t *testing.T, opts ...beepertest.Option) (*testApp, *http.Cookie, *beepertest.Fake) {
	return messagesAppVia(t, nil, opts...)
}

// messagesAppVia puts wrap between hearth and the fake, to fail calls the fake cannot.
func messagesAppVia(t *testing.T, wrap func(http.Handler) http.Handler, opts ...beepertest.Option) (*testApp, *http.Cookie, *beepertest.Fake) {
	t.Helper()
	return messagesAppWith(t, wrap, nil, opts...)
}

// messagesAppWith is messagesAppVia with app options besides the owner and Beeper.
func messagesAppWith(t *testing.T, wrap func(http.Handler) http.Handler, appOpts []appOption, opts ...beepertest.Option) (*testApp, *http.Cookie, *beepertest.Fake) {
	t.Helper()
	var through func(*beepertest.Fake) http.Handler
	if wrap != nil {
		through = func(f *beepertest.Fake) http.Handler { return wrap(f) }
	}
	b := beepertest.Start(t, through, append([]beepertest.Option{beepertest.WithClock(func() time.Time { return testNow })}, opts...)...)
	ta := newTestApp(t, append([]appOption{withOwner(), withConfig(handlers.Config{Beeper: b.Client})}, appOpts...)...)
	ta.beeper = b
	ta.mustPublish(ta.agentToken(), validPublication("run-1", 0).JSON())
	return ta, ta.login(), b.Fake
}

const anaPath = "/messages/%21ana-okafor:beeper.local"

func TestMessagesListsChatsWithTheirPeople(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	ta, cookie, _ := messagesApp(t)
	d := ta.get(anaPath, "", cookie).doc(t)
	if n := d.Find(`[data-testid="message"]`).Length(); n != 3 {
		t.Errorf("messages %d, want 3", n)
	}
	has(t, d, `#draft-draft-ana-hike textarea[data-testid="conversation-body"]`)
	// The chat's title already names Ana: the card gives her context, not her name again.
	// (Its evidence chips name what they cite, Ana's file among them.)
	ctx := has(t, d, `[data-testid="person-context"]`)
	words := ctx.Clone()
	words.Find(".chips, details.tech").Remove()
	if !strings.Contains(ctx.Text(), "Friend from the climbing gym.") || strings.Contains(words.Text(), "Ana Okafor") || ctx.Find(`[data-testid="chip"]`).Length() != 2 {
		t.Errorf("person context %q", ctx.Text())
	}
}

func (ta *testApp) post(path string, form url.Values, cookie *http.Cookie) response {
	ta.t.Helper()
	return ta.ownerRequest(http.MethodPost, path, form, false, cookie)
}

func TestReviewShowsExactlyWhatWillBeSentAndConfirmSendsOnce(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	resp := ta.postPage(anaPath+"/review", url.Values{"draftId": {"draft-ana-hike"}, "candidate": {"yes-early"}, "body": {"Saturday at 8, see you!"}}, cookie)
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
		resp = ta.postPage(anaPath+"/send", form, cookie)
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
	t.Parallel()
	ta, cookie, fake := messagesApp(t)
	d := ta.postPage(anaPath+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {"Yes!"}}, cookie).doc(t)
	form := url.Values{}
	d.Find(`form input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		value, _ := s.Attr("value")
		form.Set(name, value)
	})
	fake.Incoming("!ana-okafor:beeper.local", "@ana:beeper.local", "Or Sunday?")
	// The review again, on its own page (post/redirect/get).
	resp := ta.postPage(anaPath+"/send", form, cookie)
	if resp.status != http.StatusOK {
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

// reviewForm reviews body for Ana's draft and returns the confirmation form.
func (ta *testApp) reviewForm(cookie *http.Cookie, body string) url.Values {
	ta.t.Helper()
	d := ta.postPage(anaPath+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {body}}, cookie).doc(ta.t.(*testing.T))
	form := url.Values{}
	d.Find(`form input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		value, _ := s.Attr("value")
		form.Set(name, value)
	})
	return form
}

func TestUnknownOutcomeIsShownHonestlyAndReconciledFromTheChat(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	fake.DropNextSendResponse()
	form := ta.reviewForm(cookie, "See you Saturday!")
	resp := ta.postPage(anaPath+"/send", form, cookie)
	d := resp.doc(t)
	has(t, d, `[data-testid="send-unknown"]`)
	if d.Find(`[data-testid="send-sent"], [data-testid="send-failed"]`).Length() != 0 {
		t.Fatal("an unknown outcome was reported as sent or failed")
	}
	// Another review shows the outcome, not a Send; a confirm with a new key
	// is refused until the first is reconciled.
	again := ta.postPage(anaPath+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {"See you Saturday!"}}, cookie)
	if again.status != http.StatusOK {
		t.Fatalf("review before reconciling: %d", again.status)
	}
	if ad := again.doc(t); ad.Find(`[data-testid="confirm"]`).Length() != 0 || ad.Find(`[data-testid="send-unknown"]`).Length() != 1 {
		t.Fatal("a review of a draft with an unknown send offers Send or hides the outcome")
	}
	second := url.Values{}
	for k, v := range form {
		second[k] = v
	}
	second.Set("sendKey", "send-second-try")
	if r := ta.postPage(anaPath+"/send", second, cookie); r.status != http.StatusOK || r.doc(t).Find(`[data-testid="send-unknown"]`).Length() != 1 {
		t.Fatalf("second try before reconciling: %d", r.status)
	}
	resp = ta.postPage(anaPath+"/reconcile", url.Values{"sendKey": {form.Get("sendKey")}}, cookie)
	has(t, resp.doc(t), `[data-testid="send-sent"]`)
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages, want 1", n)
	}
}

func TestFailedSendSaysWhatWentWrongAndKeepsTheEdit(t *testing.T) {
	t.Parallel()
	var posts atomic.Int64
	failPosts := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				posts.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				w.Write([]byte(`{"code":"INTERNAL","message":"the network is down"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	ta, cookie, fake := messagesAppVia(t, failPosts)
	resp := ta.postPage(anaPath+"/send", ta.reviewForm(cookie, "My own words"), cookie)
	if got := has(t, resp.doc(t), `[data-testid="send-failed"]`).Text(); !strings.Contains(got, "the network is down") {
		t.Errorf("failure says %q", got)
	}
	if posts.Load() != 1 {
		t.Fatalf("Beeper was asked to send %d times, want 1", posts.Load())
	}
	d := ta.get(anaPath, "", cookie).doc(t)
	if body := has(t, d, `[data-testid="conversation-body"]`).Text(); body != "My own words" {
		t.Errorf("editor holds %q after a failed send", body)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("fake received a message")
	}
}

func TestConversationLoadsOlderMessagesByCursor(t *testing.T) {
	t.Parallel()
	ta, cookie, _ := messagesApp(t, beepertest.WithPageSize(2))
	d := ta.get(anaPath, "", cookie).doc(t)
	if n := d.Find(`[data-testid="message"]`).Length(); n != 2 {
		t.Fatalf("first page %d messages, want 2", n)
	}
	href, _ := has(t, d, `[data-testid="load-older"]`).Attr("href")
	older := ta.get(href, "", cookie).doc(t)
	if id, _ := has(t, older, `[data-testid="message"]`).First().Attr("data-id"); id != "m-ana-1" {
		t.Errorf("older page starts at %q, want m-ana-1", id)
	}
}

func TestConversationOffersToAskForADraftAboutItsNewestMessage(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	d := ta.get(anaPath, "", cookie).doc(t)
	form := has(t, d, `[data-testid="draft-request-form"]`)
	if rev, _ := form.Find(`input[name="sourceRevision"]`).Attr("value"); rev != "3" {
		t.Errorf("sourceRevision %q, want the newest message's sort key 3", rev)
	}
}

func TestConfirmForADraftOfAnotherChatIsConflictAndSendsNothing(t *testing.T) {
	t.Parallel()
	ta, cookie, fake := messagesApp(t)
	form := ta.reviewForm(cookie, "See you Saturday!")
	assertPage(t, ta.postPage("/messages/%21tomas-lindqvist:beeper.local/send", form, cookie), http.StatusConflict, "belongs to another chat")
	if len(fake.Sends()) != 0 {
		t.Fatal("a draft was sent to another chat")
	}
}

func TestASentDraftShowsItsOutcomeAndNoSecondSend(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	if r := ta.postPage(anaPath+"/send", ta.reviewForm(cookie, "See you Saturday!"), cookie); r.status != http.StatusOK {
		t.Fatalf("send: %s", r)
	}
	d := ta.get(anaPath, "", cookie).doc(t)
	draft := has(t, d, `#draft-draft-ana-hike`)
	if draft.Find(`[data-testid="send-sent"]`).Length() != 1 || draft.Find(`[data-testid="review"], textarea`).Length() != 0 {
		t.Fatal("a sent draft still offers an editor and Review")
	}
	if state := has(t, d, `[data-testid="draft-activity-state"]`).Text(); !strings.Contains(state, "done") {
		t.Fatalf("the reply's state on Home reads %q", state)
	}
	again := ta.postPage(anaPath+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {"And again"}}, cookie)
	if again.status != http.StatusOK || again.doc(t).Find(`[data-testid="confirm"]`).Length() != 0 || again.doc(t).Find(`[data-testid="send-sent"]`).Length() != 1 {
		t.Fatalf("review of a sent draft: %s", again)
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages", n)
	}
}

func TestOwnerCanSayAnUnknownSendWasNotSentAndTryAgain(t *testing.T) {
	dropPosts := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				conn, _, _ := w.(http.Hijacker).Hijack()
				conn.Close()
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	ta, cookie, _ := messagesAppVia(t, dropPosts)
	form := ta.reviewForm(cookie, "See you Saturday!")
	has(t, ta.postPage(anaPath+"/send", form, cookie).doc(t), `[data-testid="send-unknown"]`)
	// Checking the chat does not find it: still unknown, "not seen yet", never failed.
	d := ta.postPage(anaPath+"/reconcile", url.Values{"sendKey": {form.Get("sendKey")}}, cookie).doc(t)
	if msg := has(t, d, `[data-testid="send-unknown"]`).Text(); !strings.Contains(msg, "not seen in the chat yet") {
		t.Fatalf("after reconciling: %q", msg)
	}
	has(t, ta.postPage(anaPath+"/not-sent", url.Values{"sendKey": {form.Get("sendKey")}}, cookie).doc(t), `[data-testid="send-failed"]`)
	conv := ta.get(anaPath, "", cookie).doc(t)
	has(t, conv, `#draft-draft-ana-hike [data-testid="review"]`)
	has(t, conv, `[data-testid="draft-last-failed"]`)
}

func TestAnOutcomeHearthCouldNotRecordIsNeverNothingWasSent(t *testing.T) {
	t.Parallel()
	var ta *testApp
	var release func()
	// Beeper accepts the message while another connection holds the write
	// lock past the busy timeout, so the final commit fails.
	lockOnSend := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				release = storetest.HoldWriteLock(t, ta.store.Path())
			}
			next.ServeHTTP(w, r)
		})
	}
	ta, cookie, fake := messagesAppWith(t, lockOnSend, []appOption{withBusyTimeout(50 * time.Millisecond)})
	resp := ta.postPage(anaPath+"/send", ta.reviewForm(cookie, "See you Saturday!"), cookie)
	release()
	if strings.Contains(string(resp.body), "nothing was sent") {
		t.Fatalf("after Beeper accepted the message the page says %s", resp.body)
	}
	has(t, resp.doc(t), `[data-testid="send-not-recorded"]`)
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages", n)
	}
}

func TestAStaleDraftShowsOnHomeAndMessagesBeforeAnyReview(t *testing.T) {
	t.Parallel()
	ta, cookie, fake := messagesApp(t)
	watch := beeperflow.NewWatch(ta.store, ta.beeper.Client, beeperflow.WatchOptions{})
	ctx := context.Background()
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	ta.clock.Advance(time.Second)
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Or Sunday?")
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	has(t, ta.get("/", "", cookie).doc(t), `li[data-id="reply-ana-hike"] [data-testid="row-stale"]`)
	has(t, ta.get(anaPath, "", cookie).doc(t), `#draft-draft-ana-hike [data-testid="draft-stale"]`)
}
