package runner

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRefusedPublicationsPastTheRetentionArePrunedAtStart(t *testing.T) {
	dir := t.TempDir()
	r, err := New(Config{State: dir, Log: slog.New(slog.DiscardHandler), FailedRetention: 90 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	failed := filepath.Join(dir, "failed")
	now := time.Now()
	for name, age := range map[string]time.Duration{"old-1.json": 91 * 24 * time.Hour, "recent-1.json": 89 * 24 * time.Hour, "today-1.json": 0} {
		p := filepath.Join(failed, name)
		if err := os.WriteFile(p, []byte(`{"brief":{"text":"message-derived"}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(failed)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if len(names) != 2 || names[0] != "recent-1.json" || names[1] != "today-1.json" {
		t.Fatalf("failed/ holds %v after a start: want only the two within 90 days", names)
	}
	// A retention of 0 keeps them all, however old.
	r.failedRetention = 0
	old := filepath.Join(failed, "recent-1.json")
	os.Chtimes(old, now.Add(-10*365*24*time.Hour), now.Add(-10*365*24*time.Hour))
	if err := r.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("a runner keeping them all pruned one: %v", err)
	}
}
