package models

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"hearth/beeper"
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

// MessageReader is the part of the Beeper client that settles a send: a
// chat's messages, and one message by its (pending) ID.
type MessageReader interface {
	Messages(ctx context.Context, chatID string, q beeper.MessagesQuery) (beeper.MessagePage, error)
	Message(ctx context.Context, chatID, messageID string) (beeper.Message, error)
}

// Messenger is the part of the Beeper client a send needs.
type Messenger interface {
	MessageReader
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

// SendCommand is the owner's confirmation of a reviewed reply: a draft's,
// or with no DraftID the owner's own reply to ChatID.
type SendCommand struct {
	SendKey               string
	DraftID               string
	ChatID                string // the chat the owner reviewed; the draft must belong to it
	Body                  string
	SourceMessageRevision string
}

// ConfirmSend sends a reviewed reply exactly once per SendKey (docs/contract.md, Sends):
// an existing send with the key is returned as it is; a draft of another
// chat, one already sent, or one with a send in flight is refused; a chat
// with messages newer than the reviewed revision is a *StaleDraftError; in
// all those cases nothing is sent. Otherwise the send is committed as
// pending, Beeper is called once, and what Beeper reports of the message
// it accepted is read back by its pending ID: SUCCESS is sent, PENDING and
// FAIL_RETRIABLE stay pending (Beeper is still sending it; later reads
// settle it), FAIL_PERMANENT is failed with Beeper's message; a refused
// call is failed, a lost answer unknown. A sent reply completes its
// activity. When that last commit fails the error wraps
// ErrOutcomeNotRecorded and the returned send carries what Beeper answered.
// An own reply (no DraftID) takes the same path, keyed and checked alike.
func (s *Store) ConfirmSend(ctx context.Context, m Messenger, cmd SendCommand) (Send, error) {
	if !ids.Valid(cmd.SendKey) {
		return Send{}, fmt.Errorf("models: send key must be %s: %w", ids.Expected, ErrInvalidInput)
	}
	if err := checkReplyBody(cmd.Body); err != nil {
		return Send{}, err
	}
	if prior, ok, err := s.sendByKey(ctx, cmd.SendKey); err != nil || ok {
		return prior, err
	}
	draft := ReplyDraft{ChatID: cmd.ChatID} // an own reply's; its account is read from the chat below
	if cmd.DraftID != "" {
		if err := s.rdb.WithContext(ctx).Where("id = ? AND retracted_at IS NULL", cmd.DraftID).Take(&draft).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return Send{}, ErrNotFound
			}
			return Send{}, fmt.Errorf("models: send: %w", err)
		}
		if draft.ChatID != cmd.ChatID {
			return Send{}, ErrDraftNotInChat
		}
	} else if cmd.ChatID == "" {
		return Send{}, fmt.Errorf("models: an own reply names its chat: %w", ErrInvalidInput)
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
	if draft.AccountID == "" && len(page.Items) > 0 {
		draft.AccountID = page.Items[0].AccountID
	}

	send, created, err := s.recordPendingSend(ctx, draft, cmd)
	if err != nil || !created {
		return send, err
	}
	callCtx, cancel := context.WithTimeout(ctx, SendDeadline)
	result, sendErr := m.Send(callCtx, draft.ChatID, beeper.SendRequest{Text: cmd.Body, ReplyToMessageID: draft.ReplyToMessageID})
	status, pendingID, errText := SendSent, result.PendingMessageID, ""
	switch {
	case errors.Is(sendErr, beeper.ErrOutcomeUnknown):
		status, errText = SendUnknown, sendErr.Error()
	case sendErr != nil:
		status, errText = SendFailed, sendErr.Error()
	case pendingID != "":
		// Accepted is not sent: Beeper may still fail it for good.
		chat := cmp.Or(result.ChatID, draft.ChatID)
		status, errText, _ = acceptedOutcome(callCtx, m, chat, pendingID)
	}
	cancel()
	settled, err := s.settleSend(context.WithoutCancel(ctx), send.ID, status, pendingID, errText)
	if err != nil {
		send.Status, send.PendingMessageID, send.Error = status, pendingID, errText
		return send, fmt.Errorf("models: send: %w: %w", ErrOutcomeNotRecorded, err)
	}
	return settled, nil
}

// acceptedOutcome reads what Beeper reports of a message it accepted, by
// its pending ID: found says whether Beeper knew the message at all (an
// older Beeper that cannot look up pending IDs answers 404).
func acceptedOutcome(ctx context.Context, m MessageReader, chatID, messageID string) (status, note string, found bool) {
	msg, err := m.Message(ctx, chatID, messageID)
	if err != nil {
		return SendPending, "Beeper accepted it; its status could not be read yet (" + err.Error() + ")", !errors.Is(err, beeper.ErrNotFound)
	}
	status, note = sendOutcome(msg.SendStatus)
	if status == SendUnknown {
		status = SendPending // accepted and still in Beeper's hands: not unknown
	}
	return status, note, true
}

// interrupted reports a pending send whose Beeper call must have ended: the
// process stopped or its final commit failed, so its outcome is unknown. A
// send Beeper accepted is not interrupted: it is settled by its status.
func (sd Send) interrupted(now time.Time) bool {
	return sd.Status == SendPending && sd.PendingMessageID == "" && now.Sub(sd.CreatedAt) > SendDeadline+pendingGrace
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
		var activity *string
		written := ""
		if draft.ID != "" {
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
			var ids []string
			if err := t.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", draft.ID).Order("id").Limit(1).Pluck("id", &ids).Error; err != nil {
				return err
			}
			if len(ids) == 1 {
				activity = &ids[0]
			}
			var candidates []CandidateIn
			_ = json.Unmarshal([]byte(draft.Candidates), &candidates)
			for _, c := range candidates {
				if c.Body == cmd.Body {
					written = c.ID
					break
				}
			}
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		send = Send{SendKey: cmd.SendKey, DraftID: nullID(draft.ID), ActivityID: activity, AccountID: draft.AccountID, ChatID: draft.ChatID,
			ReplyToMessageID: draft.ReplyToMessageID, Body: cmd.Body, SourceMessageRevision: cmd.SourceMessageRevision,
			Status: SendPending, Revision: rev, CreatedAt: t.now, UpdatedAt: t.now, WrittenCandidateID: written}
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
	return send.effective(s.clock()), created, nil
}

// settleSend records a send's outcome; a sent reply completes every live
// activity that names its draft (the contract allows one). An own reply,
// once sent, replaces the chat's live drafts that went unsent: each gets an
// own-reply action and its reply activity is completed.
func (s *Store) settleSend(ctx context.Context, id int64, status, pendingID, errText string) (Send, error) {
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
			if err := recordReplyAction(t, send.ChatID, send.AccountID, replaced, ReplyAction{Action: ActionOwnReply, SendID: &send.ID}); err != nil {
				return err
			}
			if len(replaced) > 0 {
				if err := t.Model(&Activity{}).Where("draft_id IN ? AND retracted_at IS NULL AND closed_at IS NULL", replaced).Pluck("id", &ids).Error; err != nil {
					return err
				}
			}
		} else if err := t.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", string(send.DraftID)).Pluck("id", &ids).Error; err != nil {
			return err
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
	if send.Accepted() {
		return s.settleAccepted(ctx, m, send)
	}
	if send.Status != SendUnknown {
		return send, nil
	}
	status, pendingID, note, err := s.findInChat(ctx, m, send)
	if err != nil {
		return Send{}, err
	}
	return s.settleSend(ctx, send.ID, status, pendingID, note)
}

// findInChat pages back through a send's chat to the time of its attempt
// for the owner's message with its text: the newest such settles it by its
// send status (sendOutcome); not found, it stays unknown, noted "not seen".
func (s *Store) findInChat(ctx context.Context, m MessageReader, send Send) (status, messageID, note string, err error) {
	since := send.CreatedAt.Add(-time.Minute)
	q := beeper.MessagesQuery{}
	checked := 0
	for range reconcilePages {
		page, err := m.Messages(ctx, send.ChatID, q)
		if err != nil {
			return "", "", "", fmt.Errorf("models: reconcile: read chat: %w", err)
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
				return status, msg.ID, note, nil
			}
		}
		if reachedAttempt || !page.HasMore || page.OldestCursor == "" {
			break
		}
		q = beeper.MessagesQuery{Cursor: page.OldestCursor, Direction: beeper.Before}
	}
	note = fmt.Sprintf("not seen in the chat yet (checked %d messages back to %s at %s); check again later, or say it was not sent",
		checked, since.Format(time.RFC3339), s.clock().Format(time.RFC3339))
	return SendUnknown, "", note, nil
}

// acceptedGrace is how long a send Beeper accepted may be missing from
// Beeper's answers (its pending ID unknown, the text not in the chat)
// before it counts as unknown, for the owner to check.
const acceptedGrace = 10 * time.Minute

// settleAccepted reads the status of a send Beeper accepted and records it
// when it changed. A Beeper that does not know the pending ID (older
// versions) is read by the chat instead; a send missing from both for
// acceptedGrace becomes unknown.
func (s *Store) settleAccepted(ctx context.Context, m MessageReader, send Send) (Send, error) {
	status, note, found := acceptedOutcome(ctx, m, send.ChatID, send.PendingMessageID)
	pendingID := send.PendingMessageID
	if !found {
		st, id, n, err := s.findInChat(ctx, m, send)
		if err != nil {
			return send, nil // Beeper did not answer: the next read settles it
		}
		switch {
		case id != "": // in the chat: its own status settles it
			status, pendingID, note = st, id, n
			if status == SendUnknown {
				status = SendPending
			}
		case s.clock().Sub(send.CreatedAt) > acceptedGrace:
			status, pendingID, note = SendUnknown, "", "Beeper accepted it but does not show it: "+n
		default:
			status, note = SendPending, "Beeper accepted it; it is not in the chat yet"
		}
	}
	return s.settleSend(ctx, send.ID, status, pendingID, note)
}

// SettleAcceptedSends reads the status of every send Beeper accepted and
// is still sending (of chatID, or of every chat when it is empty) and
// records what changed; the watch and the Messages pages call it, so a
// send Beeper later fails for good does not stay "sending". It returns
// how many changed. While none is pending it costs no query: a send only
// becomes accepted in a commit, which moves the revision on.
func (s *Store) SettleAcceptedSends(ctx context.Context, m MessageReader, chatID string) (int, error) {
	rev := s.LatestRevision() // before the read: a commit it misses moves the revision on
	if s.noAcceptedAt.Load() == rev+1 {
		return 0, nil
	}
	var rows []Send
	if err := s.rdb.WithContext(ctx).Where("status = ? AND pending_message_id <> ''", SendPending).Order("id").Find(&rows).Error; err != nil {
		return 0, fmt.Errorf("models: settle accepted sends: %w", err)
	}
	if len(rows) == 0 {
		s.noAcceptedAt.Store(rev + 1)
	}
	changed := 0
	for _, r := range rows {
		if chatID != "" && r.ChatID != chatID {
			continue
		}
		after, err := s.settleAccepted(ctx, m, r)
		if err != nil {
			return changed, err
		}
		if after.Status != r.Status || after.Error != r.Error {
			changed++
		}
	}
	return changed, nil
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
		var err error
		out, err = chatDrafts(tx, s.clock(), []string{chatID})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("models: chat drafts: %w", err)
	}
	return out, nil
}

// chatDrafts is ChatDrafts of several chats inside a read transaction,
// in one set of queries however many chats: ordered by draft ID.
func chatDrafts(tx *gorm.DB, now time.Time, chatIDs []string) ([]ChatDraft, error) {
	var rows []draftRow
	err := draftsWithEdits(tx).Where("reply_drafts.chat_id IN ? AND reply_drafts.retracted_at IS NULL", chatIDs).
		Order("reply_drafts.id").Scan(&rows).Error
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	ids := make([]string, len(rows))
	views := make([]DraftView, len(rows))
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
	if err := attachOutcomes(tx, views); err != nil {
		return nil, err
	}
	out := make([]ChatDraft, len(rows))
	byID := make(map[string]*ChatDraft, len(rows))
	for i := range rows {
		out[i] = ChatDraft{DraftView: views[i], State: UserStateView{State: StateAvailable}}
		byID[out[i].ID] = &out[i]
	}
	for _, a := range acts {
		// The first live activity (by ID) naming the draft is its reply activity.
		if d := byID[a.DraftID]; d.ActivityID == "" {
			d.ActivityID = a.ID
			if a.State != nil {
				d.State = UserStateView{State: *a.State, Until: deref(a.Until), Note: deref(a.Note), At: a.UpdatedAt}
			}
		}
	}
	for _, sd := range sends {
		e := sd.effective(now)
		byID[string(sd.DraftID)].LastSend = &e
	}
	return out, nil
}

// ChatPeople maps the given chats to the names of the people their drafts
// concern. It reads only those chats' drafts (Messages asks for the chats
// it lists), never every draft ever published.
func (s *Store) ChatPeople(ctx context.Context, chatIDs []string) (map[string]string, error) {
	var rows []struct{ ChatID, Name string }
	err := s.rdb.WithContext(ctx).Table("reply_drafts").Select("reply_drafts.chat_id, people.name").
		Joins("JOIN people ON people.id = reply_drafts.person_id").
		Where("reply_drafts.chat_id IN ? AND reply_drafts.retracted_at IS NULL", chatIDs).Scan(&rows).Error
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
