package demo

import (
	"context"
	"hearth/models/read"
	"strings"
	"testing"
	"time"
)

func TestTheDemoShowsTheOwnersVoiceWithTomasAndNotWithAna(t *testing.T) {
	now := time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)
	_, store := demoStore(t, now)
	ctx := context.Background()
	ac, err := read.Of(store).AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range ac.Voice {
		got[v.PersonID] = v.Summary
	}
	// Ana had no drafted reply sent: nothing is said of her.
	if want := "shortens by ~35%, switches to German, drops the greeting"; len(got) != 1 || got["tomas-lindqvist"] != want {
		t.Fatalf("the demo's voice %v; want Tomas's only: %q", got, want)
	}
	// Older than the context's 14 days: the recent history is as before.
	for _, s := range ac.Sends.Items {
		if !s.CreatedAt.After(now.Add(-14 * 24 * time.Hour)) {
			t.Errorf("send %s of %s in the context's sends; the voice sends are older than its 14 days", s.SendKey, s.CreatedAt)
		}
	}
	for _, d := range ac.ReplyDrafts.Items {
		if strings.HasPrefix(d.ID, "draft-voice-") {
			t.Errorf("draft %s in the context; the voice drafts are older than its 14 days", d.ID)
		}
	}
}
