package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// OwnerActionResult reports the revision an owner action committed.
type OwnerActionResult struct {
	Revision int64
}

// SetActivityState records the owner's decision on an activity. until is a
// YYYY-MM-DD date, required for deferred and refused otherwise.
func (s *Store) SetActivityState(ctx context.Context, activityID, state, until, note string) (OwnerActionResult, error) {
	if !slices.Contains(States, state) {
		return OwnerActionResult{}, fmt.Errorf("models: state must be one of %s: %w", strings.Join(States, ", "), ErrInvalidInput)
	}
	if (state == StateDeferred) != (until != "") {
		return OwnerActionResult{}, fmt.Errorf("models: a date is needed exactly when deferring: %w", ErrInvalidInput)
	}
	if until != "" {
		if _, err := time.Parse("2006-01-02", until); err != nil {
			return OwnerActionResult{}, fmt.Errorf("models: defer date must be YYYY-MM-DD: %w", ErrInvalidInput)
		}
	}
	if utf8.RuneCountInString(note) > MaxReasonLen {
		return OwnerActionResult{}, fmt.Errorf("models: note longer than %d characters: %w", MaxReasonLen, ErrInvalidInput)
	}
	var rev int64
	var routine string
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := mustExist(tx, &Activity{}, activityID); err != nil {
			return err
		}
		now := s.clock()
		var err error
		if rev, err = bumpRevision(tx, now); err != nil {
			return err
		}
		routine, err = decide(tx, ActivityState{ActivityID: activityID, State: state, Until: until, Note: note, Revision: rev, UpdatedAt: now})
		return err
	})
	if err != nil {
		return OwnerActionResult{}, classify("set activity state", err)
	}
	s.notify(rev, activityChanges(activityID, routine))
	return OwnerActionResult{Revision: rev}, nil
}

// SaveDraftEdit stores the owner's wording of a reply draft.
func (s *Store) SaveDraftEdit(ctx context.Context, draftID, body, selectedCandidateID string) (OwnerActionResult, error) {
	if strings.TrimSpace(body) == "" || utf8.RuneCountInString(body) > MaxBodyLen {
		return OwnerActionResult{}, fmt.Errorf("models: a reply needs 1-%d characters: %w", MaxBodyLen, ErrInvalidInput)
	}
	var rev int64
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := mustExist(tx, &ReplyDraft{}, draftID); err != nil {
			return err
		}
		now := s.clock()
		var err error
		if rev, err = bumpRevision(tx, now); err != nil {
			return err
		}
		return tx.Save(&DraftEdit{DraftID: draftID, Body: body, SelectedCandidateID: selectedCandidateID, Revision: rev, UpdatedAt: now}).Error
	})
	if err != nil {
		return OwnerActionResult{}, classify("save draft edit", err)
	}
	s.notify(rev, []string{"draft:" + draftID})
	return OwnerActionResult{Revision: rev}, nil
}

// MeasurementBounds are the accepted values per unit; anything outside is a typo.
var MeasurementBounds = map[string][2]float64{"kg": {20, 400}, "lb": {44, 880}}

// RecordMeasurement saves a value for a measurement activity's occurrence.
// Saving again for the same occurrence adds a correction that supersedes the
// earlier row; history is kept.
func (s *Store) RecordMeasurement(ctx context.Context, activityID string, value float64) (Measurement, error) {
	var m Measurement
	var routine string
	err := s.write(ctx, func(tx *gorm.DB) error {
		var a Activity
		if err := tx.Where("id = ?", activityID).First(&a).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return ErrNotFound
			}
			return err
		}
		if a.Kind != KindMeasurement {
			return fmt.Errorf("activity %q is a %s, not a measurement: %w", activityID, a.Kind, ErrInvalidInput)
		}
		var p MeasurementPayload
		if err := decodeJSON(a.Payload, &p); err != nil {
			return err
		}
		bounds := MeasurementBounds[p.Unit]
		if math.IsNaN(value) || value < bounds[0] || value > bounds[1] {
			return fmt.Errorf("%s must be between %g and %g %s: %w", p.Metric, bounds[0], bounds[1], p.Unit, ErrInvalidInput)
		}
		var prior Measurement
		if err := tx.Where("activity_id = ? AND occurrence_key = ?", activityID, a.OccurrenceKey).
			Order("id DESC").Limit(1).Find(&prior).Error; err != nil {
			return err
		}
		now := s.clock()
		rev, err := bumpRevision(tx, now)
		if err != nil {
			return err
		}
		m = Measurement{ActivityID: activityID, OccurrenceKey: a.OccurrenceKey, Metric: p.Metric, Unit: p.Unit, Value: value, Revision: rev, RecordedAt: now}
		if prior.ID != 0 {
			m.SupersedesID = &prior.ID
		}
		if err := tx.Create(&m).Error; err != nil {
			return err
		}
		routine, err = decide(tx, ActivityState{ActivityID: activityID, State: StateCompleted, Revision: rev, UpdatedAt: now})
		return err
	})
	if err != nil {
		return Measurement{}, classify("record measurement", err)
	}
	s.notify(m.Revision, activityChanges(activityID, routine))
	return m, nil
}

func mustExist(tx *gorm.DB, model any, id string) error {
	var n int64
	if err := tx.Model(model).Where("id = ?", id).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// decide stores the owner's state for an activity, keeps closed_at in step
// with it (unless the agent retracted the row), and completes the routine
// the activity is a step of when this was its last open step. It returns
// that routine's ID when it completed it.
func decide(tx *gorm.DB, st ActivityState) (routine string, err error) {
	if err := tx.Save(&st).Error; err != nil {
		return "", err
	}
	closed := gorm.Expr("retracted_at")
	if settled(st.State) {
		closed = gorm.Expr("COALESCE(retracted_at, ?)", st.UpdatedAt)
	}
	if err := tx.Model(&Activity{}).Where("id = ?", st.ActivityID).Update("closed_at", closed).Error; err != nil {
		return "", err
	}
	return completeRoutineIfDone(tx, st.ActivityID, st.Revision, st.UpdatedAt)
}

// activityChanges names what an owner action changed, for the notifier.
func activityChanges(id, routine string) []string {
	if routine == "" {
		return []string{"activity:" + id}
	}
	return []string{"activity:" + id, "activity:" + routine}
}

// completeRoutineIfDone completes the routine that activityID is a step of
// once every step (but dismissed ones) is completed or skipped. It returns
// the routine's ID when it completed it.
func completeRoutineIfDone(tx *gorm.DB, activityID string, rev int64, now time.Time) (string, error) {
	var parent *string
	if err := tx.Model(&Activity{}).Select("parent_id").Where("id = ?", activityID).Scan(&parent).Error; err != nil || parent == nil {
		return "", err
	}
	var open, decided int64
	err := tx.Raw(`SELECT COUNT(*) FROM activities a LEFT JOIN activity_states s ON s.activity_id = a.id
		WHERE a.parent_id = ? AND a.retracted_at IS NULL AND COALESCE(s.state, 'available') NOT IN ('completed', 'skipped', 'dismissed')`, *parent).Scan(&open).Error
	if err != nil || open > 0 {
		return "", err
	}
	if err := tx.Raw(`SELECT COUNT(*) FROM activity_states WHERE activity_id = ? AND state IN ('completed', 'skipped', 'dismissed')`, *parent).Scan(&decided).Error; err != nil || decided > 0 {
		return "", err
	}
	if _, err := decide(tx, ActivityState{ActivityID: *parent, State: StateCompleted, Note: "all steps done", Revision: rev, UpdatedAt: now}); err != nil {
		return "", err
	}
	return *parent, nil
}
