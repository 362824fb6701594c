package beeperflow

import (
	"context"
	"testing"
	"time"

	"hearth/beeper/beepertest"
	"hearth/models"
)

// A hand-off into a chat the watch has not read yet (before its baseline,
// or a chat past its first pages) is compared from the watch's first read
// of the chat: what was there before the hand-off is not the chat moving on.
func TestAHandOffBeforeTheWatchFirstReadTheChatStaysUntilTheChatMovesOn(t *testing.T) {
	s, now, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	now.Advance(time.Hour)
	const text = "Let me check and get back to you"
	if _, err := handOffAna(t, s, client, text); err != nil {
		t.Fatal(err)
	}
	w := NewWatch(s, client, WatchOptions{})
	now.Advance(time.Minute)
	for range 2 { // the baseline, then a pass with nothing new
		if _, err := w.Tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := fake.Composer(beepertest.AnaChatID); got != text {
		t.Fatalf("the watch's first read of the chat took the hand-off back out: the composer holds %q", got)
	}
	// A message after the hand-off is the chat moving on.
	now.Advance(time.Minute)
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Any news?")
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fake.Composer(beepertest.AnaChatID); got != "" {
		t.Fatalf("a new message did not withdraw the hand-off: the composer holds %q", got)
	}
}

// A message that came after the hand-off but before the watch's first read
// of a chat it had not seen still moves the chat on.
func TestAMessageAfterAHandOffTheWatchHadNotSeenTheChatForStillWithdrawsIt(t *testing.T) {
	s, now, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	w := NewWatch(s, client, WatchOptions{})
	if _, err := w.Tick(ctx); err != nil { // the baseline, before the chat exists
		t.Fatal(err)
	}
	now.Advance(time.Minute)
	const chat = "!mara:beeper.local"
	fake.AddChat(chat, "Mara", "Can you water the plants on Sunday?")
	now.Advance(time.Minute)
	const text = "Sure, I'll be around"
	if _, err := HandOffToBeeper(ctx, s, client, handOffOwn(chat, text)); err != nil {
		t.Fatal(err)
	}
	now.Advance(time.Minute)
	fake.Incoming(chat, "@mara-member:beeper.local", "Never mind, my sister can.")
	now.Advance(time.Minute)
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fake.Composer(chat); got != "" {
		t.Fatalf("Mara's later message did not withdraw the hand-off: the composer holds %q", got)
	}
}

// handOffOwn is the owner's own text (no draft) handed off into chatID.
func handOffOwn(chatID, text string) models.HandOff {
	return models.HandOff{ChatID: chatID, AccountID: beepertest.AccountID, Form: models.WordingForm{Body: text}}
}
