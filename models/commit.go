package models

import (
	"context"
	"maps"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
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

// workspaceRevision reads the revision inside tx.
func workspaceRevision(tx *gorm.DB) (int64, error) {
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
	// metrics memo (routine_memo.go).
	recounts []recount
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

// touch names what the transaction changed, for the notifier.
func (t *txn) touch(keys ...string) { t.changed = append(t.changed, keys...) }

// touchRoutine names a change of what a routine's counts are computed
// from: the occasions of revision on date, or (revision 0, date "") all of
// them. It touches "routine:<id>" for the notifier too.
func (t *txn) touchRoutine(routineID string, revision int64, date string) {
	t.touch("routine:" + routineID)
	t.recounts = append(t.recounts, recount{routine: routineID, revision: revision, date: date})
}

// commit runs fn in one immediate write transaction under the write lock
// and, when fn bumped the revision, notifies after the commit, so a
// listener never sees state that could roll back. It returns the bumped
// revision, or zero when fn changed nothing.
func (s *Store) commit(ctx context.Context, fn func(t *txn) error) (int64, error) {
	var t *txn
	err := s.write(ctx, func(tx *gorm.DB) error {
		t = &txn{DB: tx, now: s.clock()}
		if err := fn(t); err != nil {
			return err
		}
		if t.rev != 0 {
			// Before the commit: a read that sees it must not reuse older counts.
			s.metrics.changing(t.rev, t.recounts)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if t.rev != 0 {
		s.cards.committed(t.rev, t.changed)
		s.notify(t.rev, t.changed)
	}
	return t.rev, nil
}

// cardVersions says, per routine, the newest revision that changed what its
// Routines card shows: a commit naming "routine:X" changes X's card; one
// naming a request (a proposal's status) or a publication (evidence, source
// refs) may change any card. Versions only grow, and a read takes them
// before its snapshot, so a card rendered from data is never labelled with
// a version older than the data; a label newer than the data only costs a
// render.
type cardVersions struct {
	mu      sync.Mutex
	routine map[string]int64
	global  int64
}

func (v *cardVersions) committed(rev int64, changed []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, key := range changed {
		switch {
		case strings.HasPrefix(key, "routine:"):
			if v.routine == nil {
				v.routine = map[string]int64{}
			}
			v.routine[strings.TrimPrefix(key, "routine:")] = rev
		case strings.HasPrefix(key, "request:"), key == "publication":
			v.global = rev
		}
	}
}

// version is routineID's card version.
func (v *cardVersions) snapshot() (map[string]int64, int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.routine), v.global
}
