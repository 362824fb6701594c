package beeperflow

import (
	"context"
	"slices"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/models"
)

// callLog is the order in which a send reached the store and Beeper.
type callLog []string

// fakeStore is the store as the send sees it: PrepareSend answers plan,
// PendingSend answers created.
type fakeStore struct {
	Store   // the methods a test does not use panic
	log     *callLog
	plan    models.SendPlan
	created bool
}

func (f fakeStore) Now() time.Time { return testNow }

func (f fakeStore) PrepareSend(context.Context, models.SendCommand) (models.SendPlan, error) {
	*f.log = append(*f.log, "prepare")
	return f.plan, nil
}

func (f fakeStore) PendingSend(_ context.Context, target models.SendTarget, cmd models.SendCommand) (models.Send, bool, error) {
	*f.log = append(*f.log, "claim")
	return models.Send{ID: 7, SendKey: cmd.SendKey, ChatID: target.ChatID, Status: models.SendPending}, f.created, nil
}

func (f fakeStore) SettleSend(_ context.Context, id int64, status, pendingID, note string) (models.Send, error) {
	*f.log = append(*f.log, "settle "+status)
	return models.Send{ID: id, Status: status, PendingMessageID: pendingID, Error: note}, nil
}

// fakeBeeper accepts every send and reports it delivered.
type fakeBeeper struct{ log *callLog }

func (b fakeBeeper) Messages(context.Context, string, beeper.MessagesQuery) (beeper.MessagePage, error) {
	*b.log = append(*b.log, "beeper: read chat")
	return beeper.MessagePage{}, nil
}

func (b fakeBeeper) Message(context.Context, string, string) (beeper.Message, error) {
	*b.log = append(*b.log, "beeper: read status")
	return beeper.Message{SendStatus: &beeper.SendStatus{Status: beeper.StatusSuccess}}, nil
}

func (b fakeBeeper) Send(context.Context, string, beeper.SendRequest) (beeper.SendResult, error) {
	*b.log = append(*b.log, "beeper: send")
	return beeper.SendResult{PendingMessageID: "m-1"}, nil
}

func TestConfirmSendCallsBeeperOnlyBetweenTheClaimAndTheSettle(t *testing.T) {
	cmd := models.SendCommand{SendKey: "k", ChatID: "chat", Body: "hi"}
	for _, tc := range []struct {
		name string
		st   fakeStore
		want []string
	}{
		{"claimed", fakeStore{plan: models.SendPlan{Target: models.SendTarget{ChatID: "chat"}}, created: true},
			[]string{"prepare", "beeper: read chat", "claim", "beeper: send", "beeper: read status", "settle sent"}},
		{"claimed first by another confirm", fakeStore{plan: models.SendPlan{Target: models.SendTarget{ChatID: "chat"}}},
			[]string{"prepare", "beeper: read chat", "claim"}},
		{"already recorded under the key", fakeStore{plan: models.SendPlan{Prior: &models.Send{ID: 3, Status: models.SendSent}}},
			[]string{"prepare"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log callLog
			tc.st.log = &log
			if _, err := ConfirmSend(context.Background(), tc.st, fakeBeeper{log: &log}, cmd); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(log, tc.want) {
				t.Fatalf("calls %q, want %q", log, tc.want)
			}
		})
	}
}
