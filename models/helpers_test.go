package models

import (
	"cmp"
	"context"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// testNow is the instant every test store's clock starts at.
var testNow = storetest.Start

func TestMain(m *testing.M) { storetest.Main(m) }

// kit opens this package's test stores, copies of one migrated template,
// hashing passphrases at the kit's cost unless opts says otherwise.
var kit = storetest.NewKit("models-empty", DatabasePath, func(ctx context.Context, dir string, clock *storetest.Clock, opts Options) (*Store, error) {
	opts.Clock = clock.Now
	opts.PassphraseCost = cmp.Or(opts.PassphraseCost, storetest.PassphraseCost)
	return Open(ctx, dir, opts)
})

// newTestStore opens a copy of the migrated template under t.TempDir with
// a clock, at testNow, that the test can move.
func newTestStore(t testing.TB) (*Store, *storetest.Clock) {
	t.Helper()
	return kit.Open(t, Options{})
}

// newTestStoreWith is newTestStore with opts (its Clock is replaced).
func newTestStoreWith(t testing.TB, opts Options) (*Store, *storetest.Clock) {
	t.Helper()
	return kit.Open(t, opts)
}

// pub is the kit's publication builder; the short name keeps table rows short.
type pub = storetest.Doc

// newPub returns a valid publication of job daily-brief with one life
// source ref, life-1, and no items; task, person and draft cite life-1.
var newPub = storetest.DailyBrief

func task(id string) map[string]any { return storetest.Task(id, "life-1") }

func person(id string) map[string]any { return storetest.Person(id, "life-1") }

func draft(id string, bodies ...string) map[string]any { return storetest.Draft(id, bodies, "life-1") }

// mustPublish publishes and fails the test on any error.
func mustPublish(t testing.TB, s *Store, p pub) contract.PublishReceipt {
	t.Helper()
	return storetest.MustPublish(t, contract.DecodePublication, s.Publish, p)
}

func mustRevision(t testing.TB, s *Store) int64 {
	t.Helper()
	return storetest.Read(t, s.Revision)
}

// findActivity returns the activity with id from the agent context.
func findActivity(t testing.TB, s *Store, id string) (contract.ActivityView, bool) {
	t.Helper()
	return storetest.Find(storetest.Read(t, s.AgentContext).Activities.Items, id, func(a contract.ActivityView) string { return a.ID })
}
