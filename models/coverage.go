package models

import (
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// coverageGap is a span when the watch could not see Beeper (migration
// 00026): from the first failed read to the next that worked.
type coverageGap struct {
	ID     int64 `gorm:"primaryKey"`
	What   string
	FromAt time.Time
	ToAt   *time.Time
}

func (coverageGap) TableName() string { return "coverage_gaps" }

// CoverageDays is how far back the agent context lists coverage gaps.
const CoverageDays = 14

func (g coverageGap) view() contract.CoverageGapView {
	return contract.CoverageGapView{From: g.FromAt, To: g.ToAt, What: g.What}
}

// openGap starts a coverage gap at t.now unless one of the same kind is
// open; one of another kind is closed first, so each span says what failed.
func openGap(t *txn, what string) error {
	var open []coverageGap
	if err := t.Where("to_at IS NULL").Find(&open).Error; err != nil {
		return err
	}
	if len(open) == 1 && open[0].What == what {
		return nil
	}
	if err := closeGaps(t); err != nil {
		return err
	}
	if _, err := t.bump(); err != nil {
		return err
	}
	return t.Create(&coverageGap{What: what, FromAt: t.now}).Error
}

// closeGaps ends the open coverage gap, if any, at t.now: the watch saw Beeper again.
func closeGaps(t *txn) error {
	res := t.Model(&coverageGap{}).Where("to_at IS NULL").Update("to_at", t.now)
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	_, err := t.bump()
	return err
}

// CoverageSince lists the coverage gaps open at or after since, oldest first.
func CoverageSince(tx *gorm.DB, since time.Time) ([]contract.CoverageGapView, error) {
	var rows []coverageGap
	if err := tx.Where("to_at IS NULL OR to_at >= ?", since).Order("from_at, id").Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]contract.CoverageGapView, len(rows))
	for i, r := range rows {
		out[i] = r.view()
	}
	return out, nil
}
