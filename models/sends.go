package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"hearth/beeper"
	"hearth/models/ids"
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

// SendDeadline bounds the Beeper send call. A send still pending
// pendingGrace after its deadline was interrupted (the process stopped, or
// the final commit failed) and is reported as unknown, to be reconciled.
const (
	SendDeadline = 30 * time.Second
	pendingGrace = 10 * time.Second
)

// reconcilePages bounds how far back reconciliation pages through a chat.
const reconcilePages = 20

// StaleDraftError means the chat has messages newer than the draft was
// written against; the owner must review again.
type StaleDraftError struct {
	Newer []beeper.Message
}

func (e *StaleDraftError) Error() string {
	return fmt.Sprintf("the chat has %d newer message(s) than the draft", len(e.Newer))
}

// Send refusals that handlers answer with 409; none of them sent anything.
var (
	// ErrSendInFlight means a send for this draft is pending or unknown, so
	// no other may start until it is settled or reconciled.
	ErrSendInFlight = errors.New("a send for this draft is still pending or unknown")
	// ErrDraftAlreadySent means the draft's reply went out; it is not sent twice.
	ErrDraftAlreadySent = errors.New("this draft was already sent")
	// ErrDraftNotInChat means the draft belongs to another chat than the one addressed.
	ErrDraftNotInChat = errors.New("the draft belongs to another chat")
)

// ErrOutcomeNotRecorded means Beeper was called but hearth could not commit
// the outcome; the send shows as unknown until it is reconciled. It never
// means nothing was sent.
var ErrOutcomeNotRecorded = errors.New("Beeper was called but the outcome could not be recorded")

// SendCommand is the owner's confirmation of a reviewed reply.
type SendCommand struct {
	SendKey               string
	DraftID               string
	ChatID                string // the chat the owner reviewed; the draft must belong to it
	Body                  string
	SourceMessageRevision string
}

// ConfirmSend sends a reviewed reply exactly once per SendKey (DESIGN §7):
// an existing send with the key is returned as it is; a draft of another
// chat, one already sent, or one with a send in flight is refused; a chat
// with messages newer than the reviewed revision is a *StaleDraftError; in
// all those cases nothing is sent. Otherwise the send is committed as
// pending, Beeper is called once, and the outcome (sent, failed, or unknown
// when the answer never came) is committed. A sent reply completes its
// activity. When that last commit fails the error wraps
// ErrOutcomeNotRecorded and the returned send carries what Beeper answered.
func (s *Store) ConfirmSend(ctx context.Context, m Messenger, cmd SendCommand) (Send, error) {
	if !ids.Valid(cmd.SendKey) {
		return Send{}, fmt.Errorf("models: send key must be %s: %w", idChars, ErrInvalidInput)
	}
	if strings.TrimSpace(cmd.Body) == "" || utf8.RuneCountInString(cmd.Body) > MaxBodyLen {
		return Send{}, fmt.Errorf("models: a reply needs 1-%d characters: %w", MaxBodyLen, ErrInvalidInput)
	}
	if prior, ok, err := s.sendByKey(ctx, cmd.SendKey); err != nil || ok {
		return prior, err
	}
	var draft ReplyDraft
	if err := s.rdb.WithContext(ctx).Where("id = ? AND retracted_at IS NULL", cmd.DraftID).Take(&draft).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return Send{}, ErrNotFound
		}
		return Send{}, fmt.Errorf("models: send: %w", err)
	}
	if draft.ChatID != cmd.ChatID {
		return Send{}, ErrDraftNotInChat
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
	callCtx, cancel := context.WithTimeout(ctx, SendDeadline)
	result, sendErr := m.Send(callCtx, draft.ChatID, beeper.SendRequest{Text: cmd.Body, ReplyToMessageID: draft.ReplyToMessageID})
	cancel()
	status, pendingID, errText := SendSent, result.PendingMessageID, ""
	switch {
	case errors.Is(sendErr, beeper.ErrOutcomeUnknown):
		status, errText = SendUnknown, sendErr.Error()
	case sendErr != nil:
		status, errText = SendFailed, sendErr.Error()
	}
	settled, err := s.settleSend(context.WithoutCancel(ctx), send.ID, status, pendingID, errText)
	if err != nil {
		send.Status, send.PendingMessageID, send.Error = status, pendingID, errText
		return send, fmt.Errorf("models: send: %w: %w", ErrOutcomeNotRecorded, err)
	}
	return settled, nil
}

// interrupted reports a pending send whose Beeper call must have ended: the
// process stopped or its final commit failed, so its outcome is unknown.
func (sd Send) interrupted(now time.Time) bool {
	return sd.Status == SendPending && now.Sub(sd.CreatedAt) > SendDeadline+pendingGrace
}

// effective is the send as the owner and agent see it: an interrupted
// pending send is unknown, to be reconciled.
func (sd Send) effective(now time.Time) Send {
	if sd.interrupted(now) {
		sd.Status = SendUnknown
		sd.Error = "hearth stopped before the outcome was recorded"
	}
	return sd
}

func (s *Store) sendByKey(ctx context.Context, key string) (Send, bool, error) {
	var rows []Send
	if err := s.rdb.WithContext(ctx).Where("send_key = ?", key).Limit(1).Find(&rows).Error; err != nil {
		return Send{}, false, fmt.Errorf("models: send: %w", err)
	}
	if len(rows) == 0 {
		return Send{}, false, nil
	}
	return rows[0].effective(s.clock()), true, nil
}

// recordPendingSend commits the pending row. A concurrent confirm with the
// same key finds the row the first one inserted and calls nobody.
func (s *Store) recordPendingSend(ctx context.Context, draft ReplyDraft, cmd SendCommand) (send Send, created bool, err error) {
	_, err = s.commit(ctx, func(t *txn) error {
		if err := t.Where("send_key = ?", cmd.SendKey).Limit(1).Find(&send).Error; err != nil || send.ID != 0 {
			return err
		}
		var statuses []string
		if err := t.Model(&Send{}).Where("draft_id = ? AND status IN ?", draft.ID, []string{SendPending, SendUnknown, SendSent}).
			Distinct().Pluck("status", &statuses).Error; err != nil {
			return err
		}
		if slices.Contains(statuses, SendSent) {
			return ErrDraftAlreadySent
		}
		if len(statuses) > 0 {
			return ErrSendInFlight
		}
		var activity *string
		var ids []string
		if err := t.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", draft.ID).Order("id").Limit(1).Pluck("id", &ids).Error; err != nil {
			return err
		}
		if len(ids) == 1 {
			activity = &ids[0]
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("draft:" + draft.ID)
		send = Send{SendKey: cmd.SendKey, DraftID: draft.ID, ActivityID: activity, AccountID: draft.AccountID, ChatID: draft.ChatID,
			ReplyToMessageID: draft.ReplyToMessageID, Body: cmd.Body, SourceMessageRevision: cmd.SourceMessageRevision,
			Status: SendPending, Revision: rev, CreatedAt: t.now, UpdatedAt: t.now}
		if err := t.Create(&send).Error; err != nil {
			return err
		}
		created = true
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrSendInFlight) || errors.Is(err, ErrDraftAlreadySent) {
			return Send{}, false, err
		}
		return Send{}, false, fmt.Errorf("models: send: %w", err)
	}
	return send.effective(s.clock()), created, nil
}

// settleSend records a send's outcome; a sent reply completes every live
// activity that names its draft (the contract allows one).
func (s *Store) settleSend(ctx context.Context, id int64, status, pendingID, errText string) (Send, error) {
	var send Send
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Take(&send, id).Error; err != nil {
			return err
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("draft:" + send.DraftID)
		send.Status, send.PendingMessageID, send.Error, send.Revision, send.UpdatedAt = status, pendingID, errText, rev, t.now
		if err := t.Save(&send).Error; err != nil {
			return err
		}
		if status != SendSent {
			return nil
		}
		var ids []string
		if err := t.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", send.DraftID).Pluck("id", &ids).Error; err != nil {
			return err
		}
		steps, err := routineReplySteps(t, send.ChatID)
		if err != nil {
			return err
		}
		for _, a := range append(ids, steps...) {
			if err := decide(t, ActivityState{ActivityID: a, State: StateCompleted, Note: "sent", Revision: rev, UpdatedAt: t.now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Send{}, fmt.Errorf("models: settle send: %w", err)
	}
	return send, nil
}

// ReconcileSend settles a send whose outcome is unknown by reading the chat
// back, page by page, to the time of the attempt: the owner's message with
// the same text (the newest such) settles it as its send status says
// (sendOutcome: sent, failed, or still unknown while Beeper retries). Not
// finding it proves nothing (Beeper may not have synced the message yet),
// so the send stays unknown, noted "not seen yet"; only the owner's
// explicit MarkSendNotSent opens the draft to another try.
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
	since := send.CreatedAt.Add(-time.Minute)
	q := beeper.MessagesQuery{}
	checked := 0
	for range reconcilePages {
		page, err := m.Messages(ctx, send.ChatID, q)
		if err != nil {
			return Send{}, fmt.Errorf("models: reconcile: read chat: %w", err)
		}
		reachedAttempt := false
		// Newest first: after a failed try with the same words, the newer message is this send's.
		for _, msg := range slices.Backward(page.Items) {
			checked++
			if msg.Timestamp.Before(since) {
				reachedAttempt = true
				continue
			}
			if msg.IsSender && msg.Text == send.Body {
				status, note := sendOutcome(msg.SendStatus)
				return s.settleSend(ctx, send.ID, status, msg.ID, note)
			}
		}
		if reachedAttempt || !page.HasMore || page.OldestCursor == "" {
			break
		}
		q = beeper.MessagesQuery{Cursor: page.OldestCursor, Direction: beeper.Before}
	}
	note := fmt.Sprintf("not seen in the chat yet (checked %d messages back to %s at %s); check again later, or say it was not sent",
		checked, since.Format(time.RFC3339), s.clock().Format(time.RFC3339))
	return s.settleSend(ctx, send.ID, SendUnknown, "", note)
}

// sendOutcome maps Beeper's report on the owner's message, once found in
// the chat, to the send's state and note. PENDING and FAIL_RETRIABLE are
// not final (Beeper is still at it), so the send stays unknown: no other
// try is offered, and checking again later settles it. No report at all
// (older Beeper versions) counts as sent, as the message is in the chat.
func sendOutcome(st *beeper.SendStatus) (status, note string) {
	switch st.State() {
	case beeper.SendInProgress:
		return SendUnknown, "Beeper is still sending it; check again later"
	case beeper.SendRetrying:
		note := "Beeper is still trying to send it"
		if st.Message != "" {
			note += ": " + st.Message
		}
		return SendUnknown, note + "; check again later"
	case beeper.SendFailedForGood:
		return SendFailed, "Beeper could not send it: " + st.Text()
	}
	return SendSent, ""
}

// MarkSendNotSent is the owner's word that an unknown send did not go out
// (they looked in the chat themselves): it is recorded as failed, which
// opens the draft to another review and send. A send in any other state is
// returned unchanged.
func (s *Store) MarkSendNotSent(ctx context.Context, sendKey string) (Send, error) {
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
	return s.settleSend(ctx, send.ID, SendFailed, "", "the owner confirmed it was not sent")
}

// RecoverInterruptedSends marks every pending send unknown. serve calls it
// at start: sends run inside serve's requests, so a pending row at start was
// interrupted by a stop between the Beeper call and its outcome.
func (s *Store) RecoverInterruptedSends(ctx context.Context) (int64, error) {
	var n int64
	_, err := s.commit(ctx, func(t *txn) error {
		var keys []string
		if err := t.Model(&Send{}).Where("status = ?", SendPending).Pluck("draft_id", &keys).Error; err != nil || len(keys) == 0 {
			return err
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		res := t.Model(&Send{}).Where("status = ?", SendPending).Updates(map[string]any{
			"status": SendUnknown, "error": "hearth stopped before the outcome was recorded", "revision": rev, "updated_at": t.now})
		n = res.RowsAffected
		for _, k := range keys {
			t.touch("draft:" + k)
		}
		return res.Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: recover sends: %w", err)
	}
	return n, nil
}

// ChatDraft is a reply draft as Messages shows it: the owner's edit beside
// the agent's candidates, the state of the reply activity that names it, and
// its newest send, so a sent draft offers its outcome rather than a second Send.
type ChatDraft struct {
	DraftView
	ActivityID string
	State      UserStateView
	LastSend   *Send
}

// Sent reports whether the draft's reply went out.
func (d ChatDraft) Sent() bool { return d.LastSend != nil && d.LastSend.Status == SendSent }

// ChatDrafts lists the live reply drafts for a chat, with the owner's
// edits, their reply activity's state and their newest send.
func (s *Store) ChatDrafts(ctx context.Context, chatID string) ([]ChatDraft, error) {
	var out []ChatDraft
	err := s.read(ctx, func(tx *gorm.DB) error {
		var rows []draftRow
		err := draftsWithEdits(tx).Where("reply_drafts.chat_id = ? AND reply_drafts.retracted_at IS NULL", chatID).
			Order("reply_drafts.id").Scan(&rows).Error
		if err != nil || len(rows) == 0 {
			return err
		}
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		var acts []struct {
			ID, DraftID        string
			State, Until, Note *string
			UpdatedAt          *time.Time
		}
		if err := tx.Raw(`SELECT a.id, a.draft_id, s.state, s.until, s.note, s.updated_at FROM activities a
			LEFT JOIN activity_states s ON s.activity_id = a.id
			WHERE a.draft_id IN ? AND a.retracted_at IS NULL ORDER BY a.id`, ids).Scan(&acts).Error; err != nil {
			return err
		}
		var sends []Send
		if err := tx.Raw(`SELECT * FROM sends WHERE id IN (SELECT MAX(id) FROM sends WHERE draft_id IN ? GROUP BY draft_id)`, ids).
			Scan(&sends).Error; err != nil {
			return err
		}
		now := s.clock()
		views := make([]DraftView, len(rows))
		for i, r := range rows {
			views[i] = r.view()
		}
		if err := markStale(tx, views); err != nil {
			return err
		}
		for i, r := range rows {
			d := ChatDraft{DraftView: views[i], State: UserStateView{State: StateAvailable}}
			for _, a := range acts {
				if a.DraftID == r.ID && d.ActivityID == "" {
					d.ActivityID = a.ID
					if a.State != nil {
						d.State = UserStateView{State: *a.State, Until: deref(a.Until), Note: deref(a.Note), At: a.UpdatedAt}
					}
				}
			}
			for _, sd := range sends {
				if sd.DraftID == r.ID {
					e := sd.effective(now)
					d.LastSend = &e
				}
			}
			out = append(out, d)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("models: chat drafts: %w", err)
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
	return rows[0].effective(s.clock()), true, nil
}

// routineReplySteps are today's open reply steps of routine occurrences
// that a send to chatID completes: those naming that chat, or no chat.
func routineReplySteps(t *txn, chatID string) ([]string, error) {
	day, err := ownerDay(t.DB, t.now, "")
	if err != nil {
		return nil, err
	}
	var rows []struct{ ID, Payload string }
	if err := t.Raw(`SELECT id, payload FROM activities WHERE kind = 'reply' AND draft_id IS NULL AND closed_at IS NULL
		AND retracted_at IS NULL AND occurrence_date = ? AND id LIKE 'hearth:%'`, day.Date).Scan(&rows).Error; err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range rows {
		var p RoutineReplyPayload
		if json.Unmarshal([]byte(r.Payload), &p) == nil && (p.ChatID == nil || *p.ChatID == chatID) {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}
