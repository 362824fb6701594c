package models

import (
	"context"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hearth/internal/contract"
	"hearth/internal/routinecount"
)

// Workspace is the one row holding the workspace revision: every commit
// that changes agent-visible state increments it (docs/contract.md, Publish, and the revision).
type Workspace struct {
	ID        int `gorm:"primaryKey"`
	Revision  int64
	UpdatedAt time.Time
}

// TableName is the singular table of migration 00001.
func (Workspace) TableName() string { return "workspace" }

// WorkspaceRevision reads the revision inside tx.
func WorkspaceRevision(tx *gorm.DB) (int64, error) {
	var w Workspace
	err := tx.Select("revision").Where("id = 1").Take(&w).Error
	return w.Revision, err
}

// txn is one write transaction of commit: the transaction, its clock, and
// the revision it bumped (zero until bump) with what it changed.
type txn struct {
	*gorm.DB
	now     time.Time
	rev     int64
	changed []string
	// recounts name the routine counts the transaction changes, for the
	// metrics memo (internal/routinecount).
	recounts []routinecount.Change
	// brief and today are the brief and the owner's day at now, read once
	// per transaction (ownerDay); read says they are.
	brief *contract.BriefView
	today Day
	read  bool
	// home is what the transaction wrote that Home shows (answerIn).
	home homeWrites
}

// ownerDay is the owner's day at the transaction's now, the brief read
// once however many writes of the transaction need it.
func (t *txn) ownerDay() (Day, error) {
	if err := t.readBrief(); err != nil {
		return Day{}, err
	}
	return t.today, nil
}

// readBrief reads the brief (and so the owner's day) the first time.
func (t *txn) readBrief() error {
	if t.read {
		return nil
	}
	b, err := briefView(t.DB)
	if err != nil {
		return err
	}
	t.brief, t.today, t.read = b, briefDay(b, t.now), true
	return nil
}

// bump increments the workspace revision once per transaction and returns
// it; a transaction that changes nothing never calls it.
func (t *txn) bump() (int64, error) {
	if t.rev != 0 {
		return t.rev, nil
	}
	var w Workspace
	err := t.Model(&w).Clauses(clause.Returning{Columns: []clause.Column{{Name: "revision"}}}).Where("id = 1").
		Updates(map[string]any{"revision": gorm.Expr("revision + 1"), "updated_at": t.now}).Error
	if err != nil {
		return 0, err
	}
	t.rev = w.Revision
	return t.rev, nil
}

// touch names what the transaction changed: the one way a change key
// reaches the listeners of committed (after the commit).
func (t *txn) touch(keys ...string) { t.changed = append(t.changed, keys...) }

// Change keys that name a listener of the store itself, not a change
// pages show: committed hands them to their listener and never to the
// notifier.
const (
	// touchWake is a wake-up mark (markDirty): it wakes the long-polls
	// waiting in DirtyChanged.
	touchWake = "wake"
	// touchSessions is an end of owner sessions (a logout, logout-all or a
	// new passphrase): it wakes the event streams waiting in SessionsEnded.
	touchSessions = "sessions"
)

// touchRoutine names a change of what a routine's counts are computed
// from: the occasions of revision on date, or (revision 0, date "") all of
// them. It touches "routine:<id>" for the notifier too.
func (t *txn) touchRoutine(routineID string, revision int64, date string) {
	t.touch("routine:" + routineID)
	t.recounts = append(t.recounts, routinecount.Change{Routine: routineID, Revision: revision, Date: date})
}

// commit runs fn in one immediate write transaction under the write lock
// and tells the listeners after the commit (committed), so a listener never
// sees state that could roll back. It is every write's way in: bookkeeping
// (sessions and credentials, observations, run, occurrence and wake-up
// bookkeeping, the schedules journal, retention, backup drills) never
// bumps and commits at revision 0. It returns the bumped revision, or zero
// when fn did not bump it.
func (s *Store) commit(ctx context.Context, fn func(t *txn) error) (int64, error) {
	var t *txn
	err := s.write(ctx, func(tx *gorm.DB) error {
		t = &txn{DB: tx, now: s.clock()}
		if err := fn(t); err != nil {
			return err
		}
		if t.rev != 0 {
			// The one listener told before the commit (see committed).
			s.metrics.Changing(t.rev, t.recounts)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	s.committed(t.rev, t.changed)
	return t.rev, nil
}

// Notifier hears about committed changes: revision is the workspace
// revision the commit made, changed the keys it touched. It is called
// after commit, never inside a transaction, so a listener never sees state
// that could roll back.
type Notifier interface {
	Committed(revision int64, changed []string)
}

// committed is the store's one after-commit seam: commit calls it once a
// transaction committed, and nothing else tells a listener of a change. It
// fans out, in this order, to the write count (Writes: every commit, one at
// revision 0 too, so page caches that show bookkeeping key on it), the
// newest revision (LatestRevision, which caches key on), the store's own
// listeners named by a change key (the long-polls waiting for a wake-up
// mark, DirtyChanged; open event streams waiting for a session's end,
// SessionsEnded), and the notifier (the SSE hub). A commit at revision 0
// never reaches the hub, whose events are revisions: a page that shows
// bookkeeping reads it anew through a cache keyed on Writes.
//
// The one named exception is the metrics memo (internal/routinecount), told
// inside the transaction, before the commit: a read that sees the commit
// must not reuse counts from before it, and a memo that heard of a
// rolled-back change only recounts.
func (s *Store) committed(rev int64, changed []string) {
	s.writes.Add(1)
	if rev != 0 {
		for {
			seen := s.latest.Load()
			if rev <= seen || s.latest.CompareAndSwap(seen, rev) {
				break
			}
		}
	}
	for _, k := range changed {
		if k == touchSessions {
			s.sessionsEnded()
			break
		}
	}
	if slices.Contains(changed, touchWake) {
		s.signalDirty()
	}
	if slices.ContainsFunc(changed, storeKey) {
		changed = slices.DeleteFunc(slices.Clone(changed), storeKey)
	}
	if rev != 0 && s.notifier != nil {
		s.notifier.Committed(rev, changed)
	}
}

// storeKey reports whether a change key names one of the store's own
// listeners rather than a change pages show.
func storeKey(k string) bool {
	return k == touchWake || k == touchSessions
}
