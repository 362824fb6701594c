package models

import (
	"strconv"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

func routineDefinitionPage(tx *gorm.DB, from cursor) (contract.Page[contract.RoutineContextView], error) {
	var defs []RoutineDefinition
	err := tx.Raw(`SELECT d.* FROM routine_definitions d WHERE d.routine_id > ? AND d.revision =
		(SELECT MAX(revision) FROM routine_definitions x WHERE x.routine_id = d.routine_id) ORDER BY d.routine_id LIMIT ?`,
		from.after, contract.ContextPageSize+1).Scan(&defs).Error
	if err != nil {
		return contract.Page[contract.RoutineContextView]{}, err
	}
	var used []struct {
		RoutineID string
		Revision  int64
	}
	// Which revisions of this page's routines have occurrences: one indexed
	// probe per definition revision, not a pass over every occurrence ever.
	ids := make([]string, len(defs))
	for i, d := range defs {
		ids[i] = d.RoutineID
	}
	if err := tx.Raw(`SELECT d.routine_id, d.revision FROM routine_definitions d WHERE d.routine_id IN ?
		AND EXISTS (SELECT 1 FROM routine_occurrences o WHERE o.routine_id = d.routine_id AND o.revision = d.revision)
		ORDER BY d.routine_id, d.revision`, ids).Scan(&used).Error; err != nil {
		return contract.Page[contract.RoutineContextView]{}, err
	}
	views := make([]contract.RoutineContextView, len(defs))
	for i, d := range defs {
		views[i] = contract.RoutineContextView{RoutineRevisionView: d.view(), RevisionsWithOccurrences: []int64{}}
		for _, u := range used {
			if u.RoutineID == d.RoutineID {
				views[i].RevisionsWithOccurrences = append(views[i].RevisionsWithOccurrences, u.Revision)
			}
		}
	}
	return page(contract.CollectionRoutineDefinitions, from, views, func(v contract.RoutineContextView) string { return v.RoutineID }), nil
}

// recentTrials are active trials and those whose window ended in the last 14 days.
func recentTrials(tx *gorm.DB, now time.Time, after int64) ([]RoutineTrial, error) {
	since := now.Add(-contract.ContextHistory).Format(time.DateOnly)
	var rows []RoutineTrial
	err := tx.Where("(state = 'active' OR (CASE WHEN ended_on != '' AND ended_on < ends_on THEN ended_on ELSE ends_on END) >= ?) AND id > ?",
		since, after).Order("id").Limit(contract.ContextPageSize + 1).Find(&rows).Error
	return rows, err
}

func trialPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.TrialView], error) {
	after, _ := strconv.ParseInt(from.after, 10, 64)
	rows, err := recentTrials(tx, now, after)
	if err != nil {
		return contract.Page[contract.TrialView]{}, err
	}
	views := make([]contract.TrialView, len(rows))
	for i, t := range rows {
		views[i] = t.view()
	}
	return page(contract.CollectionTrials, from, views, func(v contract.TrialView) string { return strconv.FormatInt(v.ID, 10) }), nil
}

func routineMetricsPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.TrialMetricsView], error) {
	after, _ := strconv.ParseInt(from.after, 10, 64)
	rows, err := recentTrials(tx, now, after)
	if err != nil {
		return contract.Page[contract.TrialMetricsView]{}, err
	}
	day, err := ownerDay(tx, now, "")
	if err != nil {
		return contract.Page[contract.TrialMetricsView]{}, err
	}
	views := make([]contract.TrialMetricsView, len(rows))
	for i, t := range rows {
		m, err := routineMetrics(tx, t.RoutineID, t.Revision, t.StartsOn, max(t.StartsOn, min(t.LastDay(), day.Date)), now)
		if err != nil {
			return contract.Page[contract.TrialMetricsView]{}, err
		}
		m.Days = nil // the occurrences collection carries each day
		views[i] = contract.TrialMetricsView{TrialID: t.ID, RoutineMetrics: m}
	}
	return page(contract.CollectionRoutineMetrics, from, views, func(v contract.TrialMetricsView) string { return strconv.FormatInt(v.TrialID, 10) }), nil
}

// occurrencePage lists the occurrences of the last 14 days with their outcomes.
func occurrencePage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.OccurrenceView], error) {
	since := now.Add(-contract.ContextHistory).Format(time.DateOnly)
	var occs []RoutineOccurrence
	if err := tx.Where("local_date >= ? AND id > ?", since, from.after).Order("id").Limit(contract.ContextPageSize + 1).Find(&occs).Error; err != nil {
		return contract.Page[contract.OccurrenceView]{}, err
	}
	history := map[string][]RoutineOutcome{}
	if len(occs) > 0 {
		ids := make([]string, len(occs))
		for i, o := range occs {
			ids[i] = o.ID
		}
		var rows []RoutineOutcome
		if err := tx.Where("occurrence_id IN ?", ids).Order("id").Find(&rows).Error; err != nil {
			return contract.Page[contract.OccurrenceView]{}, err
		}
		for _, r := range rows {
			history[r.OccurrenceID] = append(history[r.OccurrenceID], r)
		}
	}
	day, err := ownerDay(tx, now, "")
	if err != nil {
		return contract.Page[contract.OccurrenceView]{}, err
	}
	views := make([]contract.OccurrenceView, len(occs))
	for i, o := range occs {
		v := contract.OccurrenceView{ID: o.ID, RoutineID: o.RoutineID, Revision: o.Revision, TrialID: o.TrialID, Occasion: o.Occasion,
			Date: o.LocalDate, Zone: o.Zone, ActivityID: o.ActivityID, History: []contract.OutcomeHistory{}}
		for _, h := range history[o.ID] {
			v.History = append(v.History, contract.OutcomeHistory{Outcome: h.Outcome, Reason: h.Reason, Effort: h.Effort, Helped: h.Helped, Late: h.Late, RecordedAt: h.RecordedAt})
			v.Outcome, v.Reason, v.Effort, v.Helped = h.Outcome, h.Reason, h.Effort, h.Helped
		}
		if v.Outcome == "" {
			v.Outcome = OutcomeOpen
			if occasionEnded(contract.DayOutcome{Date: o.LocalDate, OccurrenceID: o.ID}, map[string]RoutineOccurrence{o.ID: o}, day, now) {
				v.Outcome = OutcomeUnrecorded
			}
		}
		views[i] = v
	}
	return page(contract.CollectionOccurrences, from, views, func(v contract.OccurrenceView) string { return v.ID }), nil
}
