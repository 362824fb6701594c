// Package models owns hearth's storage: the schema's Go types and the
// transactional services that the browser and agent surfaces both call.
package models

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gormsqlite "github.com/glebarez/sqlite"
	"github.com/pressly/goose/v3"
	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
	"modernc.org/sqlite"

	"hearth/internal/privatefile"
	"hearth/internal/routinecount"
	"hearth/internal/schedule"
	"hearth/migrations"
	"hearth/models/sqliteconn"
)

// Sentinel errors that handlers map to HTTP statuses.
var (
	// ErrNotFound means the addressed row does not exist.
	ErrNotFound = errors.New("not found")
	// ErrSchemaTooNew means the database was migrated by a newer hearth.
	ErrSchemaTooNew = errors.New("database schema is newer than this hearth knows")
	// ErrNotMigrated means the database lacks migrations this hearth needs.
	ErrNotMigrated = errors.New("database schema is behind: run hearth migrate (with the server stopped) first")
	// ErrNoDatabase means the database is missing or empty in a data dir
	// that holds hearth state: restore a backup, or start afresh on purpose.
	ErrNoDatabase = errors.New("database missing or empty beside hearth state")
	// ErrDamaged means the database file fails SQLite's checks: restore a backup.
	ErrDamaged = errors.New("database is damaged")
	// ErrStorageFull means a write failed because the disk (or the
	// database's size limit) is full; nothing of that write was stored.
	ErrStorageFull = errors.New("storage is full")
)

// Store is the database plus the services over it.
type Store struct {
	db       *gorm.DB // writers: every transaction BEGIN IMMEDIATE
	sqlDB    *sql.DB
	rdb      *gorm.DB // readers: deferred BEGIN, query_only, so a read transaction is one WAL snapshot that never takes the write lock
	rsqlDB   *sql.DB
	path     string
	dataDir  string
	notifier Notifier // the SSE hub (SetNotifier); see committed
	now      func() time.Time
	// metrics keeps routine counts between reads (internal/routinecount).
	metrics *routinecount.Memo

	// defs are the schedule definition files under DATA/schedules.
	defs *schedule.Store
	// schedMu serialises this process's schedule file operations (add,
	// cancel, approve, journal recovery), so a journal entry seen while
	// holding it belongs to an attempt that failed or crashed, never to one
	// in flight. Schedules are written only by serve (the CLI goes through
	// its API), so one process per data dir holds it.
	schedMu sync.Mutex
	// owedAfter is Options.OwedAfter, defaulted.
	owedAfter time.Duration
	// passphraseCost is Options.PassphraseCost, defaulted.
	passphraseCost int
	// pause is Options.Pause: a test-only hook at named points of a
	// schedule file operation or a schedule run's start.
	pause func(point string)

	// latest is the newest revision this process committed (or found at
	// open): every revision-bumping commit goes through this Store and
	// committed, so it lets readers key caches without a query.
	latest atomic.Int64
	// writes counts the commits through this Store, those that bump no
	// revision too (observations, the Beeper watch's chat titles), so a
	// page cache keys on what the revision misses; committed counts them.
	writes atomic.Int64
	// noAcceptedAt is 1 + the revision at which no send Beeper accepted
	// was pending (0: not looked yet), so pages settle them for free while
	// there are none (see AcceptedSends).
	noAcceptedAt atomic.Int64
	// sessionEnd is closed at the next session end (see SessionsEnded).
	sessionEndMu sync.Mutex
	sessionEnd   chan struct{}

	// markClean makes Close record a clean shutdown (Options.QuickCheck:
	// serve); pagesChecked says whether quick_check ran at open.
	markClean, pagesChecked bool

	// writeMu queues this process's writers in Go rather than in SQLite's
	// busy handler; _txlock=immediate and busy_timeout still cover other
	// processes (the CLI) writing to the same file.
	writeMu sync.Mutex

	// dirty is closed at the next dirty-job mark (see DirtyChanged).
	dirtyMu sync.Mutex
	dirty   chan struct{}
}

// Options tune a Store; the zero value is production.
type Options struct {
	// Clock replaces time.Now (tests pass a fixed clock).
	Clock func() time.Time
	// Pause, when set, is called at named points of a schedule add or
	// cancel (PauseJournalWritten, PauseFileWritten, PauseCancelCommitted)
	// and of a schedule run's start (PauseRunClaimed). Test-only: serve
	// sets it from HEARTH_TEST_PAUSE_AT so the e2e crash tests can SIGKILL
	// the process at an exact point.
	Pause func(point string)
	// Init allows creating a new database in a data dir that already holds
	// hearth state (agent.token, schedules/) beside a missing or empty
	// hearth.db; without it that is ErrNoDatabase.
	Init bool
	// QuickCheck runs PRAGMA quick_check before anything else reads the
	// database and refuses a file that fails it (ErrDamaged), unless the
	// file is exactly as the last clean Close of a QuickCheck store left it
	// (see cleanMarker); such a Close records that. serve sets it: a scan of
	// every page (1.8 s on five years of use), too slow for each CLI call.
	QuickCheck bool
	// OwedAfter is how long a chat's last message from someone else waits
	// before the reply shows as owed; zero means OwedAfter (the constant).
	OwedAfter time.Duration
	// BusyTimeout is how long a writer waits for another connection's
	// write lock (the CLI writing beside serve) before failing; zero means
	// DefaultBusyTimeout. Tests that hold the lock on purpose set it short.
	BusyTimeout time.Duration
	// FullDisk is test-only: every writer connection gets PRAGMA
	// max_page_count(1), which SQLite raises to the database's size, so
	// the file cannot grow and a write that needs a new page fails with
	// SQLITE_FULL exactly as on a full disk. Open an existing database.
	FullDisk bool
	// SeedWithoutSync is for `hearth seed` only, never serve: the writers
	// run with PRAGMA synchronous(OFF), so a commit does not wait for the
	// disk. Generating years of history is then minutes instead of hours;
	// a crash or power loss mid-seed can lose or corrupt the seeded file,
	// which is thrown away and seeded again.
	SeedWithoutSync bool
	// PassphraseCost is test-only: bcrypt's cost for a passphrase stored
	// (zero means bcrypt.DefaultCost). Under the race detector one hash or
	// check at the default cost takes about two seconds; tests that only
	// need a logged-in owner set bcrypt.MinCost. A hash keeps its cost, so
	// a store opened on a test's database checks at the cost it was made.
	PassphraseCost int
	// Statement is test-only: when set, it is called with each SQL
	// statement the store's pools run (transaction control left out), so a
	// test can count what a request costs (docs/figures.md).
	Statement func(sql string)
}

// DefaultBusyTimeout is Options.BusyTimeout's default: long enough for a
// CLI command's short transaction beside a running server.
const DefaultBusyTimeout = 5 * time.Second

// DatabasePath is where a data dir keeps its SQLite file.
func DatabasePath(dataDir string) string { return filepath.Join(dataDir, "hearth.db") }

// dsn is the one place SQLite's connection settings live: WAL so reads run
// beside a writer, a busy timeout (busy; zero means DefaultBusyTimeout) so
// another process's writer is waited for, foreign keys on, FULL sync so a
// commit acknowledged to a client survives power loss (not just a process
// crash), statement journals in memory (a many-row statement journals the
// pages it changes until it ends: past 64 KiB SQLite wrote that journal to
// a temporary file, a fifth of a 100-activity publish), and BEGIN
// IMMEDIATE so a read-then-write transaction never fails to upgrade its
// lock (docs/contract.md, Storage).
func dsn(path string, busy time.Duration) string {
	return fileURI(path) + "?_pragma=journal_mode(WAL)&" + busyPragma(busy) +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)&_pragma=temp_store(MEMORY)&_txlock=immediate"
}

// readerDSN is for the read pool: deferred BEGIN so a read transaction never
// queues behind the writer, and query_only so a bug cannot write through it.
func readerDSN(path string, busy time.Duration) string {
	return fileURI(path) + "?" + busyPragma(busy) + "&_pragma=foreign_keys(1)&_pragma=query_only(1)"
}

// busyPragma is the busy_timeout DSN parameter for busy (zero: the default).
func busyPragma(busy time.Duration) string {
	return fmt.Sprintf("_pragma=busy_timeout(%d)", cmp.Or(busy, DefaultBusyTimeout).Milliseconds())
}

// fileURI is path as an SQLite file: URI. SQLite decodes %XX in the path and
// ends it at ? or #, so a data dir named "a#b" would open the database "a".
func fileURI(path string) string {
	return "file:" + uriPathEscaper.Replace(path)
}

var uriPathEscaper = strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23")

// openGorm opens a pool whose automatic CreatedAt/UpdatedAt come from clock,
// so rows agree with the Store's clock (a fixed one in tests).
func openGorm(dsn string, clock func() time.Time) (*gorm.DB, *sql.DB, error) {
	connector, err := sqliteconn.NewConnector(dsn)
	if err != nil {
		return nil, nil, err
	}
	db, err := gorm.Open(gormsqlite.Dialector{Conn: sql.OpenDB(connector)}, &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return clock().UTC() },
	})
	if err != nil {
		return nil, nil, err
	}
	sqlDB, err := db.DB()
	return db, sqlDB, err
}

// onStatement calls fn after every statement GORM runs on dbs.
func onStatement(fn func(sql string), dbs ...*gorm.DB) error {
	call := func(tx *gorm.DB) {
		if tx.Statement.SQL.Len() > 0 {
			fn(tx.Statement.SQL.String())
		}
	}
	for _, db := range dbs {
		cb := db.Callback()
		for _, err := range []error{
			cb.Query().After("gorm:query").Register("hearth:statement", call),
			cb.Row().After("gorm:row").Register("hearth:statement", call),
			cb.Raw().After("gorm:raw").Register("hearth:statement", call),
			cb.Create().After("gorm:create").Register("hearth:statement", call),
			cb.Update().After("gorm:update").Register("hearth:statement", call),
			cb.Delete().After("gorm:delete").Register("hearth:statement", call),
		} {
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Open opens (creating if needed) the database in dataDir, applies pending
// migrations, and refuses a schema newer than this binary knows.
func Open(ctx context.Context, dataDir string, opts Options) (*Store, error) {
	return open(ctx, dataDir, opts, true)
}

// OpenExisting is Open for admin commands beside a running server: it
// initialises a brand-new database but never upgrades an existing one, so a
// newer binary's admin command cannot migrate a live server's schema.
func OpenExisting(ctx context.Context, dataDir string, opts Options) (*Store, error) {
	return open(ctx, dataDir, opts, false)
}

func open(ctx context.Context, dataDir string, opts Options, migrate bool) (*Store, error) {
	path := DatabasePath(dataDir)
	if err := prepareDatabaseFile(dataDir, opts.Init); err != nil {
		return nil, err
	}
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	s, err := openStore(ctx, dataDir, opts, clock, migrate)
	if isDamaged(err) {
		return nil, damagedError(path, err)
	}
	return s, err
}

// openStore opens both pools of a prepared database file.
func openStore(ctx context.Context, dataDir string, opts Options, clock func() time.Time, migrate bool) (*Store, error) {
	path := DatabasePath(dataDir)
	writers := dsn(path, opts.BusyTimeout)
	if opts.FullDisk {
		writers += "&_pragma=max_page_count(1)"
	}
	if opts.SeedWithoutSync {
		writers = strings.Replace(writers, "synchronous(FULL)", "synchronous(OFF)", 1)
	}
	db, sqlDB, err := openGorm(writers, clock)
	if err != nil {
		return nil, fmt.Errorf("models: open %s: %w", path, err)
	}
	// Writers are serialised by writeMu; two connections let a plain read
	// (and Home's, readAfterCommit) run beside the one writer.
	sqlDB.SetMaxOpenConns(2)
	s := &Store{db: db, sqlDB: sqlDB, path: path, dataDir: dataDir, now: clock,
		defs: schedule.NewStore(dataDir), pause: opts.Pause, metrics: routinecount.NewMemo(), owedAfter: cmp.Or(opts.OwedAfter, OwedAfter),
		passphraseCost: cmp.Or(opts.PassphraseCost, bcrypt.DefaultCost)}
	if opts.QuickCheck {
		s.markClean = true
		s.pagesChecked = !closedCleanly(path)
		// Gone before any write: a crash from here on leaves no marker.
		if err := os.Remove(cleanMarker(path)); err != nil && !errors.Is(err, os.ErrNotExist) {
			sqlDB.Close()
			return nil, fmt.Errorf("models: open: %w", err)
		}
		if s.pagesChecked {
			if err := checkPages(ctx, db, "quick_check", path); err != nil {
				sqlDB.Close()
				return nil, err
			}
		}
	}
	if _, _, err := checkSchema(ctx, sqlDB, migrate); err != nil {
		sqlDB.Close()
		return nil, err
	}
	if migrate {
		if err := ensureIncrementalVacuum(ctx, sqlDB); err != nil {
			sqlDB.Close()
			return nil, err
		}
	}
	// The reader pool opens after migrations so it never sees a half-built schema.
	if s.rdb, s.rsqlDB, err = openGorm(readerDSN(path, opts.BusyTimeout), clock); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("models: open readers %s: %w", path, err)
	}
	s.rsqlDB.SetMaxOpenConns(4)
	if opts.Statement != nil {
		if err := onStatement(opts.Statement, s.db, s.rdb); err != nil {
			s.Close()
			return nil, fmt.Errorf("models: open: %w", err)
		}
	}
	rev, err := s.Revision(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.latest.Store(rev)
	return s, nil
}

// stateMarkers are what a data dir holds once it has been used: beside a
// missing or empty database they mean the database was lost, not that
// this is a first start. (DATA/runner is not one: the runner may run
// before serve first starts.)
var stateMarkers = []string{"agent.token", "schedules/"}

// prepareDatabaseFile makes the data dir (0700 when new) and the database
// file owner-only, and refuses to start an empty database where hearth
// state shows one existed. The file is created 0600 before SQLite opens
// it: SQLite would create it 0644 (less the umask), and its -wal and -shm
// files take the database's mode. Existing files are tightened too.
func prepareDatabaseFile(dataDir string, init bool) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("models: open: %w", err)
	}
	path := DatabasePath(dataDir)
	fi, err := os.Stat(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("models: open: %w", err)
	}
	if err != nil || fi.Size() == 0 {
		if err := checkNoState(dataDir, init); err != nil {
			return err
		}
	}
	if err := privatefile.CreateExclusive(path, nil); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("models: open: %w", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil && fi.Mode().Perm() != 0o600 {
			err = os.Chmod(p, 0o600)
		}
		if err != nil {
			return fmt.Errorf("models: open: keeping %s owner-only: %w", p, err)
		}
	}
	return nil
}

// checkNoState refuses a new database in a data dir holding hearth state,
// unless init. A WAL left by the lost database is refused even then:
// SQLite would replay its frames into the new file.
func checkNoState(dataDir string, init bool) error {
	path := DatabasePath(dataDir)
	if _, err := os.Stat(path + "-wal"); err == nil {
		return fmt.Errorf("models: %s is missing or empty but its write-ahead log %s-wal is there: %w. Restore the database from a `hearth backup` copy (docs/schedules-and-runner.md, Backup and restore); to begin an empty workspace instead, move %s-wal and %s-shm away and start `hearth serve --init`",
			path, path, ErrNoDatabase, path, path)
	}
	if init {
		return nil
	}
	var found []string
	for _, name := range stateMarkers {
		if _, err := os.Stat(filepath.Join(dataDir, name)); err == nil {
			found = append(found, name)
		}
	}
	if len(found) == 0 {
		return nil
	}
	return fmt.Errorf("models: %s is missing or empty, but %s holds hearth state (%s): %w. Restore the database from a `hearth backup` copy (docs/schedules-and-runner.md, Backup and restore), or start `hearth serve --init` to begin an empty workspace beside that state",
		path, dataDir, strings.Join(found, ", "), ErrNoDatabase)
}

// checkPages runs pragma, quick_check (every page's structure, at start)
// or integrity_check (index contents too, on a backup's copy), and names
// up to three of the problems it reports as ErrDamaged.
func checkPages(ctx context.Context, db *gorm.DB, pragma, path string) error {
	var rows []string
	if err := db.WithContext(ctx).Raw("PRAGMA " + pragma).Scan(&rows).Error; err != nil {
		return fmt.Errorf("models: %s of %s: %w", pragma, path, err)
	}
	if len(rows) == 1 && rows[0] == "ok" {
		return nil
	}
	if len(rows) > 3 {
		rows = append(rows[:3], fmt.Sprintf("and %d more", len(rows)-3))
	}
	return fmt.Errorf("models: %s of %s: %s: %w", pragma, path, strings.Join(rows, "; "), ErrDamaged)
}

// SQLite's primary result codes that hearth tells apart.
const (
	sqliteCorrupt = 11
	sqliteFull    = 13
	sqliteNotADB  = 26
)

// sqliteCode is the primary result code of a SQLite error, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// isDamaged reports whether err says the database file is damaged.
func isDamaged(err error) bool {
	if err == nil {
		return false
	}
	code := sqliteCode(err)
	return errors.Is(err, ErrDamaged) || code == sqliteCorrupt || code == sqliteNotADB
}

// damagedError names the way back: the damaged file is left as it is.
func damagedError(path string, err error) error {
	if !errors.Is(err, ErrDamaged) {
		err = fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return fmt.Errorf("%w\nhearth will not serve %s. Stop here and keep the file for inspection; restore the newest `hearth backup` copy (docs/schedules-and-runner.md, Backup and restore): cp FILE %s && rm -f %s-wal %s-shm, and its FILE.schedules to DATA/schedules",
		err, path, path, path, path)
}

// checkSchema refuses a schema newer than this binary knows and, when
// migrate is set or the database is new, applies pending migrations. It
// returns the schema version found and the version left.
func checkSchema(ctx context.Context, sqlDB *sql.DB, migrate bool) (from, to int64, err error) {
	p, err := goose.NewProvider(goose.DialectSQLite3, sqlDB, migrations.FS)
	if err != nil {
		return 0, 0, fmt.Errorf("models: migrations: %w", err)
	}
	sources := p.ListSources()
	newest := sources[len(sources)-1].Version
	current, err := p.GetDBVersion(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("models: schema version: %w", err)
	}
	if current > newest {
		return current, current, fmt.Errorf("models: %w (database at %d, newest known %d)", ErrSchemaTooNew, current, newest)
	}
	// Every known version must be applied, not only the highest: a version
	// that landed below one already applied is an error, never skipped.
	pending, err := p.HasPending(ctx)
	if err != nil {
		return current, current, fmt.Errorf("models: schema version: %w", err)
	}
	if !pending {
		return current, current, nil
	}
	if !migrate && current != 0 {
		return current, current, fmt.Errorf("models: %w (database at %d, needs %d)", ErrNotMigrated, current, newest)
	}
	if _, err := p.Up(ctx); err != nil {
		return current, current, fmt.Errorf("models: migrate: %w", err)
	}
	return current, newest, nil
}

// Migrate applies pending migrations to the database in dataDir (creating
// it if needed) and returns the schema version before and after. It is for
// `hearth migrate`: run it with the server stopped.
func Migrate(ctx context.Context, dataDir string) (from, to int64, err error) {
	if err := prepareDatabaseFile(dataDir, false); err != nil {
		return 0, 0, err
	}
	path := DatabasePath(dataDir)
	_, sqlDB, err := openGorm(dsn(path, DefaultBusyTimeout), time.Now)
	if err == nil {
		defer sqlDB.Close()
		from, to, err = checkSchema(ctx, sqlDB, true)
	} else {
		err = fmt.Errorf("models: open %s: %w", path, err)
	}
	if isDamaged(err) {
		return from, to, damagedError(path, err)
	}
	return from, to, err
}

// SetNotifier installs the notifier (the SSE hub), the last listener of
// every commit (see committed); serve sets it before serving.
func (s *Store) SetNotifier(n Notifier) { s.notifier = n }

// Close closes the database. A QuickCheck store records a clean stop only
// after a quick_check of the file as closed passed (see stopChecked);
// damaged pages are ErrDamaged, and the next start checks again.
func (s *Store) Close() error {
	err := errors.Join(s.rsqlDB.Close(), s.sqlDB.Close())
	if err == nil && s.markClean {
		if err = stopChecked(s.path); err == nil {
			err = markClean(s.path)
		}
	}
	return err
}

// stopChecked runs quick_check on a fresh connection once every other one
// closed: the stamp a clean stop records lets the next start skip the
// check, so it must vouch for the pages, not only for the file's size and
// time (damage while serve ran changes both before the stamp is taken).
// A fresh connection has no cached pages, so it reads what is on disk.
func stopChecked(path string) error {
	db, sqlDB, err := openGorm(readerDSN(path, DefaultBusyTimeout), time.Now)
	if err != nil {
		return fmt.Errorf("models: check at stop: %w", err)
	}
	err = checkPages(context.Background(), db, "quick_check", path)
	if cerr := sqlDB.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("models: check at stop: %w", cerr)
	}
	if isDamaged(err) {
		return damagedError(path, err)
	}
	return err
}

// PagesChecked reports whether Open ran quick_check: always for a
// QuickCheck store, unless the file was as its last clean Close left it.
func (s *Store) PagesChecked() bool { return s.pagesChecked }

// cleanMarker is the file in which a clean Close of a QuickCheck store
// records the database file's size and modification time.
func cleanMarker(path string) string { return path + "-clean" }

// fileStamp is what the clean marker holds: the database file's size and
// modification time, and whether a write-ahead log with frames is beside
// it (then the last connection did not close, and SQLite will replay it).
func fileStamp(path string) (string, bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false, err
	}
	wal, err := os.Stat(path + "-wal")
	pending := err == nil && wal.Size() > 0
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano()), pending, nil
}

// markClean records that the last connection closed: the file then holds
// every commit, and a start that finds it unchanged need not read every
// page again. Best effort: without the marker the next start checks.
func markClean(path string) error {
	stamp, pending, err := fileStamp(path)
	if err != nil || pending {
		return nil
	}
	if err := privatefile.WriteAtomic(cleanMarker(path), []byte(stamp+"\n")); err != nil {
		return fmt.Errorf("models: record a clean shutdown: %w", err)
	}
	return nil
}

// closedCleanly reports whether the database file is exactly as the last
// clean Close left it: same size and modification time, no log to replay.
// A crash, a copy or restore put in place, another process's write, or
// any edit of the file since then means no.
func closedCleanly(path string) bool {
	want, err := os.ReadFile(cleanMarker(path))
	if err != nil {
		return false
	}
	stamp, pending, err := fileStamp(path)
	return err == nil && !pending && strings.TrimSpace(string(want)) == stamp
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.rdb.WithContext(ctx).Model(&Workspace{}).Select("1").Scan(&one).Error
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DataDir is the data directory: the database and DATA/schedules.
func (s *Store) DataDir() string { return s.dataDir }

func (s *Store) clock() time.Time { return s.now().UTC() }

// Now is the Store's clock: handlers use it so pages agree with the data.
func (s *Store) Now() time.Time { return s.clock() }

// write runs fn in one immediate write transaction. Only commit calls it,
// so every write reaches the after-commit seam (committed).
func (s *Store) write(ctx context.Context, fn func(tx *gorm.DB) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	err := s.db.WithContext(ctx).Transaction(fn)
	if sqliteCode(err) == sqliteFull {
		// Named, so the owner's forms can say why nothing was saved.
		return fmt.Errorf("%w: %w", ErrStorageFull, err)
	}
	return err
}

// LatestRevision is the newest revision committed through this Store (or
// read at open), without a query. Caches key on it.
func (s *Store) LatestRevision() int64 { return s.latest.Load() }

// Writes counts the commits through this Store, including those that do
// not bump the revision (an observation arriving, the Beeper watch
// recording a chat's title); it moves after the commit, so a reader that
// sees the count sees the write. Read before a snapshot, it keys a cache
// of a page that shows such data.
func (s *Store) Writes() int64 { return s.writes.Load() }

// Revision is the workspace revision.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	rev, err := WorkspaceRevision(s.rdb.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("models: revision: %w", err)
	}
	return rev, nil
}

// BackupReport says what Backup copied.
type BackupReport struct {
	// SchedulesDir is the copy of DATA/schedules: BackupSchedulesDir(dest).
	SchedulesDir string
	// DefinitionFiles is how many definition files (live and retired) were copied.
	DefinitionFiles int
	// Skipped are schedule files not copied (links, non-regular files), "definitions/x.md: symlink".
	Skipped []string
}

// BackupSchedulesDir is where Backup copies DATA/schedules: a directory
// beside the database copy, FILE.schedules, with definitions/ and retired/.
func BackupSchedulesDir(dest string) string { return dest + ".schedules" }

// Backup writes a consistent online copy of the database to dest (which
// must not exist), marks the copy as a backup (table backup_copy, so a
// server started on it after a restore holds its schedules as
// restore_pending), checks that it passes integrity_check, and then copies
// DATA/schedules to BackupSchedulesDir(dest). The database is copied first,
// so every schedule in the copy had its file written before the files are
// copied; a cancel in between leaves a restored schedule whose file is in
// retired/, which reconciliation shows the owner. The copy is created 0600
// first: VACUUM INTO accepts an empty file, and would otherwise create it
// readable by everyone.
func (s *Store) Backup(ctx context.Context, dest string) (BackupReport, error) {
	rep := BackupReport{SchedulesDir: BackupSchedulesDir(dest)}
	if _, err := os.Lstat(rep.SchedulesDir); err == nil {
		return rep, fmt.Errorf("models: backup: %s already exists; choose a new file", rep.SchedulesDir)
	}
	err := privatefile.CreateExclusive(dest, nil)
	if errors.Is(err, os.ErrExist) {
		return rep, fmt.Errorf("models: backup: %s already exists; choose a new file", dest)
	}
	if err != nil {
		return rep, fmt.Errorf("models: backup: %w", err)
	}
	fail := func(err error) (BackupReport, error) {
		os.Remove(dest)
		os.RemoveAll(rep.SchedulesDir)
		return rep, err
	}
	if err := s.db.WithContext(ctx).Exec("VACUUM INTO ?", dest).Error; err != nil {
		return fail(fmt.Errorf("models: backup: %w", err))
	}
	if err := markBackupCopy(ctx, dest, s.path, s.clock()); err != nil {
		return fail(err)
	}
	if err := CheckIntegrity(ctx, dest); err != nil {
		return fail(err)
	}
	n, skipped, err := s.defs.CopyTo(rep.SchedulesDir)
	if err != nil {
		return fail(fmt.Errorf("models: backup: %w", err))
	}
	rep.DefinitionFiles, rep.Skipped = n, skipped
	return rep, nil
}

// markBackupCopy writes the backup_copy row into the copy at path.
func markBackupCopy(ctx context.Context, path, source string, now time.Time) error {
	db, sqlDB, err := openGorm(fileURI(path)+"?_pragma=busy_timeout(5000)&_pragma=synchronous(FULL)", func() time.Time { return now })
	if err != nil {
		return fmt.Errorf("models: backup: mark copy: %w", err)
	}
	defer sqlDB.Close()
	err = db.WithContext(ctx).Exec("INSERT OR REPLACE INTO backup_copy (id, taken_at, source) VALUES (1, ?, ?)", now.UTC(), source).Error
	if err != nil {
		return fmt.Errorf("models: backup: mark copy: %w", err)
	}
	return nil
}

// CheckIntegrity opens the SQLite file at path read-only and runs PRAGMA integrity_check.
func CheckIntegrity(ctx context.Context, path string) error {
	db, sqlDB, err := openGorm(fileURI(path)+"?mode=ro", time.Now)
	if err != nil {
		return fmt.Errorf("models: integrity: %w", err)
	}
	defer sqlDB.Close()
	return checkPages(ctx, db, "integrity_check", path)
}
