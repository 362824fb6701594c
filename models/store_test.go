package models

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"hearth/internal/storetest"
)

// fileMode is path's permission bits; a missing file fails the test.
func fileMode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// assertPrivate checks that the database and its WAL and shared-memory
// files exist and are readable by their owner only.
func assertPrivate(t *testing.T, dir string) {
	t.Helper()
	db := DatabasePath(dir)
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		if m := fileMode(t, p); m != 0o600 {
			t.Errorf("%s is %v, want -rw-------", filepath.Base(p), m)
		}
	}
}

func TestDatabaseFilesArePrivateInAnOpenDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.CreateCredential(context.Background(), "agent", DefaultScopes); err != nil {
		t.Fatal(err)
	}
	assertPrivate(t, dir)
}

func TestOpenTightensAnExistingDatabaseToOwnerOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, _, err := first.CreateCredential(context.Background(), "agent", DefaultScopes); err != nil {
		t.Fatal(err)
	}
	// As an older hearth (or a cp) left them: readable by everyone.
	db := DatabasePath(dir)
	for _, p := range []string{db, db + "-wal", db + "-shm"} {
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	second, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	assertPrivate(t, dir)
	if n, err := second.Credentials(context.Background()); err != nil || len(n) != 1 {
		t.Fatalf("credentials after reopening: %v, %v", n, err)
	}
}

// TestOpenRefusesAnEmptyDatabaseBesideHearthState: a data dir whose
// database vanished or was truncated, beside the token or schedules that
// outlived it, must not quietly become an empty workspace.
func TestOpenRefusesAnEmptyDatabaseBesideHearthState(t *testing.T) {
	t.Parallel()
	states := map[string]func(t *testing.T, dir string){
		"agent.token": func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "agent.token"), []byte("hearth_x\n"), 0o600))
		},
		"schedules/": func(t *testing.T, dir string) {
			must(t, os.MkdirAll(filepath.Join(dir, "schedules", "definitions"), 0o700))
		},
		"hearth.db-wal": func(t *testing.T, dir string) {
			must(t, os.WriteFile(DatabasePath(dir)+"-wal", []byte("frames of a lost database"), 0o600))
		},
	}
	dbs := map[string]func(t *testing.T, dir string){
		"missing":     func(*testing.T, string) {},
		"zero-length": func(t *testing.T, dir string) { must(t, os.WriteFile(DatabasePath(dir), nil, 0o600)) },
	}
	for stateName, makeState := range states {
		for dbName, makeDB := range dbs {
			t.Run(dbName+" database beside "+stateName, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				makeState(t, dir)
				makeDB(t, dir)
				for name, open := range map[string]func() error{
					"Open":         func() error { s, err := Open(context.Background(), dir, Options{}); closeIf(s); return err },
					"OpenExisting": func() error { s, err := OpenExisting(context.Background(), dir, Options{}); closeIf(s); return err },
					"Migrate":      func() error { _, _, err := Migrate(context.Background(), dir); return err },
				} {
					err := open()
					if !errors.Is(err, ErrNoDatabase) {
						t.Fatalf("%s: got %v, want ErrNoDatabase", name, err)
					}
					for _, want := range []string{stateName, "hearth backup", "--init"} {
						if !strings.Contains(err.Error(), want) {
							t.Errorf("%s: message lacks %q: %v", name, want, err)
						}
					}
					if fi, err := os.Stat(DatabasePath(dir)); err == nil && fi.Size() > 0 {
						t.Fatalf("%s: a refused open wrote the database (%d bytes)", name, fi.Size())
					}
				}
				s, err := Open(context.Background(), dir, Options{Init: true})
				if stateName == "hearth.db-wal" {
					// A lost database's WAL would be replayed into the new one: it is moved away by hand.
					if !errors.Is(err, ErrNoDatabase) || !strings.Contains(err.Error(), "-wal") {
						t.Fatalf("Init beside a stale WAL: got %v, want ErrNoDatabase naming the WAL", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Init: %v", err)
				}
				defer s.Close()
				if rev := mustRevision(t, s); rev != 0 {
					t.Fatalf("Init started at revision %d", rev)
				}
			})
		}
	}
}

func TestOpenCreatesAFreshDatabaseWhereThereIsNoState(t *testing.T) {
	t.Parallel()
	for name, dir := range map[string]string{
		"empty dir":          t.TempDir(),
		"dir not made yet":   filepath.Join(t.TempDir(), "data"),
		"runner state only":  t.TempDir(), // the runner may run before serve first starts
		"zero-length in dir": t.TempDir(),
	} {
		switch name {
		case "runner state only":
			must(t, os.MkdirAll(filepath.Join(dir, "runner", "pending"), 0o700))
		case "zero-length in dir":
			must(t, os.WriteFile(DatabasePath(dir), nil, 0o644))
		}
		s, err := Open(context.Background(), dir, Options{QuickCheck: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.Close()
		if m := fileMode(t, DatabasePath(dir)); m != 0o600 {
			t.Errorf("%s: database is %v", name, m)
		}
	}
}

// damagePage overwrites database page n (1-based) with a pattern that is
// no valid b-tree page, as a torn write or a bad sector would leave it.
func damagePage(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	garbage := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	if _, err := f.WriteAt(garbage, int64(n-1)*4096); err != nil {
		t.Fatal(err)
	}
}

// rootPage is the first page of table in the database at path.
func rootPage(t *testing.T, dir, table string) int {
	t.Helper()
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var page int
	if err := s.rdb.Raw("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = ?", table).Scan(&page).Error; err != nil || page < 2 {
		t.Fatalf("root page of %s: %d, %v", table, page, err)
	}
	return page
}

// TestOpenWithQuickCheckRefusesADamagedDatabase damages a table that
// nothing reads at start: without the check hearth would open it and
// serve until the owner's next look at that table.
func TestOpenWithQuickCheckRefusesADamagedDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := newPub("run-1", 0)
	for i := range 40 {
		p.Add("activities", task(fmt.Sprintf("task-%02d", i)))
	}
	mustPublish(t, s, p)
	s.Close() // the last close checkpoints the WAL into the file
	damagePage(t, DatabasePath(dir), rootPage(t, dir, "activities"))

	s, err = Open(context.Background(), dir, Options{QuickCheck: true})
	if err == nil {
		s.Close()
		t.Fatal("a damaged database opened")
	}
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("got %v, want ErrDamaged", err)
	}
	for _, want := range []string{"quick_check", "hearth backup", DatabasePath(dir)} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
}

func TestOpenCallsAFileThatIsNoDatabaseDamaged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(DatabasePath(dir), []byte(strings.Repeat("not a database ", 500)), 0o600))
	for _, opts := range []Options{{}, {QuickCheck: true}} {
		s, err := Open(context.Background(), dir, opts)
		if err == nil {
			s.Close()
			t.Fatal("a file that is no database opened")
		}
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "hearth backup") {
			t.Fatalf("got %v, want ErrDamaged naming hearth backup", err)
		}
	}
}

// TestWriteReportsAFullDiskAsErrStorageFull fills a database that cannot
// grow (Options.FullDisk): SQLite then fails exactly as on a full disk
// (SQLITE_FULL), and the write says so.
func TestWriteReportsAFullDiskAsErrStorageFull(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, Options{})
	must(t, err)
	s.Close()
	s, err = Open(ctx, dir, Options{FullDisk: true})
	must(t, err)
	defer s.Close()
	made := 0
	for ; made < 10000 && err == nil; made++ {
		_, _, err = s.CreateCredential(ctx, fmt.Sprintf("filler-%04d", made), DefaultScopes)
	}
	if !errors.Is(err, ErrStorageFull) {
		t.Fatalf("after %d credentials: got %v, want ErrStorageFull", made, err)
	}
	creds, cerr := s.Credentials(ctx)
	if cerr != nil || len(creds) != made-1 {
		t.Fatalf("%d credentials stored, want the %d that succeeded (%v)", len(creds), made-1, cerr)
	}
}

func closeIf(s *Store) {
	if s != nil {
		s.Close()
	}
}

// SQLite reads the path as a URI: unescaped, "#" and "?" ended it and the
// pragmas after them (BEGIN IMMEDIATE among them) were dropped.
func TestADataDirNamedWithURICharactersKeepsItsDatabaseInside(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"a#b", "a?b", "a%23b", "a b"} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		s, err := Open(context.Background(), dir, Options{})
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if _, _, err := s.CreateCredential(context.Background(), "agent", DefaultScopes); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		s.Close()
		entries, _ := os.ReadDir(filepath.Dir(dir))
		if len(entries) != 1 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("%q: the data dir's parent holds %q, want only the data dir", name, names)
		}
		if _, err := os.Stat(DatabasePath(dir)); err != nil {
			t.Errorf("%q: %v", name, err)
		}
		if err := CheckIntegrity(context.Background(), DatabasePath(dir)); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
}

// A test that holds the write lock must not wait out production's five
// seconds; production keeps them for the CLI writing beside serve.
func TestBusyTimeoutIsAnOptionThatDefaultsToFiveSeconds(t *testing.T) {
	for _, tc := range []struct {
		opt    time.Duration
		wantMS int
	}{{0, 5000}, {40 * time.Millisecond, 40}} {
		s, _ := newTestStoreWith(t, Options{BusyTimeout: tc.opt})
		for pool, db := range map[string]*gorm.DB{"writers": s.db, "readers": s.rdb} {
			var ms int
			if err := db.Raw("PRAGMA busy_timeout").Scan(&ms).Error; err != nil || ms != tc.wantMS {
				t.Errorf("BusyTimeout %v: %s wait %d ms (%v), want %d", tc.opt, pool, ms, err, tc.wantMS)
			}
		}
	}
}

func TestAWriteBehindAnotherConnectionsWriteLockFailsAfterTheBusyTimeout(t *testing.T) {
	s, _ := newTestStoreWith(t, Options{BusyTimeout: 40 * time.Millisecond})
	release := storetest.HoldWriteLock(t, s.Path())
	if _, _, err := s.CreateCredential(context.Background(), "agent", DefaultScopes); err == nil {
		t.Fatal("a write succeeded while another connection held the write lock")
	}
	release()
	if _, _, err := s.CreateCredential(context.Background(), "agent", DefaultScopes); err != nil {
		t.Fatalf("after the lock was released: %v", err)
	}
}

// TestStartAfterACleanShutdownSkipsTheCheckAndAnythingElseChecks: serve's
// store (QuickCheck) records a clean Close; the next open finds the file
// unchanged and does not read every page again. A crash (no Close), a
// file changed since (a damaged page, another writer, a restored copy)
// or a log left to replay all mean a check, and a damaged file is refused.
func TestStartAfterACleanShutdownSkipsTheCheckAndAnythingElseChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open := func() *Store {
		t.Helper()
		s, err := Open(context.Background(), dir, Options{QuickCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	if !s.PagesChecked() {
		t.Fatal("a first start did not check the file")
	}
	p := newPub("run-1", 0)
	for i := range 40 {
		p.Add("activities", task(fmt.Sprintf("task-%02d", i)))
	}
	mustPublish(t, s, p)
	must(t, s.Close())

	s = open()
	if s.PagesChecked() {
		t.Fatal("a start after a clean shutdown read every page again")
	}
	// A crash: the process ends without Close.
	crashed := s
	s = open()
	if !s.PagesChecked() {
		t.Fatal("a start after a crash skipped the check")
	}
	crashed.Close()
	s.Close()

	// Another process's write after the clean shutdown (a CLI store,
	// which records nothing) changes the file: checked.
	cli, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustPublish(t, cli, newPub("run-2", mustRevision(t, cli)).Add("activities", task("from-cli")))
	must(t, cli.Close())
	if s = open(); !s.PagesChecked() {
		t.Fatal("a start after another process wrote skipped the check")
	}
	must(t, s.Close())

	// A page damaged after a clean shutdown is still refused.
	damagePage(t, DatabasePath(dir), rootPage(t, dir, "activities"))
	s, err = Open(context.Background(), dir, Options{QuickCheck: true})
	if err == nil {
		s.Close()
		t.Fatal("a database damaged after a clean shutdown opened")
	}
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("got %v, want ErrDamaged", err)
	}
}

// TestDamageWhileServingIsFoundAtTheNextStartAfterACleanStop: pages
// damaged under a running serve (the file overwritten in the middle) must
// not be recorded as a clean stop, so the next start checks every page
// and refuses the file.
func TestDamageWhileServingIsFoundAtTheNextStartAfterACleanStop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{QuickCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	p := newPub("run-1", 0)
	for i := range 40 {
		p.Add("activities", task(fmt.Sprintf("task-%02d", i)))
	}
	mustPublish(t, s, p)
	var page int
	must(t, s.rdb.Raw("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = 'activities'").Scan(&page).Error)
	// Every commit into the file first, so the log cannot cover the damage.
	must(t, s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error)
	damagePage(t, DatabasePath(dir), page)

	if err := s.Close(); !errors.Is(err, ErrDamaged) {
		t.Errorf("Close of a file damaged while open = %v, want ErrDamaged", err)
	}
	s, err = Open(context.Background(), dir, Options{QuickCheck: true})
	if err == nil {
		checked := s.PagesChecked()
		s.Close()
		t.Fatalf("a file damaged while serve ran opened after its clean stop (pages checked: %v)", checked)
	}
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("got %v, want ErrDamaged", err)
	}
}

// A writer's transaction takes the write lock at BEGIN (IMMEDIATE), so a
// second writer waits there, before it has read anything it would then
// fail to upgrade: the driver honours the DSN's _txlock.
func TestAWritersTransactionTakesTheWriteLockWhenItBegins(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	first, firstDB, err := openGorm(dsn(DatabasePath(dir), 50*time.Millisecond), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer firstDB.Close()
	_, secondDB, err := openGorm(dsn(DatabasePath(dir), 50*time.Millisecond), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer secondDB.Close()
	tx := first.Begin()
	if tx.Error != nil {
		t.Fatal(tx.Error)
	}
	defer tx.Rollback()
	second, err := secondDB.Begin()
	if err == nil {
		second.Rollback()
		t.Fatal("a second writer began while the first held its transaction: BEGIN is not IMMEDIATE")
	}
	if sqliteCode(err) != 5 { // SQLITE_BUSY, after the busy timeout
		t.Fatalf("the second writer's BEGIN failed with %v, want SQLITE_BUSY", err)
	}
}
