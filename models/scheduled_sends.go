package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Scheduled send states (migrations/00029_scheduled_sends.sql).
const (
	ScheduleWaiting   = "scheduled"
	ScheduleSending   = "sending"
	ScheduleWent      = "went"
	ScheduleHeld      = "held"
	ScheduleCancelled = "cancelled"
)

// MaxScheduleAhead bounds how far ahead a send may be scheduled: today or
// tomorrow in the owner's zone, never more than two days.
const MaxScheduleAhead = 48 * time.Hour

// Scheduled send refusals; none of them scheduled or sent anything.
var (
	// ErrAlreadyScheduled means the draft (or, for an own reply, the chat's
	// own words) has a send scheduled already.
	ErrAlreadyScheduled = errors.New("this reply already has a send scheduled")
	// ErrNotCancellable means the scheduled send is no longer waiting (it
	// is going, went, was held or cancelled).
	ErrNotCancellable = errors.New("this scheduled send is no longer waiting")
)

// ScheduledSend is a reviewed reply confirmed to send at DueAt, with the
// chat and the draft as they were at the confirmation. Without DraftID it
// is the owner's own reply (migrations/00036_own_sends_later.sql).
type ScheduledSend struct {
	ID                int64 `gorm:"primaryKey"`
	SendKey           string
	DraftID           nullID
	ChatID            string
	ChatTitle         string
	Body              string
	IncomingMessageID string
	IncomingSortKey   string
	OwnMessageID      string
	OwnSortKey        string
	DraftRevision     int64
	EditRevision      int64
	DueAt             time.Time
	State             string
	Note              string
	Revision          int64
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// TableName is scheduled_sends.
func (ScheduledSend) TableName() string { return "scheduled_sends" }

// Own reports whether it is the owner's own reply (no draft).
func (sc ScheduledSend) Own() bool { return sc.DraftID == "" }

// touchKey names what a change of it changes for the notifier, as a send's.
func (sc ScheduledSend) touchKey() string {
	if sc.Own() {
		return "chat:" + sc.ChatID
	}
	return "draft:" + string(sc.DraftID)
}

// Waiting reports whether the send is still to go and can be cancelled.
func (sc ScheduledSend) Waiting() bool { return sc.State == ScheduleWaiting }

// Shown reports whether Home and Messages show it beside its draft: while
// it waits or goes, and once held, until the owner looks again.
func (sc ScheduledSend) Shown() bool {
	return sc.State == ScheduleWaiting || sc.State == ScheduleSending || sc.State == ScheduleHeld
}

// ChatPosition is what the chat looked like at a confirmation: its newest
// incoming message that counts and the owner's newest own message.
type ChatPosition struct {
	IncomingMessageID, IncomingSortKey string
	OwnMessageID, OwnSortKey           string
}

// ScheduleCommand is the owner's confirmation of a reviewed draft reply to
// send at DueAt rather than now.
type ScheduleCommand struct {
	SendCommand
	DueAt time.Time
	Chat  ChatPosition
	// ChatTitle is the chat's name as confirmed, for Home (which does not ask Beeper).
	ChatTitle string
}

// ScheduleSend records a confirmed send for later, with the draft's
// revision and the owner's edit as they are now. The same send key again
// returns the schedule it made (a double submit schedules once). A target
// without a draft is the owner's own reply, compared at its time by the
// chat alone; a chat has one own reply waiting at a time. A time not after
// now or more than MaxScheduleAhead ahead is ErrInvalidInput, a draft
// already sent ErrDraftAlreadySent, one with a send in flight
// ErrSendInFlight, a reply with a waiting schedule ErrAlreadyScheduled.
func (s *Store) ScheduleSend(ctx context.Context, target SendTarget, cmd ScheduleCommand) (ScheduledSend, error) {
	if target.ChatID == "" {
		return ScheduledSend{}, fmt.Errorf("models: a reply for later names its chat: %w", ErrInvalidInput)
	}
	own := target.DraftID == ""
	var sc ScheduledSend
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Where("send_key = ?", cmd.SendKey).Limit(1).Find(&sc).Error; err != nil || sc.ID != 0 {
			return err
		}
		if !cmd.DueAt.After(t.now) || cmd.DueAt.Sub(t.now) > MaxScheduleAhead {
			return fmt.Errorf("models: a send can wait until later today or tomorrow: %w", ErrInvalidInput)
		}
		waiting := t.Model(&ScheduledSend{}).Where("state IN ?", []string{ScheduleWaiting, ScheduleSending})
		if own {
			// The owner's own reply: no draft to check or compare, one
			// waiting per chat.
			waiting = waiting.Where("chat_id = ? AND draft_id IS NULL", target.ChatID)
		} else {
			if err := sendable(t, target.DraftID); err != nil {
				return err
			}
			waiting = waiting.Where("draft_id = ?", target.DraftID)
		}
		var n int64
		if err := waiting.Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return ErrAlreadyScheduled
		}
		sc = ScheduledSend{SendKey: cmd.SendKey, ChatID: target.ChatID, ChatTitle: cmd.ChatTitle, Body: cmd.Body,
			IncomingMessageID: cmd.Chat.IncomingMessageID, IncomingSortKey: cmd.Chat.IncomingSortKey,
			OwnMessageID: cmd.Chat.OwnMessageID, OwnSortKey: cmd.Chat.OwnSortKey,
			DueAt: cmd.DueAt.UTC(), State: ScheduleWaiting, CreatedAt: t.now, UpdatedAt: t.now}
		if !own {
			draftRev, editRev, live, err := draftVersion(t.DB, target.DraftID)
			if err != nil {
				return err
			}
			if !live {
				return ErrNotFound
			}
			sc.DraftID, sc.DraftRevision, sc.EditRevision = nullID(target.DraftID), draftRev, editRev
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		sc.Revision = rev
		t.touch(sc.touchKey())
		return t.Create(&sc).Error
	})
	if err != nil {
		if errors.Is(err, ErrInvalidInput) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrAlreadyScheduled) ||
			errors.Is(err, ErrSendInFlight) || errors.Is(err, ErrDraftAlreadySent) {
			return ScheduledSend{}, err
		}
		return ScheduledSend{}, fmt.Errorf("models: schedule send: %w", err)
	}
	return sc, nil
}

// sendable refuses a draft that was sent or has a send pending or unknown,
// as PendingSend does.
func sendable(t *txn, draftID string) error {
	var statuses []string
	if err := t.Model(&Send{}).Where("draft_id = ? AND status IN ?", draftID, []string{SendPending, SendUnknown, SendSent}).
		Distinct().Pluck("status", &statuses).Error; err != nil {
		return err
	}
	for _, st := range statuses {
		if st == SendSent {
			return ErrDraftAlreadySent
		}
	}
	if len(statuses) > 0 {
		return ErrSendInFlight
	}
	return nil
}

// draftVersion is a draft's revision and its owner edit's (0 for none);
// live is false for a draft retracted or settled (sent, replaced, declined).
func draftVersion(tx *gorm.DB, draftID string) (draftRev, editRev int64, live bool, err error) {
	var rows []struct {
		Revision     int64
		EditRevision *int64
		Live         bool
	}
	if err := tx.Raw(`SELECT d.revision, e.revision AS edit_revision, (d.retracted_at IS NULL AND d.settled_at IS NULL) AS live
		FROM reply_drafts d LEFT JOIN draft_edits e ON e.draft_id = d.id WHERE d.id = ?`, draftID).Scan(&rows).Error; err != nil {
		return 0, 0, false, err
	}
	if len(rows) == 0 {
		return 0, 0, false, nil
	}
	if e := rows[0].EditRevision; e != nil {
		editRev = *e
	}
	return rows[0].Revision, editRev, rows[0].Live, nil
}

// DueScheduledSends lists the scheduled sends whose time has come and that
// have not gone or been held: waiting ones, and ones claimed but not
// finished (hearth stopped in between), oldest first.
func (s *Store) DueScheduledSends(ctx context.Context) ([]ScheduledSend, error) {
	var rows []ScheduledSend
	if err := s.rdb.WithContext(ctx).Where("state IN ? AND due_at <= ?", []string{ScheduleWaiting, ScheduleSending}, s.clock().UTC()).
		Order("due_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: due scheduled sends: %w", err)
	}
	return rows, nil
}

// ClaimScheduledSend takes a due scheduled send out of the owner's hands
// (no Cancel once it is going) and checks its draft: a draft retracted,
// settled, published again or edited since the confirmation holds the
// send, said in note. An own reply has no draft: its text is as confirmed. claimed is false when the send is no longer due
// (cancelled, held, went); then sc is as stored.
func (s *Store) ClaimScheduledSend(ctx context.Context, id int64) (sc ScheduledSend, claimed bool, err error) {
	_, err = s.commit(ctx, func(t *txn) error {
		if err := t.Take(&sc, id).Error; err != nil {
			return err
		}
		if sc.State != ScheduleWaiting && sc.State != ScheduleSending {
			return nil
		}
		next, note := ScheduleSending, ""
		draftRev, editRev, live := sc.DraftRevision, sc.EditRevision, true
		if !sc.Own() {
			var err error
			if draftRev, editRev, live, err = draftVersion(t.DB, string(sc.DraftID)); err != nil {
				return err
			}
		}
		switch {
		case !live:
			next, note = ScheduleHeld, "the reply was settled or withdrawn since you confirmed"
		case draftRev != sc.DraftRevision || editRev != sc.EditRevision:
			next, note = ScheduleHeld, "the draft changed since you confirmed"
		}
		claimed = next == ScheduleSending
		if sc.State == next {
			return nil
		}
		return setScheduleState(t, &sc, next, note)
	})
	if err != nil {
		return ScheduledSend{}, false, fmt.Errorf("models: claim scheduled send: %w", err)
	}
	return sc, claimed, nil
}

// setScheduleState moves sc to state with note, in t.
func setScheduleState(t *txn, sc *ScheduledSend, state, note string) error {
	rev, err := t.bump()
	if err != nil {
		return err
	}
	sc.State, sc.Note, sc.Revision, sc.UpdatedAt = state, note, rev, t.now
	t.touch(sc.touchKey())
	return t.Save(sc).Error
}

// HoldScheduledSend holds a claimed send that will not go (the chat moved
// on), said in note, for the owner to look again.
func (s *Store) HoldScheduledSend(ctx context.Context, id int64, note string) (ScheduledSend, error) {
	return s.finishSchedule(ctx, id, ScheduleHeld, note)
}

// ScheduledSendWent records that a claimed send was handed to the send path
// (its outcome is the send's, under the same key).
func (s *Store) ScheduledSendWent(ctx context.Context, id int64) (ScheduledSend, error) {
	return s.finishSchedule(ctx, id, ScheduleWent, "")
}

func (s *Store) finishSchedule(ctx context.Context, id int64, state, note string) (ScheduledSend, error) {
	var sc ScheduledSend
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Take(&sc, id).Error; err != nil {
			return err
		}
		// A send found under its key finishes a schedule left waiting too.
		if sc.State != ScheduleSending && (state != ScheduleWent || sc.State != ScheduleWaiting) {
			return nil // cancelled, or finished by another pass
		}
		return setScheduleState(t, &sc, state, note)
	})
	if err != nil {
		return ScheduledSend{}, fmt.Errorf("models: scheduled send: %w", err)
	}
	return sc, nil
}

// CancelScheduledSend is the owner's Cancel of a send still waiting: it
// never goes. One already going, gone, held or cancelled is
// ErrNotCancellable (and returned as it is); an unknown one, or one of
// another chat, ErrNotFound.
func (s *Store) CancelScheduledSend(ctx context.Context, chatID, sendKey string) (ScheduledSend, error) {
	var sc ScheduledSend
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Where("send_key = ? AND chat_id = ?", sendKey, chatID).Take(&sc).Error; err != nil {
			return err
		}
		if sc.State != ScheduleWaiting {
			return ErrNotCancellable
		}
		return setScheduleState(t, &sc, ScheduleCancelled, "cancelled by you")
	})
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return ScheduledSend{}, ErrNotFound
	case errors.Is(err, ErrNotCancellable):
		return sc, err
	case err != nil:
		return ScheduledSend{}, fmt.Errorf("models: cancel scheduled send: %w", err)
	}
	return sc, nil
}

// ScheduledSendByKey returns the scheduled send made under a send key.
func (s *Store) ScheduledSendByKey(ctx context.Context, key string) (ScheduledSend, bool, error) {
	var rows []ScheduledSend
	if err := s.rdb.WithContext(ctx).Where("send_key = ?", key).Limit(1).Find(&rows).Error; err != nil {
		return ScheduledSend{}, false, fmt.Errorf("models: scheduled send: %w", err)
	}
	if len(rows) == 0 {
		return ScheduledSend{}, false, nil
	}
	return rows[0], true, nil
}

// latestSchedules maps drafts to their newest scheduled send that is
// Shown (waiting, going, or held), for Home and Messages.
func latestSchedules(tx *gorm.DB, draftIDs []string) (map[string]*ScheduledSend, error) {
	out := map[string]*ScheduledSend{}
	if len(draftIDs) == 0 {
		return out, nil
	}
	rows, err := scanScheduledSends(tx.Raw(`SELECT `+scheduledSendColumns+` FROM scheduled_sends sc
		WHERE sc.id IN (SELECT MAX(id) FROM scheduled_sends WHERE draft_id IN ? GROUP BY draft_id)`, draftIDs))
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if rows[i].Shown() {
			out[string(rows[i].DraftID)] = &rows[i]
		}
	}
	return out, nil
}

// ownSchedules lists every own reply for later that is Shown (ChatSchedules'
// rule), by due time, for Home, which has no row of its own for them.
func ownSchedules(tx *gorm.DB) ([]ScheduledSend, error) {
	return scanScheduledSends(tx.Raw(`SELECT `+scheduledSendColumns+` FROM scheduled_sends sc
		WHERE sc.id IN (SELECT MAX(id) FROM scheduled_sends WHERE draft_id IS NULL GROUP BY chat_id) AND sc.state IN ?
		ORDER BY sc.due_at, sc.id`, []string{ScheduleWaiting, ScheduleSending, ScheduleHeld}))
}

// scheduledSendColumns are a scheduled send's columns (of sc) in
// scanScheduledSends' order; an own reply has no draft ("", as GORM scanned it).
const scheduledSendColumns = `sc.id, sc.send_key, COALESCE(sc.draft_id, ''), sc.chat_id, sc.chat_title, sc.body, sc.incoming_message_id,
	sc.incoming_sort_key, sc.own_message_id, sc.own_sort_key, sc.draft_revision, sc.edit_revision, sc.due_at, sc.state, sc.note,
	sc.revision, sc.created_at, sc.updated_at`

// scanScheduledSends scans the scheduledSendColumns q selects.
func scanScheduledSends(q *gorm.DB) ([]ScheduledSend, error) {
	return scanRows(q, func(sc *ScheduledSend) []any {
		return []any{&sc.ID, &sc.SendKey, &sc.DraftID, &sc.ChatID, &sc.ChatTitle, &sc.Body, &sc.IncomingMessageID,
			&sc.IncomingSortKey, &sc.OwnMessageID, &sc.OwnSortKey, &sc.DraftRevision, &sc.EditRevision, &sc.DueAt, &sc.State, &sc.Note,
			&sc.Revision, &sc.CreatedAt, &sc.UpdatedAt}
	})
}
