package main

import (
	"context"
	"testing"
	"time"

	"hearth/models"
)

func TestTheDemosRecentRepliesShowAsDeliveredAndSeen(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)
	clock := &serveClock{}
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
	if _, _, err := store.Publish(ctx, "demo", body); err != nil {
		t.Fatal(err)
	}
	if err := seedDemoHistory(ctx, store, clock, now); err != nil {
		t.Fatal(err)
	}
	clock.set(now)
	ac, err := store.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ac.Sends.Items) == 0 {
		t.Fatal("no demo send in the context's 14 days")
	}
	for _, s := range ac.Sends.Items {
		f := s.Followed
		if f == nil || f.DeliveredAt == nil || f.SeenAt == nil || !f.SeenAt.Equal(s.CreatedAt.Add(6*time.Minute)) || s.Origin != models.OriginOwnWords {
			t.Errorf("demo send %s: followed %+v, origin %q; want delivered and seen six minutes after it, in the owner's words", s.SendKey, f, s.Origin)
		}
	}
}
