// Package beeperflow runs what hearth does with Beeper Desktop around the
// store: the reply send (claim, call Beeper, settle), its reconciliation,
// the hand-off, and the watch's poll loop. Each calls Beeper between store
// transactions, so the store (models) never imports the Beeper client. It
// is one package because the send and the watch settle a send Beeper
// accepted with the same reading of its status.
package beeperflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"hearth/beeper"
	"hearth/models"
)

// Store is what the send, its reconciliation and the hand-off need of the
// store (models.Store has it).
type Store interface {
	Now() time.Time
	PrepareSend(ctx context.Context, cmd models.SendCommand) (models.SendPlan, error)
	PendingSend(ctx context.Context, target models.SendTarget, cmd models.SendCommand) (models.Send, bool, error)
	SettleSend(ctx context.Context, id int64, status, pendingID, note string) (models.Send, error)
	SendByKey(ctx context.Context, key string) (models.Send, bool, error)
	AcceptedSends(ctx context.Context) ([]models.Send, error)
	PrepareHandOff(ctx context.Context, h models.HandOff) (models.HandOffPlan, error)
	RecordHandOff(ctx context.Context, h models.HandOffPlan) (models.OwnerActionResult, error)
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

// reconcilePages bounds how far back reconciliation pages through a chat.
const reconcilePages = 20

// acceptedGrace is how long a send Beeper accepted may be missing from
// Beeper's answers (its pending ID unknown, the text not in the chat)
// before it counts as unknown, for the owner to check.
const acceptedGrace = 10 * time.Minute

// StaleDraftError means the chat has messages newer than the draft was
// written against; the owner must review again.
type StaleDraftError struct {
	Newer []beeper.Message
}

func (e *StaleDraftError) Error() string {
	return fmt.Sprintf("the chat has %d newer message(s) than the draft", len(e.Newer))
}

// Errors keep the "models:" prefixes they had before the send left the
// store: the owner's pages quote them (handlers' beeperProblem).

// ErrOutcomeNotRecorded means Beeper was called but hearth could not commit
// the outcome; the send shows as unknown until it is reconciled. It never
// means nothing was sent.
var ErrOutcomeNotRecorded = errors.New("Beeper was called but the outcome could not be recorded")

// ConfirmSend sends a reviewed reply exactly once per SendKey (docs/contract.md, Sends):
// an existing send with the key is returned as it is; a draft of another
// chat, one already sent, or one with a send in flight is refused; a chat
// with messages newer than the reviewed revision is a *StaleDraftError; in
// all those cases nothing is sent. Otherwise the send is committed as
// pending (st.PendingSend), Beeper is called once, and what Beeper reports
// of the message it accepted is read back by its pending ID: SUCCESS is
// sent, PENDING and FAIL_RETRIABLE stay pending (Beeper is still sending
// it; later reads settle it), FAIL_PERMANENT is failed with Beeper's
// message; a refused call is failed, a lost answer unknown
// (st.SettleSend). A sent reply completes its activity. When that last
// commit fails the error wraps ErrOutcomeNotRecorded and the returned send
// carries what Beeper answered. An own reply (no DraftID) takes the same
// path, keyed and checked alike.
func ConfirmSend(ctx context.Context, st Store, m Messenger, cmd models.SendCommand) (models.Send, error) {
	plan, err := st.PrepareSend(ctx, cmd)
	if err != nil {
		return models.Send{}, err
	}
	if plan.Prior != nil {
		return *plan.Prior, nil
	}
	target := plan.Target
	// Freshness is read before the pending row, so a stale review sends nothing.
	page, err := m.Messages(ctx, target.ChatID, beeper.MessagesQuery{})
	if err != nil {
		return models.Send{}, fmt.Errorf("models: send: read chat: %w", err)
	}
	if newer := newerIncoming(page.Items, cmd.SourceMessageRevision); len(newer) > 0 {
		return models.Send{}, &StaleDraftError{Newer: newer}
	}
	if target.AccountID == "" && len(page.Items) > 0 {
		target.AccountID = page.Items[0].AccountID // an own reply's account is the chat's
	}

	send, created, err := st.PendingSend(ctx, target, cmd)
	if err != nil || !created {
		return send, err
	}
	callCtx, cancel := context.WithTimeout(ctx, models.SendDeadline)
	result, sendErr := m.Send(callCtx, target.ChatID, beeper.SendRequest{Text: cmd.Body, ReplyToMessageID: target.ReplyToMessageID})
	status, pendingID, errText := models.SendSent, result.PendingMessageID, ""
	switch {
	case errors.Is(sendErr, beeper.ErrOutcomeUnknown):
		status, errText = models.SendUnknown, sendErr.Error()
	case sendErr != nil:
		status, errText = models.SendFailed, sendErr.Error()
	case pendingID != "":
		// Accepted is not sent: Beeper may still fail it for good.
		chat := cmp.Or(result.ChatID, target.ChatID)
		status, errText, _ = acceptedOutcome(callCtx, m, chat, pendingID)
	}
	cancel()
	settled, err := st.SettleSend(context.WithoutCancel(ctx), send.ID, status, pendingID, errText)
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
		return models.SendPending, "Beeper accepted it; its status could not be read yet (" + err.Error() + ")", !errors.Is(err, beeper.ErrNotFound)
	}
	status, note = sendOutcome(msg.SendStatus)
	if status == models.SendUnknown {
		status = models.SendPending // accepted and still in Beeper's hands: not unknown
	}
	return status, note, true
}

// ReconcileSend settles a send whose outcome is unknown by reading the chat
// back, page by page, to the time of the attempt: the owner's message with
// the same text (the newest such) settles it as its send status says
// (sendOutcome: sent, failed, or still unknown while Beeper retries). Not
// finding it proves nothing (Beeper may not have synced the message yet),
// so the send stays unknown, noted "not seen yet"; only the owner's
// explicit MarkSendNotSent opens the draft to another try. A send Beeper
// accepted is settled by reading its status.
func ReconcileSend(ctx context.Context, st Store, m Messenger, sendKey string) (models.Send, error) {
	send, ok, err := st.SendByKey(ctx, sendKey)
	if err != nil {
		return models.Send{}, err
	}
	if !ok {
		return models.Send{}, models.ErrNotFound
	}
	if send.Accepted() {
		return settleAccepted(ctx, st, m, send)
	}
	if send.Status != models.SendUnknown {
		return send, nil
	}
	status, pendingID, note, err := findInChat(ctx, st.Now(), m, send)
	if err != nil {
		return models.Send{}, err
	}
	return st.SettleSend(ctx, send.ID, status, pendingID, note)
}

// findInChat pages back through a send's chat to the time of its attempt
// for the owner's message with its text: the newest such settles it by its
// send status (sendOutcome); not found, it stays unknown, noted "not seen".
func findInChat(ctx context.Context, now time.Time, m MessageReader, send models.Send) (status, messageID, note string, err error) {
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
		checked, since.Format(time.RFC3339), now.Format(time.RFC3339))
	return models.SendUnknown, "", note, nil
}

// settleAccepted reads the status of a send Beeper accepted and records it
// when it changed. A Beeper that does not know the pending ID (older
// versions) is read by the chat instead; a send missing from both for
// acceptedGrace becomes unknown.
func settleAccepted(ctx context.Context, st Store, m MessageReader, send models.Send) (models.Send, error) {
	status, note, found := acceptedOutcome(ctx, m, send.ChatID, send.PendingMessageID)
	pendingID := send.PendingMessageID
	if !found {
		now := st.Now()
		s, id, n, err := findInChat(ctx, now, m, send)
		if err != nil {
			return send, nil // Beeper did not answer: the next read settles it
		}
		switch {
		case id != "": // in the chat: its own status settles it
			status, pendingID, note = s, id, n
			if status == models.SendUnknown {
				status = models.SendPending
			}
		case now.Sub(send.CreatedAt) > acceptedGrace:
			status, pendingID, note = models.SendUnknown, "", "Beeper accepted it but does not show it: "+n
		default:
			status, note = models.SendPending, "Beeper accepted it; it is not in the chat yet"
		}
	}
	return st.SettleSend(ctx, send.ID, status, pendingID, note)
}

// SettleAcceptedSends reads the status of every send Beeper accepted and
// is still sending (of chatID, or of every chat when it is empty) and
// records what changed; the watch and the Messages pages call it, so a
// send Beeper later fails for good does not stay "sending". It returns
// how many changed. While none is pending it costs no query
// (st.AcceptedSends) and no Beeper call.
func SettleAcceptedSends(ctx context.Context, st Store, m MessageReader, chatID string) (int, error) {
	rows, err := st.AcceptedSends(ctx)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, r := range rows {
		if chatID != "" && r.ChatID != chatID {
			continue
		}
		after, err := settleAccepted(ctx, st, m, r)
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
		return models.SendUnknown, "Beeper is still sending it; check again later"
	case beeper.SendRetrying:
		note := "Beeper is still trying to send it"
		if st.Message != "" {
			note += ": " + st.Message
		}
		return models.SendUnknown, note + "; check again later"
	case beeper.SendFailedForGood:
		return models.SendFailed, "Beeper could not send it: " + st.Text()
	}
	return models.SendSent, ""
}
