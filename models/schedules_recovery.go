package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"hearth/internal/instant"
	"hearth/internal/schedule"
)

// Journal operations (table schedule_journal).
const (
	journalAdd    = "add"    // payload: the ledger row to insert once its file is written
	journalRetire = "retire" // the row is cancelled; its file still has to move to retired/
)

// Points where Options.Pause is called (test-only; see HEARTH_TEST_PAUSE_AT).
const (
	PauseJournalWritten  = "schedule-journal-written"  // add: intent committed, no file yet
	PauseFileWritten     = "schedule-file-written"     // add: file written, ledger row not yet committed
	PauseCancelCommitted = "schedule-cancel-committed" // cancel: row cancelled, file not yet retired
)

// scheduleJournal is one pending file operation of a schedule.
type scheduleJournal struct {
	ScheduleID  string `gorm:"primaryKey"`
	Op          string
	Payload     string
	Fingerprint string
	CreatedAt   time.Time
}

// TableName is the singular table of migration 00009.
func (scheduleJournal) TableName() string { return "schedule_journal" }

// backupCopy is the row `hearth backup` writes into its copy only.
type backupCopy struct {
	ID      int
	TakenAt time.Time
	Source  string
}

// TableName is the singular table of migration 00009.
func (backupCopy) TableName() string { return "backup_copy" }

func (s *Store) pauseAt(point string) {
	if s.pause != nil {
		s.pause(point)
	}
}

// dropJournal removes an add intent whose file was never written.
func (s *Store) dropJournal(ctx context.Context, id string) error {
	_, err := s.commit(ctx, func(t *txn) error {
		return t.Where("schedule_id = ?", id).Delete(&scheduleJournal{}).Error
	})
	return err
}

// retire moves a cancelled schedule's file to retired/ and removes the
// intent. A file that is in neither place (deleted outside hearth) has
// nothing to retire. A file that cannot be moved (a directory in its
// place, another file already retired under the ID, an I/O error) is
// recorded on the cancelled row with why, and the intent removed in the
// same transaction: the cancel holds, a cancelled schedule never reads its
// file again, and a retry on every schedule write and start would fail
// each of them. It returns what it recorded ("" when the file moved).
func (s *Store) retire(ctx context.Context, id string) (string, error) {
	err := s.defs.Retire(id)
	if err == nil || errors.Is(err, schedule.ErrNotFound) {
		return "", s.dropJournal(ctx, id)
	}
	problem := "its definition file could not be moved to retired/: " + retireProblem(id, err) +
		"; it never runs again, and the file may be moved or deleted by hand"
	_, err = s.commit(ctx, func(t *txn) error {
		res := t.Model(&Schedule{}).Where("id = ? AND state = ?", id, string(schedule.StatusCancelled)).Updates(map[string]any{
			"state_reason": ReasonFileNotRetired, "state_detail": gorm.Expr("state_detail || ?", "; "+problem), "updated_at": t.now,
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected > 0 {
			rev, err := t.bump()
			if err != nil {
				return err
			}
			t.touch("schedule:" + id)
			if err := t.Model(&Schedule{}).Where("id = ?", id).Update("revision", rev).Error; err != nil {
				return err
			}
		}
		return t.Where("schedule_id = ? AND op = ?", id, journalRetire).Delete(&scheduleJournal{}).Error
	})
	if err != nil {
		return "", fmt.Errorf("models: record the unretired file of %s: %w", id, err)
	}
	return problem, nil
}

// retireProblem says, for the owner, why a file did not move.
func retireProblem(id string, err error) string {
	var q *schedule.QuarantineError
	switch {
	case errors.Is(err, schedule.ErrExists):
		return "retired/" + id + ".md already holds another file"
	case errors.As(err, &q) && q.Reason == schedule.QuarantineNotRegular && q.Err != nil:
		return "definitions/" + id + ".md is " + q.Err.Error() + ", not a file"
	case errors.As(err, &q):
		return "definitions/" + id + ".md: " + string(q.Reason)
	}
	return err.Error()
}

// ReasonFileNotRetired is the ledger's reason for a cancelled schedule
// whose definition file could not be moved to retired/.
const ReasonFileNotRetired = "file_not_retired"

// journalOutcome counts what recoverJournal did; unfinished are the adds it
// could not complete as journalled and recorded as quarantined.
type journalOutcome struct {
	completed, rolledBack, retired int
	unfinished, notRetired         []string
}

// recoverJournal finishes every pending file operation; the caller holds
// schedMu, so none of them is in flight. An add whose file is there, as
// the intent says, is completed: the ledger row is inserted with its
// receipt (the client was never answered; its retry with the same request
// key gets that receipt). An add whose file is missing (or is another
// valid definition) is rolled back: only the intent is removed, so a retry
// creates the schedule afresh. An add that cannot be completed as
// journalled (its entry or its file no longer reads, as when an older
// hearth journalled an instant past the bound) is recorded as quarantined
// with the reason, for the owner to cancel or approve: an entry left
// behind would fail every later schedule write and serve's start. A
// retire is completed.
func (s *Store) recoverJournal(ctx context.Context) error {
	_, err := s.recoverJournalCounted(ctx)
	return err
}

func (s *Store) recoverJournalCounted(ctx context.Context) (journalOutcome, error) {
	var n journalOutcome
	var entries []scheduleJournal
	if err := s.db.WithContext(ctx).Order("created_at, schedule_id").Find(&entries).Error; err != nil {
		return n, fmt.Errorf("models: schedule journal: %w", err)
	}
	for _, e := range entries {
		switch e.Op {
		case journalAdd:
			row, problem := journalRow(e)
			d, err := s.defs.Load(e.ScheduleID)
			var q *schedule.QuarantineError
			if err != nil && !errors.As(err, &q) && !errors.Is(err, schedule.ErrNotFound) && problem == "" {
				// An I/O error reading it: recorded below like any unreadable file.
				problem = "its file cannot be read: " + err.Error()
			}
			missing := errors.Is(err, schedule.ErrNotFound) || (q != nil && q.Reason == schedule.QuarantineMissing)
			switch {
			case err == nil && d.Fingerprint() == e.Fingerprint && problem == "":
				if _, err := s.completeAdd(ctx, e); err != nil {
					return n, fmt.Errorf("models: schedule journal: complete add %s: %w", e.ScheduleID, err)
				}
				n.completed++
			case missing || (err == nil && d.Fingerprint() != e.Fingerprint):
				if err := s.dropJournal(ctx, e.ScheduleID); err != nil {
					return n, fmt.Errorf("models: schedule journal: roll back add %s: %w", e.ScheduleID, err)
				}
				n.rolledBack++
			default:
				// The file is there, but this add cannot be completed as
				// journalled: the file is the one the intent names and the
				// entry is wrong, or the file is not a definition.
				var file *schedule.Definition
				switch {
				case err == nil:
					file = &d
				case problem == "" && q.Err != nil:
					problem = "its file: " + schedule.Explain(q.Err)
				case problem == "":
					problem = "its file is " + string(q.Reason)
				}
				if err := s.quarantineAdd(ctx, e, row, file, problem); err != nil {
					return n, fmt.Errorf("models: schedule journal: quarantine add %s: %w", e.ScheduleID, err)
				}
				n.unfinished = append(n.unfinished, e.ScheduleID)
			}
		case journalRetire:
			problem, err := s.retire(ctx, e.ScheduleID)
			if err != nil {
				return n, fmt.Errorf("models: schedule journal: retire %s: %w", e.ScheduleID, err)
			}
			if problem != "" {
				n.notRetired = append(n.notRetired, e.ScheduleID)
				continue
			}
			n.retired++
		}
	}
	return n, nil
}

// journalRow decodes an add's journalled ledger row and says why it cannot
// be inserted as it is ("" when it can): an entry that does not decode or
// names another schedule, a snapshot that no longer reads, a time past the
// bound (its receipt could not be encoded).
func journalRow(e scheduleJournal) (*Schedule, string) {
	var row Schedule
	if err := json.Unmarshal([]byte(e.Payload), &row); err != nil {
		return nil, "its journal entry cannot be read: " + err.Error()
	}
	switch {
	case row.ID != e.ScheduleID:
		return nil, "its journal entry names another schedule, " + strconv.Quote(row.ID)
	case row.CreatorKind != ActorOwner && row.CreatorKind != ActorOperator,
		row.ZoneSource != string(schedule.ZoneExplicit) && row.ZoneSource != string(schedule.ZoneClient) && row.ZoneSource != string(schedule.ZoneUTC):
		return nil, "its journal entry is not a ledger row"
	}
	if _, err := row.definition(); err != nil {
		return &row, schedule.UnreadableReason(err)
	}
	for _, f := range []struct {
		name string
		t    *time.Time
	}{{"nextDueAt", row.NextDueAt}, {"lastDueAt", row.LastDueAt}, {"createdAt", &row.CreatedAt}, {"approvedAt", &row.ApprovedAt},
		{"since", &row.Since}, {"stateChangedAt", &row.StateChangedAt}} {
		if f.t != nil && !instant.InRange(*f.t) {
			return &row, "its " + f.name + " " + f.t.UTC().Format(time.RFC3339) + " is out of range"
		}
	}
	return &row, ""
}

// quarantineAdd records an add that cannot be completed as journalled: the
// row as far as it reads (else what the file says, else the ID alone),
// quarantined with why, and no times past the bound; the intent goes in the
// same transaction. A row already there means the add had completed.
func (s *Store) quarantineAdd(ctx context.Context, e scheduleJournal, journalled *Schedule, file *schedule.Definition, problem string) error {
	_, err := s.commit(ctx, func(t *txn) error {
		var n int64
		if err := t.Model(&Schedule{}).Where("id = ?", e.ScheduleID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return t.Where("schedule_id = ? AND op = ?", e.ScheduleID, journalAdd).Delete(&scheduleJournal{}).Error
		}
		var row Schedule
		if journalled != nil {
			row = *journalled
		} else {
			// Unknown creator: nobody's approval stands, only the owner's Approve again.
			row = Schedule{ID: e.ScheduleID, CreatorKind: ActorOperator, CreatorID: "unknown", CreatorName: "unknown (unreadable journal entry)",
				ApprovedFingerprint: e.Fingerprint, Zone: "UTC", ZoneSource: string(schedule.ZoneUTC), RequestKey: "journal:" + e.ScheduleID, RequestHash: "-"}
			if file != nil {
				// The file is the definition the creator approved: it has the
				// intent's fingerprint (recoverJournal rolls back any other).
				row.Job, row.Zone, row.ZoneSource = file.Job, file.Rule.Location().String(), string(schedule.ZoneExplicit)
				row.ApprovedSnapshot = string(file.Canonical())
			}
		}
		for _, tp := range []*time.Time{&row.CreatedAt, &row.ApprovedAt, &row.Since, &row.UpdatedAt} {
			if !instant.InRange(*tp) {
				*tp = t.now
			}
		}
		var taken int64
		if err := t.Model(&Schedule{}).Where("creator_id = ? AND request_key = ?", row.CreatorID, row.RequestKey).Count(&taken).Error; err != nil {
			return err
		}
		if taken > 0 {
			row.RequestKey = "journal:" + row.ID // keys are unique per creator; a retry then creates afresh
		}
		row.State, row.StateReason, row.StateChangedAt = string(schedule.StatusQuarantined), ReasonUnfinished, t.now
		row.StateDetail = "an add interrupted by a stop could not be completed: " + problem + whatNow
		row.NextDueAt, row.LastDueAt, row.LastFinishedAt = nil, nil, nil
		return insertJournalled(t, &row)
	})
	return err
}

// ReasonUnfinished is the ledger's reason for an add recovery could not
// complete as journalled (see recoverJournal).
const ReasonUnfinished = "unfinished_add"

// ScheduleRecovery is what RecoverSchedules did at serve's start.
type ScheduleRecovery struct {
	// Completed, RolledBack and Retired count the journal's interrupted operations.
	Completed, RolledBack, Retired int
	// RestoredFrom is when the backup this database was restored from was
	// taken (zero: not a restore); Restored how many schedules now wait for
	// the owner as restore_pending.
	RestoredFrom time.Time
	Restored     int
	// Quarantined are the active schedules whose file no longer matched,
	// or whose approved snapshot no longer reads.
	Quarantined []string
	// Unfinished are interrupted adds that could not be completed as
	// journalled; they are recorded as quarantined.
	Unfinished []string
	// NotRetired are cancelled schedules whose file could not be moved to
	// retired/; each says why on the Schedules page (ReasonFileNotRetired).
	NotRetired []string
}

// RecoverSchedules is run by serve at start, before it listens, and only
// there: an admin command beside a live server must not complete or roll
// back that server's operation in flight. It finishes the journal
// (recoverJournal); on a database restored from a `hearth backup` copy
// (table backup_copy) it marks active and quarantined schedules
// restore_pending and their outstanding occurrences unknown, since the copy
// cannot know what ran after it was taken; then it checks the file of every
// active schedule and records failures as quarantines.
func (s *Store) RecoverSchedules(ctx context.Context) (ScheduleRecovery, error) {
	s.schedMu.Lock()
	defer s.schedMu.Unlock()
	var rec ScheduleRecovery
	n, err := s.recoverJournalCounted(ctx)
	if err != nil {
		return rec, err
	}
	rec.Completed, rec.RolledBack, rec.Retired, rec.Unfinished, rec.NotRetired = n.completed, n.rolledBack, n.retired, n.unfinished, n.notRetired
	_, err = s.commit(ctx, func(t *txn) error {
		var marks []backupCopy
		if err := t.Find(&marks).Error; err != nil {
			return err
		}
		if len(marks) == 1 {
			taken := marks[0].TakenAt.UTC()
			rec.RestoredFrom = taken
			var ids []string
			if err := t.Model(&Schedule{}).Where("state IN ?", []string{string(schedule.StatusActive), string(schedule.StatusQuarantined)}).
				Order("id").Pluck("id", &ids).Error; err != nil {
				return err
			}
			if len(ids) > 0 {
				rev, err := t.bump()
				if err != nil {
					return err
				}
				for _, id := range ids {
					t.touch("schedule:" + id)
				}
				stamp := taken.Format(time.RFC3339)
				if err := t.Model(&Schedule{}).Where("id IN ?", ids).Updates(map[string]any{
					"state": string(schedule.StatusRestorePending), "state_reason": "restored",
					"state_detail":     "restored from a backup taken at " + stamp + "; check it and approve it again",
					"state_changed_at": t.now, "revision": rev, "updated_at": t.now,
				}).Error; err != nil {
					return err
				}
				if err := t.Model(&ScheduleOccurrence{}).Where("schedule_id IN ? AND state IN ?", ids, []string{OccurrenceAdmitted, OccurrenceRunning}).
					Updates(map[string]any{"state": OccurrenceUnknown, "updated_at": t.now,
						"detail": "restored from a backup taken at " + stamp + ": whether it ran after that is unknown"}).Error; err != nil {
					return err
				}
				rec.Restored = len(ids)
			}
			if err := t.Where("id = 1").Delete(&backupCopy{}).Error; err != nil {
				return err
			}
		}
		var active []Schedule
		if err := t.Where("state = ?", string(schedule.StatusActive)).Order("id").Find(&active).Error; err != nil {
			return err
		}
		for i := range active {
			var fc FileCheck
			if def, err := active[i].definition(); err != nil {
				fc = unreadableCheck(err)
			} else {
				fc = s.checkFile(active[i], &def)
			}
			if !fc.OK() {
				if err := quarantine(t, &active[i], fc); err != nil {
					return err
				}
				rec.Quarantined = append(rec.Quarantined, active[i].ID)
			}
		}
		return nil
	})
	if err != nil {
		return rec, fmt.Errorf("models: recover schedules: %w", err)
	}
	return rec, nil
}

// ApproveSchedule is the owner's "Approve again" (the only way out of
// quarantined and restore_pending, and the way to take over a schedule
// whose approving credential was revoked): the definition file as it is
// now, whose fingerprint the owner was shown (fingerprint; otherwise
// ErrFileChanged), becomes the approved snapshot, approved by the owner.
// The file must be a regular definition (*NotApprovableError otherwise); a
// cancelled or expired schedule is ErrScheduleClosed. The schedule becomes
// active from now: instants due while it was held are not caught up, and
// occurrences whose outcome was unknown count as looked at. Only the owner
// approves again; the API offers it to no credential.
func (s *Store) ApproveSchedule(ctx context.Context, id, fingerprint string) (ScheduleView, error) {
	s.schedMu.Lock()
	defer s.schedMu.Unlock()
	if err := s.recoverJournal(ctx); err != nil {
		return ScheduleView{}, err
	}
	_, err := s.commit(ctx, func(t *txn) error {
		var row Schedule
		if err := t.Where("id = ?", id).Take(&row).Error; err != nil {
			return notFound(err)
		}
		switch schedule.Status(row.State) {
		case schedule.StatusCancelled, schedule.StatusExpired:
			return ErrScheduleClosed
		}
		d, err := s.defs.Load(id)
		var q *schedule.QuarantineError
		switch {
		case errors.As(err, &q):
			detail := string(q.Reason)
			if q.Err != nil {
				detail = q.Err.Error()
			}
			return &NotApprovableError{Reason: q.Reason, Detail: detail}
		case err != nil:
			return err
		}
		fp := d.Fingerprint()
		if fp != fingerprint {
			return ErrFileChanged
		}
		if row.State == string(schedule.StatusActive) && fp == row.ApprovedFingerprint && row.ApprovedBy == ActorOwner {
			return nil
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("schedule:" + id)
		zone, source := d.Rule.Location().String(), row.ZoneSource
		if zone != row.Zone {
			source = string(schedule.ZoneExplicit) // the owner approved the file's zone
		}
		var next any
		if n, _ := d.Rule.Next(t.now, 1); len(n) == 1 {
			next = n[0].UTC()
		}
		if err := t.Model(&ScheduleOccurrence{}).Where("schedule_id = ? AND state = ? AND resolved_at IS NULL", id, OccurrenceUnknown).
			Updates(map[string]any{"resolved_at": t.now, "updated_at": t.now}).Error; err != nil {
			return err
		}
		return t.Model(&Schedule{}).Where("id = ?", id).Updates(map[string]any{
			"job": d.Job, "zone": zone, "zone_source": source,
			"approved_by": ActorOwner, "approved_at": t.now, "approved_fingerprint": fp, "approved_snapshot": string(d.Canonical()),
			"state": string(schedule.StatusActive), "state_reason": "approved", "state_detail": "approved again by the owner",
			"state_changed_at": t.now, "since": t.now, "next_due_at": next, "revision": rev, "updated_at": t.now,
		}).Error
	})
	if err != nil {
		return ScheduleView{}, classifySchedule("approve schedule", err)
	}
	return s.Schedule(ctx, id)
}
