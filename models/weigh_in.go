package models

import (
	"hearth/internal/contract"
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
	var ids []string
	err := t.Raw(`SELECT a.id FROM activities a LEFT JOIN activity_states s ON s.activity_id = a.id
		WHERE a.kind = ? AND a.retracted_at IS NULL AND a.occurrence_key LIKE ? AND json_extract(a.payload, '$.metric') = ?
		AND (s.state IS NULL OR s.state IN ? OR (s.state = ? AND s.until <= ?))
		ORDER BY a.id`,
		contract.KindMeasurement, day.Date+"@%", WeightMetric,
		[]string{StateAvailable, StateInProgress, StateWaiting}, StateDeferred, day.Date).Scan(&ids).Error
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
