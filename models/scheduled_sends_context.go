package models

import (
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// sendsLater is the agent context's SendsLater: every send still waiting
// (or going), and those held or gone within ContextHistory, by due time.
// A cancelled one is left out: it never was, for the chat.
func sendsLater(tx *gorm.DB, now time.Time) ([]contract.SendLaterView, error) {
	var rows []ScheduledSend
	if err := tx.Where("state IN ? OR (state IN ? AND updated_at >= ?)", []string{ScheduleWaiting, ScheduleSending},
		[]string{ScheduleHeld, ScheduleWent}, now.Add(-contract.ContextHistory)).
		Order("due_at, id").Limit(contract.ContextPageSize).Find(&rows).Error; err != nil {
		return nil, err
	}
	var out []contract.SendLaterView
	for _, r := range rows {
		v := contract.SendLaterView{ChatID: r.ChatID, DraftID: string(r.DraftID), DueAt: r.DueAt, Status: contract.SendLaterScheduled}
		switch r.State {
		case ScheduleHeld:
			v.Status, v.HeldBecause = contract.SendLaterHeld, r.Note
		case ScheduleWent:
			v.Status = contract.SendLaterSent
		}
		out = append(out, v)
	}
	return out, nil
}
