package demo

import (
	"context"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/models"
	"hearth/models/read"
)

func TestDemoShowsOnePastNightBeeperWasAwayAndStillTakesTheWatchBaseline(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	clock := &Clock{}
	clock.set(now)
	store, err := models.Open(ctx, t.TempDir(), models.Options{Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	body, err := demoResult(now, demoZone)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := publish(ctx, store, "demo", body); err != nil {
		t.Fatal(err)
	}
	if err := seedDemoHistory(ctx, store, clock, now); err != nil {
		t.Fatal(err)
	}
	clock.set(now)
	gaps, err := read.Of(store).CoverageGaps(ctx, now.AddDate(0, 0, -7))
	if err != nil || len(gaps) != 1 || gaps[0].To == nil || gaps[0].What != contract.CoverageUnreachable || gaps[0].To.Sub(gaps[0].From) != 150*time.Minute {
		t.Fatalf("the demo's gaps %+v, %v: want one closed night of 2h30", gaps, err)
	}
	if cur, err := store.WatchCursor(ctx); err != nil || cur.Since != nil {
		t.Fatalf("the demo set the watch's cursor (%v, %v): it would skip its baseline", cur.Since, err)
	}
}
