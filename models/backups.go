package models

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// BackupDrill is one verified-backup attempt: a copy made and opened again.
type BackupDrill struct {
	ID         int64 `gorm:"primaryKey"`
	Path       string
	OK         bool `gorm:"column:ok"`
	Detail     string
	Revision   int64
	Receipts   int64
	Bytes      int64
	StartedAt  time.Time
	FinishedAt time.Time
	// Report is Backup's account of the schedule files it copied.
	Report BackupReport `gorm:"-"`
}

// VerifiedBackup copies the database (and the schedule files) to dest with
// Backup (which runs integrity_check on the copy), then drills the copy as
// a restore would use it: it opens the copy read-only and counts the
// copy's receipts against the live database's receipts up to the copy's
// revision (receipts are never deleted, so the counts must match). Every attempt is recorded,
// failed ones too, so the owner learns of a backup that would not restore.
func (s *Store) VerifiedBackup(ctx context.Context, dest string) (BackupDrill, error) {
	d := BackupDrill{Path: dest, StartedAt: s.clock().UTC()}
	var err error
	if d.Report, err = s.Backup(ctx, dest); err == nil {
		err = s.drill(ctx, &d)
	}
	d.OK, d.FinishedAt = err == nil, s.clock().UTC()
	if err != nil {
		d.Detail = err.Error()
	}
	if _, rerr := s.commit(ctx, func(t *txn) error { return t.Create(&d).Error }); rerr != nil {
		return d, errors.Join(err, fmt.Errorf("models: record backup drill: %w", rerr))
	}
	return d, err
}

// drill opens the copy at d.Path and checks it against the live database.
// It does not run integrity_check again: Backup ran it on the finished copy
// (read-only, as a restore opens it), and on years of data it is most of a
// drill's time.
func (s *Store) drill(ctx context.Context, d *BackupDrill) error {
	copyDB, copySQL, err := openGorm(fileURI(d.Path)+"?mode=ro", s.clock)
	if err != nil {
		return fmt.Errorf("models: drill: open %s: %w", d.Path, err)
	}
	defer copySQL.Close()
	if d.Revision, err = WorkspaceRevision(copyDB.WithContext(ctx)); err != nil {
		return fmt.Errorf("models: drill: the copy's revision: %w", err)
	}
	if err := copyDB.WithContext(ctx).Table("receipts").Count(&d.Receipts).Error; err != nil {
		return fmt.Errorf("models: drill: the copy's receipts: %w", err)
	}
	var live int64
	if err := s.rdb.WithContext(ctx).Table("receipts").Where("revision <= ?", d.Revision).Count(&live).Error; err != nil {
		return fmt.Errorf("models: drill: the live receipts: %w", err)
	}
	if live != d.Receipts {
		return fmt.Errorf("models: drill: the copy holds %d receipts up to revision %d, the live database %d", d.Receipts, d.Revision, live)
	}
	fi, err := os.Stat(d.Path)
	if err != nil {
		return fmt.Errorf("models: drill: %w", err)
	}
	d.Bytes = fi.Size()
	return nil
}

// backupPrefix names the copies serve makes, so pruning never touches a
// file an operator put in the directory.
const backupPrefix, backupSuffix = "hearth-", ".db"

// BackupInto makes a verified backup in dir, named by the time it was
// taken (hearth-20261203T050000Z.db), and then removes the oldest of
// serve's copies there beyond keep (with their schedule folders). dir is
// created 0700 when missing.
func (s *Store) BackupInto(ctx context.Context, dir string, keep int) (BackupDrill, error) {
	if keep < 1 {
		return BackupDrill{}, fmt.Errorf("models: backup: keep must be at least 1, got %d", keep)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return BackupDrill{}, fmt.Errorf("models: backup: %w", err)
	}
	name := backupPrefix + s.clock().UTC().Format("20060102T150405Z") + backupSuffix
	d, err := s.VerifiedBackup(ctx, filepath.Join(dir, name))
	if err != nil {
		return d, err
	}
	return d, pruneBackups(dir, keep)
}

// pruneBackups keeps the newest keep of serve's copies in dir.
func pruneBackups(dir string, keep int) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("models: backup: prune: %w", err)
	}
	var copies []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasPrefix(n, backupPrefix) && strings.HasSuffix(n, backupSuffix) {
			copies = append(copies, n)
		}
	}
	slices.Sort(copies) // the names sort by the time they were taken
	var errs []error
	for _, n := range copies[:max(0, len(copies)-keep)] {
		p := filepath.Join(dir, n)
		errs = append(errs, os.Remove(p), os.RemoveAll(BackupSchedulesDir(p)))
	}
	return errors.Join(errs...)
}

// BackupDrillView is a drill as the Runs page and Home show it.
type BackupDrillView struct {
	OK         bool
	Path       string
	Detail     string
	Bytes      int64
	FinishedAt time.Time
}

// BackupHealth is what the owner is told about backups.
type BackupHealth struct {
	// LastVerified is the newest drill that passed; nil when none has.
	LastVerified *BackupDrillView
	// Failed is the newest drill when it failed (a later success clears it).
	Failed *BackupDrillView
}

// BackupHealthOf reads the newest drill and the newest passed one.
func BackupHealthOf(tx *gorm.DB) (BackupHealth, error) {
	var h BackupHealth
	var newest, verified []BackupDrill
	if err := tx.Order("id DESC").Limit(1).Find(&newest).Error; err != nil {
		return h, err
	}
	if err := tx.Where("ok = 1").Order("id DESC").Limit(1).Find(&verified).Error; err != nil {
		return h, err
	}
	if len(verified) > 0 {
		v := verified[0].view()
		h.LastVerified = &v
	}
	if len(newest) > 0 && !newest[0].OK {
		v := newest[0].view()
		h.Failed = &v
	}
	return h, nil
}

func (d BackupDrill) view() BackupDrillView {
	return BackupDrillView{OK: d.OK, Path: d.Path, Detail: d.Detail, Bytes: d.Bytes, FinishedAt: d.FinishedAt}
}

// LastBackupDrill returns the newest drill, passed or failed, if any: serve
// schedules its next backup from it, so a restart does not skip one or
// take an extra one.
func (s *Store) LastBackupDrill(ctx context.Context) (BackupDrill, bool, error) {
	var rows []BackupDrill
	if err := s.rdb.WithContext(ctx).Order("id DESC").Limit(1).Find(&rows).Error; err != nil {
		return BackupDrill{}, false, fmt.Errorf("models: last backup drill: %w", err)
	}
	if len(rows) == 0 {
		return BackupDrill{}, false, nil
	}
	return rows[0], true, nil
}
