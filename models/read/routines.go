package read

import (
	"context"
	"fmt"
	"hearth/internal/contract"
	"hearth/models"

	"gorm.io/gorm"
)

// Routines reads the Routines page.
func (s Store) Routines(ctx context.Context) (models.RoutinesView, error) {
	var v models.RoutinesView
	err := s.Read(ctx, func(tx *gorm.DB) error {
		now := s.Now()
		var err error
		if v.Revision, err = models.WorkspaceRevision(tx); err != nil {
			return err
		}
		if v.Day, err = models.OwnerDay(tx, now, ""); err != nil {
			return err
		}
		var defs []models.RoutineDefinition
		if err := tx.Order("routine_id, revision DESC").Find(&defs).Error; err != nil {
			return err
		}
		var trials []models.RoutineTrial
		if err := tx.Order("id DESC").Find(&trials).Error; err != nil {
			return err
		}
		var reviews []models.RoutineReview
		if err := tx.Order("window_to DESC, id").Find(&reviews).Error; err != nil {
			return err
		}
		decisions, err := models.ProposalDecisions(tx)
		if err != nil {
			return err
		}
		var evidence []string
		for _, d := range defs {
			dv := s.DefinitionView(d)
			if len(v.Routines) == 0 || v.Routines[len(v.Routines)-1].ID != d.RoutineID {
				v.Routines = append(v.Routines, models.RoutineCard{ID: d.RoutineID, Current: dv})
				evidence = append(evidence, dv.EvidenceIDs...)
			}
			card := &v.Routines[len(v.Routines)-1]
			card.Revisions = append(card.Revisions, dv)
		}
		chips, err := models.EvidenceChipsByID(tx, evidence)
		if err != nil {
			return err
		}
		defByRev := map[string]models.RoutineDefinition{}
		for _, d := range defs {
			defByRev[fmt.Sprintf("%s@%d", d.RoutineID, d.Revision)] = d
		}
		trialsByRev := map[string][]models.RoutineTrial{}
		for i := len(trials) - 1; i >= 0; i-- { // by ID, as RoutineMetrics reads them
			t := trials[i]
			key := fmt.Sprintf("%s@%d", t.RoutineID, t.Revision)
			trialsByRev[key] = append(trialsByRev[key], t)
		}
		metrics := func(routineID string, revision int64, from, to string) (contract.RoutineMetrics, error) {
			rev := fmt.Sprintf("%s@%d", routineID, revision)
			def, ok := defByRev[rev]
			if !ok {
				return contract.RoutineMetrics{}, models.ErrNotFound
			}
			return s.KeptMetrics(tx, def, trialsByRev[rev], from, to, v.Revision, v.Day, now)
		}
		for i := range v.Routines {
			card := &v.Routines[i]
			card.Standing = card.Current.Status
			for _, id := range card.Current.EvidenceIDs {
				if c, ok := chips[id]; ok {
					card.Evidence = append(card.Evidence, c)
				}
			}
			for _, t := range trials {
				if t.RoutineID != card.ID {
					continue
				}
				tv := t.View()
				to := min(t.LastDay(), v.Day.Date)
				if tv.Metrics, err = metrics(t.RoutineID, t.Revision, t.StartsOn, max(to, t.StartsOn)); err != nil {
					return err
				}
				card.Trials = append(card.Trials, tv)
				if t.State == "active" {
					active := tv
					card.ActiveTrial, card.Standing = &active, "active"
					for _, d := range tv.Metrics.Days {
						if d.Date < v.Day.Date && d.Outcome == models.OutcomeUnrecorded && card.Current.Trigger.Kind != contract.TriggerEvent {
							card.RecordableDays = append(card.RecordableDays, d.Date)
						}
					}
				}
			}
			for _, r := range reviews {
				if r.RoutineID == card.ID {
					rv := r.View(decisions)
					if rv.Current, err = metrics(r.RoutineID, r.Revision, r.WindowFrom, r.WindowTo); err != nil {
						return err
					}
					card.Reviews = append(card.Reviews, rv)
				}
			}
		}
		return nil
	})
	if err != nil {
		return models.RoutinesView{}, models.Classify("routines", err)
	}
	return v, nil
}
