package read

import (
	"context"
	"fmt"
	"hearth/internal/contract"
	"hearth/models"
	"time"

	"gorm.io/gorm"
)

// CoverageGaps lists the spans since since when the watch could not see
// Beeper (those still open included), oldest first.
func (s Store) CoverageGaps(ctx context.Context, since time.Time) ([]contract.CoverageGapView, error) {
	var out []contract.CoverageGapView
	err := s.Read(ctx, func(tx *gorm.DB) (err error) {
		out, err = models.CoverageSince(tx, since)
		return err
	})
	if err != nil {
		return nil, models.Classify("coverage gaps", err)
	}
	return out, nil
}

// ChatDrafts lists a chat's reply drafts that are live or settled (sent,
// replaced, declined) within ContextHistory, not retracted, with the
// owner's edits, their reply activity's state and their newest send.
// Older settled drafts are history: the chat's messages show what was sent.
func (s Store) ChatDrafts(ctx context.Context, chatID string) ([]models.ChatDraft, error) {
	var out []models.ChatDraft
	err := s.Read(ctx, func(tx *gorm.DB) error {
		var err error
		out, err = models.ChatDraftsOf(tx, s.Now(), []string{chatID})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("models: chat drafts: %w", err)
	}
	return out, nil
}

// ChatPeople maps the given chats to the name of the person their newest
// draft (not retracted) concerns. It reads one draft per chat it is asked
// about (Messages asks for the chats it lists), walking the chat's index
// from the newest, never every draft the chat ever had.
func (s Store) ChatPeople(ctx context.Context, chatIDs []string) (map[string]string, error) {
	out := map[string]string{}
	err := s.Read(ctx, func(tx *gorm.DB) error {
		for _, chat := range chatIDs {
			var names []string
			if err := tx.Raw(`SELECT p.name FROM reply_drafts d INDEXED BY reply_drafts_chat JOIN people p ON p.id = d.person_id
				WHERE d.chat_id = ? AND d.retracted_at IS NULL ORDER BY d.rowid DESC LIMIT 1`, chat).Scan(&names).Error; err != nil {
				return err
			}
			if len(names) > 0 {
				out[chat] = names[0]
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: chat people: %w", err)
	}
	return out, nil
}
