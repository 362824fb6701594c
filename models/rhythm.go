package models

import (
	"slices"
	"time"

	"gorm.io/gorm/clause"

	"hearth/internal/instant"
	"hearth/internal/rhythm"
)

// RhythmWindow is how long the watch keeps when each message was said: a
// year holds a season's rhythm of someone seen every few weeks.
const RhythmWindow = 365 * 24 * time.Hour

// chatBeat is one message that counts, as the rhythm reads it: when, in
// which chat and whether the owner sent it; never its text.
type chatBeat struct {
	ChatID    string `gorm:"primaryKey"`
	MessageID string `gorm:"primaryKey"`
	At        int64  // Unix seconds
	FromOwner bool
}

func (chatBeat) TableName() string { return "chat_beats" }

// HistoryRead reports whether the watch has read chatID's earlier
// messages for the rhythm; a chat it has not is read back once.
func (c WatchCursor) HistoryRead(chatID string) bool { return c.chats[chatID].HistoryRead }

// recordBeats keeps when chat's messages that count were said (its new
// messages and the history read with it), forgets a message deleted since,
// and drops beats older than RhythmWindow.
func recordBeats(t *txn, chat WatchedChat) error {
	var beats []chatBeat
	for _, m := range slices.Concat(chat.History, chat.Messages) {
		if m.Change && m.Deleted {
			if err := t.Where("chat_id = ? AND message_id = ?", chat.ID, m.ID).Delete(&chatBeat{}).Error; err != nil {
				return err
			}
			continue
		}
		at := m.Timestamp.UTC()
		if m.Change || m.Aside || m.Deleted || m.ID == "" || !instant.InRange(at) || at.Before(t.now.Add(-RhythmWindow)) {
			continue
		}
		beats = append(beats, chatBeat{ChatID: chat.ID, MessageID: m.ID, At: at.Unix(), FromOwner: m.IsSender})
	}
	if len(beats) == 0 {
		return nil
	}
	return t.Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(&beats, 200).Error
}

// pruneBeats drops beats older than RhythmWindow (chat_beats_at).
func pruneBeats(t *txn) error {
	return t.Where("at < ?", t.now.Add(-RhythmWindow).Unix()).Delete(&chatBeat{}).Error
}

// PersonRhythm is one person's rhythm, as People shows it.
type PersonRhythm = rhythm.Rhythm
