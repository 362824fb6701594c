package models

import (
	"context"
	"slices"
	"sync"
	"testing"
)

// visibilityNotifier checks, from inside Committed, that the notified
// revision is already readable on another connection: proof of after-commit.
type visibilityNotifier struct {
	t     *testing.T
	store *Store
	mu    sync.Mutex
	seen  []int64
	what  [][]string
}

func (n *visibilityNotifier) Committed(revision int64, changed []string) {
	rev, err := n.store.Revision(context.Background())
	if err != nil || rev < revision {
		n.t.Errorf("notified revision %d before it was readable (read %d, %v)", revision, rev, err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seen = append(n.seen, revision)
	n.what = append(n.what, changed)
}

func TestNotifierHearsOnlyCommittedChanges(t *testing.T) {
	s, _ := newTestStore(t)
	n := &visibilityNotifier{t: t, store: s}
	s.SetNotifier(n)
	r := mustPublish(t, s, newPub("run-1", 0).Add("activities", task("a1")).Add("people", person("p1")))
	// Rejected, replayed and conflicting publications notify nothing.
	s.Publish(context.Background(), "cred-test", newPub("run-1", 0).Add("activities", task("a1")).Add("people", person("p1")).JSON())
	s.Publish(context.Background(), "cred-test", newPub("run-2", 0).JSON())
	bad := newPub("run-3", 1)
	bad["runId"] = "bad id"
	s.Publish(context.Background(), "cred-test", bad.JSON())
	if _, err := s.SetActivityState(context.Background(), "a1", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if want := []int64{r.Revision, r.Revision + 1}; !slices.Equal(n.seen, want) {
		t.Fatalf("notified revisions %v, want %v", n.seen, want)
	}
	if !slices.Contains(n.what[0], "activity:a1") || !slices.Contains(n.what[0], "person:p1") {
		t.Fatalf("publication changed %v", n.what[0])
	}
	if !slices.Equal(n.what[1], []string{"activity:a1"}) {
		t.Fatalf("owner action changed %v", n.what[1])
	}
}
