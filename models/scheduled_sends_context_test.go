package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
)

// scheduleAna confirms Ana's draft reply under key to send at due.
func scheduleAna(t *testing.T, s *Store, key string, due time.Time) ScheduledSend {
	t.Helper()
	target := SendTarget{DraftID: "draft-ana", ChatID: anaChat, AccountID: testAccount}
	sc, err := s.ScheduleSend(context.Background(), target, ScheduleCommand{SendCommand: confirm(key), DueAt: due})
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestTheAgentContextCarriesSendsLaterWaitingHeldAndSentAndLeavesOutCancelled(t *testing.T) {
	s, clock := newTestStore(t)
	publishAnaReply(t, s)
	ctx := context.Background()
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(ac); strings.Contains(string(b), "sendsLater") {
		t.Fatal("a context with nothing to send later names sendsLater: the empty list costs tokens")
	}
	due := clock.Now().Add(time.Hour)
	sc := scheduleAna(t, s, "later-1", due)
	ac, _ = s.AgentContext(ctx)
	if l := ac.SendsLater; len(l) != 1 || l[0].ChatID != anaChat || l[0].DraftID != "draft-ana" || !l[0].DueAt.Equal(due) ||
		l[0].Status != contract.SendLaterScheduled || l[0].HeldBecause != "" {
		t.Fatalf("waiting: %+v, want Ana's draft scheduled at %v", l, due)
	}
	contextValidates(t, ac)
	if cc, _ := s.CompactContext(ctx); len(cc.SendsLater) != 1 {
		t.Fatalf("the compact context leaves out a waiting send: %+v", cc.SendsLater)
	}

	if _, err := s.CancelScheduledSend(ctx, anaChat, sc.SendKey); err != nil {
		t.Fatal(err)
	}
	if ac, _ = s.AgentContext(ctx); len(ac.SendsLater) != 0 {
		t.Fatalf("a cancelled send is still carried: %+v", ac.SendsLater)
	}

	sc = scheduleAna(t, s, "later-2", due)
	clock.Advance(time.Hour)
	if _, claimed, err := s.ClaimScheduledSend(ctx, sc.ID); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	if ac, _ = s.AgentContext(ctx); len(ac.SendsLater) != 1 || ac.SendsLater[0].Status != contract.SendLaterScheduled {
		t.Fatalf("going: %+v, want still scheduled", ac.SendsLater)
	}
	if _, err := s.HoldScheduledSend(ctx, sc.ID, "a new message arrived in the chat since you confirmed"); err != nil {
		t.Fatal(err)
	}
	ac, _ = s.AgentContext(ctx)
	if len(ac.SendsLater) != 1 || ac.SendsLater[0].Status != contract.SendLaterHeld || ac.SendsLater[0].HeldBecause == "" {
		t.Fatalf("held: %+v, want held with why", ac.SendsLater)
	}
	contextValidates(t, ac)

	sc = scheduleAna(t, s, "later-3", clock.Now().Add(time.Minute))
	clock.Advance(time.Minute)
	if _, claimed, err := s.ClaimScheduledSend(ctx, sc.ID); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	if _, err := s.ScheduledSendWent(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	ac, _ = s.AgentContext(ctx)
	if len(ac.SendsLater) != 2 || ac.SendsLater[1].Status != contract.SendLaterSent {
		t.Fatalf("after one went: %+v, want the held one and the sent one, by due time", ac.SendsLater)
	}
	contextValidates(t, ac)

	// Held and sent ones older than the context's history are left out.
	clock.Advance(contract.ContextHistory + time.Hour)
	if ac, _ = s.AgentContext(ctx); len(ac.SendsLater) != 0 {
		t.Fatalf("settled sends-later older than %v are still carried: %+v", contract.ContextHistory, ac.SendsLater)
	}
}

func TestTheDecisionsExportHoldsTheSendsLater(t *testing.T) {
	s, clock := newTestStore(t)
	publishAnaReply(t, s)
	ctx := context.Background()
	due := clock.Now().Add(time.Hour)
	scheduleAna(t, s, "later-1", due)
	tables, err := ReadModels.DecisionTables(s, ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows := tables["scheduledSends"]
	if len(rows) != 1 || rows[0]["send_key"] != "later-1" || rows[0]["state"] != ScheduleWaiting || rows[0]["chat_id"] != anaChat {
		t.Fatalf("the export's scheduledSends: %+v", rows)
	}
	if at, err := time.Parse(time.RFC3339, fmt.Sprint(rows[0]["due_at"])); err != nil || !at.Equal(due) {
		t.Fatalf("due_at %v, want %v as RFC 3339", rows[0]["due_at"], due)
	}
}
