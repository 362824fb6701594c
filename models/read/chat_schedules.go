package read

import (
	"context"
	"fmt"
	"hearth/models"

	"gorm.io/gorm"
)

// ChatSchedules maps each of chatIDs to its sends for later that are
// Shown: per draft still live and per chat's own words, the newest one,
// while it waits or goes, or once held until the owner looks again (a
// draft settled, or an own reply sent since, ends that). For Messages'
// chat list and a conversation's own reply.
func (s Store) ChatSchedules(ctx context.Context, chatIDs []string) (map[string][]models.ScheduledSend, error) {
	out := map[string][]models.ScheduledSend{}
	if len(chatIDs) == 0 {
		return out, nil
	}
	var rows []models.ScheduledSend
	err := s.Read(ctx, func(tx *gorm.DB) error {
		return tx.Raw(`SELECT sc.* FROM scheduled_sends sc
			WHERE sc.id IN (SELECT MAX(id) FROM scheduled_sends WHERE chat_id IN ? GROUP BY chat_id, draft_id)
			AND sc.state IN ? AND (sc.draft_id IS NULL OR EXISTS (SELECT 1 FROM reply_drafts d
				WHERE d.id = sc.draft_id AND d.settled_at IS NULL AND d.retracted_at IS NULL))
			ORDER BY sc.chat_id, sc.due_at, sc.id`, chatIDs, []string{models.ScheduleWaiting, models.ScheduleSending, models.ScheduleHeld}).Scan(&rows).Error
	})
	if err != nil {
		return nil, fmt.Errorf("models: chat schedules: %w", err)
	}
	for _, r := range rows {
		out[r.ChatID] = append(out[r.ChatID], r)
	}
	return out, nil
}
