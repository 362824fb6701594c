package models

import (
	"context"
	"errors"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// sendFixture is a store with Ana's draft reply (publishAnaReply).
func sendFixture(t *testing.T) *Store {
	t.Helper()
	s, _ := newTestStore(t)
	publishAnaReply(t, s)
	return s
}

// publishAnaReply publishes a draft replying to m-ana-3 in Ana's chat and its reply activity.
func publishAnaReply(t *testing.T, s *Store) {
	t.Helper()
	mustPublish(t, s, storetest.AnaReply(anaChat, testAccount))
}

func confirm(key string) SendCommand {
	return SendCommand{SendKey: key, DraftID: "draft-ana", ChatID: anaChat, Body: "Saturday works, 8am!", SourceMessageRevision: "3"}
}

func TestRecoverInterruptedSendsMarksPendingUnknownAtStart(t *testing.T) {
	s := sendFixture(t)
	ctx := context.Background()
	d := SendTarget{DraftID: "draft-ana", ChatID: anaChat, AccountID: testAccount}
	if _, _, err := s.PendingSend(ctx, d, confirm("key-1")); err != nil {
		t.Fatal(err)
	}
	before := mustRevision(t, s)
	if n, err := s.RecoverInterruptedSends(ctx); err != nil || n != 1 {
		t.Fatalf("recovered %d, %v", n, err)
	}
	send, _, _ := s.SendByKey(ctx, "key-1")
	if send.Status != SendUnknown || mustRevision(t, s) != before+1 {
		t.Fatalf("send %+v at revision %d", send, mustRevision(t, s))
	}
	if n, err := s.RecoverInterruptedSends(ctx); err != nil || n != 0 || mustRevision(t, s) != before+1 {
		t.Fatalf("second recovery changed %d rows, %v", n, err)
	}
}

func TestPublicationCannotMarkAReplySent(t *testing.T) {
	s := sendFixture(t)
	reply := map[string]any{"id": "reply-ana", "kind": "reply", "title": "Answer Ana", "evidenceIds": []any{},
		"payload": map[string]any{"draftId": "draft-ana", "sent": true}}
	_, _, err := publish(s, context.Background(), "cred-test", newPub("run-2", 1).Add("activities", reply).JSON())
	var invalid *contract.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("a payload claiming sent: %v", err)
	}
	// Re-publishing the reply leaves it open: only a confirmed send completes it.
	reply["payload"] = map[string]any{"draftId": "draft-ana"}
	mustPublish(t, s, newPub("run-3", 1).Add("activities", reply))
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateAvailable {
		t.Fatalf("reply %+v after re-publication", a.UserState)
	}
	if send, ok, err := s.LatestSend(context.Background(), "draft-ana"); err != nil || ok {
		t.Fatalf("a send %+v (%v) after a publication", send, err)
	}
}

// The send's two commits, without Beeper: the claim (PendingSend) before
// the call, the outcome (SettleSend) after it. internal/beeperflow's tests
// run the whole send against a fake Beeper.

func TestPrepareSendReturnsThePriorSendAndRefusesWhatCannotBeSent(t *testing.T) {
	s := sendFixture(t)
	ctx := context.Background()
	plan, err := s.PrepareSend(ctx, confirm("key-1"))
	if err != nil || plan.Prior != nil || plan.Target.DraftID != "draft-ana" || plan.Target.ChatID != anaChat ||
		plan.Target.AccountID != testAccount || plan.Target.ReplyToMessageID != "m-ana-3" {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	other := confirm("key-1")
	other.ChatID = tomasChat
	if _, err := s.PrepareSend(ctx, other); !errors.Is(err, ErrDraftNotInChat) {
		t.Fatalf("a draft of another chat: %v", err)
	}
	gone := confirm("key-1")
	gone.DraftID = "no-such-draft"
	if _, err := s.PrepareSend(ctx, gone); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an unknown draft: %v", err)
	}
	for _, bad := range []SendCommand{{SendKey: "bad key", ChatID: "c", Body: "x"}, {SendKey: "k", ChatID: "c", Body: " "}, {SendKey: "k", Body: "x"}} {
		if _, err := s.PrepareSend(ctx, bad); !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("%+v: %v, want ErrInvalidInput", bad, err)
		}
	}
	send, created, err := s.PendingSend(ctx, plan.Target, confirm("key-1"))
	if err != nil || !created {
		t.Fatalf("claim %+v, %v, %v", send, created, err)
	}
	again, err := s.PrepareSend(ctx, confirm("key-1"))
	if err != nil || again.Prior == nil || again.Prior.ID != send.ID {
		t.Fatalf("the same key again: %+v, %v; want the recorded send", again, err)
	}
}

func TestPendingSendClaimsOncePerKeyAndOneDraftAtATime(t *testing.T) {
	s := sendFixture(t)
	ctx := context.Background()
	plan, err := s.PrepareSend(ctx, confirm("key-1"))
	if err != nil {
		t.Fatal(err)
	}
	before := mustRevision(t, s)
	first, created, err := s.PendingSend(ctx, plan.Target, confirm("key-1"))
	if err != nil || !created || first.Status != SendPending || first.Revision != before+1 {
		t.Fatalf("claim %+v, %v, %v", first, created, err)
	}
	// A double tap finds the claim and calls nobody.
	if again, created, err := s.PendingSend(ctx, plan.Target, confirm("key-1")); err != nil || created || again.ID != first.ID {
		t.Fatalf("the same key again: %+v, %v, %v", again, created, err)
	}
	if _, _, err := s.PendingSend(ctx, plan.Target, confirm("key-2")); !errors.Is(err, ErrSendInFlight) {
		t.Fatalf("another key while one is pending: %v", err)
	}
	if _, err := s.SettleSend(ctx, first.ID, SendFailed, "", "Beeper refused"); err != nil {
		t.Fatal(err)
	}
	second, created, err := s.PendingSend(ctx, plan.Target, confirm("key-2"))
	if err != nil || !created {
		t.Fatalf("a new try after a failure: %+v, %v, %v", second, created, err)
	}
	if _, err := s.SettleSend(ctx, second.ID, SendSent, "m-1", ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.PendingSend(ctx, plan.Target, confirm("key-3")); !errors.Is(err, ErrDraftAlreadySent) {
		t.Fatalf("a third try of a sent draft: %v", err)
	}
}

func TestSettleSendCompletesTheReplyAndKeepsTheRevisionWhenNothingChanged(t *testing.T) {
	s := sendFixture(t)
	ctx := context.Background()
	plan, err := s.PrepareSend(ctx, confirm("key-1"))
	if err != nil {
		t.Fatal(err)
	}
	send, _, err := s.PendingSend(ctx, plan.Target, confirm("key-1"))
	if err != nil {
		t.Fatal(err)
	}
	accepted, err := s.SettleSend(ctx, send.ID, SendPending, "m-1", "Beeper is still sending it")
	if err != nil || !accepted.Accepted() {
		t.Fatalf("accepted %+v, %v", accepted, err)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State == StateCompleted {
		t.Fatal("a send still in Beeper's hands completed the reply")
	}
	rev := mustRevision(t, s)
	if same, err := s.SettleSend(ctx, send.ID, SendPending, "m-1", "Beeper is still sending it"); err != nil || same.Revision != accepted.Revision || mustRevision(t, s) != rev {
		t.Fatalf("the same outcome again: %+v, %v, revision %d → %d", same, err, rev, mustRevision(t, s))
	}
	sent, err := s.SettleSend(ctx, send.ID, SendSent, "m-1", "")
	if err != nil || sent.Status != SendSent || mustRevision(t, s) != rev+1 {
		t.Fatalf("sent %+v, %v", sent, err)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateCompleted {
		t.Fatalf("the reply after the send: %+v", a.UserState)
	}
}
