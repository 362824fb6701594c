package models

import (
	"fmt"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/routinecount"
)

// The counting is internal/routinecount's; the store reads what it counts
// and, through commit, names what each write changes (touchRoutine).

// RoutineMetrics computes the metrics of routineID@revision over [from, to]
// at now. Planned occasions come from the revision's trials (their days and
// windows) for daily and weekly routines, and from instantiated occurrences
// for event routines, so a day nobody opened Home still counts, as unrecorded.
func RoutineMetrics(tx *gorm.DB, routineID string, revision int64, from, to string, now time.Time) (contract.RoutineMetrics, error) {
	m := contract.RoutineMetrics{RoutineID: routineID, Revision: revision, Window: contract.WindowIn{From: from, To: to}, Days: []contract.DayOutcome{}, Steps: []contract.StepMetrics{}}
	var def RoutineDefinition
	if err := tx.Where("routine_id = ? AND revision = ?", routineID, revision).Take(&def).Error; err != nil {
		return m, notFound(err)
	}
	var trials []RoutineTrial
	if err := tx.Where("routine_id = ? AND revision = ?", routineID, revision).Order("id").Find(&trials).Error; err != nil {
		return m, err
	}
	day := DayOf(now, time.UTC)
	if z, err := OwnerDay(tx, now, ""); err == nil {
		day = z
	}
	in, err := loadMetricsInput(tx, def, trials, from, to)
	if err != nil {
		return m, err
	}
	m, _ = in.Compute(from, to, day, now)
	return m, nil
}

// occurrenceRecords reads the occurrences of routineID@revision dated in
// [from, to] with their newest outcome row, in one query. An occasion is
// its date, or its date and ".event", so the occasion range (from, to+"~")
// holds the same occurrences and lets the (routine_id, occasion) index
// read only them, rather than every occasion of the routine.
//
// The parameters are routineID, revision, from, to, from, to.
const occurrenceRecords = `SELECT o.id, o.occasion, o.local_date, o.zone, COALESCE(r.outcome, ''), COALESCE(r.reason, ''),
		COALESCE(r.effort, ''), COALESCE(r.helped, ''), COALESCE(r.late, 0)
	FROM routine_occurrences o
	LEFT JOIN routine_outcomes r ON r.id = (SELECT MAX(x.id) FROM routine_outcomes x WHERE x.occurrence_id = o.id)
	WHERE o.routine_id = ? AND o.revision = ? AND o.local_date >= ? AND o.local_date <= ? AND o.occasion >= ? AND o.occasion <= ? || '~'
	ORDER BY o.local_date, o.occasion`

// stepCounts counts the step activities of the same occurrences by step and
// state in SQL, so a year of steps is a few rows, not thousands.
const stepCounts = `SELECT substr(a.id, length(a.parent_id) + 2) AS step, COALESCE(s.state, '') AS state, COUNT(*) AS n,
		SUM(EXISTS (SELECT 1 FROM measurements m WHERE m.activity_id = a.id)) AS saved
	FROM routine_occurrences o
	JOIN activities a ON a.parent_id = o.activity_id
	LEFT JOIN activity_states s ON s.activity_id = a.id
	WHERE o.routine_id = ? AND o.revision = ? AND o.local_date >= ? AND o.local_date <= ? AND o.occasion >= ? AND o.occasion <= ? || '~'
	GROUP BY 1, 2`

// countedRevision is what the counts need of def and its trials.
func countedRevision(def RoutineDefinition, trials []RoutineTrial) (routinecount.Definition, []routinecount.Trial) {
	out := make([]routinecount.Trial, len(trials))
	for i, tr := range trials {
		out[i] = routinecount.Trial{StartsOn: tr.StartsOn, LastDay: tr.LastDay(), Days: tr.Days}
	}
	return routinecount.Definition{RoutineID: def.RoutineID, Revision: def.Revision, TriggerKind: def.TriggerKind, Steps: def.Steps}, out
}

// loadMetricsInput reads the occurrences, outcomes and step counts of
// def's revision in [from, to]: two queries, scanned by hand.
func loadMetricsInput(tx *gorm.DB, def RoutineDefinition, trials []RoutineTrial, from, to string) (routinecount.Input, error) {
	var in routinecount.Input
	in.Def, in.Trials = countedRevision(def, trials)
	rows, err := tx.Raw(occurrenceRecords, def.RoutineID, def.Revision, from, to, from, to).Rows()
	if err != nil {
		return in, err
	}
	for rows.Next() {
		var o routinecount.Occurrence
		if err := rows.Scan(&o.ID, &o.Occasion, &o.LocalDate, &o.Zone, &o.Outcome, &o.Reason, &o.Effort, &o.Helped, &o.Late); err != nil {
			rows.Close()
			return in, err
		}
		in.Occurrences = append(in.Occurrences, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return in, err
	}
	if len(in.Occurrences) == 0 {
		return in, nil
	}
	rows, err = tx.Raw(stepCounts, def.RoutineID, def.Revision, from, to, from, to).Rows()
	if err != nil {
		return in, err
	}
	defer rows.Close()
	for rows.Next() {
		var step, state string
		var n, saved int
		if err := rows.Scan(&step, &state, &n, &saved); err != nil {
			return in, err
		}
		c := routinecount.StepCount{Step: step, Saved: saved}
		switch state {
		case StateCompleted:
			c.Completed = n
		case StateSkipped:
			c.Skipped = n
		case StateDismissed:
			c.Dismissed = n
		}
		in.Steps = append(in.Steps, c)
	}
	return in, rows.Err()
}

// DefinitionView is d parsed for the Routines page, parsed once per
// publication of the row (the memo's views).
func (s *Store) DefinitionView(d RoutineDefinition) contract.RoutineRevisionView {
	return s.metrics.View(fmt.Sprintf("%s@%d@%d", d.RoutineID, d.Revision, d.PublishedRevision), d.UpdatedAt, d.View)
}

// KeptMetrics is RoutineMetrics of def over [from, to] from its trials
// already read (by ID), month by month, reusing the months no commit has
// changed since: the memo keys on rev, the revision read in tx.
func (s *Store) KeptMetrics(tx *gorm.DB, def RoutineDefinition, trials []RoutineTrial, from, to string, rev int64, day Day, now time.Time) (contract.RoutineMetrics, error) {
	windows := routinecount.MonthWindows(from, to)
	parts, seqs := make([]contract.RoutineMetrics, 0, len(windows)), make([]uint64, 0, len(windows))
	for _, w := range windows {
		key := routinecount.NewKey(def.RoutineID, def.Revision, w[0], w[1], day)
		m, seq, ok := s.metrics.Get(key, rev, now)
		if !ok {
			in, err := loadMetricsInput(tx, def, trials, w[0], w[1])
			if err != nil {
				return contract.RoutineMetrics{}, err
			}
			var until time.Time
			m, until = in.Compute(w[0], w[1], day, now)
			seq = s.metrics.Put(key, rev, until, m)
		}
		parts, seqs = append(parts, m), append(seqs, seq)
	}
	return s.metrics.Window(routinecount.NewKey(def.RoutineID, def.Revision, from, to, day), seqs, parts), nil
}
