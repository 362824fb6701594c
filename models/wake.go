package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hearth/models/ids"
)

// maxWakeReasons bounds the reasons a dirty job keeps (the latest).
const maxWakeReasons = 20

// DirtyJob is a job new input made dirty. Rows hold job keys and reasons
// only, never text to execute.
type DirtyJob struct {
	JobKey  string    `gorm:"primaryKey" json:"jobKey"`
	Reasons string    `json:"-"`
	Marks   int       `json:"marks"`
	FirstAt time.Time `json:"firstAt"`
	LastAt  time.Time `json:"lastAt"`
	DueAt   time.Time `json:"dueAt"`
}

// Wake is a dirty job handed to a runner.
type Wake struct {
	JobKey  string    `json:"jobKey"`
	Reasons []string  `json:"reasons"`
	Marks   int       `json:"marks"`
	Since   time.Time `json:"dirtySince"`
}

// markDirty records reason against job inside tx. A job already dirty only
// gains the reason, so a burst is one wake-up, due debounce after the first
// mark.
func markDirty(tx *gorm.DB, job, reason string, debounce time.Duration, now time.Time) error {
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
	return tx.Save(&d).Error
}

// MarkDirty records that job has new input for a reason, coalescing with an
// earlier mark that has not been taken.
func (s *Store) MarkDirty(ctx context.Context, job, reason string, debounce time.Duration) error {
	if !ids.Valid(job) {
		return fmt.Errorf("models: job key must be %s: %w", idChars, ErrInvalidInput)
	}
	err := s.write(ctx, func(tx *gorm.DB) error { return markDirty(tx, job, reason, debounce, s.clock()) })
	if err != nil {
		return fmt.Errorf("models: mark dirty: %w", err)
	}
	s.signalDirty()
	return nil
}

// TakeWakes hands over the dirty jobs whose debounce window has passed:
// they are removed, so each burst wakes a runner once.
func (s *Store) TakeWakes(ctx context.Context) ([]Wake, error) {
	var out []Wake
	err := s.write(ctx, func(tx *gorm.DB) error {
		var rows []DirtyJob
		if err := tx.Clauses(clause.Returning{}).Where("due_at <= ?", s.clock()).Delete(&rows).Error; err != nil {
			return err
		}
		for _, d := range rows {
			w := Wake{JobKey: d.JobKey, Marks: d.Marks, Since: d.FirstAt}
			_ = json.Unmarshal([]byte(d.Reasons), &w.Reasons)
			out = append(out, w)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: take wakes: %w", err)
	}
	return out, nil
}

// NextWakeAt is when the earliest dirty job comes due, if any is dirty.
func (s *Store) NextWakeAt(ctx context.Context) (time.Time, bool, error) {
	var rows []DirtyJob
	if err := s.rdb.WithContext(ctx).Order("due_at").Limit(1).Find(&rows).Error; err != nil {
		return time.Time{}, false, fmt.Errorf("models: next wake: %w", err)
	}
	if len(rows) == 0 {
		return time.Time{}, false, nil
	}
	return rows[0].DueAt, true, nil
}

// DirtyChanged returns a channel closed at the next dirty mark, for a
// long-poll to wait on.
func (s *Store) DirtyChanged() <-chan struct{} {
	s.dirtyMu.Lock()
	defer s.dirtyMu.Unlock()
	if s.dirty == nil {
		s.dirty = make(chan struct{})
	}
	return s.dirty
}

func (s *Store) signalDirty() {
	s.dirtyMu.Lock()
	defer s.dirtyMu.Unlock()
	if s.dirty != nil {
		close(s.dirty)
		s.dirty = nil
	}
}
