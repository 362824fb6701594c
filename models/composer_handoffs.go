package models

import (
	"context"
	"fmt"
	"time"

	"hearth/internal/sortkey"
)

// ComposerHandOff is text hearth put into a chat's Beeper composer, kept
// until the chat moves on: then hearth takes it back out, if the composer
// still holds exactly this text.
type ComposerHandOff struct {
	ChatID string `gorm:"primaryKey"`
	// Text is the composer's draft as Beeper reported it after the set.
	Text string
	// SaidSortKey is the chat's newest message that counted at the hand-off.
	SaidSortKey string
	Revision    int64
	HandedAt    time.Time
}

// TableName is composer_handoffs.
func (ComposerHandOff) TableName() string { return "composer_handoffs" }

// recordComposerHandOff remembers, inside t, the text Beeper's composer
// took for chatID; the chat's later hand-off replaces an earlier one.
func recordComposerHandOff(t *txn, chatID, text string) error {
	var said []string
	if err := t.Table("beeper_watch").Where("chat_id = ?", chatID).Pluck("last_said_sort_key", &said).Error; err != nil {
		return err
	}
	h := ComposerHandOff{ChatID: chatID, Text: text, Revision: t.rev, HandedAt: t.now.UTC()}
	if len(said) == 1 {
		h.SaidSortKey = said[0]
	}
	return t.Save(&h).Error
}

// ComposerHandOffsMovedOn are the composer hand-offs whose chat moved on
// since: a newer message that counts (the contact's, or the owner's own
// reply; reactions and notices do not count) or a decline in hearth.
func (s *Store) ComposerHandOffsMovedOn(ctx context.Context) ([]ComposerHandOff, error) {
	var hs []ComposerHandOff
	err := s.rdb.WithContext(ctx).Raw(`SELECT h.* FROM composer_handoffs h LEFT JOIN beeper_watch w ON w.chat_id = h.chat_id
		WHERE COALESCE(w.last_said_sort_key, '') <> h.said_sort_key
		OR EXISTS (SELECT 1 FROM reply_actions a INDEXED BY reply_actions_chat WHERE a.chat_id = h.chat_id AND a.action = ? AND a.revision > h.revision)
		ORDER BY h.chat_id`, ActionNoReplyNeeded).Scan(&hs).Error
	if err != nil {
		return nil, fmt.Errorf("models: composer hand-offs: %w", err)
	}
	return hs, nil
}

// ForgetComposerHandOff drops h once hearth took its text back out or
// found it changed; a later hand-off of the same chat is kept.
func (s *Store) ForgetComposerHandOff(ctx context.Context, h ComposerHandOff) error {
	_, err := s.commit(ctx, func(t *txn) error {
		return t.Where("chat_id = ? AND revision = ?", h.ChatID, h.Revision).Delete(&ComposerHandOff{}).Error
	})
	if err != nil {
		return fmt.Errorf("models: forget composer hand-off: %w", err)
	}
	return nil
}

// compareHandOffFrom gives a hand-off made into chat before the watch
// first read it (no SaidSortKey: hearth did not know the chat then) the
// newest message of that first read that counts and is not newer than
// the hand-off, so what was in the chat already is not it moving on.
func compareHandOffFrom(t *txn, chat WatchedChat) error {
	var hs []ComposerHandOff
	if err := t.Where("chat_id = ? AND said_sort_key = ''", chat.ID).Limit(1).Find(&hs).Error; err != nil || len(hs) == 0 {
		return err
	}
	h, said := hs[0], ""
	for _, m := range chat.Messages {
		if !m.Change && !m.Aside && !m.Timestamp.After(h.HandedAt) && sortkey.Compare(m.SortKey, said) > 0 {
			said = m.SortKey
		}
	}
	if said == "" {
		return nil
	}
	return t.Model(&ComposerHandOff{}).Where("chat_id = ? AND revision = ?", h.ChatID, h.Revision).Update("said_sort_key", said).Error
}
