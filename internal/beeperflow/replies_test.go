package beeperflow

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/models"
	"hearth/models/read"
)

// replyFixture is sendFixture with the store's clock, for owed replies;
// the fake Beeper reads the same clock, so messages injected later carry
// later times.
func replyFixture(t *testing.T, wrap func(*beepertest.Fake) http.Handler) (*models.Store, *storetest.Clock, *beepertest.Fake, *beeper.Client) {
	t.Helper()
	s, now := newTestStore(t)
	b := beepertest.Start(t, wrap, beepertest.WithClock(now.Now))
	publishAnaReply(t, s)
	return s, now, b.Fake, b.Client
}

func latestSend(t *testing.T, s *models.Store, draftID string) models.Send {
	t.Helper()
	sd, ok, err := s.LatestSend(context.Background(), draftID)
	if err != nil || !ok {
		t.Fatalf("latest send of %s: %v, %v", draftID, ok, err)
	}
	return sd
}

func contextDraft(t *testing.T, ac contract.AgentContext, id string) contract.DraftView {
	t.Helper()
	return storetest.MustFind(t, "draft", ac.ReplyDrafts.Items, id, func(d contract.DraftView) string { return d.ID })
}

func TestASendBeeperAcceptedButFailsForGoodEndsFailedWithBeepersMessage(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	fake.HoldSends(true)
	send, err := ConfirmSend(ctx, s, client, confirm("key-1"))
	if err != nil || send.Status != models.SendPending || !send.Accepted() || !strings.Contains(send.Error, "Beeper is still sending it") {
		t.Fatalf("a send Beeper holds at PENDING: %+v, %v; want pending, still sending", send, err)
	}
	// While Beeper is still trying, the draft is never offered for a second send.
	if _, err := ConfirmSend(ctx, s, client, confirm("key-2")); !errors.Is(err, models.ErrSendInFlight) {
		t.Fatalf("a second send while Beeper is still trying: %v", err)
	}
	// Nor does it turn unknown (inviting "it was not sent") after the deadline or a restart.
	if _, err := s.RecoverInterruptedSends(ctx); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != models.SendPending {
		t.Fatalf("after a restart the accepted send is %s", sd.Status)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusFailPermanent, "Blocked by the recipient"); err != nil {
		t.Fatal(err)
	}
	if n, err := SettleAcceptedSends(ctx, s, client, beepertest.AnaChatID); err != nil || n != 1 {
		t.Fatalf("settling: %d, %v", n, err)
	}
	sd := latestSend(t, s, "draft-ana")
	if sd.Status != models.SendFailed || !strings.Contains(sd.Error, "Blocked by the recipient") {
		t.Fatalf("after FAIL_PERMANENT: %+v; want failed with Beeper's message", sd)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State == models.StateCompleted {
		t.Fatal("a send Beeper failed completed the reply")
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("Beeper got %d messages", n)
	}
}

func TestASendBeeperAcceptedIsSettledSentByTheWatchOnceDelivered(t *testing.T) {
	s, now, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	watch := NewWatch(s, client, WatchOptions{})
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	fake.HoldSends(true)
	send, err := ConfirmSend(ctx, s, client, confirm("key-1"))
	if err != nil || !send.Accepted() {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusFailRetriable, "Waiting for the phone"); err != nil {
		t.Fatal(err)
	}
	now.Advance(time.Hour) // long past the send deadline: still not unknown
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != models.SendPending || !strings.Contains(sd.Error, "Waiting for the phone") {
		t.Fatalf("while Beeper retries: %+v", sd)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusSuccess, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != models.SendSent || sd.Error != "" {
		t.Fatalf("after SUCCESS: %+v", sd)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateCompleted {
		t.Fatalf("reply after delivery: %+v", a.UserState)
	}
}

func TestASettledAcceptedSendKeepsTheRevisionWhenNothingChanged(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	fake.HoldSends(true)
	if _, err := ConfirmSend(ctx, s, client, confirm("key-1")); err != nil {
		t.Fatal(err)
	}
	before := mustRevision(t, s)
	// A page that settles on every view must not reload itself forever.
	if n, err := SettleAcceptedSends(ctx, s, client, ""); err != nil || n != 0 || mustRevision(t, s) != before {
		t.Fatalf("settling an unchanged send: %d, %v, revision %d → %d", n, err, before, mustRevision(t, s))
	}
}

// The store half (no query while none is pending) is models'
// TestSettlingAcceptedSendsCostsNoQueryWhileNoneIsPending.
func TestSettlingAcceptedSendsCallsBeeperForNoneWhileNoneIsPending(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	settle := func(chatID string) int {
		t.Helper()
		n, err := SettleAcceptedSends(ctx, s, client, chatID)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	settle("") // may look once
	calls := fake.Requests()
	// Every Messages and conversation page settles first: with nothing
	// pending and nothing committed since, that is not a call.
	settle("")
	settle(beepertest.AnaChatID)
	if fake.Requests() != calls {
		t.Fatalf("settling with none pending: %d Beeper calls", fake.Requests()-calls)
	}
	// A send Beeper accepts later is still found, and settled once it fails.
	fake.HoldSends(true)
	send, err := ConfirmSend(ctx, s, client, confirm("key-1"))
	if err != nil || !send.Accepted() {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusFailPermanent, "Blocked"); err != nil {
		t.Fatal(err)
	}
	if n := settle(beepertest.TomasChatID); n != 0 {
		t.Fatalf("settling Tomas's chat changed %d sends of Ana's", n)
	}
	if n := settle(beepertest.AnaChatID); n != 1 || latestSend(t, s, "draft-ana").Status != models.SendFailed {
		t.Fatalf("settling Ana's chat changed %d; the send is %+v", n, latestSend(t, s, "draft-ana"))
	}
	settle("")
	calls = fake.Requests()
	if settle(""); fake.Requests() != calls {
		t.Fatalf("settling after the last accepted send settled: %d Beeper calls", fake.Requests()-calls)
	}
}

func TestOwnReplyIsSentOnceReplacesTheDraftAndTheAgentReadsIt(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	own := models.SendCommand{SendKey: "own-1", ChatID: beepertest.AnaChatID, Body: "I'll call you tonight.", SourceMessageRevision: "3"}
	for range 2 { // a double tap: one message
		send, err := ConfirmSend(ctx, s, client, own)
		if err != nil || send.Status != models.SendSent || !send.Own() || send.AccountID != beepertest.AccountID {
			t.Fatalf("own reply %+v, %v", send, err)
		}
	}
	if sends := fake.Sends(); len(sends) != 1 || sends[0].Text != "I'll call you tonight." || sends[0].ReplyToMessageID != "" {
		t.Fatalf("Beeper got %+v", sends)
	}
	ac, err := read.Of(s).AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ac.Sends.Items) != 1 || !ac.Sends.Items[0].OwnReply || ac.Sends.Items[0].DraftID != "" || ac.Sends.Items[0].Status != models.SendSent {
		t.Fatalf("the context's sends %+v", ac.Sends.Items)
	}
	o := contextDraft(t, ac, "draft-ana").Outcome
	if o == nil || o.Kind != models.DraftReplaced || o.Text != "I'll call you tonight." || o.SendKey != "own-1" {
		t.Fatalf("draft outcome %+v, want replaced by the own reply", o)
	}
	if d := ac.ReplyDecisions.Items; len(d) != 1 || d[0].Decision != models.ActionOwnReply || d[0].DraftID != "draft-ana" || d[0].SendKey != "own-1" {
		t.Fatalf("reply decisions %+v", d)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateCompleted || a.UserState.Note != "answered with your own reply" {
		t.Fatalf("the draft's reply activity %+v", a.UserState)
	}
}

func TestOwnReplyToAChatThatMovedOnIsStaleAndSendsNothing(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Never mind, see you there")
	_, err := ConfirmSend(context.Background(), s, client, models.SendCommand{SendKey: "own-1", ChatID: beepertest.AnaChatID, Body: "Ok!", SourceMessageRevision: "3"})
	var stale *StaleDraftError
	if !errors.As(err, &stale) || len(fake.Sends()) != 0 {
		t.Fatalf("got %v with %d sends", err, len(fake.Sends()))
	}
}

func TestDraftOutcomeSaysSentAsWrittenOrSentAfterAnEdit(t *testing.T) {
	for _, tc := range []struct {
		name, body, kind, candidate, text string
	}{
		{"written", "Saturday works!", models.DraftSentAsWritten, "c0", ""},
		{"edited", "Saturday works, 8am!", models.DraftSentEdited, "", "Saturday works, 8am!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _, client := replyFixture(t, nil)
			cmd := confirm("key-1")
			cmd.Body = tc.body
			if _, err := ConfirmSend(context.Background(), s, client, cmd); err != nil {
				t.Fatal(err)
			}
			ac, err := read.Of(s).AgentContext(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			o := contextDraft(t, ac, "draft-ana").Outcome
			if o == nil || o.Kind != tc.kind || o.CandidateID != tc.candidate || o.Text != tc.text || o.SendKey != "key-1" {
				t.Fatalf("outcome %+v, want %s %q %q", o, tc.kind, tc.candidate, tc.text)
			}
		})
	}
}

// owedFixture reads Beeper once through the watch, so hearth knows each
// chat's last message: Tomas wrote last 28 h ago, Ana 1 h ago.
func owedFixture(t *testing.T) (*models.Store, *storetest.Clock, *beepertest.Fake, *beeper.Client, *Watch) {
	t.Helper()
	s, now, fake, client := replyFixture(t, nil)
	w := NewWatch(s, client, WatchOptions{})
	if _, err := w.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, now, fake, client, w
}

func owedChats(t *testing.T, s *models.Store) []string {
	t.Helper()
	return storetest.IDs(storetest.Read(t, s.OwedReplies), func(o models.OwedReply) string { return o.ChatID })
}

func TestOwedRepliesListUnansweredChatsOldestFirstWithTheirDraft(t *testing.T) {
	s, now, _, client, _ := owedFixture(t)
	if got := owedChats(t, s); strings.Join(got, ",") != beepertest.TomasChatID {
		t.Fatalf("owed at first: %v, want only Tomas (28 h; Ana waited 1 h)", got)
	}
	now.Advance(24 * time.Hour)
	owed, err := s.OwedReplies(context.Background())
	if err != nil || len(owed) != 2 || owed[0].ChatID != beepertest.TomasChatID || owed[1].ChatID != beepertest.AnaChatID {
		t.Fatalf("a day later: %+v, %v; want Tomas then Ana", owed, err)
	}
	ana := owed[1]
	if ana.Title != "Ana Okafor" || !strings.Contains(ana.LastText, "what time should we meet") || len(ana.Drafts) != 1 || ana.Drafts[0].ID != "draft-ana" {
		t.Fatalf("Ana's owed reply %+v", ana)
	}
	if len(owed[0].Drafts) != 0 {
		t.Fatalf("Tomas has drafts %+v", owed[0].Drafts)
	}
	// Answering leaves the list at once, before the watch sees the message.
	if _, err := ConfirmSend(context.Background(), s, client, confirm("key-1")); err != nil {
		t.Fatal(err)
	}
	if got := owedChats(t, s); strings.Join(got, ",") != beepertest.TomasChatID {
		t.Fatalf("after answering Ana: %v", got)
	}
}

func TestNoReplyNeededDeclinesTheDraftUntilSomeoneWritesAgain(t *testing.T) {
	s, now, fake, _, w := owedFixture(t)
	ctx := context.Background()
	now.Advance(24 * time.Hour)
	if _, err := s.DecideNoReplyNeeded(ctx, models.ChatDecision{ChatID: beepertest.AnaChatID, AccountID: beepertest.AccountID}); err != nil {
		t.Fatal(err)
	}
	if got := owedChats(t, s); strings.Join(got, ",") != beepertest.TomasChatID {
		t.Fatalf("owed after no reply needed: %v", got)
	}
	ac, err := read.Of(s).AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o := contextDraft(t, ac, "draft-ana").Outcome; o == nil || o.Kind != models.DraftDeclined {
		t.Fatalf("draft outcome %+v, want declined", o)
	}
	if d := ac.ReplyDecisions.Items; len(d) != 1 || d[0].Decision != models.ActionNoReplyNeeded || d[0].ChatID != beepertest.AnaChatID {
		t.Fatalf("reply decisions %+v", d)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateDismissed {
		t.Fatalf("the reply activity %+v", a.UserState)
	}
	// A new message from Ana is owed again once it has waited.
	now.Advance(time.Minute)
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Actually, one more thing")
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	now.Advance(25 * time.Hour)
	if got := owedChats(t, s); !strings.Contains(strings.Join(got, ","), beepertest.AnaChatID) {
		t.Fatalf("a new message after no reply needed is not owed: %v", got)
	}
}

func TestHandOffOpensBeeperWithTheTextAndIsNeverASend(t *testing.T) {
	s, now, fake, client, _ := owedFixture(t)
	ctx := context.Background()
	now.Advance(24 * time.Hour)
	if _, err := HandOffToBeeper(ctx, s, client, models.HandOff{ChatID: beepertest.AnaChatID, DraftID: "draft-ana", Form: models.WordingForm{Body: "Let me check and get back to you"}}); err != nil {
		t.Fatal(err)
	}
	if got := fake.Composer(beepertest.AnaChatID); got != "Let me check and get back to you" {
		t.Fatalf("Beeper's composer holds %q", got)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("a hand-off sent a message")
	}
	if _, ok, _ := s.LatestSend(ctx, "draft-ana"); ok {
		t.Fatal("a hand-off was recorded as a send")
	}
	ac, err := read.Of(s).AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := contextDraft(t, ac, "draft-ana")
	if d.Outcome == nil || d.Outcome.Kind != models.DraftHandedOff || d.Outcome.Text != "Let me check and get back to you" {
		t.Fatalf("draft outcome %+v", d.Outcome)
	}
	if d.OwnerEdit == nil || d.OwnerEdit.Body != "Let me check and get back to you" {
		t.Fatalf("the handed-off text is not kept as the owner's edit: %+v", d.OwnerEdit)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateWaiting {
		t.Fatalf("reply activity %+v", a.UserState)
	}
	// Still owed until the watch sees the owner's message: a hand-off is not an answer.
	owed, err := s.OwedReplies(ctx)
	if err != nil || len(owed) != 2 || owed[1].HandedOffAt == nil {
		t.Fatalf("owed after a hand-off: %+v, %v", owed, err)
	}
}

func TestHandOffThatBeeperRefusesRecordsNothing(t *testing.T) {
	s, _, fake, client, _ := owedFixture(t)
	fake.FailNext(http.StatusInternalServerError, 1)
	if _, err := HandOffToBeeper(context.Background(), s, client, models.HandOff{ChatID: beepertest.AnaChatID, DraftID: "draft-ana", Form: models.WordingForm{Body: "x"}}); err == nil {
		t.Fatal("a refused focus succeeded")
	}
	ac, _ := read.Of(s).AgentContext(context.Background())
	if len(ac.ReplyDecisions.Items) != 0 || contextDraft(t, ac, "draft-ana").Outcome != nil {
		t.Fatalf("a refused hand-off was recorded: %+v", ac.ReplyDecisions.Items)
	}
}

func TestAMutedChatIsNeverOwed(t *testing.T) {
	s, now, fake, _, w := owedFixture(t)
	now.Advance(time.Minute)
	fake.Incoming(beepertest.GroupChatID, "@jules:beeper.local", "Anyone for Sunday?") // the crew chat is muted
	if _, err := w.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	now.Advance(48 * time.Hour)
	for _, id := range owedChats(t, s) {
		if id == beepertest.GroupChatID {
			t.Fatal("a muted chat is owed")
		}
	}
}

// noPendingLookups answers 404 to GET /v1/chats/{chat}/messages/{id}, as
// Beeper versions that cannot look a message up by its pending ID do.
func noPendingLookups(fake *beepertest.Fake) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Count(strings.TrimPrefix(r.URL.EscapedPath(), "/v1/chats/"), "/") == 2 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"code":"NOT_FOUND","message":"message not found"}`))
			return
		}
		fake.ServeHTTP(w, r)
	})
}

func TestABeeperThatCannotLookUpPendingIDsIsReadByTheChat(t *testing.T) {
	s, _, fake, client := replyFixture(t, noPendingLookups)
	ctx := context.Background()
	fake.HoldSends(true)
	send, err := ConfirmSend(ctx, s, client, confirm("key-1"))
	if err != nil || !send.Accepted() {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := SettleAcceptedSends(ctx, s, client, ""); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != models.SendPending || !strings.Contains(sd.Error, "still sending") {
		t.Fatalf("found in the chat, still PENDING: %+v", sd)
	}
	msgs := fake.Messages(beepertest.AnaChatID)
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, msgs[len(msgs)-1].ID, beeper.StatusSuccess, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := SettleAcceptedSends(ctx, s, client, ""); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != models.SendSent {
		t.Fatalf("after SUCCESS, read by the chat: %+v", sd)
	}
}

func TestASendBeeperAcceptedButNeverShowsBecomesUnknownForTheOwnerToCheck(t *testing.T) {
	// Beeper cannot look the pending ID up, and its message lists leave the owner's messages out.
	hideOwn := func(fake *beepertest.Fake) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/messages") {
				noPendingLookups(fake).ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			fake.ServeHTTP(rec, r)
			var page map[string]any
			json.Unmarshal(rec.Body.Bytes(), &page)
			var kept []any
			for _, it := range page["items"].([]any) {
				if mine, _ := it.(map[string]any)["isSender"].(bool); !mine {
					kept = append(kept, it)
				}
			}
			page["items"] = kept
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(page)
		})
	}
	s, now, fake, client := replyFixture(t, hideOwn)
	ctx := context.Background()
	fake.HoldSends(true)
	if _, err := ConfirmSend(ctx, s, client, confirm("key-1")); err != nil {
		t.Fatal(err)
	}
	SettleAcceptedSends(ctx, s, client, "")
	if sd := latestSend(t, s, "draft-ana"); sd.Status != models.SendPending {
		t.Fatalf("just after the send: %+v", sd)
	}
	now.Advance(acceptedGrace + time.Minute)
	SettleAcceptedSends(ctx, s, client, "")
	sd := latestSend(t, s, "draft-ana")
	if sd.Status != models.SendUnknown || !strings.Contains(sd.Error, "does not show it") {
		t.Fatalf("long after: %+v; want unknown, for the owner to check", sd)
	}
	if _, err := s.MarkSendNotSent(ctx, "key-1"); err != nil {
		t.Fatal(err)
	}
}
