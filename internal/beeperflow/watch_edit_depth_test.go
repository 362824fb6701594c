package beeperflow

import (
	"context"
	"testing"
	"time"

	"hearth/beeper/beepertest"
)

// The watch reads a chat back from its newest page only until it reaches a
// message it saw before, so it sees the edits on the pages it reads: an
// edit of a message further back is not seen (docs/beeper.md, "Edits").
func TestAnEditIsSeenOnlyOnThePagesTheWatchReads(t *testing.T) {
	s, now := newTestStore(t)
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now), beepertest.WithPageSize(2))
	w := NewWatch(s, b.Client, WatchOptions{})
	ctx := context.Background()
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, text := range []string{"One", "Two", "Three", "Four"} {
		now.Advance(time.Minute)
		ids = append(ids, b.Fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", text).ID)
		if _, err := w.Tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	modified := func() int64 {
		return countRows(t, s, "SELECT COUNT(*) FROM observations WHERE change_type = 'modified'")
	}
	// "One" is two pages back: its edit is not seen.
	now.Advance(time.Minute)
	if _, err := b.Fake.Edit(beepertest.AnaChatID, ids[0], "One, edited", false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if n := modified(); n != 0 {
		t.Fatalf("an edit two pages back was recorded (%d versions): the documented limit changed, update docs/beeper.md", n)
	}
	// "Four" is on the newest page: its edit is seen.
	now.Advance(time.Minute)
	if _, err := b.Fake.Edit(beepertest.AnaChatID, ids[3], "Four, edited", false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if n := modified(); n != 1 {
		t.Fatalf("an edit on the newest page made %d new versions; want 1", n)
	}
}
