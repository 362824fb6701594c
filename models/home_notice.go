package models

import (
	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
)

// homeNoticeOf is Home's run notice: homeRunNotice's six reads only when
// one statement finds something it could show. On a day with nothing to
// say (no recent failed run, the newest backup drill passed, every agent
// logged in, the Beeper watch well, no gap in coverage today) that one
// statement is the notice: each read is a statement the driver compiles
// anew. Costs are read only under a cap, so a cap reads the whole notice.
func homeNoticeOf(tx *gorm.DB, day Day, costs costpolicy.Policy) (RunNotice, error) {
	if costs.Cap > 0 || costs.TokenCap > 0 {
		return homeRunNotice(tx, day, costs)
	}
	// Each EXISTS holds whenever its part of homeRunNotice would show
	// something (LastFailure among the ten newest ended runs, BackupFailed,
	// heldForAuth, watchFailing, CoverageSince): a change there must keep
	// it at least as wide. A missing watch row counts, so that its error
	// still surfaces.
	var maybe bool
	err := tx.Raw(`SELECT
			EXISTS (SELECT 1 FROM (SELECT state FROM runs WHERE state != ? ORDER BY started_at DESC, id LIMIT 10) WHERE state IN (?, ?))
			OR EXISTS (SELECT 1 FROM (SELECT ok FROM backup_drills ORDER BY id DESC LIMIT 1) WHERE ok = 0)
			OR EXISTS (SELECT 1 FROM agent_health WHERE state != ?)
			OR NOT EXISTS (SELECT 1 FROM watch_status WHERE id = 1 AND failures < ?)
			OR EXISTS (SELECT 1 FROM coverage_gaps WHERE to_at IS NULL OR to_at >= ?)`,
		contract.RunRunning, contract.RunFailed, contract.RunUnknown, contract.HealthOK, WatchFailingAfter, day.Start).
		Row().Scan(&maybe)
	if err != nil {
		return RunNotice{}, err
	}
	if maybe {
		return homeRunNotice(tx, day, costs)
	}
	return RunNotice{Coverage: []contract.CoverageGapView{}}, nil
}
