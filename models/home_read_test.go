package models

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
)

// TestHomeReadsOnlySelectBesideAWriteInFlight: Home reads on the writers'
// pool right after a commit (readAfterCommit), where no connection is
// query_only. With a write held open mid-transaction, three Home reads at
// once all finish, each showing the published rows, and run only SELECTs;
// with the pool's other connection taken too (a backup's VACUUM INTO holds
// one for its whole copy), they read on the readers instead of waiting.
func TestHomeReadsOnlySelectBesideAWriteInFlight(t *testing.T) {
	paused, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var recording bool
	var heard []string
	s, clock := newTestStoreWith(t, Options{
		Pause: func(point string) {
			if point == PauseRunClaimed {
				close(paused)
				<-release
			}
		},
		Statement: func(sql string) {
			mu.Lock()
			defer mu.Unlock()
			if recording {
				heard = append(heard, sql)
			}
		},
	})
	p := newPub("home-beside-a-write", mustRevision(t, s))
	p.Add("activities", task("beside-1"))
	p.Add("activities", task("beside-2"))
	mustPublish(t, s, p)
	dueBrief(t, s, clock)
	// Both of the writers' connections open and idle, as after a day's use.
	a, errA := s.sqlDB.Conn(context.Background())
	b, errB := s.sqlDB.Conn(context.Background())
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	a.Close()
	b.Close()
	started := make(chan error, 1)
	go func() {
		brief := "brief"
		_, err := s.StartRun(context.Background(), "r", contract.RunStartIn{RunID: "run-beside", Job: "morning", Trigger: contract.TriggerSchedule, ScheduleID: &brief}, costpolicy.Policy{})
		started <- err
	}()
	<-paused
	mu.Lock()
	recording = true
	mu.Unlock()
	threeReads := func(beside string) {
		t.Helper()
		reads := make(chan error, 3)
		for range 3 {
			go func() {
				home, err := s.Home(context.Background(), costpolicy.Policy{})
				if err == nil && countRows(home) != 2 {
					t.Errorf("Home beside %s shows %d rows, want the 2 published", beside, countRows(home))
				}
				reads <- err
			}()
		}
		for range 3 {
			select {
			case err := <-reads:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				close(release)
				t.Fatalf("a Home read waited beside %s", beside)
			}
		}
	}
	threeReads("a write in flight")
	for s.sqlDB.Stats().Idle > 0 {
		held, err := s.sqlDB.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
	}
	threeReads("a write in flight and the writers' pool taken")
	mu.Lock()
	recording = false
	for _, sql := range heard {
		if verb := strings.ToUpper(strings.Fields(sql)[0]); verb != "SELECT" && verb != "WITH" {
			t.Errorf("Home's read ran %s", sql)
		}
	}
	if len(heard) < 3*10 {
		t.Errorf("three Home reads ran %d statements: the recorder missed them", len(heard))
	}
	mu.Unlock()
	close(release)
	if err := <-started; err != nil {
		t.Fatalf("the write after the reads: %v", err)
	}
	if runs, err := s.Runs(context.Background()); err != nil || len(runs.Runs) != 1 {
		t.Errorf("runs after the write: %+v, %v", runs.Runs, err)
	}
}

// countRows counts Home's rows in its sections and Done.
func countRows(h HomeView) (n int) {
	for _, sec := range h.Sections {
		n += len(sec.Rows)
	}
	return n + len(h.Done)
}
