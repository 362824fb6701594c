package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"hearth/internal/contract"
	"hearth/internal/ids"
)

// maxWakeReasons bounds the reasons a dirty job keeps (the latest).
const maxWakeReasons = 20

// WakeLeaseTTL is how long a wake-up handed to a runner stays leased: the
// job is not offered again meanwhile, and once it passes unacknowledged
// (the answer was lost, the runner died, the run was held) it is.
const WakeLeaseTTL = 10 * time.Minute

// WakeAckGrace is how long the holder of a lease has to acknowledge it
// (a runner does when the run starts, seconds after the poll) before
// newer marks of the same job, once due, are offered to the next poll
// under a new lease: a holder that went quiet holds back only the marks it
// was handed, not the ones after it, for the lease's TTL.
const WakeAckGrace = time.Minute

// DirtyJob is a job new input made dirty. Rows hold job keys and reasons
// only, never text to execute. A row under a lease keeps taking marks; the
// ones after the lease was issued are a new burst (NextFirstAt, NextDueAt)
// that outlives the lease's acknowledgement.
type DirtyJob struct {
	JobKey  string    `gorm:"primaryKey" json:"jobKey"`
	Reasons string    `json:"-"`
	Marks   int       `json:"marks"`
	FirstAt time.Time `json:"firstAt"`
	LastAt  time.Time `json:"lastAt"`
	DueAt   time.Time `json:"dueAt"`
	// LeaseID is the lease of the wake-up handed out for this job, "" when none.
	LeaseID        string     `json:"-"`
	LeaseExpiresAt *time.Time `json:"-"`
	LeasedMarks    int        `json:"-"` // the marks the lease covers
	NextFirstAt    *time.Time `json:"-"` // the first mark after the lease was issued
	NextDueAt      *time.Time `json:"-"` // when that newer burst comes due
}

// leasePattern is the shape of the lease IDs LeaseWakes mints.
var leasePattern = regexp.MustCompile(contract.LeasePattern)

// markDirty records reason against job inside t, and touches touchWake so
// the long-polls waiting in DirtyChanged wake once it commits. A job already dirty only
// gains the reason, so a burst is one wake-up, due debounce after the first
// mark. On a leased job the first new mark opens a new debounce window,
// which is what stays dirty when the lease is acknowledged.
func markDirty(t *txn, job, reason string, debounce time.Duration) error {
	t.touch(touchWake)
	tx, now := t.DB, t.now
	var rows []DirtyJob
	if err := tx.Where("job_key = ?", job).Limit(1).Find(&rows).Error; err != nil {
		return err
	}
	if len(rows) == 0 {
		return tx.Create(&DirtyJob{JobKey: job, Reasons: jsonText([]string{reason}), Marks: 1, FirstAt: now, LastAt: now, DueAt: now.Add(debounce)}).Error
	}
	d := rows[0]
	var reasons []string
	_ = json.Unmarshal([]byte(d.Reasons), &reasons)
	reasons = append(reasons, reason)
	if len(reasons) > maxWakeReasons {
		reasons = reasons[len(reasons)-maxWakeReasons:]
	}
	d.Reasons, d.Marks, d.LastAt = jsonText(reasons), d.Marks+1, now
	if d.LeaseID != "" && d.NextFirstAt == nil {
		due := now.Add(debounce)
		d.NextFirstAt, d.NextDueAt = &now, &due
	}
	return tx.Save(&d).Error
}

// MarkDirty records that job has new input for a reason, coalescing with an
// earlier mark that has not been handed out.
func (s *Store) MarkDirty(ctx context.Context, job, reason string, debounce time.Duration) error {
	if !ids.Valid(job) {
		return fmt.Errorf("models: job key must be %s: %w", ids.Expected, ErrInvalidInput)
	}
	if _, err := s.commit(ctx, func(t *txn) error { return markDirty(t, job, reason, debounce) }); err != nil {
		return fmt.Errorf("models: mark dirty: %w", err)
	}
	return nil
}

// offerable selects the dirty jobs a poll hands out: due and not under a
// lease, under a lease that expired unacknowledged, or under a lease its
// holder left unacknowledged past WakeAckGrace while a newer burst came
// due. Its arguments are offerableArgs(now).
const offerable = "(lease_id = '' AND due_at <= ?) OR (lease_id <> '' AND lease_expires_at <= ?)" +
	" OR (lease_id <> '' AND next_due_at <= ? AND lease_expires_at <= ?)"

// offerableArgs are offerable's arguments for a poll at now. A lease was
// issued WakeLeaseTTL before it expires, so one issued WakeAckGrace ago
// or earlier expires by now + WakeLeaseTTL - WakeAckGrace.
func offerableArgs(now time.Time) []any {
	return []any{now, now, now, now.Add(WakeLeaseTTL - WakeAckGrace)}
}

// LeaseWakes hands out the dirty jobs whose debounce window has passed, the
// ones whose lease expired unacknowledged and the ones with a newer burst
// due under a lease left unacknowledged past WakeAckGrace, each under a new lease of
// WakeLeaseTTL. Nothing is removed: AckWake clears what a lease covered, so
// a wake-up lost on its way to the runner is offered again.
func (s *Store) LeaseWakes(ctx context.Context) ([]contract.Wake, error) {
	var out []contract.Wake
	now := s.clock()
	// Every wake poll's pass lands here, and most find nothing: only a read
	// then, so an idle poll neither waits for nor holds the write lock.
	var probe []DirtyJob
	if err := s.rdb.WithContext(ctx).Select("job_key").Where(offerable, offerableArgs(now)...).Limit(1).Find(&probe).Error; err != nil {
		return nil, fmt.Errorf("models: lease wakes: %w", err)
	}
	if len(probe) == 0 {
		return nil, nil
	}
	_, err := s.commit(ctx, func(t *txn) error {
		// Again under the lock: another poll may have leased them meanwhile.
		var rows []DirtyJob
		if err := t.Where(offerable, offerableArgs(now)...).Order("job_key").Find(&rows).Error; err != nil {
			return err
		}
		for _, d := range rows {
			expires := now.Add(WakeLeaseTTL)
			// A new lease covers every mark, those after an expired one too.
			d.LeaseID, d.LeaseExpiresAt, d.LeasedMarks, d.NextFirstAt, d.NextDueAt = newLeaseID(), &expires, d.Marks, nil, nil
			if err := t.Save(&d).Error; err != nil {
				return err
			}
			w := contract.Wake{JobKey: d.JobKey, Marks: d.Marks, Since: d.FirstAt, LeaseID: d.LeaseID, LeaseExpiresAt: expires}
			_ = json.Unmarshal([]byte(d.Reasons), &w.Reasons)
			out = append(out, w)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: lease wakes: %w", err)
	}
	return out, nil
}

// AckWake acknowledges a lease: the marks it covered are handled. Marks
// that arrived after the lease was issued stay dirty, due one debounce
// window after the first of them. An unknown lease (already acknowledged,
// or expired and handed out again) changes nothing, so a retried ack is
// harmless.
func (s *Store) AckWake(ctx context.Context, leaseID string) error {
	if !leasePattern.MatchString(leaseID) {
		return fmt.Errorf("models: lease ID must be 32 hex digits: %w", ErrInvalidInput)
	}
	_, err := s.commit(ctx, func(t *txn) error {
		// A waiting poll timed itself to the lease's expiry; the newer burst may come due sooner.
		t.touch(touchWake)
		tx := t.DB
		var rows []DirtyJob
		if err := tx.Where("lease_id = ?", leaseID).Limit(1).Find(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		d := rows[0]
		newer := d.Marks - d.LeasedMarks
		if newer <= 0 || d.NextFirstAt == nil || d.NextDueAt == nil {
			return tx.Delete(&d).Error
		}
		var reasons []string
		_ = json.Unmarshal([]byte(d.Reasons), &reasons)
		// Reasons are appended in order, so the newer marks' are the last ones.
		reasons = reasons[max(0, len(reasons)-newer):]
		d.Reasons, d.Marks, d.FirstAt, d.DueAt = jsonText(reasons), newer, *d.NextFirstAt, *d.NextDueAt
		d.LeaseID, d.LeaseExpiresAt, d.LeasedMarks, d.NextFirstAt, d.NextDueAt = "", nil, 0, nil, nil
		return tx.Save(&d).Error
	})
	if err != nil {
		return fmt.Errorf("models: ack wake: %w", err)
	}
	return nil
}

func newLeaseID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// NextWakeAt is when a wake-up may next be handed out: the earliest due
// dirty job not under a lease, or the earliest lease to expire.
func (s *Store) NextWakeAt(ctx context.Context) (time.Time, bool, error) {
	var rows []DirtyJob
	if err := s.rdb.WithContext(ctx).Find(&rows).Error; err != nil {
		return time.Time{}, false, fmt.Errorf("models: next wake: %w", err)
	}
	var next time.Time
	for _, d := range rows {
		at := d.DueAt
		if d.LeaseID != "" && d.LeaseExpiresAt != nil {
			at = *d.LeaseExpiresAt
			if d.NextDueAt != nil {
				// A newer burst is offered once due and the holder had its grace.
				at = minTime(at, maxTime(*d.NextDueAt, d.LeaseExpiresAt.Add(WakeAckGrace-WakeLeaseTTL)))
			}
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return next, !next.IsZero(), nil
}

// DirtyChanged returns a channel closed at the next dirty mark or
// acknowledgement, for a long-poll to wait on.
func (s *Store) DirtyChanged() <-chan struct{} {
	s.dirtyMu.Lock()
	defer s.dirtyMu.Unlock()
	if s.dirty == nil {
		s.dirty = make(chan struct{})
	}
	return s.dirty
}

// signalDirty wakes the long-polls: committed calls it after a commit that
// touched touchWake, never inside a transaction.
func (s *Store) signalDirty() {
	s.dirtyMu.Lock()
	defer s.dirtyMu.Unlock()
	if s.dirty != nil {
		close(s.dirty)
		s.dirty = nil
	}
}
