package beeperflow

import (
	"context"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/models"
	"hearth/models/read"
)

// anaDraft is what the context says of draft-ana and the owner's reply
// decisions about it.
func anaDraft(t *testing.T, s *models.Store) (*contract.DraftOutcomeView, []contract.ReplyDecisionView) {
	t.Helper()
	ac := storetest.Read(t, read.Of(s).AgentContext)
	d := storetest.MustFind(t, "draft", ac.ReplyDrafts.Items, "draft-ana", func(d contract.DraftView) string { return d.ID })
	var decisions []contract.ReplyDecisionView
	for _, r := range ac.ReplyDecisions.Items {
		if r.DraftID == "draft-ana" {
			decisions = append(decisions, r)
		}
	}
	return d.Outcome, decisions
}

// beeperReplyWatch is watchFixture with the Beeper client, for sends.
func beeperReplyWatch(t *testing.T) (*models.Store, *beepertest.Fake, *beeper.Client, *Watch) {
	t.Helper()
	s, now := newTestStore(t)
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now))
	publishAnaReply(t, s)
	w := NewWatch(s, b.Client, WatchOptions{})
	if n, err := w.Tick(context.Background()); err != nil || n != 0 {
		t.Fatalf("baseline recorded %d, %v", n, err)
	}
	now.Advance(time.Second)
	return s, b.Fake, b.Client, w
}

func TestTheWatchSettlesADraftTheOwnerAnsweredInBeeper(t *testing.T) {
	s, fake, _, w := beeperReplyWatch(t)
	fake.Incoming(beepertest.AnaChatID, beepertest.SelfID, "8 at the trailhead, see you there!")
	if n, err := w.Tick(context.Background()); err != nil || n != 1 {
		t.Fatalf("tick recorded %d, %v", n, err)
	}
	o, decisions := anaDraft(t, s)
	if o == nil || o.Kind != models.DraftReplaced || o.Text != "8 at the trailhead, see you there!" || o.SendKey != "" {
		t.Fatalf("outcome %+v; want replaced by the owner's words, no sendKey", o)
	}
	if len(decisions) != 1 || decisions[0].Decision != models.ActionOwnReply {
		t.Fatalf("decisions %+v", decisions)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateCompleted || a.UserState.Note != models.WatchAnsweredNote {
		t.Fatalf("reply activity %+v; want completed, noted as the watch's", a.UserState)
	}
}

// The watch's pass reads the chat before it settles accepted sends: it sees
// hearth's own reply, delivered under another ID than the one Beeper
// accepted it under, while hearth still has it pending.
func TestTheWatchDoesNotTakeHearthsOwnSendForTheOwnersBeeperReply(t *testing.T) {
	s, fake, client, w := beeperReplyWatch(t)
	ctx := context.Background()
	fake.HoldSends(true)
	send, err := ConfirmSend(ctx, s, client, models.SendCommand{SendKey: "own-1", ChatID: beepertest.AnaChatID, Body: "I'll call you tonight.", SourceMessageRevision: "3"})
	if err != nil || !send.Accepted() {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusSuccess, ""); err != nil {
		t.Fatal(err)
	}
	if n, err := w.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("tick recorded %d, %v", n, err)
	}
	o, decisions := anaDraft(t, s)
	if o == nil || o.Kind != models.DraftReplaced || o.SendKey != "own-1" || len(decisions) != 1 || decisions[0].SendKey != "own-1" {
		t.Fatalf("outcome %+v, decisions %+v; want the one own reply hearth sent", o, decisions)
	}
}
