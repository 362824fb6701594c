package beeperflow

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/models"
	"hearth/models/read"
)

// watchFixture is a store with Ana's reply draft and a watch over a fake
// Beeper sharing the store's clock, after the baseline tick.
func watchFixture(t *testing.T, debounce time.Duration) (*models.Store, *storetest.Clock, *beepertest.Fake, *Watch) {
	t.Helper()
	s, now := newTestStore(t)
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now))
	publishAnaReply(t, s)
	w := NewWatch(s, b.Client, WatchOptions{Debounce: debounce})
	if n, err := w.Tick(context.Background()); err != nil || n != 0 {
		t.Fatalf("baseline recorded %d, %v", n, err)
	}
	now.Advance(time.Second)
	return s, now, b.Fake, w
}

func TestABurstOfAHundredMessagesIsOneWakeUp(t *testing.T) {
	s, now, fake, w := watchFixture(t, 2*time.Minute)
	ctx := context.Background()
	for i := range 100 {
		if i == 50 { // the burst spans two watch intervals
			if _, err := w.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			now.Advance(30 * time.Second)
		}
		fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", fmt.Sprintf("message %d", i))
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	n := countRows(t, s, "SELECT COUNT(*) FROM observations WHERE source = ? AND actor = ?", "beeper:"+beepertest.AccountID, contract.ActorHearth)
	if n != 100 {
		t.Fatalf("%d observations, want one per message", n)
	}
	if wakes, _ := s.LeaseWakes(ctx); len(wakes) != 0 {
		t.Fatalf("woke inside the debounce window: %+v", wakes)
	}
	now.Advance(2 * time.Minute)
	wakes, err := s.LeaseWakes(ctx)
	if err != nil || len(wakes) != 1 || wakes[0].JobKey != DefaultWatchJob || wakes[0].Marks != 2 {
		t.Fatalf("wakes %+v, %v: want one coalesced wake-up", wakes, err)
	}
	if again, _ := s.LeaseWakes(ctx); len(again) != 0 {
		t.Fatalf("a burst woke twice: %+v", again)
	}
	if err := s.AckWake(ctx, wakes[0].LeaseID); err != nil {
		t.Fatal(err)
	}
	// A tick with nothing new records nothing and marks nothing.
	if n, err := w.Tick(ctx); err != nil || n != 0 {
		t.Fatalf("quiet tick recorded %d, %v", n, err)
	}
	if _, ok, _ := s.NextWakeAt(ctx); ok {
		t.Fatal("a quiet tick made a job dirty")
	}
}

func TestAStaleDraftIsMarkedWithinOneWatchInterval(t *testing.T) {
	s, now, fake, w := watchFixture(t, time.Minute)
	ctx := context.Background()
	if d, _ := read.Of(s).ChatDrafts(ctx, beepertest.AnaChatID); len(d) != 1 || d[0].Stale {
		t.Fatalf("before the message: %+v", d)
	}
	before := mustRevision(t, s)
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Actually, Sunday?")
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if mustRevision(t, s) != before+1 {
		t.Fatal("a stale draft did not bump the revision, so open pages would not show it")
	}
	if d, _ := read.Of(s).ChatDrafts(ctx, beepertest.AnaChatID); len(d) != 1 || !d[0].Stale {
		t.Fatalf("Messages' draft after the message: %+v", d)
	}
	row, _, err := s.HomeRow(ctx, "reply-ana")
	if err != nil || row.Draft == nil || !row.Draft.Stale {
		t.Fatalf("Home's reply after the message: %+v, %v", row.Draft, err)
	}
	ac, _ := read.Of(s).AgentContext(ctx)
	if !ac.ReplyDrafts.Items[0].Stale {
		t.Fatal("the agent context does not say the draft is stale")
	}
	// The owner's own message in a chat with no draft to settle is recorded
	// but neither bumps the revision nor marks a job again (in Ana's chat it
	// would replace her draft: TestTheWatchSettlesADraftTheOwnerAnsweredInBeeper).
	rev := mustRevision(t, s)
	wake, _, _ := s.NextWakeAt(ctx)
	now.Advance(time.Second)
	fake.Incoming(beepertest.TomasChatID, beepertest.SelfID, "Sunday works too")
	if n, err := w.Tick(ctx); err != nil || n != 1 || mustRevision(t, s) != rev {
		t.Fatalf("own message: recorded %d, %v, revision %d → %d", n, err, rev, mustRevision(t, s))
	}
	marks := countRows(t, s, "SELECT marks FROM dirty_jobs")
	if next, _, _ := s.NextWakeAt(ctx); !next.Equal(wake) || marks != 1 {
		t.Fatalf("own message marked the job: %d marks", marks)
	}
}

func TestTheWatchBacksOffWhileBeeperIsDownAndRecovers(t *testing.T) {
	s, _, fake, w := watchFixture(t, time.Minute)
	ctx := context.Background()
	fake.FailNext(500, 2) // the read and its retry
	if _, err := w.Tick(ctx); err == nil {
		t.Fatal("a failed read was not reported")
	}
	if h, _ := s.WatchStatus(ctx); h.Failures != 1 || h.LastError == "" {
		t.Fatalf("health %+v", h)
	}
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "hello?")
	if n, err := w.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("after recovery recorded %d, %v", n, err)
	}
	if h, _ := s.WatchStatus(ctx); h.Failures != 0 || h.LastError != "" {
		t.Fatalf("health after recovery %+v", h)
	}
}

func TestTheWatchReadsChatsWhosePreviewCarriesAnSDK5SendStatus(t *testing.T) {
	s, now := newTestStore(t)
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now))
	publishAnaReply(t, s)
	ctx := context.Background()
	w := NewWatch(s, b.Client, WatchOptions{Debounce: time.Minute})
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	now.Advance(time.Second)
	// The owner's reply, held at PENDING, becomes the chat's preview.
	b.Fake.HoldSends(true)
	if _, err := b.Client.Send(ctx, beepertest.AnaChatID, beeper.SendRequest{Text: "On my way"}); err != nil {
		t.Fatal(err)
	}
	page, err := b.Client.Chats(ctx, beeper.ChatsQuery{})
	if err != nil || page.Items[0].Preview.SendStatus.State() != beeper.SendInProgress {
		t.Fatalf("chats %+v, %v: want Ana's preview PENDING", page, err)
	}
	if n, err := w.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("tick recorded %d, %v; want the owner's message", n, err)
	}
}
