package models

import (
	"cmp"
	"math"
	"slices"
	"time"

	"gorm.io/gorm"
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

// PersonRhythms reads each person's rhythm at now, by person ID, from
// the beats of their chats. A chat is a person's when its newest draft (not
// retracted) is about them, as Messages names chats, or else when it is
// the chat of beeper evidence that person alone cites.
func PersonRhythms(tx *gorm.DB, now time.Time) (map[string]PersonRhythm, error) {
	chatPerson, err := rhythmChats(tx)
	if err != nil || len(chatPerson) == 0 {
		return nil, err
	}
	chats := make([]string, 0, len(chatPerson))
	for c := range chatPerson {
		chats = append(chats, c)
	}
	slices.Sort(chats)
	msgs := map[string][]rhythm.Message{}
	for chunk := range slices.Chunk(chats, evidenceChunk) {
		// Scanned by hand: a year of busy chats is tens of thousands of rows.
		rows, err := tx.Raw("SELECT chat_id, at, from_owner FROM chat_beats WHERE chat_id IN ? AND at >= ?", chunk, now.Add(-RhythmWindow).Unix()).Rows()
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var chat string
			var at int64
			var mine bool
			if err := rows.Scan(&chat, &at, &mine); err != nil {
				rows.Close()
				return nil, err
			}
			p := chatPerson[chat]
			msgs[p] = append(msgs[p], rhythm.Message{At: time.Unix(at, 0), FromOwner: mine})
		}
		if err := cmp.Or(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	out := make(map[string]PersonRhythm, len(msgs))
	for p, m := range msgs {
		out[p] = rhythm.Of(m, now)
	}
	return out, nil
}

// rhythmChats maps the watched chats linked to a person to that person's ID.
func rhythmChats(tx *gorm.DB) (map[string]string, error) {
	var drafted []struct{ ChatID, PersonID string }
	if err := tx.Raw(`SELECT w.chat_id, (SELECT d.person_id FROM reply_drafts d INDEXED BY reply_drafts_chat JOIN people p ON p.id = d.person_id
			WHERE d.chat_id = w.chat_id AND d.retracted_at IS NULL ORDER BY d.rowid DESC LIMIT 1) AS person_id
		FROM beeper_watch w`).Scan(&drafted).Error; err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, d := range drafted {
		if d.PersonID != "" {
			out[d.ChatID] = d.PersonID
		}
	}
	var people []Person
	if err := tx.Select("id, evidence_ids").Find(&people).Error; err != nil {
		return nil, err
	}
	cited := map[string][]string{} // evidence ID → people citing it
	var ids []string
	for _, p := range people {
		for _, e := range evidenceList(p.EvidenceIDs) {
			cited[e] = append(cited[e], p.ID)
			ids = append(ids, e)
		}
	}
	slices.Sort(ids)
	byChat := map[string][]string{}
	for chunk := range slices.Chunk(slices.Compact(ids), evidenceChunk) {
		var refs []SourceRef
		if err := tx.Select("id, chat_id").Where("id IN ? AND kind = ? AND chat_id <> ''", chunk, "beeper").Find(&refs).Error; err != nil {
			return nil, err
		}
		for _, r := range refs {
			byChat[r.ChatID] = append(byChat[r.ChatID], cited[r.ID]...)
		}
	}
	for chat, who := range byChat {
		slices.Sort(who)
		if who = slices.Compact(who); len(who) == 1 && out[chat] == "" {
			out[chat] = who[0]
		}
	}
	return out, nil
}

// InDays is d in days to one decimal.
func InDays(d time.Duration) float64 { return math.Round(d.Hours()/24*10) / 10 }
