package models

import (
	"context"
	"testing"
	"time"

	"hearth/internal/storetest"
)

// heldOwnReply confirms an own reply (no draft) for later in chatID and
// holds it at its time, as the watch does when the chat moved on.
func heldOwnReply(t *testing.T, s *Store, clock *storetest.Clock, chatID string) ScheduledSend {
	t.Helper()
	ctx := context.Background()
	sc, err := s.ScheduleSend(ctx, SendTarget{ChatID: chatID, AccountID: "acc"},
		ScheduleCommand{SendCommand: SendCommand{SendKey: "own-" + chatID, ChatID: chatID, Body: "See you at eight"},
			DueAt: clock.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if _, claimed, err := s.ClaimScheduledSend(ctx, sc.ID); err != nil || !claimed {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	if sc, err = s.HoldScheduledSend(ctx, sc.ID, "a new message arrived in the chat since you confirmed"); err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestAHeldOwnReplyWaitsOnTheOwnerInTheListAndInOneNotification(t *testing.T) {
	s, clock := subscribedStore(t)
	sc := heldOwnReply(t, s, clock, "chat-own")
	key := "held-send:" + itoa(sc.ID)

	it := waitingItem(t, waitingOf(t, s).Needs, key)
	if it.Kind != WaitHeldSend || it.ChatID != "chat-own" {
		t.Errorf("the held own reply in the list: %+v", it)
	}
	onlyKeys(t, plan(t, s), key)
	if err := s.SettlePush(context.Background(), key, true, nil); err != nil {
		t.Fatal(err)
	}
	// Still held: no close, no second notification.
	onlyKeys(t, plan(t, s))
}

func TestAProposalOnTheListNamesItsRoutineByTitle(t *testing.T) {
	s, _ := everyWaitingKind(t)
	it := waitingItem(t, waitingOf(t, s).Needs, "proposal:rv-1/p1")
	if it.Detail != "proposed by the review of Morning" {
		t.Errorf("the proposal says %q; want the routine's title, not its id", it.Detail)
	}
}
