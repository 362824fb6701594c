package beeperflow

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/storetest"
	"hearth/models"
	"hearth/models/read"
)

// sendFixture is a store with a reply to Ana's chat of the fake Beeper, and
// a client that reaches the fake through handler h (the fake when nil).
func sendFixture(t *testing.T, wrap func(fake *beepertest.Fake) http.Handler) (*models.Store, *beepertest.Fake, *beeper.Client) {
	t.Helper()
	return sendFixtureWith(t, wrap, models.Options{})
}

// sendFixtureWith is sendFixture on a store opened with opts.
func sendFixtureWith(t *testing.T, wrap func(fake *beepertest.Fake) http.Handler, opts models.Options) (*models.Store, *beepertest.Fake, *beeper.Client) {
	t.Helper()
	s, _, fake, client := sendFixtureAt(t, wrap, opts)
	return s, fake, client
}

// sendFixtureAt is sendFixtureWith with the store's clock, for the test to
// move; the fake Beeper's clock stays at testNow.
func sendFixtureAt(t *testing.T, wrap func(fake *beepertest.Fake) http.Handler, opts models.Options) (*models.Store, *storetest.Clock, *beepertest.Fake, *beeper.Client) {
	t.Helper()
	s, now := newTestStoreWith(t, opts)
	b := beepertest.Start(t, wrap, beepertest.WithClock(func() time.Time { return testNow }))
	publishAnaReply(t, s)
	return s, now, b.Fake, b.Client
}

// publishAnaReply publishes a draft replying to m-ana-3 in Ana's chat and its reply activity.
func publishAnaReply(t *testing.T, s *models.Store) {
	t.Helper()
	mustPublish(t, s, storetest.AnaReply(beepertest.AnaChatID, beepertest.AccountID))
}

func confirm(key string) models.SendCommand {
	return models.SendCommand{SendKey: key, DraftID: "draft-ana", ChatID: beepertest.AnaChatID, Body: "Saturday works, 8am!", SourceMessageRevision: "3"}
}

func TestConfirmSendSendsOnceAndCompletesTheReply(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	send, err := ConfirmSend(context.Background(), s, client, confirm("key-1"))
	if err != nil || send.Status != models.SendSent || send.PendingMessageID == "" {
		t.Fatalf("send %+v, %v", send, err)
	}
	sends := fake.Sends()
	if len(sends) != 1 || sends[0].Text != "Saturday works, 8am!" || sends[0].ReplyToMessageID != "m-ana-3" {
		t.Fatalf("fake received %+v", sends)
	}
	again, err := ConfirmSend(context.Background(), s, client, confirm("key-1"))
	if err != nil || again.ID != send.ID || len(fake.Sends()) != 1 {
		t.Fatalf("same key again: %+v %v, %d sends", again, err, len(fake.Sends()))
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateCompleted {
		t.Fatalf("reply activity %+v", a.UserState)
	}
	ac, err := read.Of(s).AgentContext(context.Background())
	if err != nil || len(ac.Sends.Items) != 1 || ac.Sends.Items[0].Status != models.SendSent || ac.Sends.Items[0].Body != "Saturday works, 8am!" {
		t.Fatalf("agent context sends %+v, %v", ac.Sends, err)
	}
}

func TestConcurrentConfirmsWithOneKeySendOneMessage(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ConfirmSend(context.Background(), s, client, confirm("double-tap"))
		}()
	}
	close(start)
	wg.Wait()
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages, want 1", n)
	}
}

func TestStaleDraftSendsNothingAndShowsTheNewMessages(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Actually, can we do Sunday?")
	_, err := ConfirmSend(context.Background(), s, client, confirm("key-1"))
	var stale *StaleDraftError
	if !errors.As(err, &stale) || len(stale.Newer) != 1 || stale.Newer[0].Text != "Actually, can we do Sunday?" {
		t.Fatalf("got %v", err)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("a stale draft was sent")
	}
	if _, ok, _ := s.SendByKey(context.Background(), "key-1"); ok {
		t.Fatal("a stale confirm left a send row")
	}
}

// failSends answers every POST with status, without reaching the fake.
func failSends(status int, posts *atomic.Int64) func(*beepertest.Fake) http.Handler {
	return func(fake *beepertest.Fake) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				posts.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				w.Write([]byte(`{"code":"INTERNAL","message":"database exploded"}`))
				return
			}
			fake.ServeHTTP(w, r)
		})
	}
}

func TestBeeperFailureRecordsFailedKeepsDraftAndNeverRetries(t *testing.T) {
	var posts atomic.Int64
	s, _, client := sendFixture(t, failSends(http.StatusInternalServerError, &posts))
	send, err := ConfirmSend(context.Background(), s, client, confirm("key-1"))
	if err != nil || send.Status != models.SendFailed || send.Error == "" {
		t.Fatalf("send %+v, %v", send, err)
	}
	if posts.Load() != 1 {
		t.Fatalf("Beeper was called %d times, want exactly 1", posts.Load())
	}
	a, _ := findActivity(t, s, "reply-ana")
	if a.UserState.State == models.StateCompleted {
		t.Fatal("a failed send completed the reply")
	}
	ac, _ := read.Of(s).AgentContext(context.Background())
	if len(ac.ReplyDrafts.Items) != 1 || ac.ReplyDrafts.Items[0].Retracted != nil {
		t.Fatal("the draft did not survive a failed send")
	}
	// A new confirmation may try again after a definite failure.
	if _, err := ConfirmSend(context.Background(), s, client, confirm("key-2")); err != nil {
		t.Fatalf("retry with a new key: %v", err)
	}
}

func TestLostAnswerIsUnknownThenReconciledToSentWithoutASecondMessage(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	fake.DropNextSendResponse()
	send, err := ConfirmSend(context.Background(), s, client, confirm("key-1"))
	if err != nil || send.Status != models.SendUnknown {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := ConfirmSend(context.Background(), s, client, confirm("key-2")); !errors.Is(err, models.ErrSendInFlight) {
		t.Fatalf("another try before reconciling: %v", err)
	}
	send, err = ReconcileSend(context.Background(), s, client, "key-1")
	if err != nil || send.Status != models.SendSent {
		t.Fatalf("reconciled %+v, %v", send, err)
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages, want 1", n)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateCompleted {
		t.Fatalf("reply after reconciliation: %+v", a.UserState)
	}
}

func TestLostRequestStaysUnknownUntilSeenOrOwnerSaysNotSent(t *testing.T) {
	// The connection drops before the fake sees the send: nothing arrives.
	drop := func(fake *beepertest.Fake) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				conn, _, _ := w.(http.Hijacker).Hijack()
				conn.Close()
				return
			}
			fake.ServeHTTP(w, r)
		})
	}
	s, fake, client := sendFixture(t, drop)
	ctx := context.Background()
	send, err := ConfirmSend(ctx, s, client, confirm("key-1"))
	if err != nil || send.Status != models.SendUnknown {
		t.Fatalf("send %+v, %v", send, err)
	}
	// Not finding the message proves nothing: Beeper may not have it yet.
	send, err = ReconcileSend(ctx, s, client, "key-1")
	if err != nil || send.Status != models.SendUnknown || !strings.Contains(send.Error, "not seen in the chat yet") {
		t.Fatalf("reconciled %+v, %v", send, err)
	}
	if _, err := ConfirmSend(ctx, s, client, confirm("key-2")); !errors.Is(err, models.ErrSendInFlight) {
		t.Fatalf("a new try while the outcome is unknown: %v", err)
	}
	// The owner looked and says it did not go: only then may it be sent again.
	send, err = s.MarkSendNotSent(ctx, "key-1")
	if err != nil || send.Status != models.SendFailed {
		t.Fatalf("marked not sent %+v, %v", send, err)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("fake received a message")
	}
	// The wrapper drops every POST, so the new try is let through and is again unknown.
	if send, err := ConfirmSend(ctx, s, client, confirm("key-3")); err != nil || send.Status != models.SendUnknown {
		t.Fatalf("the new try: %+v, %v", send, err)
	}
}

func TestReconcileFindsTheMessageOnAnOlderPageByCursor(t *testing.T) {
	s, _ := newTestStore(t)
	b := beepertest.Start(t, nil, beepertest.WithClock(func() time.Time { return testNow }), beepertest.WithPageSize(2))
	fake, client := b.Fake, b.Client
	publishAnaReply(t, s)
	ctx := context.Background()
	fake.DropNextSendResponse()
	send, err := ConfirmSend(ctx, s, client, confirm("key-1"))
	if err != nil || send.Status != models.SendUnknown {
		t.Fatalf("send %+v, %v", send, err)
	}
	// Ana writes three more messages: the owner's is no longer on the first page.
	for _, text := range []string{"ok", "see you", "bring water"} {
		fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", text)
	}
	send, err = ReconcileSend(ctx, s, client, "key-1")
	if err != nil || send.Status != models.SendSent || send.PendingMessageID == "" {
		t.Fatalf("reconciled %+v, %v", send, err)
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages, want 1", n)
	}
}

func TestConfirmRefusesADraftOfAnotherChatAndSendsNothing(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	cmd := confirm("key-1")
	cmd.ChatID = beepertest.TomasChatID
	if _, err := ConfirmSend(context.Background(), s, client, cmd); !errors.Is(err, models.ErrDraftNotInChat) {
		t.Fatalf("got %v", err)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("a mismatched draft was sent")
	}
	if _, ok, _ := s.SendByKey(context.Background(), "key-1"); ok {
		t.Fatal("a refused confirm left a send row")
	}
}

func TestASentDraftIsNeverSentAgainWithANewKey(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	ctx := context.Background()
	if send, err := ConfirmSend(ctx, s, client, confirm("key-1")); err != nil || send.Status != models.SendSent {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := ConfirmSend(ctx, s, client, confirm("key-2")); !errors.Is(err, models.ErrDraftAlreadySent) {
		t.Fatalf("a second send of a sent draft: %v", err)
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages", n)
	}
	drafts, err := read.Of(s).ChatDrafts(ctx, beepertest.AnaChatID)
	if err != nil || len(drafts) != 1 || !drafts[0].Sent() || drafts[0].ActivityID != "reply-ana" || drafts[0].State.State != models.StateCompleted {
		t.Fatalf("Messages' view of the draft: %+v, %v", drafts, err)
	}
}

func TestInterruptedPendingSendIsUnknownAfterTheDeadlineAndReconcilable(t *testing.T) {
	s, now, fake, client := sendFixtureAt(t, nil, models.Options{})
	ctx := context.Background()
	d := models.SendTarget{DraftID: "draft-ana", ChatID: beepertest.AnaChatID, AccountID: beepertest.AccountID, ReplyToMessageID: "m-ana-3"}
	// The process stopped after recording pending and calling Beeper.
	if _, _, err := s.PendingSend(ctx, d, confirm("key-1")); err != nil {
		t.Fatal(err)
	}
	fake.Incoming(beepertest.AnaChatID, beepertest.SelfID, "Saturday works, 8am!")
	if send, _, _ := s.SendByKey(ctx, "key-1"); send.Status != models.SendPending {
		t.Fatalf("within the deadline the send is %s", send.Status)
	}
	now.Advance(models.SendDeadline + 10*time.Second + time.Second) // past the deadline and its 10 s grace
	if send, _, _ := s.SendByKey(ctx, "key-1"); send.Status != models.SendUnknown {
		t.Fatalf("after the deadline the send is %s, want unknown", send.Status)
	}
	if _, err := ConfirmSend(ctx, s, client, confirm("key-2")); !errors.Is(err, models.ErrSendInFlight) {
		t.Fatalf("a new try beside an interrupted send: %v", err)
	}
	send, err := ReconcileSend(ctx, s, client, "key-1")
	if err != nil || send.Status != models.SendSent {
		t.Fatalf("reconciled %+v, %v", send, err)
	}
}

func TestOutcomeThatCannotBeRecordedIsNeverNothingSent(t *testing.T) {
	// Another connection holds the write lock from the moment Beeper accepts
	// the message until after the busy timeout (short here, so the test does
	// not wait out the default), so the final commit fails.
	var release func()
	var s *models.Store
	hold := func(fake *beepertest.Fake) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				release = storetest.HoldWriteLock(t, s.Path())
			}
			fake.ServeHTTP(w, r)
		})
	}
	s, fake, client := sendFixtureWith(t, hold, models.Options{BusyTimeout: 50 * time.Millisecond})
	send, err := ConfirmSend(context.Background(), s, client, confirm("key-1"))
	release()
	if !errors.Is(err, ErrOutcomeNotRecorded) || send.Status != models.SendSent {
		t.Fatalf("send %+v, %v", send, err)
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages", n)
	}
	// The row is still pending: no new try starts, and after the deadline it is unknown and reconciled.
	if _, err := ConfirmSend(context.Background(), s, client, confirm("key-2")); !errors.Is(err, models.ErrSendInFlight) {
		t.Fatalf("a new try: %v", err)
	}
}

// unknownHeldSend confirms a reply whose answer is lost while Beeper holds
// the message at PENDING, and returns the message's pending ID.
func unknownHeldSend(t *testing.T, s *models.Store, fake *beepertest.Fake, client *beeper.Client, key string) string {
	t.Helper()
	fake.HoldSends(true)
	fake.DropNextSendResponse()
	send, err := ConfirmSend(context.Background(), s, client, confirm(key))
	if err != nil || send.Status != models.SendUnknown {
		t.Fatalf("send %+v, %v", send, err)
	}
	msgs := fake.Messages(beepertest.AnaChatID)
	return msgs[len(msgs)-1].ID
}

func TestReconcileWaitsWhileBeeperRetriesAndEndsSentNeverFailed(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	ctx := context.Background()
	pending := unknownHeldSend(t, s, fake, client, "key-1")
	for _, step := range []struct{ status, message, note string }{
		{beeper.StatusPending, "", "Beeper is still sending it"},
		{beeper.StatusFailRetriable, "Waiting for the phone to come online", "Beeper is still trying to send it: Waiting for the phone to come online"},
	} {
		if _, err := fake.SetSendStatus(beepertest.AnaChatID, pending, step.status, step.message); err != nil {
			t.Fatal(err)
		}
		send, err := ReconcileSend(ctx, s, client, "key-1")
		if err != nil || send.Status != models.SendUnknown || !strings.Contains(send.Error, step.note) {
			t.Fatalf("%s: reconciled %+v, %v; want still unknown, noted %q", step.status, send, err, step.note)
		}
		// Still in flight: no second message may be offered meanwhile.
		if _, err := ConfirmSend(ctx, s, client, confirm("key-2")); !errors.Is(err, models.ErrSendInFlight) {
			t.Fatalf("%s: another try: %v", step.status, err)
		}
		if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State == models.StateCompleted {
			t.Fatalf("%s completed the reply", step.status)
		}
	}
	final, err := fake.SetSendStatus(beepertest.AnaChatID, pending, beeper.StatusSuccess, "")
	if err != nil {
		t.Fatal(err)
	}
	send, err := ReconcileSend(ctx, s, client, "key-1")
	if err != nil || send.Status != models.SendSent || send.Error != "" || send.PendingMessageID != final.ID {
		t.Fatalf("after SUCCESS: %+v, %v", send, err)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateCompleted {
		t.Fatalf("reply after SUCCESS: %+v", a.UserState)
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages, want 1", n)
	}
}

func TestReconcileRecordsBeepersPermanentFailureWithItsMessage(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	ctx := context.Background()
	pending := unknownHeldSend(t, s, fake, client, "key-1")
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, pending, beeper.StatusFailPermanent, "Blocked by the recipient"); err != nil {
		t.Fatal(err)
	}
	send, err := ReconcileSend(ctx, s, client, "key-1")
	if err != nil || send.Status != models.SendFailed || !strings.Contains(send.Error, "Blocked by the recipient") || strings.Contains(send.Error, "beepertest") {
		t.Fatalf("reconciled %+v, %v; want failed with Beeper's message (not its internal error)", send, err)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State == models.StateCompleted {
		t.Fatal("a failed send completed the reply")
	}
	// A final failure opens the draft to another try.
	fake.HoldSends(false)
	if again, err := ConfirmSend(ctx, s, client, confirm("key-2")); err != nil || again.Status != models.SendSent {
		t.Fatalf("the next try: %+v, %v", again, err)
	}
}

func TestReconcileReadsAnOlderBeepersStatusString(t *testing.T) {
	for _, tc := range []struct {
		name, status, want string
	}{{"failed", "failed", models.SendFailed}, {"retriable", "FAIL_RETRIABLE", models.SendUnknown}, {"sent", "sent", models.SendSent}, {"absent", "", models.SendSent}} {
		// Subtest names stay plain: models.Open builds a file: URI from the path.
		t.Run(tc.name, func(t *testing.T) {
			s, fake, client := sendFixture(t, olderBeeper(tc.status))
			fake.DropNextSendResponse()
			if send, err := ConfirmSend(context.Background(), s, client, confirm("key-1")); err != nil || send.Status != models.SendUnknown {
				t.Fatalf("send %+v, %v", send, err)
			}
			send, err := ReconcileSend(context.Background(), s, client, "key-1")
			if err != nil || send.Status != tc.want {
				t.Fatalf("sendStatus %q: reconciled %+v, %v; want %s", tc.status, send, err, tc.want)
			}
		})
	}
}

// olderBeeper answers message lists as Beeper did before SDK 5: each
// sendStatus object becomes the bare string status ("" leaves it out).
func olderBeeper(status string) func(*beepertest.Fake) http.Handler {
	return func(fake *beepertest.Fake) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/messages") {
				fake.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			fake.ServeHTTP(rec, r)
			var page map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			for _, it := range page["items"].([]any) {
				m := it.(map[string]any)
				if _, ok := m["sendStatus"]; ok {
					m["sendStatus"] = status
					if status == "" {
						delete(m, "sendStatus")
					}
				}
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rec.Code)
			json.NewEncoder(w).Encode(page)
		})
	}
}

func TestRetryAfterAPermanentFailureReconcilesAgainstTheNewMessageNotTheFailedOne(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	ctx := context.Background()
	first := unknownHeldSend(t, s, fake, client, "key-1")
	fake.SetSendStatus(beepertest.AnaChatID, first, beeper.StatusFailPermanent, "Blocked by the recipient")
	if send, err := ReconcileSend(ctx, s, client, "key-1"); err != nil || send.Status != models.SendFailed {
		t.Fatalf("first try: %+v, %v", send, err)
	}
	// The owner tries the same words again; this answer is lost too, and Beeper delivers it.
	second := unknownHeldSend(t, s, fake, client, "key-2")
	if second == first {
		t.Fatal("the fake reused the pending ID")
	}
	fake.SetSendStatus(beepertest.AnaChatID, second, beeper.StatusSuccess, "")
	send, err := ReconcileSend(ctx, s, client, "key-2")
	if err != nil || send.Status != models.SendSent {
		t.Fatalf("second try: %+v, %v; want sent (the failed message is the first try's)", send, err)
	}
}
