// Package storetest is hearth's one test kit: a template database migrated
// once per test binary and copied per test (Kit opens a store on a copy),
// a goroutine-safe clock, one builder of agent publications with the
// stores' usual fixtures, helpers over a store's methods (MustPublish,
// Read, Find), and a holder of SQLite's write lock.
//
// It imports no hearth package, on purpose. Package models' own tests
// (package models, which reach unexported seams such as commit and markDirty)
// cannot import a package that imports models, and moving them to
// models_test would cost them those seams. So the kit takes the one
// models-specific step, opening and migrating a store, as a callback
// (NewKit, Template.Build), and its helpers take a store's methods as
// values (s.Publish, s.Revision); each test package keeps only the typed
// one-liners that name them (models/helpers_test.go,
// internal/beeperflow/helpers_test.go, handlers/helpers_test.go).
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	_ "modernc.org/sqlite" // the "sqlite" driver, for the kit's own connections
)

// PassphraseCost is bcrypt's cost for the passphrases tests store
// (models.Options.PassphraseCost): under -race one hash or check at the
// default cost takes about two seconds, and a login is one check.
const PassphraseCost = bcrypt.MinCost

// Start is the instant every test clock starts at: 2026-09-29 07:00 UTC.
var Start = time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)

// Clock is a fixed clock that a test moves by hand. It is safe for the
// store's goroutines (the Beeper watch, SSE) to read while the test moves it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at at.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now is the clock's time; pass it as models.Options.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (backwards too).
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Template is a database file built once per test binary, on first use,
// and copied for each test: migrating every test's database dominated the
// suites' time under -race.
type Template struct {
	// Name names the template's files; unique per test binary.
	Name string
	// Build creates, migrates and prepares the database in the empty
	// dataDir with a clock at Start, closes it, and returns its file.
	Build func(ctx context.Context, dataDir string, clock *Clock) (dbFile string, err error)

	once sync.Once
	file string
	err  error
}

// kitDir holds every template of this test binary; Main removes it.
var kitDir = sync.OnceValues(func() (string, error) { return os.MkdirTemp("", "hearth-storetest-") })

// Main runs the tests and removes the templates; call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if dir, err := kitDir(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// CopyTo writes a copy of the template's database to dbFile (its
// directory is created), building the template on first use.
func (tp *Template) CopyTo(t testing.TB, dbFile string) {
	t.Helper()
	tp.once.Do(func() { tp.file, tp.err = tp.build() })
	if tp.err != nil {
		t.Fatalf("%s template database: %v", tp.Name, tp.err)
	}
	b, err := os.ReadFile(tp.file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dbFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// build runs Build in a fresh directory and compacts the result into one
// file with VACUUM INTO: a consistent copy with no WAL to carry beside it.
func (tp *Template) build() (string, error) {
	dir, err := kitDir()
	if err != nil {
		return "", err
	}
	src := filepath.Join(dir, tp.Name+"-src")
	if err := os.Mkdir(src, 0o700); err != nil {
		return "", err
	}
	ctx := context.Background()
	built, err := tp.Build(ctx, src, NewClock(Start))
	if err != nil {
		return "", err
	}
	db, err := sql.Open("sqlite", fileURI(built))
	if err != nil {
		return "", err
	}
	defer db.Close()
	file := filepath.Join(dir, tp.Name+".db")
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", file); err != nil {
		return "", fmt.Errorf("copy %s: %w", built, err)
	}
	return file, nil
}

// HoldWriteLock takes SQLite's write lock on the database file dbFile from
// a connection of its own, as another process would, and returns its
// release; the test's cleanup releases it too. Writers of the store then
// wait for their busy timeout and fail.
func HoldWriteLock(t testing.TB, dbFile string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", fileURI(dbFile)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		db.Close()
		t.Fatal(err)
	}
	release = sync.OnceFunc(func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	})
	t.Cleanup(release)
	return release
}

// fileURI is path as an SQLite file: URI, escaped as models escapes it.
func fileURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(path)
}
