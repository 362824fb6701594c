package beeperflow

import (
	"context"
	"errors"
	"time"

	"hearth/beeper"
	"hearth/models"
)

// ScheduleStore is what sending later needs of the store (models.Store has it).
type ScheduleStore interface {
	Store
	ScheduleSend(ctx context.Context, target models.SendTarget, cmd models.ScheduleCommand) (models.ScheduledSend, error)
	DueScheduledSends(ctx context.Context) ([]models.ScheduledSend, error)
	ClaimScheduledSend(ctx context.Context, id int64) (models.ScheduledSend, bool, error)
	HoldScheduledSend(ctx context.Context, id int64, note string) (models.ScheduledSend, error)
	ScheduledSendWent(ctx context.Context, id int64) (models.ScheduledSend, error)
}

// MaxLate is how long after its time a scheduled send may still go (hearth
// was stopped, or Beeper did not answer); later than that it is held, so a
// reply meant for 08:00 never lands in the afternoon unseen.
const MaxLate = time.Hour

// Why a scheduled send was held, in the owner's words.
const (
	heldIncoming = "a new message arrived in the chat since you confirmed"
	heldOwn      = "you wrote in the chat yourself since you confirmed"
	heldSent     = "the reply was sent, or is being sent, another way"
	heldLate     = "hearth could not send it within an hour of its time"
)

// chatNamer is the part of a Beeper client that names a chat.
type chatNamer interface {
	Chat(ctx context.Context, chatID string) (beeper.Chat, error)
}

// ScheduleSend confirms a reviewed reply (a draft's, or without DraftID
// the owner's own) to send at due rather than now. It is checked as a
// send now is (PrepareSend; a chat with newer messages than the review is
// a *StaleDraftError) and records what the chat looks like now, for
// SendDue to compare at its time, and its title when m can name it.
// Nothing is sent.
func ScheduleSend(ctx context.Context, st ScheduleStore, m MessageReader, cmd models.SendCommand, due time.Time) (models.ScheduledSend, error) {
	plan, err := st.PrepareSend(ctx, cmd)
	if err != nil {
		return models.ScheduledSend{}, err
	}
	if plan.Prior != nil {
		return models.ScheduledSend{}, models.ErrSendInFlight // the key already sent now
	}
	page, err := m.Messages(ctx, plan.Target.ChatID, beeper.MessagesQuery{})
	if err != nil {
		return models.ScheduledSend{}, err
	}
	if newer := newerIncoming(page.Items, cmd.SourceMessageRevision); len(newer) > 0 {
		return models.ScheduledSend{}, &StaleDraftError{Newer: newer}
	}
	later := models.ScheduleCommand{SendCommand: cmd, DueAt: due, Chat: chatPosition(page.Items)}
	if n, ok := m.(chatNamer); ok {
		if chat, err := n.Chat(ctx, plan.Target.ChatID); err == nil {
			later.ChatTitle = chat.Title // a title is for Home's words only: without it the send still waits
		}
	}
	return st.ScheduleSend(ctx, plan.Target, later)
}

// newerIncoming are the messages from others after revision that ask for
// a reply (a reaction, a notice, a hidden or deleted message does not).
func newerIncoming(items []beeper.Message, revision string) []beeper.Message {
	var newer []beeper.Message
	for _, msg := range items {
		if msg.SortKey.Compare(beeper.SortKey(revision)) > 0 && !msg.IsSender && msg.Counts() {
			newer = append(newer, msg)
		}
	}
	return newer
}

// chatPosition is the chat's newest incoming message that counts and the
// owner's newest message that counts. With none of one kind on the page,
// its sort key is the page's oldest: anything of that kind after it is new.
func chatPosition(items []beeper.Message) models.ChatPosition {
	var p models.ChatPosition
	if len(items) > 0 {
		oldest := items[0].SortKey
		for _, msg := range items {
			if msg.SortKey.Compare(oldest) < 0 {
				oldest = msg.SortKey
			}
		}
		p.IncomingSortKey, p.OwnSortKey = string(oldest), string(oldest)
	}
	for _, msg := range items {
		if !msg.Counts() {
			continue
		}
		if msg.IsSender && (p.OwnMessageID == "" || msg.SortKey.Compare(beeper.SortKey(p.OwnSortKey)) > 0) {
			p.OwnMessageID, p.OwnSortKey = msg.ID, string(msg.SortKey)
		}
		if !msg.IsSender && (p.IncomingMessageID == "" || msg.SortKey.Compare(beeper.SortKey(p.IncomingSortKey)) > 0) {
			p.IncomingMessageID, p.IncomingSortKey = msg.ID, string(msg.SortKey)
		}
	}
	return p
}

// movedOn says how the chat moved since the confirmation, or "".
func movedOn(items []beeper.Message, sc models.ScheduledSend) string {
	for _, msg := range items {
		if !msg.Counts() {
			continue
		}
		switch {
		case msg.IsSender && msg.SortKey.Compare(beeper.SortKey(sc.OwnSortKey)) > 0:
			return heldOwn
		case !msg.IsSender && msg.SortKey.Compare(beeper.SortKey(sc.IncomingSortKey)) > 0:
			return heldIncoming
		}
	}
	return ""
}

// SendDue sends the scheduled sends whose time has come, each only if the
// chat has not moved since its confirmation (no newer incoming message
// that counts, no own message, a draft unchanged); otherwise it holds
// it, for the owner to look again. A send goes through ConfirmSend under
// the schedule's send key, so it is sent at most once, with the same
// pending and unknown rules as a send now, across passes and restarts. A
// Beeper that does not answer leaves the send for the next pass (until
// MaxLate). It returns how many went.
func SendDue(ctx context.Context, st ScheduleStore, m Messenger) (int, error) {
	rows, err := st.DueScheduledSends(ctx)
	if err != nil {
		return 0, err
	}
	went := 0
	for _, r := range rows {
		ok, err := sendDue(ctx, st, m, r)
		if err != nil {
			return went, err
		}
		if ok {
			went++
		}
	}
	return went, nil
}

func sendDue(ctx context.Context, st ScheduleStore, m Messenger, sc models.ScheduledSend) (bool, error) {
	// A send under its key means an earlier pass reached the send path
	// (hearth stopped before recording it): it never goes again.
	if _, sent, err := st.SendByKey(ctx, sc.SendKey); err != nil || sent {
		if err == nil {
			_, err = st.ScheduledSendWent(ctx, sc.ID)
		}
		return false, err
	}
	sc, claimed, err := st.ClaimScheduledSend(ctx, sc.ID)
	if err != nil || !claimed {
		return false, err
	}
	if st.Now().Sub(sc.DueAt) > MaxLate {
		_, err := st.HoldScheduledSend(ctx, sc.ID, heldLate)
		return false, err
	}
	page, err := m.Messages(ctx, sc.ChatID, beeper.MessagesQuery{})
	if err != nil {
		return false, err
	}
	if why := movedOn(page.Items, sc); why != "" {
		_, err := st.HoldScheduledSend(ctx, sc.ID, why)
		return false, err
	}
	_, err = ConfirmSend(ctx, st, m, models.SendCommand{SendKey: sc.SendKey, DraftID: string(sc.DraftID), ChatID: sc.ChatID,
		Body: sc.Body, SourceMessageRevision: sc.IncomingSortKey})
	var stale *StaleDraftError
	switch {
	case errors.As(err, &stale):
		_, err = st.HoldScheduledSend(ctx, sc.ID, heldIncoming)
		return false, err
	case errors.Is(err, models.ErrDraftAlreadySent), errors.Is(err, models.ErrSendInFlight):
		_, err = st.HoldScheduledSend(ctx, sc.ID, heldSent)
		return false, err
	case err != nil && !errors.Is(err, ErrOutcomeNotRecorded):
		return false, err // before the pending row: nothing went; the next pass tries again
	}
	_, err = st.ScheduledSendWent(ctx, sc.ID)
	return true, err
}

// sendDue runs after each watch read, like withdrawHandOffs: a store or
// client without what sending needs (a test's narrower fake) has nothing
// to send. A failure is logged and tried again on the next read.
func (w *Watch) sendDue(ctx context.Context) {
	st, ok := w.store.(ScheduleStore)
	m, ok2 := w.b.(Messenger)
	if !ok || !ok2 {
		return
	}
	if n, err := SendDue(ctx, st, m); err != nil && ctx.Err() == nil {
		w.opts.Log.Warn("beeper: sending a scheduled reply", "err", err)
	} else if n > 0 {
		w.opts.Log.Info("beeper: scheduled replies sent", "sent", n)
	}
}
