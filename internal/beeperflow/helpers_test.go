package beeperflow

import (
	"context"
	"database/sql"
	"testing"
	"time"

	_ "github.com/glebarez/go-sqlite" // the "sqlite" driver, for a second connection

	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/models"
)

// testNow is the instant every test store's clock starts at.
var testNow = storetest.Start

func TestMain(m *testing.M) { storetest.Main(m) }

// emptyTemplate is a freshly migrated database, built once per run.
var emptyTemplate = storetest.Template{Name: "beeperflow-empty", Build: func(ctx context.Context, dir string, clock *storetest.Clock) (string, error) {
	s, err := models.Open(ctx, dir, models.Options{Clock: clock.Now})
	if err != nil {
		return "", err
	}
	return s.Path(), s.Close()
}}

// newTestStore opens a copy of the migrated template under t.TempDir with
// a clock, at testNow, that the test can move.
func newTestStore(t testing.TB) (*models.Store, *storetest.Clock) {
	t.Helper()
	return newTestStoreWith(t, models.Options{})
}

// newTestStoreWith is newTestStore with opts (its Clock is replaced).
func newTestStoreWith(t testing.TB, opts models.Options) (*models.Store, *storetest.Clock) {
	t.Helper()
	dir := t.TempDir()
	emptyTemplate.CopyTo(t, models.DatabasePath(dir))
	clock := storetest.NewClock(testNow)
	opts.Clock = clock.Now
	s, err := models.Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, clock
}

// pub is the kit's publication builder; the short name keeps calls short.
type pub = storetest.Doc

// newPub returns a valid publication of job daily-brief with one life
// source ref, life-1, and no items; draft cites life-1.
func newPub(runID string, expected int64) pub {
	return storetest.NewPublication(runID, expected).
		With("jobKey", "daily-brief").
		With("generatedAt", "2026-09-29T06:59:00Z").
		Add("sourceRefs", storetest.LifeRef("life-1", "people/ana.md", 1, testNow.Add(-2*time.Minute)))
}

func draft(id string, bodies ...string) map[string]any { return storetest.Draft(id, bodies, "life-1") }

// mustPublish publishes and fails the test on any error.
func mustPublish(t testing.TB, s *models.Store, p pub) contract.PublishReceipt {
	t.Helper()
	r, _, err := s.Publish(context.Background(), "cred-test", p.JSON())
	if err != nil {
		t.Fatalf("publish %v: %v", p["runId"], err)
	}
	return r
}

func mustRevision(t testing.TB, s *models.Store) int64 {
	t.Helper()
	rev, err := s.Revision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// findActivity returns the activity with id from the agent context.
func findActivity(t testing.TB, s *models.Store, id string) (contract.ActivityView, bool) {
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

// countRows runs a COUNT-like query on the store's file from a read-only
// connection of its own (the store's pools are its own business).
func countRows(t testing.TB, s *models.Store, query string, args ...any) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+s.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
