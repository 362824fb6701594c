package models

import (
	"context"
	"errors"
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
	publish(s, context.Background(), "cred-test", newPub("run-1", 0).Add("activities", task("a1")).Add("people", person("p1")).JSON())
	publish(s, context.Background(), "cred-test", newPub("run-2", 0).JSON())
	bad := newPub("run-3", 1)
	bad["runId"] = "bad id"
	publish(s, context.Background(), "cred-test", bad.JSON())
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

// TestACommitReachesEveryListenerOnlyAfterItCommits runs commits in their
// own goroutines on a real database file: the notifier (the SSE hub), the
// newest revision and a long-poll waiting for wake-up marks each hear a commit only once another connection can read it, and a
// transaction that rolls back reaches none of them.
func TestACommitReachesEveryListenerOnlyAfterItCommits(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	n := &visibilityNotifier{t: t, store: s}
	s.SetNotifier(n)
	before := s.LatestRevision()

	// A long-poll waiting for a wake-up: when woken, the mark must be readable.
	dirty := s.DirtyChanged()
	woke := make(chan bool, 1)
	go func() {
		<-dirty
		_, ok, err := s.NextWakeAt(ctx)
		woke <- ok && err == nil
	}()

	// A transaction that bumps, touches every listener's keys, marks a job
	// dirty and then fails: nobody hears of it.
	failed := make(chan error, 1)
	go func() {
		_, err := s.commit(ctx, func(t *txn) error {
			if _, err := t.bump(); err != nil {
				return err
			}
			t.touch("routine:r1", "publication")
			if err := markDirty(t, "messages", "a message", 0); err != nil {
				return err
			}
			return errors.New("rolled back")
		})
		failed <- err
	}()
	if err := <-failed; err == nil {
		t.Fatal("the failing transaction committed")
	}
	if len(n.seen) != 0 || s.LatestRevision() != before {
		t.Fatalf("a rolled-back transaction reached listeners: notified %v, latest %d", n.seen, s.LatestRevision())
	}
	select {
	case <-dirty:
		t.Fatal("a rolled-back wake-up mark woke the long-poll")
	default:
	}

	// The same transaction, committed: every listener hears it, after the commit.
	type result struct {
		rev int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		rev, err := s.commit(ctx, func(t *txn) error {
			if _, err := t.bump(); err != nil {
				return err
			}
			t.touch("routine:r1", "publication")
			if err := markDirty(t, "messages", "a message", 0); err != nil {
				return err
			}
			// Inside the transaction: nobody has heard yet.
			if s.LatestRevision() != before {
				return errors.New("the newest revision moved before the commit")
			}
			select {
			case <-dirty:
				return errors.New("the long-poll woke before the commit")
			default:
			}
			return nil
		})
		done <- result{rev, err}
	}()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !slices.Equal(n.seen, []int64{r.rev}) || s.LatestRevision() != r.rev {
		t.Fatalf("after the commit at %d: notified %v, latest %d", r.rev, n.seen, s.LatestRevision())
	}
	if !slices.Contains(n.what[0], "routine:r1") || slices.Contains(n.what[0], touchWake) {
		t.Fatalf("the notifier heard %v; want the routine, not the wake-up mark", n.what[0])
	}
	select {
	case <-dirty:
	default:
		t.Fatal("the commit's wake-up mark did not wake the long-poll")
	}
	if !<-woke {
		t.Fatal("the long-poll woke before the mark was readable")
	}
	// A wake-up mark alone changes nothing a page shows: it wakes the
	// long-polls and moves no revision, so the notifier does not hear it.
	dirty = s.DirtyChanged()
	marked := make(chan error, 1)
	go func() { marked <- s.MarkDirty(ctx, "messages", "another message", 0) }()
	if err := <-marked; err != nil {
		t.Fatal(err)
	}
	select {
	case <-dirty:
	default:
		t.Fatal("a wake-up mark did not wake the long-poll")
	}
	if len(n.seen) != 1 || s.LatestRevision() != r.rev {
		t.Fatalf("a wake-up mark notified %v, latest %d", n.seen, s.LatestRevision())
	}
}
