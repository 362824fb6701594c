package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/ids"
)

// Send states (docs/contract.md, Sends).
const (
	SendPending = "pending"
	SendSent    = "sent"
	SendFailed  = "failed"
	SendUnknown = "unknown"
)

// Send is one confirmed reply and its outcome. A send without DraftID is
// the owner's own reply, written in hearth rather than drafted by the agent.
type Send struct {
	ID                    int64 `gorm:"primaryKey"`
	SendKey               string
	DraftID               nullID
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
	// WrittenCandidateID is the agent's candidate a draft send used word
	// for word; empty when the owner's words differ (or for an own reply).
	WrittenCandidateID string
	// DeliveredAt, SeenAt and AnsweredAt are what became of the reply
	// after it went out (sends_followed.go); nil: not (yet) known.
	DeliveredAt *time.Time
	SeenAt      *time.Time
	AnsweredAt  *time.Time
	// DraftBody is the draft text a draft send started from (voice.go);
	// nil for an own reply.
	DraftBody *string
}

// Own reports whether the send is the owner's own reply (no draft).
func (sd Send) Own() bool { return sd.DraftID == "" }

// Accepted reports whether Beeper took the send and is still sending it:
// pending under the message ID Beeper gave it, settled by reading that
// message's status, never offered a second send meanwhile.
func (sd Send) Accepted() bool { return sd.Status == SendPending && sd.PendingMessageID != "" }

// touchKey names what a send changes for the notifier: its draft, or the chat.
func (sd Send) touchKey() string {
	if sd.Own() {
		return "chat:" + sd.ChatID
	}
	return "draft:" + string(sd.DraftID)
}

// SendDeadline bounds the Beeper send call (internal/beeperflow). A send still pending
// pendingGrace after its deadline was interrupted (the process stopped, or
// the final commit failed) and is reported as unknown, to be reconciled.
const (
	SendDeadline = 30 * time.Second
	pendingGrace = 10 * time.Second
)

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

// SendCommand is the owner's confirmation of a reviewed reply: a draft's,
// or with no DraftID the owner's own reply to ChatID.
type SendCommand struct {
	SendKey               string
	DraftID               string
	ChatID                string // the chat the owner reviewed; the draft must belong to it
	Body                  string
	SourceMessageRevision string
}

// SendTarget is where a confirmed reply goes: its draft (empty for an own
// reply), its chat and account, and the message it answers.
type SendTarget struct {
	DraftID          string
	ChatID           string
	AccountID        string
	ReplyToMessageID string
	// candidates are the draft's, to record which one was sent word for word.
	candidates string
}

// SendPlan is PrepareSend's answer: the send already recorded under the
// key (Prior, to return as it is, calling nobody), or where to send.
type SendPlan struct {
	Prior  *Send
	Target SendTarget
}

// PrepareSend checks a confirmation before anything is sent:
// an existing send with the key is returned as Prior; an invalid key or
// body is ErrInvalidInput, an unknown draft ErrNotFound, a draft of another
// chat ErrDraftNotInChat, an own reply without a chat ErrInvalidInput.
// The target's account is the draft's; an own reply's is read from the chat
// by the caller.
func (s *Store) PrepareSend(ctx context.Context, cmd SendCommand) (SendPlan, error) {
	if !ids.Valid(cmd.SendKey) {
		return SendPlan{}, fmt.Errorf("models: send key must be %s: %w", ids.Expected, ErrInvalidInput)
	}
	if err := checkReplyBody(cmd.Body); err != nil {
		return SendPlan{}, err
	}
	if prior, ok, err := s.SendByKey(ctx, cmd.SendKey); err != nil || ok {
		return SendPlan{Prior: &prior}, err
	}
	if cmd.DraftID == "" {
		if cmd.ChatID == "" {
			return SendPlan{}, fmt.Errorf("models: an own reply names its chat: %w", ErrInvalidInput)
		}
		return SendPlan{Target: SendTarget{ChatID: cmd.ChatID}}, nil
	}
	var draft ReplyDraft
	if err := s.rdb.WithContext(ctx).Where("id = ? AND retracted_at IS NULL", cmd.DraftID).Take(&draft).Error; err != nil {
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return SendPlan{}, ErrNotFound
		}
		return SendPlan{}, fmt.Errorf("models: send: %w", err)
	}
	if draft.ChatID != cmd.ChatID {
		return SendPlan{}, ErrDraftNotInChat
	}
	return SendPlan{Target: SendTarget{DraftID: draft.ID, ChatID: draft.ChatID, AccountID: draft.AccountID,
		ReplyToMessageID: draft.ReplyToMessageID, candidates: draft.Candidates}}, nil
}

// interrupted reports a pending send whose Beeper call must have ended: the
// process stopped or its final commit failed, so its outcome is unknown. A
// send Beeper accepted is not interrupted: it is settled by its status.
func (sd Send) interrupted(now time.Time) bool {
	return sd.Status == SendPending && sd.PendingMessageID == "" && now.Sub(sd.CreatedAt) > SendDeadline+pendingGrace
}

// Effective is the send as the owner and agent see it: an interrupted
// pending send is unknown, to be reconciled.
func (sd Send) Effective(now time.Time) Send {
	if sd.interrupted(now) {
		sd.Status = SendUnknown
		sd.Error = "hearth stopped before the outcome was recorded"
	}
	return sd
}

// SendByKey returns the send recorded under a send key, as the owner sees
// it (an interrupted pending send is unknown).
func (s *Store) SendByKey(ctx context.Context, key string) (Send, bool, error) {
	var rows []Send
	if err := s.rdb.WithContext(ctx).Where("send_key = ?", key).Limit(1).Find(&rows).Error; err != nil {
		return Send{}, false, fmt.Errorf("models: send: %w", err)
	}
	if len(rows) == 0 {
		return Send{}, false, nil
	}
	return rows[0].Effective(s.clock()), true, nil
}

// PendingSend claims a send: it commits the pending row for draft (the
// target PrepareSend returned) before Beeper is called. created is false
// when a confirm with the same key inserted it first: that send is
// returned, and the caller calls nobody. A draft already sent is
// ErrDraftAlreadySent, one with a send pending or unknown ErrSendInFlight.
func (s *Store) PendingSend(ctx context.Context, draft SendTarget, cmd SendCommand) (send Send, created bool, err error) {
	_, err = s.commit(ctx, func(t *txn) error {
		if err := t.Where("send_key = ?", cmd.SendKey).Limit(1).Find(&send).Error; err != nil || send.ID != 0 {
			return err
		}
		var activity, draftBody *string
		written := ""
		if draft.DraftID != "" {
			var statuses []string
			if err := t.Model(&Send{}).Where("draft_id = ? AND status IN ?", draft.DraftID, []string{SendPending, SendUnknown, SendSent}).
				Distinct().Pluck("status", &statuses).Error; err != nil {
				return err
			}
			if slices.Contains(statuses, SendSent) {
				return ErrDraftAlreadySent
			}
			if len(statuses) > 0 {
				return ErrSendInFlight
			}
			var ids []string
			if err := t.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", draft.DraftID).Order("id").Limit(1).Pluck("id", &ids).Error; err != nil {
				return err
			}
			if len(ids) == 1 {
				activity = &ids[0]
			}
			// Sent now, a send of the draft still waiting for its time would be a second one.
			if err := t.Model(&ScheduledSend{}).Where("draft_id = ? AND state = ?", draft.DraftID, ScheduleWaiting).
				Updates(map[string]any{"state": ScheduleCancelled, "note": "sent at once instead", "updated_at": t.now}).Error; err != nil {
				return err
			}
			var candidates []contract.CandidateIn
			_ = json.Unmarshal([]byte(draft.candidates), &candidates)
			for _, c := range candidates {
				if c.Body == cmd.Body {
					written = c.ID
					break
				}
			}
			var err error
			if draftBody, err = sentFrom(t, draft.DraftID, candidates, cmd.Body, written); err != nil {
				return err
			}
		} else {
			// An own reply sent now is the owner's look again at a held own reply of the chat.
			if err := t.Model(&ScheduledSend{}).Where("chat_id = ? AND draft_id IS NULL AND state = ?", draft.ChatID, ScheduleHeld).
				Updates(map[string]any{"state": ScheduleCancelled, "note": "you replied in your own words since", "updated_at": t.now}).Error; err != nil {
				return err
			}
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		send = Send{SendKey: cmd.SendKey, DraftID: nullID(draft.DraftID), ActivityID: activity, AccountID: draft.AccountID, ChatID: draft.ChatID,
			ReplyToMessageID: draft.ReplyToMessageID, Body: cmd.Body, SourceMessageRevision: cmd.SourceMessageRevision,
			Status: SendPending, Revision: rev, CreatedAt: t.now, UpdatedAt: t.now, WrittenCandidateID: written, DraftBody: draftBody}
		t.touch(send.touchKey())
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
	return send.Effective(s.clock()), created, nil
}

// SettleSend records a send's outcome (status, Beeper's message ID, a
// note); a sent reply completes every live activity that names its draft
// (the contract allows one). An own reply, once sent, replaces the chat's
// live drafts that went unsent: each gets an own-reply action and its reply
// activity is completed. An outcome equal to the one recorded changes
// nothing, not even the revision.
func (s *Store) SettleSend(ctx context.Context, id int64, status, pendingID, errText string) (Send, error) {
	var send Send
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Take(&send, id).Error; err != nil {
			return err
		}
		if send.Status == status && send.PendingMessageID == pendingID && send.Error == errText {
			return nil // nothing new: keep the revision, so open pages do not reload for it
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch(send.touchKey())
		send.Status, send.PendingMessageID, send.Error, send.Revision, send.UpdatedAt = status, pendingID, errText, rev, t.now
		if err := t.Save(&send).Error; err != nil {
			return err
		}
		if status != SendSent {
			return nil
		}
		var ids []string
		note := "sent"
		if send.Own() {
			note = "answered with your own reply"
			replaced, err := unsentDrafts(t, send.ChatID)
			if err != nil {
				return err
			}
			if ids, err = replaceDrafts(t, send.ChatID, send.AccountID, replaced, ReplyAction{SendID: &send.ID}); err != nil {
				return err
			}
		} else {
			// Its reply went out: settled now, even if a decision settled it before.
			if err := t.Model(&ReplyDraft{}).Where("id = ?", string(send.DraftID)).UpdateColumn("settled_at", t.now).Error; err != nil {
				return err
			}
			if err := t.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", string(send.DraftID)).Pluck("id", &ids).Error; err != nil {
				return err
			}
		}
		steps, err := routineReplySteps(t, send.ChatID)
		if err != nil {
			return err
		}
		for _, a := range append(ids, steps...) {
			if err := decide(t, ActivityState{ActivityID: a, State: StateCompleted, Note: note, Revision: rev, UpdatedAt: t.now}); err != nil {
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

// AcceptedSends lists the sends Beeper accepted and is still sending, for
// the caller to read their status; the watch and the Messages pages ask on
// every pass, so a send Beeper later fails for good does not stay
// "sending". While none is pending it costs no query: a send only becomes
// accepted in a commit, which moves the revision on.
func (s *Store) AcceptedSends(ctx context.Context) ([]Send, error) {
	rev := s.LatestRevision() // before the read: a commit it misses moves the revision on
	if s.noAcceptedAt.Load() == rev+1 {
		return nil, nil
	}
	var rows []Send
	if err := s.rdb.WithContext(ctx).Where("status = ? AND pending_message_id <> ''", SendPending).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: settle accepted sends: %w", err)
	}
	if len(rows) == 0 {
		s.noAcceptedAt.Store(rev + 1)
	}
	return rows, nil
}

// MarkSendNotSent is the owner's word that an unknown send did not go out
// (they looked in the chat themselves): it is recorded as failed, which
// opens the draft to another review and send. A send in any other state is
// returned unchanged.
func (s *Store) MarkSendNotSent(ctx context.Context, sendKey string) (Send, error) {
	send, ok, err := s.SendByKey(ctx, sendKey)
	if err != nil {
		return Send{}, err
	}
	if !ok {
		return Send{}, ErrNotFound
	}
	if send.Status != SendUnknown {
		return send, nil
	}
	return s.SettleSend(ctx, send.ID, SendFailed, "", "the owner confirmed it was not sent")
}

// RecoverInterruptedSends marks every pending send unknown. serve calls it
// at start: sends run inside serve's requests, so a pending row at start was
// interrupted by a stop between the Beeper call and its outcome.
func (s *Store) RecoverInterruptedSends(ctx context.Context) (int64, error) {
	var n int64
	_, err := s.commit(ctx, func(t *txn) error {
		// A send Beeper accepted was not interrupted: its status settles it.
		var rows []Send
		if err := t.Where("status = ? AND pending_message_id = ''", SendPending).Find(&rows).Error; err != nil || len(rows) == 0 {
			return err
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		res := t.Model(&Send{}).Where("status = ? AND pending_message_id = ''", SendPending).Updates(map[string]any{
			"status": SendUnknown, "error": "hearth stopped before the outcome was recorded", "revision": rev, "updated_at": t.now})
		n = res.RowsAffected
		for _, r := range rows {
			t.touch(r.touchKey())
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
	contract.DraftView
	ActivityID string
	State      contract.UserStateView
	LastSend   *Send
	// Scheduled is the draft's send for later, while it waits or goes, or
	// once held because the chat moved on.
	Scheduled *ScheduledSend
}

// Sent reports whether the draft's reply went out.
func (d ChatDraft) Sent() bool { return d.LastSend != nil && d.LastSend.Status == SendSent }

// ChatDraft reads one draft of a chat, however long ago it settled (an
// open page may address a draft that has left ChatDrafts' window), or nil
// when the chat has no such draft that is not retracted.
func (s *Store) ChatDraft(ctx context.Context, chatID, draftID string) (*ChatDraft, error) {
	var out []ChatDraft
	err := s.Read(ctx, func(tx *gorm.DB) error {
		// By its ID alone: with statistics the planner may prefer the chat index.
		rows, err := scanDraftRows(draftsWithEdits(tx).Where("reply_drafts.id = ? AND +reply_drafts.chat_id = ? AND reply_drafts.retracted_at IS NULL", draftID, chatID))
		if err != nil {
			return err
		}
		out, err = draftDetails(tx, s.clock(), rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("models: chat draft: %w", err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return &out[0], nil
}

// chatDraftsWindow is ChatDrafts' read of several chats: each chat's live
// drafts and those settled since @since, each branch a search of
// reply_drafts_chat_settled, so a chat's years of sent drafts are not read.
const chatDraftsWindow = `SELECT d.*, e.body AS edit_body, e.selected_candidate_id AS edit_selected, e.updated_at AS edit_at, e.revision AS edit_revision
	FROM (SELECT * FROM reply_drafts INDEXED BY reply_drafts_chat_settled WHERE chat_id IN @chats AND settled_at IS NULL
	      UNION ALL
	      SELECT * FROM reply_drafts INDEXED BY reply_drafts_chat_settled WHERE chat_id IN @chats AND settled_at >= @since) AS d
	LEFT JOIN draft_edits e ON e.draft_id = d.id
	WHERE d.retracted_at IS NULL
	ORDER BY d.id`

// ChatDraftsOf is ChatDrafts of several chats inside a read transaction,
// in one set of queries however many chats: ordered by draft ID.
func ChatDraftsOf(tx *gorm.DB, now time.Time, chatIDs []string) ([]ChatDraft, error) {
	var rows []draftRow
	if err := tx.Raw(chatDraftsWindow, map[string]any{"chats": chatIDs, "since": now.Add(-contract.ContextHistory)}).Scan(&rows).Error; err != nil {
		return nil, err
	}
	return draftDetails(tx, now, rows)
}

// draftDetails adds to drafts their reply activity's state, newest send,
// staleness and outcome.
func draftDetails(tx *gorm.DB, now time.Time, rows []draftRow) ([]ChatDraft, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	ids := make([]string, len(rows))
	views := make([]contract.DraftView, len(rows))
	for i, r := range rows {
		ids[i], views[i] = r.ID, r.view()
	}
	var acts []struct {
		ID, DraftID        string
		State, Until, Note *string
		UpdatedAt          *time.Time
	}
	if err := tx.Raw(`SELECT a.id, a.draft_id, s.state, s.until, s.note, s.updated_at FROM activities a
		LEFT JOIN activity_states s ON s.activity_id = a.id
		WHERE a.draft_id IN ? AND a.retracted_at IS NULL ORDER BY a.id`, ids).Scan(&acts).Error; err != nil {
		return nil, err
	}
	var sends []Send
	if err := tx.Raw(`SELECT * FROM sends WHERE id IN (SELECT MAX(id) FROM sends WHERE draft_id IN ? GROUP BY draft_id)`, ids).
		Scan(&sends).Error; err != nil {
		return nil, err
	}
	if err := markStale(tx, views); err != nil {
		return nil, err
	}
	if err := DraftOutcomes(tx, views); err != nil {
		return nil, err
	}
	scheduled, err := latestSchedules(tx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]ChatDraft, len(rows))
	byID := make(map[string]*ChatDraft, len(rows))
	for i := range rows {
		out[i] = ChatDraft{DraftView: views[i], State: contract.UserStateView{State: StateAvailable}, Scheduled: scheduled[views[i].ID]}
		byID[out[i].ID] = &out[i]
	}
	for _, a := range acts {
		// The first live activity (by ID) naming the draft is its reply activity.
		if d := byID[a.DraftID]; d.ActivityID == "" {
			d.ActivityID = a.ID
			if a.State != nil {
				d.State = contract.UserStateView{State: *a.State, Until: deref(a.Until), Note: deref(a.Note), At: a.UpdatedAt}
			}
		}
	}
	for _, sd := range sends {
		e := sd.Effective(now)
		byID[string(sd.DraftID)].LastSend = &e
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
	return rows[0].Effective(s.clock()), true, nil
}

// routineReplySteps are today's open reply steps of routine occurrences
// that a send to chatID completes: those naming that chat, or no chat.
func routineReplySteps(t *txn, chatID string) ([]string, error) {
	day, err := t.ownerDay()
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
		var p contract.RoutineReplyPayload
		if json.Unmarshal([]byte(r.Payload), &p) == nil && (p.ChatID == nil || *p.ChatID == chatID) {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}
