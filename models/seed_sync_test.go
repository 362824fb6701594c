package models

import (
	"context"
	"testing"
)

// writerSync is PRAGMA synchronous on every writer connection at once.
func writerSync(t *testing.T, s *Store) []int {
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
		if err := c.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&mode); err != nil {
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
	for _, mode := range writerSync(t, s) {
		if mode != 2 {
			t.Fatalf("a store's writer runs synchronous=%d; want 2 (FULL)", mode)
		}
	}
	seed, err := Open(context.Background(), t.TempDir(), Options{SeedWithoutSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer seed.Close()
	for _, mode := range writerSync(t, seed) {
		if mode != 0 {
			t.Fatalf("a seeding store's writer runs synchronous=%d; want 0 (OFF)", mode)
		}
	}
}
