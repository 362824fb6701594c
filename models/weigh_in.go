package models

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/weight"
)

// creditWeighIns completes, inside t at revision rev, every open weight
// step planned for day once a weight was recorded that day: one weigh-in
// counts for every routine that plans one (the morning routine's and
// Start work's), so no step asks the owner to weigh in twice. Only
// measurement steps of an occurrence keyed to day are credited; the weight
// itself is stored once.
func creditWeighIns(t *txn, day Day, rev int64) error {
	if day.Start.IsZero() {
		return nil // a back-filled past day: its outcome is the owner's word
	}
	var weighed int64
	if err := t.Model(&Measurement{}).Where("metric = ? AND recorded_at >= ? AND recorded_at < ?", WeightMetric, day.Start, day.End).
		Count(&weighed).Error; err != nil || weighed == 0 {
		return err
	}
	ids, err := openWeighIns(t.DB, day)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := decideBy(t, ActivityState{ActivityID: id, State: StateCompleted, Revision: rev, UpdatedAt: t.now}, CauseValue, nil); err != nil {
			return err
		}
	}
	return nil
}

// openWeighIns are the weight steps of day's occurrences still open
// (deferred to day or before included), in ID order.
func openWeighIns(tx *gorm.DB, day Day) ([]string, error) {
	var ids []string
	err := tx.Raw(`SELECT a.id FROM activities a LEFT JOIN activity_states s ON s.activity_id = a.id
		WHERE a.kind = ? AND a.retracted_at IS NULL AND a.occurrence_key LIKE ? AND json_extract(a.payload, '$.metric') = ?
		AND (s.state IS NULL OR s.state IN ? OR (s.state = ? AND s.until <= ?))
		ORDER BY a.id`,
		contract.KindMeasurement, day.Date+"@%", WeightMetric,
		[]string{StateAvailable, StateInProgress, StateWaiting}, StateDeferred, day.Date).Scan(&ids).Error
	return ids, err
}

// WeighIn is a saved weigh-in and the trend right after it.
type WeighIn struct {
	Measurement Measurement
	Trend       TrendNote
}

// RecordWeighIn saves a weigh-in typed where no step names it (the weight
// page, Home on a day without a planned weigh-in). On a day with an open
// weigh-in step it is that step's value, saved as Home's Weigh in saves
// it (RecordMeasurementOnce), so the routine counts it; otherwise it is a
// weigh-in of its own in the unit of the newest one (kg before any). The
// client key makes a replay a no-op, as on Home.
func (s *Store) RecordWeighIn(ctx context.Context, clientKey string, value float64) (WeighIn, error) {
	if err := checkClientKey(clientKey); err != nil {
		return WeighIn{}, err
	}
	var step string
	err := s.Read(ctx, func(tx *gorm.DB) error {
		// A replay (the phone's queue sending again after a lost answer)
		// goes where the first send went: the step it filled is done by
		// now, and a weigh-in of its own would be another action.
		if spent, ok, err := weighInOfKey(tx, clientKey, value); err != nil || ok {
			step = spent
			return err
		}
		day, err := OwnerDay(tx, s.clock(), "")
		if err != nil {
			return err
		}
		ids, err := openWeighIns(tx, day)
		if len(ids) > 0 {
			step = ids[0]
		}
		return err
	})
	if err != nil {
		return WeighIn{}, fmt.Errorf("models: record weigh-in: %w", err)
	}
	var m Measurement
	if step != "" {
		saved, err := s.recordMeasurement(ctx, clientKey, step, value, false)
		if err != nil {
			return WeighIn{}, err
		}
		m = saved.Measurement
	} else if m, err = s.recordOwnWeighIn(ctx, clientKey, value); err != nil {
		return WeighIn{}, err
	}
	now := s.clock()
	var d WeightData
	err = s.Read(ctx, func(tx *gorm.DB) error {
		day, err := OwnerDay(tx, now, "")
		if err != nil {
			return err
		}
		d, err = recentWeightTrend(tx, day.Zone, now)
		return err
	})
	if err != nil {
		return WeighIn{}, fmt.Errorf("models: record weigh-in: %w", err)
	}
	note, _ := d.TrendNoteAt(now)
	return WeighIn{Measurement: m, Trend: note}, nil
}

// recordOwnWeighIn stores a weigh-in that belongs to no step.
func (s *Store) recordOwnWeighIn(ctx context.Context, clientKey string, value float64) (Measurement, error) {
	var m Measurement
	action := measurementAction("", value)
	_, err := s.commit(ctx, func(t *txn) error {
		if replay, err := replayed(t, clientKey, action); err != nil {
			return err
		} else if replay != 0 {
			return t.Where("activity_id IS NULL AND metric = ? AND revision = ?", WeightMetric, replay).Take(&m).Error
		}
		unit := "kg"
		var newest []Measurement
		if err := t.Where("metric = ?", WeightMetric).Order("recorded_at DESC, id DESC").Limit(1).Find(&newest).Error; err != nil {
			return err
		}
		if len(newest) == 1 {
			unit = newest[0].Unit
		}
		bounds := weight.Bounds[unit]
		if math.IsNaN(value) || value < bounds[0] || value > bounds[1] {
			return &FieldError{Field: "value", Message: fmt.Sprintf("%s must be between %g and %g %s.", metricName(WeightMetric), bounds[0], bounds[1], unit)}
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("weight")
		// activity_id NULL: no step (a Measurement's empty ID would be a broken reference).
		row := map[string]any{"activity_id": nil, "occurrence_key": "", "metric": WeightMetric, "unit": unit,
			"value": value, "revision": rev, "recorded_at": t.now.UTC(), "source": "entered"}
		if err := t.Table("measurements").Create(row).Error; err != nil {
			return err
		}
		if err := t.Where("activity_id IS NULL AND metric = ? AND revision = ?", WeightMetric, rev).Take(&m).Error; err != nil {
			return err
		}
		if err := spendClientKey(t, clientKey, action, rev); err != nil {
			return err
		}
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		return creditWeighIns(t, day, rev)
	})
	if err != nil {
		return Measurement{}, Classify("record weigh-in", err)
	}
	return m, nil
}

// weighInOfKey finds the step (empty: none) a weigh-in sent with key
// went to, when key was spent on a weigh-in of value; ok is false for a new
// key, or one spent on anything else (recording then answers the conflict).
func weighInOfKey(tx *gorm.DB, key string, value float64) (step string, ok bool, err error) {
	if key == "" {
		return "", false, nil
	}
	var rows []OwnerClientKey
	if err := tx.Where("key = ?", key).Limit(1).Find(&rows).Error; err != nil || len(rows) == 0 {
		return "", false, err
	}
	var parts []string
	if json.Unmarshal([]byte(rows[0].Action), &parts) != nil || len(parts) != 3 {
		return "", false, nil
	}
	if measurementAction(parts[1], value) != rows[0].Action {
		return "", false, nil
	}
	return parts[1], true, nil
}
