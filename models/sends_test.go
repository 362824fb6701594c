package models

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hearth/beeper"
)

// sendFixture is a store with a reply to Ana's chat of the fake Beeper, and
// a client that reaches the fake through handler h (the fake when nil).
func sendFixture(t *testing.T, wrap func(fake *beeper.Fake) http.Handler) (*Store, *beeper.Fake, *beeper.Client) {
	t.Helper()
	s, _ := newTestStore(t)
	fake := beeper.NewFake("tok", beeper.WithFakeClock(func() time.Time { return testNow }))
	var h http.Handler = fake
	if wrap != nil {
		h = wrap(fake)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	client := beeper.NewClient(srv.URL, "tok", beeper.WithTimeout(2*time.Second))
	d := draft("draft-ana", "Saturday works!")
	d["chatId"], d["accountId"], d["replyToMessageId"], d["sourceMessageRevision"] = beeper.FakeAnaChatID, beeper.FakeAccountID, "m-ana-3", "3"
	reply := map[string]any{"id": "reply-ana", "kind": "reply", "title": "Answer Ana", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "draft-ana"}}
	mustPublish(t, s, newPub("run-1", 0).add("replyDrafts", d).add("activities", reply))
	return s, fake, client
}

func confirm(key string) SendCommand {
	return SendCommand{SendKey: key, DraftID: "draft-ana", Body: "Saturday works, 8am!", SourceMessageRevision: "3"}
}

func TestConfirmSendSendsOnceAndCompletesTheReply(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	send, err := s.ConfirmSend(context.Background(), client, confirm("key-1"))
	if err != nil || send.Status != SendSent || send.PendingMessageID == "" {
		t.Fatalf("send %+v, %v", send, err)
	}
	sends := fake.Sends()
	if len(sends) != 1 || sends[0].Text != "Saturday works, 8am!" || sends[0].ReplyToMessageID != "m-ana-3" {
		t.Fatalf("fake received %+v", sends)
	}
	again, err := s.ConfirmSend(context.Background(), client, confirm("key-1"))
	if err != nil || again.ID != send.ID || len(fake.Sends()) != 1 {
		t.Fatalf("same key again: %+v %v, %d sends", again, err, len(fake.Sends()))
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateCompleted {
		t.Fatalf("reply activity %+v", a.UserState)
	}
	ac, err := s.AgentContext(context.Background())
	if err != nil || len(ac.Sends.Items) != 1 || ac.Sends.Items[0].Status != SendSent || ac.Sends.Items[0].Body != "Saturday works, 8am!" {
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
			s.ConfirmSend(context.Background(), client, confirm("double-tap"))
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
	fake.Incoming(beeper.FakeAnaChatID, "@ana:beeper.local", "Actually, can we do Sunday?")
	_, err := s.ConfirmSend(context.Background(), client, confirm("key-1"))
	var stale *StaleDraftError
	if !errors.As(err, &stale) || len(stale.Newer) != 1 || stale.Newer[0].Text != "Actually, can we do Sunday?" {
		t.Fatalf("got %v", err)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("a stale draft was sent")
	}
	if _, ok, _ := s.sendByKey(context.Background(), "key-1"); ok {
		t.Fatal("a stale confirm left a send row")
	}
}

// failSends answers every POST with status, without reaching the fake.
func failSends(status int, posts *atomic.Int64) func(*beeper.Fake) http.Handler {
	return func(fake *beeper.Fake) http.Handler {
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
	send, err := s.ConfirmSend(context.Background(), client, confirm("key-1"))
	if err != nil || send.Status != SendFailed || send.Error == "" {
		t.Fatalf("send %+v, %v", send, err)
	}
	if posts.Load() != 1 {
		t.Fatalf("Beeper was called %d times, want exactly 1", posts.Load())
	}
	a, _ := findActivity(t, s, "reply-ana")
	if a.UserState.State == StateCompleted {
		t.Fatal("a failed send completed the reply")
	}
	ac, _ := s.AgentContext(context.Background())
	if len(ac.ReplyDrafts.Items) != 1 || ac.ReplyDrafts.Items[0].Retracted != nil {
		t.Fatal("the draft did not survive a failed send")
	}
	// A new confirmation may try again after a definite failure.
	if _, err := s.ConfirmSend(context.Background(), client, confirm("key-2")); err != nil {
		t.Fatalf("retry with a new key: %v", err)
	}
}

func TestLostAnswerIsUnknownThenReconciledToSentWithoutASecondMessage(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	fake.DropNextSendResponse()
	send, err := s.ConfirmSend(context.Background(), client, confirm("key-1"))
	if err != nil || send.Status != SendUnknown {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := s.ConfirmSend(context.Background(), client, confirm("key-2")); !errors.Is(err, ErrSendInFlight) {
		t.Fatalf("another try before reconciling: %v", err)
	}
	send, err = s.ReconcileSend(context.Background(), client, "key-1")
	if err != nil || send.Status != SendSent {
		t.Fatalf("reconciled %+v, %v", send, err)
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("fake received %d messages, want 1", n)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateCompleted {
		t.Fatalf("reply after reconciliation: %+v", a.UserState)
	}
}

func TestLostRequestIsUnknownThenReconciledToFailed(t *testing.T) {
	// The connection drops before the fake sees the send: nothing arrives.
	drop := func(fake *beeper.Fake) http.Handler {
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
	send, err := s.ConfirmSend(context.Background(), client, confirm("key-1"))
	if err != nil || send.Status != SendUnknown {
		t.Fatalf("send %+v, %v", send, err)
	}
	send, err = s.ReconcileSend(context.Background(), client, "key-1")
	if err != nil || send.Status != SendFailed {
		t.Fatalf("reconciled %+v, %v", send, err)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("fake received a message")
	}
}

func TestPublicationCannotMarkAReplySent(t *testing.T) {
	s, fake, _ := sendFixture(t, nil)
	reply := map[string]any{"id": "reply-ana", "kind": "reply", "title": "Answer Ana", "evidenceIds": []any{},
		"payload": map[string]any{"draftId": "draft-ana", "sent": true}}
	_, _, err := s.Publish(context.Background(), "cred-test", newPub("run-2", 1).add("activities", reply).body())
	var invalid *ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("a payload claiming sent: %v", err)
	}
	// Re-publishing the reply leaves it open: only a confirmed send completes it.
	reply["payload"] = map[string]any{"draftId": "draft-ana"}
	mustPublish(t, s, newPub("run-3", 1).add("activities", reply))
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateAvailable || len(fake.Sends()) != 0 {
		t.Fatalf("reply %+v after re-publication, %d sends", a.UserState, len(fake.Sends()))
	}
}
