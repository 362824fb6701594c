package beeperflow

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/glebarez/go-sqlite" // the "sqlite" driver, for a second connection

	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/models"
	"hearth/models/read"
)

// testNow is the instant every test store's clock starts at.
var testNow = storetest.Start

func TestMain(m *testing.M) { storetest.Main(m) }

// kit opens this package's test stores, copies of one migrated template.
var kit = storetest.NewKit("beeperflow-empty", models.DatabasePath, func(ctx context.Context, dir string, clock *storetest.Clock, opts models.Options) (*models.Store, error) {
	opts.Clock = clock.Now
	return models.Open(ctx, dir, opts)
})

// newTestStore opens a copy of the migrated template under t.TempDir with
// a clock, at testNow, that the test can move.
func newTestStore(t testing.TB) (*models.Store, *storetest.Clock) {
	t.Helper()
	return kit.Open(t, models.Options{})
}

// newTestStoreWith is newTestStore with opts (its Clock is replaced).
func newTestStoreWith(t testing.TB, opts models.Options) (*models.Store, *storetest.Clock) {
	t.Helper()
	return kit.Open(t, opts)
}

// pub is the kit's publication builder; the short name keeps calls short.
type pub = storetest.Doc

// newPub returns a valid publication of job daily-brief with one life
// source ref, life-1, and no items.
var newPub = storetest.DailyBrief

// mustPublish publishes and fails the test on any error.
func mustPublish(t testing.TB, s *models.Store, p pub) contract.PublishReceipt {
	t.Helper()
	return storetest.MustPublish(t, contract.DecodePublication, s.Publish, p)
}

func mustRevision(t testing.TB, s *models.Store) int64 {
	t.Helper()
	return storetest.Read(t, s.Revision)
}

// findActivity returns the activity with id from the agent context.
func findActivity(t testing.TB, s *models.Store, id string) (contract.ActivityView, bool) {
	t.Helper()
	return storetest.Find(storetest.Read(t, read.Of(s).AgentContext).Activities.Items, id, func(a contract.ActivityView) string { return a.ID })
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
