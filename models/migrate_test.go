package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/glebarez/go-sqlite" // the "sqlite" database/sql driver, to build old schemas by hand
	"github.com/pressly/goose/v3"

	"hearth/migrations"
)

// migrateTo applies migrations up to version on a fresh database in dir.
func migrateTo(t *testing.T, dir string, version int64) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", fileURI(DatabasePath(dir))+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), version); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestOpenUpgradesDatabaseMadeByFirstMigration(t *testing.T) {
	dir := t.TempDir()
	db := migrateTo(t, dir, 1)
	if _, err := db.Exec(`INSERT INTO agent_credentials (id, name, token_hash, scopes, created_at) VALUES ('c1', 'old-agent', 'h', 'context:read', CURRENT_TIMESTAMP)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE workspace SET revision = 7`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	creds, err := s.Credentials(context.Background())
	if err != nil || len(creds) != 1 || creds[0].Name != "old-agent" {
		t.Fatalf("credentials after upgrade: %+v %v", creds, err)
	}
	if rev := mustRevision(t, s); rev != 7 {
		t.Fatalf("revision after upgrade %d, want 7", rev)
	}
	// The upgraded schema takes a full publication.
	mustPublish(t, s, newPub("run-1", 7).Add("activities", task("a1")).Add("people", person("p1")))
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Exec("INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, 1)").Error; err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(context.Background(), dir, Options{}); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("got %v, want ErrSchemaTooNew", err)
	}
}

func TestOpenExistingRefusesOutdatedSchemaButInitialisesNewDatabase(t *testing.T) {
	dir := t.TempDir()
	migrateTo(t, dir, 1).Close()
	if _, err := OpenExisting(context.Background(), dir, Options{}); !errors.Is(err, ErrNotMigrated) {
		t.Fatalf("got %v, want ErrNotMigrated", err)
	}
	fresh, err := OpenExisting(context.Background(), t.TempDir(), Options{})
	if err != nil {
		t.Fatalf("new database: %v", err)
	}
	fresh.Close()
}

func TestBackupIsConsistentCopyThatPassesIntegrityCheck(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-1", 0).Add("activities", task("a1")))
	dest := filepath.Join(t.TempDir(), "backup.db")
	if _, err := s.Backup(context.Background(), dest); err != nil {
		t.Fatal(err)
	}
	if err := CheckIntegrity(context.Background(), dest); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(dest); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
	// The copy is a complete database: open it where a data dir expects it.
	dir := t.TempDir()
	if _, err := s.Backup(context.Background(), DatabasePath(dir)); err != nil {
		t.Fatal(err)
	}
	restored, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	if _, ok := findActivity(t, restored, "a1"); !ok {
		t.Fatal("backup lacks a1")
	}
	if _, err := s.Backup(context.Background(), dest); err == nil {
		t.Fatal("backup overwrote an existing file")
	}
}

func TestOpenRefusesADatabaseWithAVersionMissingBelowTheHighest(t *testing.T) {
	dir := t.TempDir()
	db := migrateTo(t, dir, 7)
	// As if version 6 had landed after 7 was applied: 7 present, 6 absent.
	if _, err := db.Exec(`DELETE FROM goose_db_version WHERE version_id = 6`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(context.Background(), dir, Options{})
	if err == nil {
		s.Close()
		t.Fatal("a database missing version 6 below 7 opened as current")
	}
	if !strings.Contains(err.Error(), "6") {
		t.Fatalf("the error does not name the missing version: %v", err)
	}
}

func TestMigration24AttributesEarlierItemsToThePublicationThatCreatedThemWhereThatIsCertain(t *testing.T) {
	s, now := newTestStore(t)
	mustPublish(t, s, newPub("p-1", 0).Add("activities", task("a1")).Add("replyDrafts", draft("d1", "Hi")))
	now.Advance(time.Minute)
	mustPublish(t, s, newPub("p-2", mustRevision(t, s)).Add("activities", task("a1"), task("a2")))
	now.Advance(time.Minute)
	// Two publications at one instant: which created what is not certain.
	mustPublish(t, s, newPub("p-3", mustRevision(t, s)).Add("activities", task("a3")))
	mustPublish(t, s, newPub("p-4", mustRevision(t, s)).Add("activities", task("a4")))
	dir := filepath.Dir(s.Path())
	s.Close()

	db, err := sql.Open("sqlite", fileURI(DatabasePath(dir))+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.DownTo(ctx, 23); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, table := range []string{"activities", "reply_drafts"} {
		rows, err := db.Query(`SELECT id, publisher, published_run_id FROM ` + table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, publisher, run string
			if err := rows.Scan(&id, &publisher, &run); err != nil {
				t.Fatal(err)
			}
			got[id] = publisher + "/" + run
		}
		rows.Close()
	}
	want := map[string]string{"a1": "cred-test/p-1", "d1": "cred-test/p-1", "a2": "cred-test/p-2", "a3": "/", "a4": "/"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("attribution after migration 24: %v, want %v", got, want)
	}
}
