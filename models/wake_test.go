package models

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"hearth/internal/contract"
)

func mustMark(t *testing.T, s *Store, job, reason string, debounce time.Duration) {
	t.Helper()
	if err := s.MarkDirty(context.Background(), job, reason, debounce); err != nil {
		t.Fatal(err)
	}
}

func mustLease(t *testing.T, s *Store) []contract.Wake {
	t.Helper()
	w, err := s.LeaseWakes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestAnUnacknowledgedLeaseExpiresAndTheJobIsOfferedAgain(t *testing.T) {
	s, now := newTestStore(t)
	mustMark(t, s, "messages", "2 new messages in Ana Okafor", time.Minute)
	if w := mustLease(t, s); len(w) != 0 {
		t.Fatalf("offered inside the debounce window: %+v", w)
	}
	now.Advance(time.Minute)
	first := mustLease(t, s)
	if len(first) != 1 || first[0].JobKey != "messages" || first[0].LeaseID == "" || !first[0].LeaseExpiresAt.Equal(now.Now().Add(WakeLeaseTTL)) {
		t.Fatalf("first lease %+v", first)
	}
	// Under a live lease the job is not offered again, and the next chance is the expiry.
	now.Advance(WakeLeaseTTL - time.Second)
	if w := mustLease(t, s); len(w) != 0 {
		t.Fatalf("offered again under a live lease: %+v", w)
	}
	if next, ok, _ := s.NextWakeAt(context.Background()); !ok || !next.Equal(first[0].LeaseExpiresAt) {
		t.Fatalf("next wake %v %v, want the lease's expiry %v", next, ok, first[0].LeaseExpiresAt)
	}
	now.Advance(time.Second)
	again := mustLease(t, s)
	if len(again) != 1 || again[0].JobKey != "messages" || again[0].LeaseID == first[0].LeaseID ||
		len(again[0].Reasons) != 1 || again[0].Reasons[0] != "2 new messages in Ana Okafor" {
		t.Fatalf("after the lease expired: %+v, want the job again under a new lease", again)
	}
	// The expired lease's late ack does not clear the job now leased again.
	if err := s.AckWake(context.Background(), first[0].LeaseID); err != nil {
		t.Fatal(err)
	}
	now.Advance(WakeLeaseTTL)
	if w := mustLease(t, s); len(w) != 1 {
		t.Fatalf("a stale ack cleared a job leased again: %+v", w)
	}
}

func TestMarksAfterTheLeaseSurviveItsAck(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	mustMark(t, s, "messages", "1 new message in Ana Okafor", 0)
	mustMark(t, s, "messages", "1 new message in Ben Ito", 0)
	leased := mustLease(t, s)
	if len(leased) != 1 || leased[0].Marks != 2 {
		t.Fatalf("leased %+v", leased)
	}
	// New input while the runner holds the lease, before its run starts.
	now.Advance(10 * time.Second)
	mustMark(t, s, "messages", "1 new message in Caro Diaz", time.Minute)
	if w := mustLease(t, s); len(w) != 0 {
		t.Fatalf("offered under a live lease: %+v", w)
	}
	if err := s.AckWake(ctx, leased[0].LeaseID); err != nil {
		t.Fatal(err)
	}
	// The newer burst keeps its own debounce window, from its first mark.
	if next, ok, _ := s.NextWakeAt(ctx); !ok || !next.Equal(now.Now().Add(time.Minute)) {
		t.Fatalf("after the ack the next wake is %v %v, want the newer burst due at %v", next, ok, now.Now().Add(time.Minute))
	}
	if w := mustLease(t, s); len(w) != 0 {
		t.Fatalf("the newer burst was offered before its window closed: %+v", w)
	}
	now.Advance(time.Minute)
	w := mustLease(t, s)
	if len(w) != 1 || w[0].Marks != 1 || len(w[0].Reasons) != 1 || w[0].Reasons[0] != "1 new message in Caro Diaz" || !w[0].Since.Equal(now.Now().Add(-time.Minute)) {
		t.Fatalf("after the ack: %+v, want only the mark that came after the lease", w)
	}
	// Acknowledged twice, the second is a no-op; with nothing newer the job is gone.
	for range 2 {
		if err := s.AckWake(ctx, w[0].LeaseID); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok, _ := s.NextWakeAt(ctx); ok {
		t.Fatal("a job stayed dirty after its only lease was acknowledged")
	}
	now.Advance(2 * WakeLeaseTTL)
	if w := mustLease(t, s); len(w) != 0 {
		t.Fatalf("offered after the ack: %+v", w)
	}
}

func TestAckRefusesAMalformedLease(t *testing.T) {
	s, _ := newTestStore(t)
	for _, bad := range []string{"", "x", "ABCDEF0123456789ABCDEF0123456789", "0123456789abcdef0123456789abcdef0"} {
		if err := s.AckWake(context.Background(), bad); err == nil {
			t.Errorf("ack %q accepted", bad)
		}
	}
}

func TestConcurrentPollsLeaseAJobOnce(t *testing.T) {
	s, _ := newTestStore(t)
	mustMark(t, s, "messages", "1 new message in Ana Okafor", 0)
	var wg sync.WaitGroup
	got := make(chan int, 8)
	for range 8 {
		wg.Go(func() {
			w, err := s.LeaseWakes(context.Background())
			if err != nil {
				t.Error(err)
			}
			got <- len(w)
		})
	}
	wg.Wait()
	close(got)
	total := 0
	for n := range got {
		total += n
	}
	if total != 1 {
		t.Fatalf("%d leases of one dirty job, want 1", total)
	}
}

func TestDirtyJobsFromBeforeLeasesAreStillOffered(t *testing.T) {
	dir := t.TempDir()
	db := migrateTo(t, dir, 11)
	if _, err := db.Exec(`INSERT INTO dirty_jobs (job_key, reasons, marks, first_at, last_at, due_at)
		VALUES ('messages', '["3 new messages in Ana Okafor"]', 3, '2026-09-29 06:50:00+00:00', '2026-09-29 06:52:00+00:00', '2026-09-29 06:52:00+00:00')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(context.Background(), dir, Options{Clock: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.LeaseWakes(context.Background())
	if err != nil || len(w) != 1 || w[0].JobKey != "messages" || w[0].Marks != 3 || w[0].Reasons[0] != "3 new messages in Ana Okafor" || w[0].LeaseID == "" {
		t.Fatalf("after the upgrade: %+v %v", w, err)
	}
	mustMark(t, s, "messages", "1 new message in Ben Ito", time.Minute)
	if err := s.AckWake(context.Background(), w[0].LeaseID); err != nil {
		t.Fatal(err)
	}
	if next, ok, _ := s.NextWakeAt(context.Background()); !ok || !next.Equal(testNow.Add(time.Minute)) {
		t.Fatalf("the mark after the upgrade's lease: next %v %v", next, ok)
	}
}

// TestAnIdleLeaseDoesNotWaitForAWriter: a wake poll passes once a minute
// and at every mark and ack; with nothing to hand out it only reads, so it
// never queues behind (or holds) the write lock.
func TestAnIdleLeaseDoesNotWaitForAWriter(t *testing.T) {
	s, now := newTestStore(t)
	mustMark(t, s, "messages", "1 new message in Ana Okafor", 0)
	if w := mustLease(t, s); len(w) != 1 {
		t.Fatalf("lease: %+v", w)
	}
	mustMark(t, s, "routines", "a trial ended", time.Minute)
	now.Advance(time.Second) // the lease is live, the mark not yet due

	entered, release := make(chan struct{}), make(chan struct{})
	writing := make(chan error, 1)
	go func() {
		_, err := s.commit(context.Background(), func(*txn) error {
			close(entered)
			<-release
			return nil
		})
		writing <- err
	}()
	<-entered
	leased := make(chan error, 1)
	go func() {
		w, err := s.LeaseWakes(context.Background())
		if err == nil && len(w) != 0 {
			err = fmt.Errorf("leased %+v with nothing due", w)
		}
		leased <- err
	}()
	select {
	case err := <-leased:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Error("an idle lease waited for a writer")
	}
	close(release)
	if err := <-writing; err != nil {
		t.Fatal(err)
	}
}

func TestANewerBurstIsOfferedOnceTheLeaseHolderHasGoneQuiet(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	mustMark(t, s, "messages", "1 new message in Ana Okafor", 0)
	held := mustLease(t, s)
	if len(held) != 1 {
		t.Fatalf("leased %+v", held)
	}
	// The holder never acknowledges (it died, or its answer was lost).
	// Alone, the lease waits: the holder may be running the job.
	now.Advance(2 * WakeAckGrace)
	if w := mustLease(t, s); len(w) != 0 {
		t.Fatalf("offered again under a live lease with nothing newer: %+v", w)
	}
	// A newer burst comes due: it goes to the next poll, not after the lease's TTL.
	mustMark(t, s, "messages", "1 new message in Ben Ito", time.Minute)
	now.Advance(time.Minute)
	if next, ok, _ := s.NextWakeAt(ctx); !ok || next.After(now.Now()) {
		t.Fatalf("next wake %v %v, want now %v", next, ok, now.Now())
	}
	w := mustLease(t, s)
	if len(w) != 1 || w[0].LeaseID == held[0].LeaseID || w[0].Marks != 2 || len(w[0].Reasons) != 2 {
		t.Fatalf("the newer burst under a quiet lease: %+v, want the job again with every mark under a new lease", w)
	}
	// The quiet holder's late ack changes nothing; the new lease's clears the job.
	if err := s.AckWake(ctx, held[0].LeaseID); err != nil {
		t.Fatal(err)
	}
	if err := s.AckWake(ctx, w[0].LeaseID); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.NextWakeAt(ctx); ok {
		t.Fatal("a job stayed dirty after its lease was acknowledged")
	}
}

func TestANewerBurstWaitsWhileTheHolderMayStillAcknowledge(t *testing.T) {
	s, now := newTestStore(t)
	mustMark(t, s, "messages", "1 new message in Ana Okafor", 0)
	if len(mustLease(t, s)) != 1 {
		t.Fatal("not leased")
	}
	mustMark(t, s, "messages", "1 new message in Ben Ito", 0)
	now.Advance(WakeAckGrace - time.Second)
	if w := mustLease(t, s); len(w) != 0 {
		t.Fatalf("offered while the holder may still acknowledge: %+v", w)
	}
	now.Advance(time.Second)
	if w := mustLease(t, s); len(w) != 1 {
		t.Fatalf("not offered once the holder went quiet: %+v", w)
	}
}
