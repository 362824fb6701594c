package beeperflow

import (
	"context"
	"slices"
	"testing"
	"time"

	"hearth/beeper/beepertest"
	"hearth/models"
)

func TestADeletedLastIncomingMessageLeavesNoReplyOwedWhenTheOwnerSpokeLast(t *testing.T) {
	s, now, fake, _, w := owedFixture(t)
	ctx := context.Background()
	if got := owedChats(t, s); !slices.Contains(got, beepertest.TomasChatID) {
		t.Fatalf("owed %v; want Tomas's chat owed before the deletion", got)
	}
	now.Advance(time.Minute)
	// Tomas deletes his last message: the owner's question is the newest that counts.
	if _, err := fake.Edit(beepertest.TomasChatID, "m-tomas-3", "", true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := owedChats(t, s); slices.Contains(got, beepertest.TomasChatID) {
		t.Fatalf("owed %v after Tomas deleted his last message; want his chat no longer owed", got)
	}
}

func TestADeletedLastIncomingMessageLeavesTheContactsEarlierQuestionOwed(t *testing.T) {
	s, now, fake, _, w := owedFixture(t)
	ctx := context.Background()
	now.Advance(24 * time.Hour)
	if _, err := fake.Edit(beepertest.AnaChatID, "m-ana-3", "", true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	owed, err := s.OwedReplies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(owed, func(o models.OwedReply) bool { return o.ChatID == beepertest.AnaChatID })
	if i < 0 || owed[i].LastText != "Checking again about Saturday: does it still work for you?" {
		t.Fatalf("owed %+v; want Ana's chat still owed for her earlier question", owed)
	}
}
