package models

import (
	"context"
	"fmt"
	"time"

	"hearth/internal/instant"
)

// FollowWindow is how long hearth follows a sent reply for delivery, a
// read receipt and an answer; after it, a reply never answered stays so.
const FollowWindow = 14 * 24 * time.Hour

// ReplyRateWindow is the span People's reply rate and answer time cover.
const ReplyRateWindow = 90 * 24 * time.Hour

// Draft origins of a send: the agent's words as drafted, the owner's edit
// of them, or the owner's own words (no draft).
const (
	OriginAsDrafted = "as-drafted"
	OriginEdited    = "edited"
	OriginOwnWords  = "own-words"
)

// Origin says whose words the send carried.
func (sd Send) Origin() string {
	switch {
	case sd.Own():
		return OriginOwnWords
	case sd.WrittenCandidateID != "":
		return OriginAsDrafted
	}
	return OriginEdited
}

// AnsweredAfter is how long after the send the other side answered, or 0.
func (sd Send) AnsweredAfter() time.Duration {
	if sd.AnsweredAt == nil {
		return 0
	}
	return max(sd.AnsweredAt.Sub(sd.CreatedAt), 0)
}

// followedSince is the oldest send time still followed at now.
func followedSince(now time.Time) time.Time { return now.Add(-FollowWindow) }

// FollowedSends lists the sent replies whose delivery or read receipt is
// still to learn from Beeper: sent within FollowWindow, not answered, with
// a Beeper message to read. An answer comes from the watch's own reading
// (RecordWatch), so a reply both delivered and seen is not read again.
func (s *Store) FollowedSends(ctx context.Context) ([]Send, error) {
	var rows []Send
	if err := s.rdb.WithContext(ctx).Raw(`SELECT * FROM sends INDEXED BY sends_sent WHERE status = 'sent' AND created_at >= ?
		AND answered_at IS NULL AND pending_message_id <> '' AND (delivered_at IS NULL OR seen_at IS NULL) ORDER BY created_at`,
		followedSince(s.clock())).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: followed sends: %w", err)
	}
	return rows, nil
}

// SendFollow is what Beeper reported of a sent reply: when it was
// delivered and seen, each nil while unknown.
type SendFollow struct {
	DeliveredAt *time.Time
	SeenAt      *time.Time
}

// RecordFollow records what Beeper reported of a followed send: the first
// delivery and read receipt only (a later report never moves them). A
// time outside hearth's bound is taken as now. A send no longer followed
// (answered, or older than FollowWindow) or a report with nothing new
// changes nothing, not even the revision.
func (s *Store) RecordFollow(ctx context.Context, id int64, f SendFollow) (Send, error) {
	var send Send
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Take(&send, id).Error; err != nil {
			return err
		}
		if send.Status != SendSent || send.AnsweredAt != nil || send.CreatedAt.Before(followedSince(t.now)) {
			return nil
		}
		updates := map[string]any{}
		if send.DeliveredAt == nil && f.DeliveredAt != nil {
			at := boundedAt(*f.DeliveredAt, t.now)
			send.DeliveredAt, updates["delivered_at"] = &at, at
		}
		if send.SeenAt == nil && f.SeenAt != nil {
			at := boundedAt(*f.SeenAt, t.now)
			send.SeenAt, updates["seen_at"] = &at, at
			if send.DeliveredAt == nil { // read is delivered, whatever the status said
				send.DeliveredAt, updates["delivered_at"] = &at, at
			}
		}
		if len(updates) == 0 {
			return nil
		}
		return saveFollow(t, &send, updates)
	})
	if err != nil {
		return Send{}, fmt.Errorf("models: follow send: %w", err)
	}
	return send, nil
}

// saveFollow writes a followed send's new facts with a new revision, so
// open pages and the agent context learn them.
func saveFollow(t *txn, send *Send, updates map[string]any) error {
	rev, err := t.bump()
	if err != nil {
		return err
	}
	t.touch(send.touchKey(), "chat:"+send.ChatID)
	send.Revision, send.UpdatedAt = rev, t.now
	updates["revision"], updates["updated_at"] = rev, t.now
	return t.Model(&Send{}).Where("id = ?", send.ID).Updates(updates).Error
}

// boundedAt is a time Beeper reported, or now when it is outside hearth's
// bound or in the future (a clock ahead of hearth's).
func boundedAt(at, now time.Time) time.Time {
	if !instant.InRange(at) || at.After(now) {
		return now
	}
	return at.UTC()
}

// answerSends records incoming, a chat's new messages from the other side
// that count (oldest first; no reaction, notice, hidden or deleted one),
// as the answer to each followed send of the chat made before one of
// them: the first such message answers it.
func answerSends(t *txn, chatID string, incoming []WatchedMessage) error {
	if len(incoming) == 0 {
		return nil
	}
	var sends []Send
	if err := t.Where("chat_id = ? AND created_at >= ? AND status = ? AND answered_at IS NULL", chatID, followedSince(t.now), SendSent).
		Order("id").Find(&sends).Error; err != nil {
		return err
	}
	for i := range sends {
		sd := &sends[i]
		at, ok := firstAnswer(sd.CreatedAt, incoming, t.now)
		if !ok {
			continue
		}
		sd.AnsweredAt = &at
		if err := saveFollow(t, sd, map[string]any{"answered_at": at}); err != nil {
			return err
		}
	}
	return nil
}

// firstAnswer is the time of the first of msgs after sentAt (by Beeper's
// time, bounded), if any. A message without a usable time is taken as now.
func firstAnswer(sentAt time.Time, msgs []WatchedMessage, now time.Time) (time.Time, bool) {
	for _, m := range msgs {
		at := boundedAt(m.Timestamp, now)
		if at.After(sentAt) {
			return at, true
		}
	}
	return time.Time{}, false
}

// ReplyStats is how a person (or chat) answered the owner's replies over
// ReplyRateWindow: replies sent, how many were answered, and the median
// time to an answer.
type ReplyStats struct {
	Sent         int
	Answered     int
	MedianAnswer time.Duration
}

// Rate is Answered/Sent as a whole percentage.
func (r ReplyStats) Rate() int {
	if r.Sent == 0 {
		return 0
	}
	return (r.Answered*100 + r.Sent/2) / r.Sent
}
