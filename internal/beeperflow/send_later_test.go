package beeperflow

import (
	"context"
	"errors"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/storetest"
	"hearth/models"
)

// laterFixture is sendFixtureAt with a send of Ana's draft confirmed for
// an hour from now.
func laterFixture(t *testing.T) (*models.Store, *storetest.Clock, *beepertest.Fake, *beeper.Client, models.ScheduledSend) {
	t.Helper()
	s, clock, fake, client := sendFixtureAt(t, nil, models.Options{})
	sc, err := ScheduleSend(context.Background(), s, client, confirm("later-1"), testNow.Add(time.Hour))
	if err != nil || sc.State != models.ScheduleWaiting {
		t.Fatalf("schedule: %+v, %v", sc, err)
	}
	return s, clock, fake, client, sc
}

// scheduleState reads the state and note of the draft's scheduled send as
// Messages shows it ("" when none is shown).
func scheduleState(t *testing.T, s *models.Store) (state, note string) {
	t.Helper()
	d, err := s.ChatDraft(context.Background(), beepertest.AnaChatID, "draft-ana")
	if err != nil || d == nil {
		t.Fatalf("draft: %v %v", d, err)
	}
	if d.Scheduled == nil {
		return "", ""
	}
	return d.Scheduled.State, d.Scheduled.Note
}

func mustSendDue(t *testing.T, s *models.Store, client *beeper.Client) int {
	t.Helper()
	n, err := SendDue(context.Background(), s, client)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestASendLaterGoesAtItsTimeOnceAndNotBefore(t *testing.T) {
	s, clock, fake, client, _ := laterFixture(t)
	clock.Advance(59 * time.Minute)
	if n := mustSendDue(t, s, client); n != 0 || len(fake.Sends()) != 0 {
		t.Fatalf("before its time: %d went, fake got %+v", n, fake.Sends())
	}
	if st, _ := scheduleState(t, s); st != models.ScheduleWaiting {
		t.Fatalf("before its time the send is %q, want waiting", st)
	}
	clock.Advance(time.Minute)
	if n := mustSendDue(t, s, client); n != 1 {
		t.Fatalf("at its time %d went, want 1", n)
	}
	if n := mustSendDue(t, s, client); n != 0 {
		t.Fatalf("a second pass sent %d more", n)
	}
	sends := fake.Sends()
	if len(sends) != 1 || sends[0].Text != "Saturday works, 8am!" || sends[0].ReplyToMessageID != "m-ana-3" {
		t.Fatalf("fake received %+v, want the reply once", sends)
	}
	send, ok, err := s.SendByKey(context.Background(), "later-1")
	if err != nil || !ok || send.Status != models.SendSent {
		t.Fatalf("the send under the schedule's key: %+v %v %v", send, ok, err)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != models.StateCompleted {
		t.Fatalf("reply activity %+v, want completed", a.UserState)
	}
}

func TestASendLaterIsHeldWhenTheChatMovedOn(t *testing.T) {
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
			s, clock, fake, client, _ := laterFixture(t)
			fake.Add(beepertest.AnaChatID, c.msg)
			clock.Advance(time.Hour)
			if n := mustSendDue(t, s, client); n != 0 {
				t.Fatalf("%d went", n)
			}
			for _, sd := range fake.Sends() {
				if sd.Text == "Saturday works, 8am!" {
					t.Fatalf("the held reply reached Beeper: %+v", fake.Sends())
				}
			}
			if st, note := scheduleState(t, s); st != models.ScheduleHeld || note != c.note {
				t.Fatalf("schedule %q (%q), want held (%q)", st, note, c.note)
			}
			if _, ok, _ := s.SendByKey(context.Background(), "later-1"); ok {
				t.Fatal("a held send recorded a send")
			}
			if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State == models.StateCompleted {
				t.Fatal("a held reply completed its activity")
			}
			if n := mustSendDue(t, s, client); n != 0 {
				t.Fatalf("a held send went on the next pass (%d)", n)
			}
		})
	}
}

func TestASendLaterStillGoesAfterAReactionOrNotice(t *testing.T) {
	s, clock, fake, client, _ := laterFixture(t)
	fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: "@ana:beeper.local", Type: beeper.TypeReaction, Text: "👍", LinkedMessageID: "m-ana-3"})
	fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: "@ana:beeper.local", Type: beeper.TypeNotice, Text: "Ana changed her profile picture"})
	clock.Advance(time.Hour)
	if n := mustSendDue(t, s, client); n != 1 || len(fake.Sends()) != 1 {
		t.Fatalf("%d went, fake got %+v; a reaction or notice must not hold it", n, fake.Sends())
	}
}

func TestASendLaterIsHeldWhenTheDraftChangedSince(t *testing.T) {
	s, clock, fake, client, _ := laterFixture(t)
	if _, err := s.SaveDraftWording(context.Background(), "draft-ana", models.WordingForm{Body: "Sunday works better"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if n := mustSendDue(t, s, client); n != 0 || len(fake.Sends()) != 0 {
		t.Fatalf("%d went, fake got %+v", n, fake.Sends())
	}
	if st, note := scheduleState(t, s); st != models.ScheduleHeld || note != "the draft changed since you confirmed" {
		t.Fatalf("schedule %q (%q), want held for the edit", st, note)
	}
}

func TestASendLaterCancelledBeforeItsTimeNeverGoes(t *testing.T) {
	s, clock, fake, client, sc := laterFixture(t)
	if _, err := s.CancelScheduledSend(context.Background(), "!other:beeper.local", sc.SendKey); err != models.ErrNotFound {
		t.Fatalf("cancel from another chat: %v, want not found", err)
	}
	if _, err := s.CancelScheduledSend(context.Background(), beepertest.AnaChatID, sc.SendKey); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Hour)
	if n := mustSendDue(t, s, client); n != 0 || len(fake.Sends()) != 0 {
		t.Fatalf("a cancelled send went: %d, fake got %+v", n, fake.Sends())
	}
	if st, _ := scheduleState(t, s); st != "" {
		t.Fatalf("a cancelled send still shows as %q", st)
	}
}

func TestASendLaterOnceGoingCannotBeCancelled(t *testing.T) {
	s, clock, _, _, sc := laterFixture(t)
	clock.Advance(time.Hour)
	if _, claimed, err := s.ClaimScheduledSend(context.Background(), sc.ID); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	if _, err := s.CancelScheduledSend(context.Background(), beepertest.AnaChatID, sc.SendKey); err != models.ErrNotCancellable {
		t.Fatalf("cancel while going: %v, want ErrNotCancellable", err)
	}
}

func TestASendLaterWhoseSendWasRecordedBeforeAStopNeverGoesTwice(t *testing.T) {
	s, clock, fake, client, sc := laterFixture(t)
	clock.Advance(time.Hour)
	// An earlier pass claimed it and sent it under its key, then hearth
	// stopped before recording that the schedule went.
	if _, claimed, err := s.ClaimScheduledSend(context.Background(), sc.ID); err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	if _, err := ConfirmSend(context.Background(), s, client, models.SendCommand{SendKey: sc.SendKey, DraftID: string(sc.DraftID),
		ChatID: sc.ChatID, Body: sc.Body, SourceMessageRevision: sc.IncomingSortKey}); err != nil {
		t.Fatal(err)
	}
	if n := mustSendDue(t, s, client); n != 0 || len(fake.Sends()) != 1 {
		t.Fatalf("after the stop %d went again, fake got %+v", n, fake.Sends())
	}
	if st, _ := scheduleState(t, s); st != "" {
		t.Fatalf("the schedule shows as %q after its send went", st)
	}
}

func TestASendLaterTooLateIsHeldNotSent(t *testing.T) {
	s, clock, fake, client, _ := laterFixture(t)
	clock.Advance(time.Hour + MaxLate + time.Minute)
	if n := mustSendDue(t, s, client); n != 0 || len(fake.Sends()) != 0 {
		t.Fatalf("%d went late, fake got %+v", n, fake.Sends())
	}
	if st, note := scheduleState(t, s); st != models.ScheduleHeld || note != heldLate {
		t.Fatalf("schedule %q (%q), want held as late", st, note)
	}
}

func TestASendLaterIsRefusedForThePastBeyondTomorrowOrAStaleReview(t *testing.T) {
	s, _, fake, client := sendFixtureAt(t, nil, models.Options{})
	for _, due := range []time.Time{testNow, testNow.Add(-time.Minute), testNow.Add(models.MaxScheduleAhead + time.Minute)} {
		if _, err := ScheduleSend(context.Background(), s, client, confirm("later-x"), due); err == nil {
			t.Fatalf("scheduled for %v", due)
		}
	}
	fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: "@ana:beeper.local", Text: "Are you there?"})
	var stale *StaleDraftError
	if _, err := ScheduleSend(context.Background(), s, client, confirm("later-y"), testNow.Add(time.Hour)); !errors.As(err, &stale) {
		t.Fatalf("a stale review scheduled: %v", err)
	}
	if st, _ := scheduleState(t, s); st != "" {
		t.Fatalf("a refused schedule shows as %q", st)
	}
}

func TestSendingNowCancelsTheDraftsSendLater(t *testing.T) {
	s, clock, fake, client, _ := laterFixture(t)
	if _, err := ConfirmSend(context.Background(), s, client, confirm("now-1")); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if n := mustSendDue(t, s, client); n != 0 || len(fake.Sends()) != 1 {
		t.Fatalf("the send later went too: %d, fake got %+v", n, fake.Sends())
	}
	if st, _ := scheduleState(t, s); st != "" {
		t.Fatalf("the send later of a reply sent at once shows as %q, want cancelled", st)
	}
}
