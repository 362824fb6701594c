package models

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/internal/costpolicy"
)

func TestVerifiedBackupDrillsTheCopyAndTheRunsPageShowsIt(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	for i := range 3 {
		mustPublish(t, s, newPub("run-"+string(rune('a'+i)), mustRevision(t, s)).Add("activities", task("t"+string(rune('a'+i)))))
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	d, err := s.VerifiedBackup(ctx, dest)
	if err != nil {
		t.Fatal(err)
	}
	if !d.OK || d.Receipts != 3 || d.Revision != mustRevision(t, s) || d.Bytes <= 0 {
		t.Fatalf("drill = %+v, want ok with the 3 receipts at the live revision", d)
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("copy mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v := runs.Backups.LastVerified; v == nil || v.Path != dest || runs.Backups.Failed != nil {
		t.Fatalf("Runs backups = %+v", runs.Backups)
	}
}

func TestAFailedBackupIsRecordedAndHomeSaysSoUntilOneSucceeds(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	if _, err := s.VerifiedBackup(ctx, filepath.Join(t.TempDir(), "missing-dir", "copy.db")); err == nil {
		t.Fatal("a backup into a missing directory succeeded")
	}
	n, err := homeNotice(ctx, s, costpolicy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if n.BackupFailed == nil || !strings.Contains(n.BackupFailed.Detail, "missing-dir") {
		t.Fatalf("Home's notice after a failed backup = %+v", n.BackupFailed)
	}
	now.Advance(time.Hour)
	if _, err := s.VerifiedBackup(ctx, filepath.Join(t.TempDir(), "copy.db")); err != nil {
		t.Fatal(err)
	}
	if n, _ = homeNotice(ctx, s, costpolicy.Policy{}); n.BackupFailed != nil {
		t.Fatalf("a verified backup after the failed one left the notice: %+v", n.BackupFailed)
	}
}

// TestTheDrillCountsTheCopysReceiptsAgainstTheLiveDatabase: a copy that
// lost a receipt passes integrity_check but fails the drill.
func TestTheDrillCountsTheCopysReceiptsAgainstTheLiveDatabase(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	mustPublish(t, s, newPub("run-1", 0).Add("activities", task("t1")))
	mustPublish(t, s, newPub("run-2", mustRevision(t, s)).Add("activities", task("t2")))
	dest := filepath.Join(t.TempDir(), "copy.db")
	if _, err := s.Backup(ctx, dest); err != nil {
		t.Fatal(err)
	}
	copyDB, copySQL, err := openGorm(fileURI(dest), s.clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := copyDB.Exec("DELETE FROM receipts WHERE run_id = 'run-1'").Error; err != nil {
		t.Fatal(err)
	}
	copySQL.Close()
	d := BackupDrill{Path: dest}
	if err := s.drill(ctx, &d); err == nil || !strings.Contains(err.Error(), "holds 1 receipts up to revision 2, the live database 2") {
		t.Fatalf("drill of a copy missing a receipt = %v", err)
	}
}

func TestBackupIntoKeepsTheNewestCopiesAndNothingElse(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "backups")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "before-upgrade.db")
	os.WriteFile(mine, []byte("the operator's own copy"), 0o600)
	var made []string
	for range 4 {
		d, err := s.BackupInto(ctx, dir, 2)
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, filepath.Base(d.Path))
		now.Advance(24 * time.Hour)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"before-upgrade.db", made[2], made[2] + ".schedules", made[3], made[3] + ".schedules"}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("backup dir = %v, want %v", names, want)
	}
	if _, err := s.BackupInto(ctx, dir, 0); err == nil {
		t.Fatal("keep 0 was accepted")
	}
}
