package storetest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fileStore is the smallest Store: an SQLite file opened with the options it was given.
type fileStore struct {
	db    *sql.DB
	path  string
	clock *Clock
	opts  string
}

func (f *fileStore) Path() string { return f.path }
func (f *fileStore) Close() error { return f.db.Close() }

func (f *fileStore) count(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.db.QueryRow("SELECT COUNT(*) FROM notes").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAKitOpensACopyOfOneTemplatePerStoreWithItsOwnClockAndOptions(t *testing.T) {
	dbFile := func(dir string) string { return filepath.Join(dir, "db", "kit.db") }
	builds := 0
	kit := NewKit("kit-test", dbFile, func(ctx context.Context, dir string, clock *Clock, opts string) (*fileStore, error) {
		path := dbFile(dir)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		db, err := sql.Open("sqlite", fileURI(path))
		if err != nil {
			return nil, err
		}
		if opts == "" { // the template: built with zero options
			builds++
			if _, err := db.ExecContext(ctx, "CREATE TABLE notes (n INTEGER); INSERT INTO notes VALUES (1)"); err != nil {
				db.Close()
				return nil, err
			}
		}
		return &fileStore{db: db, path: path, clock: clock, opts: opts}, nil
	})
	a, ca := kit.Open(t, "a")
	b, cb := kit.Open(t, "b")
	if builds != 1 {
		t.Fatalf("the template was built %d times for two stores, want once", builds)
	}
	if a.opts != "a" || b.opts != "b" || a.clock != ca || b.clock != cb {
		t.Fatalf("options %q %q, clocks passed: %v %v", a.opts, b.opts, a.clock == ca, b.clock == cb)
	}
	if a.Path() == b.Path() || a.count(t) != 1 || b.count(t) != 1 {
		t.Fatalf("copies %s and %s hold %d and %d rows, want 1 each in two files", a.Path(), b.Path(), a.count(t), b.count(t))
	}
	if _, err := a.db.Exec("INSERT INTO notes VALUES (2)"); err != nil {
		t.Fatal(err)
	}
	if b.count(t) != 1 {
		t.Fatal("a write to one copy reached the other")
	}
	ca.Advance(time.Hour)
	if !cb.Now().Equal(Start) || !ca.Now().Equal(Start.Add(time.Hour)) {
		t.Fatalf("clocks at %v and %v: each store has its own", ca.Now(), cb.Now())
	}
}

func TestReadFindAndIDsServeAStoresReaders(t *testing.T) {
	type item struct{ ID, Name string }
	items := Read(t, func(context.Context) ([]item, error) { return []item{{"a", "Ana"}, {"b", "Ben"}}, nil })
	idOf := func(it item) string { return it.ID }
	if got, ok := Find(items, "b", idOf); !ok || got.Name != "Ben" {
		t.Fatalf("Find b: %+v, %v", got, ok)
	}
	if _, ok := Find(items, "c", idOf); ok {
		t.Fatal("Find c found something")
	}
	if got := MustFind(t, "item", items, "a", idOf); got.Name != "Ana" {
		t.Fatalf("MustFind a: %+v", got)
	}
	if ids := IDs(items, idOf); len(ids) != 2 || ids[0] != "a" || ids[1] != "b" {
		t.Fatalf("IDs %v", ids)
	}
	if ids := IDs(nil, idOf); ids != nil {
		t.Fatalf("IDs of none %v, want nil", ids)
	}
	receipt := MustPublish(t, func(body []byte) (string, error) { return string(body[:1]), nil },
		func(_ context.Context, publisher, pub string) (string, bool, error) {
			return publisher + ":" + pub, false, nil
		},
		DailyBrief("run-1", 0))
	if receipt != "cred-test:{" {
		t.Fatalf("MustPublish %q", receipt)
	}
}
