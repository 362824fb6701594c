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

// followedSend is the agent context's view of the send under key.
func followedSend(t *testing.T, s *models.Store, key string) contract.SendView {
	t.Helper()
	return storetest.MustFind(t, "send", storetest.Read(t, read.Of(s).AgentContext).Sends.Items, key, func(v contract.SendView) string { return v.SendKey })
}

func TestTheWatchFollowsASendToDeliveredSeenAndAnswered(t *testing.T) {
	s, now, fake, client, w := kindsFixture(t, time.Minute)
	ctx := context.Background()
	sentAt := now.Now()
	send, err := ConfirmSend(ctx, s, client, confirm("key-follow"))
	if err != nil || send.Status != models.SendSent {
		t.Fatalf("send: %+v, %v", send, err)
	}
	// The fake delivers a send at once; Ana's network reports no receipt yet.
	now.Advance(time.Minute)
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	f := followedSend(t, s, "key-follow").Followed
	if f == nil || f.DeliveredAt == nil || !f.DeliveredAt.Equal(sentAt) || f.SeenAt != nil || f.AnsweredAt != nil {
		t.Fatalf("after a pass: followed %+v; want delivered at the send, not seen, not answered", f)
	}

	// Seen, with no time: dated when the watch first reads it.
	now.Advance(4 * time.Minute)
	if _, err := fake.SetSeen(beepertest.AnaChatID, send.PendingMessageID, beeper.SeenFlag(true)); err != nil {
		t.Fatal(err)
	}
	seenRead := now.Now()
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	// A reaction to the reply is not its answer.
	now.Advance(time.Minute)
	fake.Add(beepertest.AnaChatID, quietMessages(send.PendingMessageID)["reaction"])
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	f = followedSend(t, s, "key-follow").Followed
	if f == nil || f.SeenAt == nil || !f.SeenAt.Equal(seenRead) || f.AnsweredAt != nil {
		t.Fatalf("after seen and a reaction: followed %+v; want seen at %v, not answered", f, seenRead)
	}

	now.Advance(17 * time.Minute)
	answered := now.Now()
	fake.Incoming(beepertest.AnaChatID, anaID, "Perfect, see you then")
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	f = followedSend(t, s, "key-follow").Followed
	if f == nil || f.AnsweredAt == nil || !f.AnsweredAt.Equal(answered) || f.AnsweredAfterMinutes == nil || *f.AnsweredAfterMinutes != 23 {
		t.Fatalf("after Ana's answer: followed %+v; want answered at %v, 23 minutes after", f, answered)
	}
	if n := len(storetest.Read(t, s.FollowedSends)); n != 0 {
		t.Fatalf("%d sends still followed after the answer", n)
	}
	// Once answered, the send is followed no more: a later receipt is not read.
	if _, err := fake.SetSeen(beepertest.AnaChatID, send.PendingMessageID, beeper.SeenTime(answered)); err != nil {
		t.Fatal(err)
	}
	now.Advance(time.Minute)
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := followedSend(t, s, "key-follow").Followed; !got.SeenAt.Equal(seenRead) {
		t.Fatalf("a receipt after the answer moved seen to %v", got.SeenAt)
	}
}

// oneMessage answers every message read with msg, or err.
type oneMessage struct {
	msg beeper.Message
	err error
}

func (o oneMessage) Messages(context.Context, string, beeper.MessagesQuery) (beeper.MessagePage, error) {
	return beeper.MessagePage{}, nil
}

func (o oneMessage) Message(context.Context, string, string) (beeper.Message, error) {
	return o.msg, o.err
}

func TestFollowingRecordsNothingBeeperDidNotReport(t *testing.T) {
	for name, c := range map[string]struct {
		reader  oneMessage
		wantErr bool
	}{
		"a message Beeper does not know": {oneMessage{err: beeper.ErrNotFound}, false},
		"Beeper unreachable":             {oneMessage{err: beeper.ErrUnavailable}, true},
		"still sending, no receipt":      {oneMessage{msg: beeper.Message{SendStatus: &beeper.SendStatus{Status: beeper.StatusPending}}}, false},
		"sent, delivered to nobody yet":  {oneMessage{msg: beeper.Message{SendStatus: &beeper.SendStatus{Status: beeper.StatusSuccess}, Seen: beeper.SeenFlag(false)}}, false},
		"a receipt in a shape not known": {oneMessage{msg: beeper.Message{Seen: beeper.SeenBy(nil)}}, false},
	} {
		t.Run(name, func(t *testing.T) {
			s, _, _, client, _ := kindsFixture(t, time.Minute)
			ctx := context.Background()
			if _, err := ConfirmSend(ctx, s, client, confirm("key-follow")); err != nil {
				t.Fatal(err)
			}
			rev := mustRevision(t, s)
			n, err := FollowSends(ctx, s, c.reader)
			if n != 0 || (err != nil) != c.wantErr {
				t.Fatalf("FollowSends = %d, %v; want 0 and an error: %v", n, err, c.wantErr)
			}
			if f := followedSend(t, s, "key-follow").Followed; f != nil || mustRevision(t, s) != rev {
				t.Fatalf("followed %+v, revision %d -> %d; want nothing recorded", f, rev, mustRevision(t, s))
			}
		})
	}
}
