package beeperflow

import (
	"context"
	"errors"
	"testing"

	"hearth/beeper/beepertest"
	"hearth/internal/storetest"
	"hearth/models"
)

// routineDef is a daily two-step routine: a required weigh-in and an optional stretch.
var routineDef = storetest.Routine

func TestASendCompletesTodaysRoutineReplyStepForItsChat(t *testing.T) {
	s, fake, client := sendFixture(t, nil)
	ctx := context.Background()
	def := routineDef("inbox", 1)
	def["steps"] = []any{map[string]any{"id": "answer", "title": "Answer Ana", "kind": "reply", "required": true, "payload": map[string]any{"chatId": beepertest.AnaChatID}}}
	mustPublish(t, s, newPub("run-inbox", mustRevision(t, s)).Add("routineDefinitions", def))
	if _, err := s.StartTrial(ctx, models.TrialCommand{RoutineID: "inbox", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "hearth:inbox@2026-09-29:answer", models.StateCompleted, "", ""); !errors.Is(err, models.ErrCompletedElsewhere) {
		t.Fatalf("a reply step marked complete by hand: %v", err)
	}
	if send, err := ConfirmSend(ctx, s, client, confirm("key-1")); err != nil || send.Status != models.SendSent {
		t.Fatalf("send %+v %v", send, err)
	}
	row, _, err := s.HomeRow(ctx, "hearth:inbox@2026-09-29")
	if err != nil || row.UserState.State != models.StateCompleted || len(fake.Sends()) != 1 {
		t.Fatalf("routine after the send: %+v %v", row.UserState, err)
	}
}
