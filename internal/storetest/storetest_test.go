package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

func TestClockIsSafeToReadWhileATestMovesIt(t *testing.T) {
	c := NewClock(Start)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 1000 {
			c.Advance(time.Second)
		}
	}()
	go func() {
		defer wg.Done()
		for range 1000 {
			c.Now()
		}
	}()
	wg.Wait()
	if got := c.Now(); !got.Equal(Start.Add(1000 * time.Second)) {
		t.Fatalf("after 1000 advances of 1s: %v", got)
	}
	c.Set(Start)
	if !c.Now().Equal(Start) {
		t.Fatalf("set back: %v", c.Now())
	}
}

// openSQL opens dbFile with the kit's driver and a short busy timeout.
func openSQL(t *testing.T, dbFile string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", fileURI(dbFile)+"?_pragma=busy_timeout(50)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// countingTemplate builds a one-table database and counts its builds.
func countingTemplate(name string, builds *atomic.Int32) *Template {
	return &Template{Name: name, Build: func(ctx context.Context, dir string, clock *Clock) (string, error) {
		builds.Add(1)
		file := filepath.Join(dir, "t.db")
		db, err := sql.Open("sqlite", fileURI(file)+"?_pragma=journal_mode(WAL)")
		if err != nil {
			return "", err
		}
		defer db.Close()
		_, err = db.ExecContext(ctx, "CREATE TABLE seen (at TEXT); INSERT INTO seen VALUES (?)", clock.Now().Format(time.RFC3339))
		return file, err
	}}
}

func TestTemplateIsBuiltOnceAndEveryTestGetsItsOwnCopy(t *testing.T) {
	var builds atomic.Int32
	tmpl := countingTemplate("copies", &builds)
	a, b := filepath.Join(t.TempDir(), "a", "hearth.db"), filepath.Join(t.TempDir(), "hearth.db")
	tmpl.CopyTo(t, a)
	tmpl.CopyTo(t, b)
	if n := builds.Load(); n != 1 {
		t.Fatalf("built %d times, want once", n)
	}
	if _, err := openSQL(t, a).Exec("INSERT INTO seen VALUES ('a only')"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := openSQL(t, b).QueryRow("SELECT count(*) FROM seen").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the other copy has %d rows (%v), want the template's 1", n, err)
	}
	var at string
	if err := openSQL(t, a).QueryRow("SELECT at FROM seen LIMIT 1").Scan(&at); err != nil || at != Start.Format(time.RFC3339) {
		t.Fatalf("template built at %q (%v), want the clock at Start", at, err)
	}
}

func TestHoldWriteLockMakesOtherWritersWaitUntilReleased(t *testing.T) {
	var builds atomic.Int32
	file := filepath.Join(t.TempDir(), "hearth.db")
	countingTemplate("locked", &builds).CopyTo(t, file)
	db := openSQL(t, file)
	release := HoldWriteLock(t, file)
	if _, err := db.Exec("INSERT INTO seen VALUES ('while held')"); err == nil {
		t.Fatal("a write succeeded while another connection held the write lock")
	}
	release()
	release() // a second release (and the cleanup's) is harmless
	if _, err := db.Exec("INSERT INTO seen VALUES ('after release')"); err != nil {
		t.Fatalf("write after release: %v", err)
	}
}

func TestPublicationBuildsTheJSONTheAgentSends(t *testing.T) {
	observed := Start.Add(-time.Minute)
	p := NewPublication("run-1", 3).
		With("jobKey", "daily-brief").
		Add("sourceRefs", LifeRef("life-1", "people/ana.md", 1, observed)).
		Add("people", Person("ana", "life-1")).
		Add("activities", Task("t1", "life-1"), Task("t2")).
		Add("replyDrafts", Draft("d1", []string{"hi", "hello"}))
	p.Set(t, "/activities/1/title", "Renamed")
	p.Del(t, "/activities/0/payload")
	var got map[string]any
	if err := json.Unmarshal(p.JSON(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"runId": "run-1", "jobKey": "daily-brief", "expectedRevision": 3.0, "generatedAt": "2026-09-29T07:00:00Z",
		"sourceRefs": []any{map[string]any{"id": "life-1", "kind": "life", "path": "people/ana.md",
			"contentHash": "sha256:0000000000000000000000000000000000000000000000000000000000000001", "observedAt": "2026-09-29T06:59:00Z"}},
		"people": []any{map[string]any{"id": "ana", "name": "Person ana", "context": "context", "evidenceIds": []any{"life-1"}}},
		"activities": []any{
			map[string]any{"id": "t1", "kind": "task", "title": "Task t1", "evidenceIds": []any{"life-1"}},
			map[string]any{"id": "t2", "kind": "task", "title": "Renamed", "evidenceIds": []any{}, "payload": map[string]any{}},
		},
		"replyDrafts": []any{map[string]any{"id": "d1", "accountId": "acc", "chatId": "chat-1", "sourceMessageRevision": "10",
			"reason": "they asked", "evidenceIds": []any{}, "candidates": []any{
				map[string]any{"id": "c0", "style": "plain", "body": "hi"},
				map[string]any{"id": "c1", "style": "plain", "body": "hello"}}}},
		"retractions": []any{}, "completedRequests": []any{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if ids := p.IDs("activities"); !reflect.DeepEqual(ids, []string{"t1", "t2"}) {
		t.Fatalf("activity IDs %v", ids)
	}
}

func TestNewPublicationHasNoNullArrays(t *testing.T) {
	var got map[string]any
	if err := json.Unmarshal(NewPublication("r", 0).JSON(), &got); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"sourceRefs", "people", "activities", "replyDrafts", "retractions", "completedRequests"} {
		if list, ok := got[key].([]any); !ok || len(list) != 0 {
			t.Errorf("%s = %#v, want []", key, got[key])
		}
	}
}

// held is a type with a method for WaitBlocked to find in a stack.
type held struct{ mu sync.Mutex }

func (h *held) lockAndRelease() {
	h.mu.Lock()
	h.mu.Unlock()
}

func TestWaitBlockedReturnsOnceAGoroutineIsParkedOnTheMutex(t *testing.T) {
	h := &held{}
	h.mu.Lock()
	done := make(chan struct{})
	go func() {
		h.lockAndRelease()
		close(done)
	}()
	WaitBlocked(t, "hearth/internal/storetest.(*held).lockAndRelease")
	select {
	case <-done:
		t.Fatal("the goroutine passed a mutex the test holds")
	default:
	}
	if blockedIn("hearth/internal/storetest.(*held).nothing") {
		t.Fatal("blockedIn found a function no goroutine is in")
	}
	h.mu.Unlock()
	<-done
	if blockedIn("hearth/internal/storetest.(*held).lockAndRelease") {
		t.Fatal("still blocked after the unlock")
	}
}
