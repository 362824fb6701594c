package models

import (
	"context"
	"testing"
)

// writerPragma is PRAGMA name on every writer connection at once.
func writerPragma(t *testing.T, s *Store, name string) []int {
	t.Helper()
	ctx := context.Background()
	var out []int
	var conns []interface{ Close() error }
	for range 2 { // both writer connections, held so each is a different one
		c, err := s.sqlDB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var mode int
		if err := c.QueryRowContext(ctx, "PRAGMA "+name).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		out = append(out, mode)
	}
	for _, c := range conns {
		c.Close()
	}
	return out
}

func TestOnlyTheSeedOptionWritesWithoutSync(t *testing.T) {
	s, _ := newTestStore(t)
	for _, mode := range writerPragma(t, s, "synchronous") {
		if mode != 2 {
			t.Fatalf("a store's writer runs synchronous=%d; want 2 (FULL)", mode)
		}
	}
	seed, err := Open(context.Background(), t.TempDir(), Options{SeedWithoutSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer seed.Close()
	for _, mode := range writerPragma(t, seed, "synchronous") {
		if mode != 0 {
			t.Fatalf("a seeding store's writer runs synchronous=%d; want 0 (OFF)", mode)
		}
	}
}

// A statement that writes many rows (a publication's upsert) keeps a
// journal of the pages it changed until it ends. On a file it was a fifth
// of a 100-activity publish in pwrite calls (docs/figures.md).
func TestAWritersStatementJournalsStayInMemory(t *testing.T) {
	s, _ := newTestStore(t)
	for _, store := range writerPragma(t, s, "temp_store") {
		if store != 2 {
			t.Fatalf("a store's writer runs temp_store=%d; want 2 (MEMORY)", store)
		}
	}
}
