package beeperflow

import (
	"context"
	"errors"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/models"
)

// ownLaterBody is the owner's own words the own send-later tests confirm.
const ownLaterBody = "On my way, see you at 8"

// ownLater is the confirmation of the owner's own reply to Ana's chat,
// reviewed at the chat's newest message (m-ana-3, sort key 3).
func ownLater(key string) models.SendCommand {
	return models.SendCommand{SendKey: key, ChatID: beepertest.AnaChatID, Body: ownLaterBody, SourceMessageRevision: "3"}
}

// ownLaterFixture is sendFixtureAt with the owner's own reply to Ana
// confirmed for an hour from now.
func ownLaterFixture(t *testing.T) (*models.Store, func(time.Duration), *beepertest.Fake, *beeper.Client, models.ScheduledSend) {
	t.Helper()
	s, clock, fake, client := sendFixtureAt(t, nil, models.Options{})
	sc, err := ScheduleSend(context.Background(), s, client, ownLater("own-later-1"), testNow.Add(time.Hour))
	if err != nil || sc.State != models.ScheduleWaiting {
		t.Fatalf("schedule an own reply: %+v, %v", sc, err)
	}
	return s, clock.Advance, fake, client, sc
}

// ownSendsOf counts the fake's sends of text.
func sendsOf(fake *beepertest.Fake, text string) int {
	n := 0
	for _, sd := range fake.Sends() {
		if sd.Text == text {
			n++
		}
	}
	return n
}

// laterState reads a scheduled send's state and note by its key.
func laterState(t *testing.T, s *models.Store, key string) (state, note string) {
	t.Helper()
	sc, ok, err := s.ScheduledSendByKey(context.Background(), key)
	if err != nil || !ok {
		t.Fatalf("scheduled send %s: %v %v", key, ok, err)
	}
	return sc.State, sc.Note
}

func TestAnOwnReplySentLaterGoesAtItsTimeOnceAndAnswersTheChat(t *testing.T) {
	s, advance, fake, client, sc := ownLaterFixture(t)
	advance(59 * time.Minute)
	if n := mustSendDue(t, s, client); n != 0 || len(fake.Sends()) != 0 {
		t.Fatalf("before its time: %d went, fake got %+v", n, fake.Sends())
	}
	advance(time.Minute)
	if n := mustSendDue(t, s, client); n != 1 {
		t.Fatalf("at its time %d went, want 1", n)
	}
	if n := mustSendDue(t, s, client); n != 0 {
		t.Fatalf("a second pass sent %d more", n)
	}
	if n := sendsOf(fake, ownLaterBody); n != 1 {
		t.Fatalf("the fake has the own reply %d times, want once: %+v", n, fake.Sends())
	}
	send, ok, err := s.SendByKey(context.Background(), sc.SendKey)
	if err != nil || !ok || send.Status != models.SendSent || !send.Own() || send.AccountID != beepertest.AccountID {
		t.Fatalf("the send under the schedule's key: %+v %v %v, want the owner's own, sent from the chat's account", send, ok, err)
	}
	if st, _ := laterState(t, s, sc.SendKey); st != models.ScheduleWent {
		t.Fatalf("the schedule is %q, want went", st)
	}
	// The owner answered in their own words: the agent's draft is replaced.
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateCompleted {
		t.Fatalf("reply activity %+v, want completed by the own reply", a.UserState)
	}
}

func TestAnOwnReplySentLaterIsHeldWhenTheChatMovedOn(t *testing.T) {
	cases := []struct {
		name string
		msg  beeper.Message
		note string
	}{
		{"a new message from Ana", beeper.Message{SenderID: "@ana:beeper.local", Text: "Actually, can we do Sunday?"}, heldIncoming},
		{"the owner's own reply in Beeper", beeper.Message{SenderID: beepertest.SelfID, Text: "Saturday!"}, heldOwn},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, advance, fake, client, sc := ownLaterFixture(t)
			fake.Add(beepertest.AnaChatID, c.msg)
			advance(time.Hour)
			if n := mustSendDue(t, s, client); n != 0 || sendsOf(fake, ownLaterBody) != 0 {
				t.Fatalf("%d went, fake got %+v", n, fake.Sends())
			}
			if st, note := laterState(t, s, sc.SendKey); st != models.ScheduleHeld || note != c.note {
				t.Fatalf("schedule %q (%q), want held (%q)", st, note, c.note)
			}
			if _, ok, _ := s.SendByKey(context.Background(), sc.SendKey); ok {
				t.Fatal("a held own reply recorded a send")
			}
			if n := mustSendDue(t, s, client); n != 0 {
				t.Fatalf("a held own reply went on the next pass (%d)", n)
			}
		})
	}
}

func TestAnOwnReplySentLaterStillGoesAfterAReaction(t *testing.T) {
	s, advance, fake, client, _ := ownLaterFixture(t)
	fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: "@ana:beeper.local", Type: beeper.TypeReaction, Text: "👍", LinkedMessageID: "m-ana-3"})
	advance(time.Hour)
	if n := mustSendDue(t, s, client); n != 1 || sendsOf(fake, ownLaterBody) != 1 {
		t.Fatalf("%d went, fake got %+v; a reaction must not hold it", n, fake.Sends())
	}
}

func TestAnOwnReplySentLaterWhoseSendWasRecordedBeforeAStopNeverGoesTwice(t *testing.T) {
	s, advance, fake, client, sc := ownLaterFixture(t)
	advance(time.Hour)
	if _, claimed, err := s.ClaimScheduledSend(context.Background(), sc.ID); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	if _, err := ConfirmSend(context.Background(), s, client, models.SendCommand{SendKey: sc.SendKey, ChatID: sc.ChatID, Body: sc.Body,
		SourceMessageRevision: sc.IncomingSortKey}); err != nil {
		t.Fatal(err)
	}
	if n := mustSendDue(t, s, client); n != 0 || sendsOf(fake, ownLaterBody) != 1 {
		t.Fatalf("after the stop %d went again, fake got %+v", n, fake.Sends())
	}
	if st, _ := laterState(t, s, sc.SendKey); st != models.ScheduleWent {
		t.Fatalf("the schedule is %q after its send went, want went", st)
	}
}

func TestAnOwnReplySentLaterCancelledBeforeItsTimeNeverGoes(t *testing.T) {
	s, advance, fake, client, sc := ownLaterFixture(t)
	if _, err := s.CancelScheduledSend(context.Background(), beepertest.AnaChatID, sc.SendKey); err != nil {
		t.Fatal(err)
	}
	advance(2 * time.Hour)
	if n := mustSendDue(t, s, client); n != 0 || len(fake.Sends()) != 0 {
		t.Fatalf("a cancelled own reply went: %d, fake got %+v", n, fake.Sends())
	}
}

func TestASecondOwnReplyForLaterInTheSameChatIsRefusedWhileOneWaits(t *testing.T) {
	s, _, _, client, _ := ownLaterFixture(t)
	if _, err := ScheduleSend(context.Background(), s, client, ownLater("own-later-2"), testNow.Add(2*time.Hour)); !errors.Is(err, models.ErrAlreadyScheduled) {
		t.Fatalf("a second own reply for later: %v, want ErrAlreadyScheduled", err)
	}
	// The same confirmation again is the schedule it made.
	again, err := ScheduleSend(context.Background(), s, client, ownLater("own-later-1"), testNow.Add(time.Hour))
	if err != nil || again.SendKey != "own-later-1" {
		t.Fatalf("the same confirmation again: %+v, %v", again, err)
	}
	// A draft's reply in the same chat is another reply: it may wait too.
	if _, err := ScheduleSend(context.Background(), s, client, confirm("later-draft"), testNow.Add(time.Hour)); err != nil {
		t.Fatalf("a draft's reply beside an own one: %v", err)
	}
}
