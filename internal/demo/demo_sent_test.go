package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"hearth/models"
	"hearth/models/read"
)

func TestTheDemosRecentRepliesShowAsDeliveredAndSeen(t *testing.T) {
	now := time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)
	_, store := demoStore(t, now)
	ac, err := read.Of(store).AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ac.Sends.Items) == 0 {
		t.Fatal("no demo send in the context's 14 days")
	}
	for _, s := range ac.Sends.Items {
		if !strings.HasPrefix(s.SendKey, "demo-send-") {
			continue // the draft's reply Ana answered (demo_answered.go)
		}
		f := s.Followed
		if f == nil || f.DeliveredAt == nil || f.SeenAt == nil || !f.SeenAt.Equal(s.CreatedAt.Add(6*time.Minute)) || s.Origin != models.OriginOwnWords {
			t.Errorf("demo send %s: followed %+v, origin %q; want delivered and seen six minutes after it, in the owner's words", s.SendKey, f, s.Origin)
		}
	}
}
