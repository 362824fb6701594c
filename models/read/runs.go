package read

import (
	"context"
	"hearth/internal/contract"
	"hearth/models"

	"gorm.io/gorm"
)

// invocationsOf reads the invocations of runs, by run ID, in order.
func invocationsOf(tx *gorm.DB, runIDs []string) (map[string][]contract.InvocationView, error) {
	out := map[string][]contract.InvocationView{}
	if len(runIDs) == 0 {
		return out, nil
	}
	var rows []models.RunInvocation
	if err := tx.Where("run_id IN ?", runIDs).Order("run_id, n").Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.RunID] = append(out[r.RunID], r.View())
	}
	return out, nil
}

// maxRunsShown bounds the Runs page.
const maxRunsShown = 50

// Runs reads the Runs page.
func (s Store) Runs(ctx context.Context) (models.RunsView, error) {
	var v models.RunsView
	err := s.Read(ctx, func(tx *gorm.DB) error {
		var err error
		if v.Revision, err = models.WorkspaceRevision(tx); err != nil {
			return err
		}
		if v.Day, err = models.OwnerDay(tx, s.Now(), ""); err != nil {
			return err
		}
		var rows []models.Run
		if err := tx.Order("started_at DESC, id").Limit(maxRunsShown).Find(&rows).Error; err != nil {
			return err
		}
		runIDs := make([]string, len(rows))
		for i, r := range rows {
			runIDs[i] = r.ID
		}
		invs, err := invocationsOf(tx, runIDs)
		if err != nil {
			return err
		}
		for _, r := range rows {
			rv := r.View()
			rv.InvocationList = invs[r.ID]
			v.Runs = append(v.Runs, rv)
		}
		v.LastFailure = models.LastFailure(v.Runs)
		if v.Fates, err = fatesOf(tx, rows, invs); err != nil {
			return err
		}
		if v.JobFates, err = jobFates(tx, s.Now()); err != nil {
			return err
		}
		if v.LastPublication, err = models.LastPublication(tx); err != nil {
			return err
		}
		if v.LastPublication != nil {
			var refs []models.SourceRef
			if err := tx.Select("observed_at").Where("revision = ?", v.LastPublication.Revision).Order("observed_at DESC").Limit(1).Find(&refs).Error; err != nil {
				return err
			}
			if len(refs) == 1 && refs[0].ObservedAt.Valid {
				v.SourcesObservedAt = &refs[0].ObservedAt.Time
			}
		}
		if v.Backups, err = models.BackupHealthOf(tx); err != nil {
			return err
		}
		if v.Agents, err = models.AgentHealthViews(tx); err != nil {
			return err
		}
		if v.Coverage, err = models.CoverageSince(tx, v.Day.Start.AddDate(0, 0, -models.CoverageDays)); err != nil {
			return err
		}
		if v.CostToday, err = models.CostSince(tx, v.Day.Start); err != nil {
			return err
		}
		v.TokensToday, err = models.TokensSince(tx, v.Day.Start)
		return err
	})
	if err != nil {
		return models.RunsView{}, models.Classify("runs", err)
	}
	list, err := s.Schedules(ctx)
	if err != nil {
		return models.RunsView{}, err
	}
	v.Schedules = list.Schedules
	return v, nil
}
