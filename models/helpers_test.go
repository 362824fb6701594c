package models

import (
	"context"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// testNow is the instant every test store's clock starts at.
var testNow = storetest.Start

func TestMain(m *testing.M) { storetest.Main(m) }

// emptyTemplate is a freshly migrated database, built once per run.
var emptyTemplate = storetest.Template{Name: "models-empty", Build: func(ctx context.Context, dir string, clock *storetest.Clock) (string, error) {
	s, err := Open(ctx, dir, Options{Clock: clock.Now})
	if err != nil {
		return "", err
	}
	return s.Path(), s.Close()
}}

// newTestStore opens a copy of the migrated template under t.TempDir with
// a clock, at testNow, that the test can move.
func newTestStore(t testing.TB) (*Store, *storetest.Clock) {
	t.Helper()
	return newTestStoreWith(t, Options{})
}

// newTestStoreWith is newTestStore with opts (its Clock is replaced).
func newTestStoreWith(t testing.TB, opts Options) (*Store, *storetest.Clock) {
	t.Helper()
	dir := t.TempDir()
	emptyTemplate.CopyTo(t, DatabasePath(dir))
	clock := storetest.NewClock(testNow)
	opts.Clock = clock.Now
	s, err := Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, clock
}

// pub is the kit's publication builder; the short name keeps table rows short.
type pub = storetest.Doc

// newPub returns a valid publication of job daily-brief with one life
// source ref, life-1, and no items; task, person and draft cite life-1.
func newPub(runID string, expected int64) pub {
	return storetest.NewPublication(runID, expected).
		With("jobKey", "daily-brief").
		With("generatedAt", "2026-09-29T06:59:00Z").
		Add("sourceRefs", storetest.LifeRef("life-1", "people/ana.md", 1, testNow.Add(-2*time.Minute)))
}

func task(id string) map[string]any { return storetest.Task(id, "life-1") }

func person(id string) map[string]any { return storetest.Person(id, "life-1") }

func draft(id string, bodies ...string) map[string]any { return storetest.Draft(id, bodies, "life-1") }

// mustPublish publishes and fails the test on any error.
func mustPublish(t testing.TB, s *Store, p pub) contract.PublishReceipt {
	t.Helper()
	r, _, err := s.Publish(context.Background(), "cred-test", p.JSON())
	if err != nil {
		t.Fatalf("publish %v: %v", p["runId"], err)
	}
	return r
}

func mustRevision(t testing.TB, s *Store) int64 {
	t.Helper()
	rev, err := s.Revision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// findActivity returns the activity with id from the agent context.
func findActivity(t testing.TB, s *Store, id string) (contract.ActivityView, bool) {
	t.Helper()
	ac, err := s.AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ac.Activities.Items {
		if a.ID == id {
			return a, true
		}
	}
	return contract.ActivityView{}, false
}
