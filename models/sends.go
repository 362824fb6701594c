package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hearth/beeper"
)

// Send states (DESIGN §7).
const (
	SendPending = "pending"
	SendSent    = "sent"
	SendFailed  = "failed"
	SendUnknown = "unknown"
)

// Send is one confirmed reply and its outcome.
type Send struct {
	ID                    int64 `gorm:"primaryKey"`
	SendKey               string
	DraftID               string
	ActivityID            *string
	AccountID             string
	ChatID                string
	ReplyToMessageID      string
	Body                  string
	SourceMessageRevision string
	Status                string
	PendingMessageID      string
	Error                 string
	Revision              int64
	CreatedAt             time.Time
	UpdatedAt             time.Time
}

// Messenger is the part of the Beeper client a send needs.
type Messenger interface {
	Messages(ctx context.Context, chatID string, q beeper.MessagesQuery) (beeper.MessagePage, error)
	Send(ctx context.Context, chatID string, req beeper.SendRequest) (beeper.SendResult, error)
}

// StaleDraftError means the chat has messages newer than the draft was
// written against; the owner must review again.
type StaleDraftError struct {
	Newer []beeper.Message
}

func (e *StaleDraftError) Error() string {
	return fmt.Sprintf("the chat has %d newer message(s) than the draft", len(e.Newer))
}

// ErrSendInFlight means a send for this draft is pending or unknown, so no
// other may start until it is settled or reconciled.
var ErrSendInFlight = errors.New("a send for this draft is still pending or unknown")

// SendCommand is the owner's confirmation of a reviewed reply.
type SendCommand struct {
	SendKey               string
	DraftID               string
	Body                  string
	SourceMessageRevision string
}

// ConfirmSend sends a reviewed reply exactly once per SendKey (DESIGN §7):
// an existing send with the key is returned as it is; a chat with messages
// newer than the reviewed revision is a *StaleDraftError and nothing is
// sent; otherwise the send is committed as pending, Beeper is called once,
// and the outcome (sent, failed, or unknown when the answer never came) is
// committed. A sent reply completes its activity.
func (s *Store) ConfirmSend(ctx context.Context, m Messenger, cmd SendCommand) (Send, error) {
	if !idPattern.MatchString(cmd.SendKey) {
		return Send{}, fmt.Errorf("models: send key must be %s: %w", idChars, ErrInvalidInput)
	}
	if strings.TrimSpace(cmd.Body) == "" || utf8.RuneCountInString(cmd.Body) > MaxBodyLen {
		return Send{}, fmt.Errorf("models: a reply needs 1-%d characters: %w", MaxBodyLen, ErrInvalidInput)
	}
	if prior, ok, err := s.sendByKey(ctx, cmd.SendKey); err != nil || ok {
		return prior, err
	}
	var draft ReplyDraft
	if err := s.rdb.WithContext(ctx).Where("id = ? AND retracted_at IS NULL", cmd.DraftID).First(&draft).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return Send{}, ErrNotFound
		}
		return Send{}, fmt.Errorf("models: send: %w", err)
	}
	// Freshness is read before the pending row, so a stale review sends nothing.
	page, err := m.Messages(ctx, draft.ChatID, beeper.MessagesQuery{})
	if err != nil {
		return Send{}, fmt.Errorf("models: send: read chat: %w", err)
	}
	var newer []beeper.Message
	for _, msg := range page.Items {
		if msg.SortKey.Compare(beeper.SortKey(cmd.SourceMessageRevision)) > 0 && !msg.IsSender {
			newer = append(newer, msg)
		}
	}
	if len(newer) > 0 {
		return Send{}, &StaleDraftError{Newer: newer}
	}

	send, created, err := s.recordPendingSend(ctx, draft, cmd)
	if err != nil || !created {
		return send, err
	}
	result, sendErr := m.Send(ctx, draft.ChatID, beeper.SendRequest{Text: cmd.Body, ReplyToMessageID: draft.ReplyToMessageID})
	status, pendingID, errText := SendSent, result.PendingMessageID, ""
	switch {
	case errors.Is(sendErr, beeper.ErrOutcomeUnknown):
		status, errText = SendUnknown, sendErr.Error()
	case sendErr != nil:
		status, errText = SendFailed, sendErr.Error()
	}
	return s.settleSend(context.WithoutCancel(ctx), send.ID, status, pendingID, errText)
}

func (s *Store) sendByKey(ctx context.Context, key string) (Send, bool, error) {
	var rows []Send
	if err := s.rdb.WithContext(ctx).Where("send_key = ?", key).Limit(1).Find(&rows).Error; err != nil {
		return Send{}, false, fmt.Errorf("models: send: %w", err)
	}
	if len(rows) == 0 {
		return Send{}, false, nil
	}
	return rows[0], true, nil
}

// recordPendingSend commits the pending row. A concurrent confirm with the
// same key finds the row the first one inserted and calls nobody.
func (s *Store) recordPendingSend(ctx context.Context, draft ReplyDraft, cmd SendCommand) (send Send, created bool, err error) {
	var rev int64
	err = s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("send_key = ?", cmd.SendKey).Limit(1).Find(&send).Error; err != nil || send.ID != 0 {
			return err
		}
		var inFlight int64
		if err := tx.Model(&Send{}).Where("draft_id = ? AND status IN ('pending', 'unknown')", draft.ID).Count(&inFlight).Error; err != nil {
			return err
		}
		if inFlight > 0 {
			return ErrSendInFlight
		}
		var activity *string
		var ids []string
		if err := tx.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", draft.ID).Limit(1).Pluck("id", &ids).Error; err != nil {
			return err
		}
		if len(ids) == 1 {
			activity = &ids[0]
		}
		now := s.clock()
		if rev, err = bumpRevision(tx, now); err != nil {
			return err
		}
		send = Send{SendKey: cmd.SendKey, DraftID: draft.ID, ActivityID: activity, AccountID: draft.AccountID, ChatID: draft.ChatID,
			ReplyToMessageID: draft.ReplyToMessageID, Body: cmd.Body, SourceMessageRevision: cmd.SourceMessageRevision,
			Status: SendPending, Revision: rev, CreatedAt: now, UpdatedAt: now}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&send)
		if res.Error != nil {
			return res.Error
		}
		// Another process won the key between our read and insert: its row stands.
		created = res.RowsAffected == 1
		if !created {
			return tx.Where("send_key = ?", cmd.SendKey).First(&send).Error
		}
		return nil
	})
	if err != nil {
		return Send{}, false, classifySend(err)
	}
	if created {
		s.notify(rev, []string{"draft:" + draft.ID})
	}
	return send, created, nil
}

// settleSend records a send's outcome; a sent reply completes its activity.
func (s *Store) settleSend(ctx context.Context, id int64, status, pendingID, errText string) (Send, error) {
	var send Send
	var routine string
	err := s.write(ctx, func(tx *gorm.DB) error {
		if err := tx.First(&send, id).Error; err != nil {
			return err
		}
		now := s.clock()
		rev, err := bumpRevision(tx, now)
		if err != nil {
			return err
		}
		send.Status, send.PendingMessageID, send.Error, send.Revision, send.UpdatedAt = status, pendingID, errText, rev, now
		if err := tx.Save(&send).Error; err != nil {
			return err
		}
		if status == SendSent && send.ActivityID != nil {
			routine, err = decide(tx, ActivityState{ActivityID: *send.ActivityID, State: StateCompleted, Note: "sent", Revision: rev, UpdatedAt: now})
		}
		return err
	})
	if err != nil {
		return Send{}, fmt.Errorf("models: settle send: %w", err)
	}
	changed := []string{"draft:" + send.DraftID}
	if send.ActivityID != nil {
		changed = append(changed, activityChanges(*send.ActivityID, routine)...)
	}
	s.notify(send.Revision, changed)
	return send, nil
}

// ReconcileSend settles a send whose outcome is unknown by reading the chat:
// the owner's message with the same text after the attempt means sent;
// its absence means failed, so the owner may try again with a new key.
func (s *Store) ReconcileSend(ctx context.Context, m Messenger, sendKey string) (Send, error) {
	send, ok, err := s.sendByKey(ctx, sendKey)
	if err != nil {
		return Send{}, err
	}
	if !ok {
		return Send{}, ErrNotFound
	}
	if send.Status != SendUnknown {
		return send, nil
	}
	page, err := m.Messages(ctx, send.ChatID, beeper.MessagesQuery{})
	if err != nil {
		return Send{}, fmt.Errorf("models: reconcile: read chat: %w", err)
	}
	for _, msg := range page.Items {
		if msg.IsSender && msg.Text == send.Body && !msg.Timestamp.Before(send.CreatedAt.Add(-time.Minute)) {
			return s.settleSend(ctx, send.ID, SendSent, msg.ID, "")
		}
	}
	return s.settleSend(ctx, send.ID, SendFailed, "", "not found in the chat after the attempt: "+send.Error)
}

func classifySend(err error) error {
	if errors.Is(err, ErrSendInFlight) {
		return err
	}
	return fmt.Errorf("models: send: %w", err)
}

// ChatDrafts lists the live reply drafts for a chat, with the owner's edits.
func (s *Store) ChatDrafts(ctx context.Context, chatID string) ([]DraftView, error) {
	var rows []draftRow
	err := draftsWithEdits(s.rdb.WithContext(ctx)).
		Where("reply_drafts.chat_id = ? AND reply_drafts.retracted_at IS NULL", chatID).Order("reply_drafts.id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: chat drafts: %w", err)
	}
	out := make([]DraftView, len(rows))
	for i, r := range rows {
		out[i] = r.view()
	}
	return out, nil
}

// ChatPeople maps chat IDs to the names of the people their drafts concern.
func (s *Store) ChatPeople(ctx context.Context) (map[string]string, error) {
	var rows []struct{ ChatID, Name string }
	err := s.rdb.WithContext(ctx).Table("reply_drafts").Select("reply_drafts.chat_id, people.name").
		Joins("JOIN people ON people.id = reply_drafts.person_id").Where("reply_drafts.retracted_at IS NULL").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: chat people: %w", err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.ChatID] = r.Name
	}
	return out, nil
}

// LatestSend returns the newest send of a draft, if any.
func (s *Store) LatestSend(ctx context.Context, draftID string) (Send, bool, error) {
	var rows []Send
	if err := s.rdb.WithContext(ctx).Where("draft_id = ?", draftID).Order("id DESC").Limit(1).Find(&rows).Error; err != nil {
		return Send{}, false, fmt.Errorf("models: latest send: %w", err)
	}
	if len(rows) == 0 {
		return Send{}, false, nil
	}
	return rows[0], true, nil
}
