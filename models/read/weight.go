package read

import (
	"context"
	"fmt"
	"hearth/internal/weight"
	"hearth/models"
	"sort"
	"time"

	"gorm.io/gorm"
)

// RoutineKeeping reads the routines the owner tried and, for routineID
// (or the first of them), each planned day that has ended with whether it
// was done. An unknown routineID reads as the first routine.
func (s Store) RoutineKeeping(ctx context.Context, routineID string) (weight.RoutineKeeping, error) {
	var k weight.RoutineKeeping
	err := s.Read(ctx, func(tx *gorm.DB) error {
		var rows []struct{ RoutineID, Title string }
		// A routine's newest title; only routines that ever had a trial have days.
		if err := tx.Raw(`SELECT d.routine_id, d.title FROM routine_definitions d
			WHERE d.revision = (SELECT MAX(x.revision) FROM routine_definitions x WHERE x.routine_id = d.routine_id)
			AND EXISTS (SELECT 1 FROM routine_trials t WHERE t.routine_id = d.routine_id)
			ORDER BY d.title, d.routine_id`).Scan(&rows).Error; err != nil {
			return err
		}
		for _, r := range rows {
			c := weight.RoutineChoice{ID: r.RoutineID, Title: r.Title}
			k.Choices = append(k.Choices, c)
			if c.ID == routineID || k.Chosen.ID == "" {
				k.Chosen = c
			}
		}
		if k.Chosen.ID == "" {
			return nil
		}
		now := s.Now()
		day, err := models.OwnerDay(tx, now, "")
		if err != nil {
			return err
		}
		yesterday := day.Start.Add(-time.Hour).In(day.Zone).Format(time.DateOnly)
		var trials []models.RoutineTrial
		if err := tx.Where("routine_id = ?", k.Chosen.ID).Order("id").Find(&trials).Error; err != nil {
			return err
		}
		revisions := map[int64]string{} // revision → its first trial's start
		for _, tr := range trials {
			if from, ok := revisions[tr.Revision]; !ok || tr.StartsOn < from {
				revisions[tr.Revision] = tr.StartsOn
			}
		}
		done := map[string]bool{} // planned day → done (either occasion, when a day has two)
		for rev, from := range revisions {
			if from > yesterday {
				continue
			}
			m, err := models.RoutineMetrics(tx, k.Chosen.ID, rev, from, yesterday, now)
			if err != nil {
				return err
			}
			for _, d := range m.Days {
				if d.Outcome != models.OutcomeNotApplicable && d.Outcome != models.OutcomeOpen {
					done[d.Date] = done[d.Date] || d.Outcome == models.OutcomeCompleted
				}
			}
		}
		for date, ok := range done {
			k.Days = append(k.Days, weight.RoutineDay{Date: date, Done: ok})
		}
		sort.Slice(k.Days, func(i, j int) bool { return k.Days[i].Date < k.Days[j].Date })
		return nil
	})
	if err != nil {
		return weight.RoutineKeeping{}, fmt.Errorf("models: routine keeping: %w", err)
	}
	return k, nil
}
