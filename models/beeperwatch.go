package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/instant"
	"hearth/internal/sortkey"
	"hearth/internal/watched"
	"hearth/internal/wording"
)

// The watch's input (a pass, its chats and their messages) and the
// observation payload a message becomes are internal/watched's.
type (
	WatchedMessage = watched.Message
	WatchedChat    = watched.Chat
	WatchRead      = watched.Read
)

// messageReaction is Beeper's type of a reaction (beeper.TypeReaction).
const messageReaction = watched.TypeReaction

// WatchCursor is what the watch knew before a pass: since when it read
// (nil before the baseline), and each chat's newest message seen.
type WatchCursor struct {
	Since *time.Time
	chats map[string]chatWatch
}

// LastSortKey is the newest message of chatID the watch saw; ok is false
// for a chat it has not seen, which the next pass takes a baseline of.
func (c WatchCursor) LastSortKey(chatID string) (key string, ok bool) {
	r, ok := c.chats[chatID]
	return r.LastSortKey, ok
}

// WatchCursor reads the watch's cursor and what it saw per chat.
func (s *Store) WatchCursor(ctx context.Context) (WatchCursor, error) {
	var st watchStatus
	if err := s.rdb.WithContext(ctx).Take(&st, 1).Error; err != nil {
		return WatchCursor{}, fmt.Errorf("models: watch: %w", err)
	}
	var rows []chatWatch
	if err := s.rdb.WithContext(ctx).Find(&rows).Error; err != nil {
		return WatchCursor{}, fmt.Errorf("models: watch: %w", err)
	}
	cur := WatchCursor{Since: st.Since, chats: make(map[string]chatWatch, len(rows))}
	for _, r := range rows {
		cur.chats[r.ChatID] = r
	}
	return cur, nil
}

// watchStatus is the watch's one cursor row.
type watchStatus struct {
	ID        int `gorm:"primaryKey"`
	Since     *time.Time
	LastOkAt  *time.Time
	LastError string
	Failures  int
}

func (watchStatus) TableName() string { return "watch_status" }

// chatWatch is what the watch last saw in a chat.
type chatWatch struct {
	ChatID              string `gorm:"primaryKey"`
	AccountID           string
	LastSortKey         string
	LastIncomingSortKey string
	LastIncomingAt      *time.Time
	// LastSaidSortKey is the newest message that counts (not WatchedMessage.Aside),
	// whoever sent it: a reply is owed while it is the last incoming one.
	LastSaidSortKey string
	UpdatedAt       time.Time
	// Title, Muted and LastIncomingText let hearth list owed replies
	// without asking Beeper.
	Title            string
	Muted            bool
	LastIncomingText string
	// HistoryRead: the chat's earlier messages were read for the rhythm.
	HistoryRead bool
}

func (chatWatch) TableName() string { return "beeper_watch" }

// unsay moves the chat's last word back to said, the newest message that
// still counts (nil: none was read), once its last word was deleted: a
// deleted message asks for no reply.
func (r *chatWatch) unsay(said *WatchedMessage) {
	r.LastSaidSortKey = ""
	if said == nil || said.Deleted {
		return
	}
	r.LastSaidSortKey = said.SortKey
	if !said.IsSender {
		r.LastIncomingSortKey, r.LastIncomingAt, r.LastIncomingText = said.SortKey, incomingAt(said.Timestamp), said.Text
	}
}

// RecordWatch commits one pass read after cur and returns how many new
// messages it recorded. Each new message becomes an observation (source
// beeper:<account>, ref the message ID, actor hearth); a new message from
// someone else marks read.Job dirty, coalesced into one wake-up per
// debounce window, and makes a live reply draft of its chat stale at once.
// The first pass (cur.Since nil) sets the baseline and records nothing:
// history before the watch started is not replayed. After it, a chat the
// watch has not seen is new, and its messages count like any other's.
// A message the store still refuses (an ID no observation can carry) is
// left out alone and named in the watch's health; the pass goes on.
func (s *Store) RecordWatch(ctx context.Context, cur WatchCursor, read WatchRead) (int, error) {
	recorded := 0
	var refused []string
	baseline := cur.Since == nil
	_, err := s.commit(ctx, func(t *txn) error {
		for _, n := range read.Chats {
			prev, seen := cur.chats[n.ID]
			row := chatWatch{ChatID: n.ID, AccountID: n.AccountID, UpdatedAt: t.now}
			if seen {
				row = prev
				row.UpdatedAt = t.now
			}
			row.Title, row.Muted = n.Title, n.Muted
			var incoming, mine []WatchedMessage
			for _, m := range n.Messages {
				var invalid *contract.ValidationError
				if m.Change {
					if m.SortKey == row.LastIncomingSortKey && !m.Deleted {
						row.LastIncomingText = m.Text
					}
					if m.Deleted && m.SortKey == row.LastSaidSortKey {
						row.unsay(n.Said)
					}
					if baseline {
						continue
					}
					if err := recordChange(t, n, m); errors.As(err, &invalid) {
						refused = append(refused, err.Error())
					} else if err != nil {
						return err
					}
					continue
				}
				if sortkey.Compare(m.SortKey, row.LastSortKey) > 0 {
					row.LastSortKey = m.SortKey
				}
				if !m.Aside && sortkey.Compare(m.SortKey, row.LastSaidSortKey) > 0 {
					row.LastSaidSortKey = m.SortKey
				}
				if !m.Aside && !m.IsSender && sortkey.Compare(m.SortKey, row.LastIncomingSortKey) > 0 {
					row.LastIncomingSortKey = m.SortKey
					row.LastIncomingAt = incomingAt(m.Timestamp)
					row.LastIncomingText = m.Text
				}
				if baseline || !m.Records() {
					continue
				}
				if err := recordMessage(t, n, m, contract.ChangeCreated); errors.As(err, &invalid) {
					refused = append(refused, err.Error())
					continue
				} else if err != nil {
					return err
				}
				recorded++
				switch {
				case m.Aside:
					// A reaction is for the agent to read; it asks nothing.
				case m.IsSender:
					mine = append(mine, m)
				default:
					incoming = append(incoming, m)
				}
			}
			row.HistoryRead = row.HistoryRead || n.HistoryRead
			if err := t.Save(&row).Error; err != nil {
				return err
			}
			if err := recordBeats(t, n); err != nil {
				return err
			}
			if !seen {
				if err := compareHandOffFrom(t, n); err != nil {
					return err
				}
			}
			if len(incoming) > 0 {
				reason := fmt.Sprintf("%d new message(s) in %s (%s)", len(incoming), n.Title, n.ID)
				if err := markDirty(t, read.Job, reason, read.Debounce); err != nil {
					return err
				}
				if err := staleDrafts(t, n.ID, row.LastIncomingSortKey); err != nil {
					return err
				}
			}
			if err := answeredInBeeper(t, n, mine); err != nil {
				return err
			}
			if err := answerSends(t, n.ID, incoming); err != nil {
				return err
			}
		}
		note := ""
		if len(refused) > 0 {
			note = fmt.Sprintf("left out %d message(s) no observation can carry; the first: %s", len(refused), refused[0])
		}
		if err := closeGaps(t); err != nil {
			return err
		}
		if err := pruneBeats(t); err != nil {
			return err
		}
		return t.Model(&watchStatus{ID: 1}).Updates(map[string]any{"since": read.Newest, "last_ok_at": t.now, "last_error": note, "failures": 0}).Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: watch: %w", err)
	}
	return recorded, nil
}

// RecordWatchFailure notes a pass that failed (Beeper did not answer, or
// the store refused it), for the health line on Messages and, once
// WatchFailingAfter passes in a row failed, the notice on Home. unseen is
// what kept Beeper from view (a contract.Coverage* word), or "" when Beeper
// answered and the failure was hearth's own: it opens a coverage gap,
// which the next pass that works closes.
func (s *Store) RecordWatchFailure(cause error, unseen string) {
	_, _ = s.commit(context.Background(), func(t *txn) error {
		if unseen != "" {
			if err := openGap(t, unseen); err != nil {
				return err
			}
		}
		return t.Model(&watchStatus{ID: 1}).Updates(map[string]any{"last_error": cause.Error(), "failures": gorm.Expr("failures + 1")}).Error
	})
}

// recordChange records an edit or deletion of a message hearth recorded
// as a new version of its observation (changeType modified or deleted), so
// the agent reads what the message says now. A message hearth never
// recorded (history from before the watch, a notice) stays unrecorded.
func recordChange(t *txn, chat WatchedChat, m WatchedMessage) error {
	var n int64
	if err := t.Model(&Observation{}).Where("source = ? AND ref = ?", "beeper:"+chat.AccountID, m.ID).Limit(1).Count(&n).Error; err != nil || n == 0 {
		return err
	}
	change := contract.ChangeModified
	if m.Deleted {
		change = contract.ChangeDeleted
	}
	return recordMessage(t, chat, m, change)
}

// recordMessage records one message as an observation hearth made, with
// change as its changeType; a message already recorded unchanged is skipped.
func recordMessage(t *txn, chat WatchedChat, m WatchedMessage, change string) error {
	raw, err := watched.Payload(chat, m)
	if err != nil {
		return fmt.Errorf("message %s: %w", m.ID, err)
	}
	o, err := contract.HearthObservation(contract.Observation{Source: "beeper:" + chat.AccountID, Ref: m.ID, ChangeType: change,
		Kind: "message", ProviderID: chat.AccountID, Raw: raw})
	if err != nil {
		return fmt.Errorf("message %s: %w", m.ID, err)
	}
	_, err = recordObservation(t.DB, o, "", t.now)
	var dup *contract.DuplicateObservationError
	if errors.As(err, &dup) {
		return nil
	}
	return err
}

// WatchAnsweredNote notes a reply activity the Beeper watch completed: the
// owner answered its chat in Beeper itself, not with hearth's controls.
const WatchAnsweredNote = "answered in Beeper (seen by the watch)"

// HandOffSentNote notes a handed-off reply the watch saw the owner send.
const HandOffSentNote = "sent in Beeper after the hand-off (seen by the watch)"

// answeredInBeeper settles as replaced the live drafts of chat that the
// owner answered in Beeper itself (another device, the Beeper app): mine
// are the owner's new messages, oldest first, and each replaces the
// drafts written before it, with its text, as an own reply without a
// send; their reply activities complete as the owner's decision noted
// WatchAnsweredNote (activity_decisions' cause CHECK knows no "watch"
// cause; the own-reply action without a send is the watch's). A message that
// may be one of hearth's own sends (they show in the chat as the owner's
// too) replaces nothing: when in doubt, the draft stays open. A handed-off
// draft the owner's message follows settles as handed off instead, its
// reply row done (noted HandOffSentNote).
func answeredInBeeper(t *txn, chat WatchedChat, mine []WatchedMessage) error {
	if len(mine) == 0 {
		return nil
	}
	// Drafts with a send going or gone are hearth's to settle (SettleSend).
	// A handed-off draft waits for the owner's message in Beeper: it then
	// settles as handed off (its reply row done), not as replaced.
	var drafts []openDraft
	if err := t.Raw(`SELECT d.id, d.source_message_revision,
			EXISTS (SELECT 1 FROM reply_actions a WHERE a.draft_id = d.id AND a.action = ?) AS handed_off
		FROM reply_drafts d INDEXED BY reply_drafts_chat_settled
		WHERE d.chat_id = ? AND d.settled_at IS NULL AND d.retracted_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM sends s WHERE s.draft_id = d.id AND s.status IN ?) ORDER BY d.id`,
		ActionHandedOff, chat.ID, []string{SendSent, SendPending, SendUnknown}).Scan(&drafts).Error; err != nil {
		return err
	}
	if len(drafts) == 0 {
		return nil
	}
	// The chat's recent sends (sends_chat): a message the watch sees now is
	// not one hearth sent weeks ago, and the chat's history is not read.
	var sends []Send
	if err := t.Select("status, pending_message_id, body, created_at").Where("chat_id = ? AND created_at >= ?", chat.ID, t.now.Add(-contract.ContextHistory)).
		Find(&sends).Error; err != nil {
		return err
	}
	for _, m := range mine {
		if slices.ContainsFunc(sends, func(sd Send) bool { return maybeSend(sd, m) }) {
			continue
		}
		var replaced, handed []string
		for _, d := range drafts {
			if sortkey.Compare(m.SortKey, d.SourceMessageRevision) <= 0 {
				continue
			}
			if d.HandedOff {
				handed = append(handed, d.ID)
			} else {
				replaced = append(replaced, d.ID)
			}
		}
		drafts = slices.DeleteFunc(drafts, func(d openDraft) bool { return slices.Contains(replaced, d.ID) || slices.Contains(handed, d.ID) })
		acts, err := replaceDrafts(t, chat.ID, chat.AccountID, replaced, ReplyAction{Body: m.Text})
		if err != nil {
			return err
		}
		if err := completeReplies(t, acts, WatchAnsweredNote); err != nil {
			return err
		}
		if err := settleDrafts(t, handed); err != nil {
			return err
		}
		if acts, err = openReplyActivities(t, handed); err != nil {
			return err
		}
		if err := completeReplies(t, acts, HandOffSentNote); err != nil {
			return err
		}
	}
	return nil
}

// openDraft is a draft of a watched chat still waiting for its reply.
type openDraft struct {
	ID                    string
	SourceMessageRevision string
	HandedOff             bool
}

// completeReplies completes reply activities the watch saw answered, as
// the owner's decision with note (activity_decisions' cause CHECK knows no
// "watch" cause).
func completeReplies(t *txn, activities []string, note string) error {
	for _, a := range activities {
		if err := decideBy(t, ActivityState{ActivityID: a, State: StateCompleted, Note: note, Revision: t.rev, UpdatedAt: t.now}, CauseOwner, nil); err != nil {
			return err
		}
	}
	return nil
}

// maybeSend reports whether m may be send's message in the chat: by the
// message ID Beeper gave it, by its text (as ReconcileSend finds it), or,
// while the send is still pending (Beeper has not named its message, or
// gives it another ID once sent), by being no older than its attempt.
func maybeSend(send Send, m WatchedMessage) bool {
	if send.PendingMessageID != "" && send.PendingMessageID == m.ID {
		return true
	}
	norm := func(s string) string { return strings.TrimSpace(wording.NormalizeNewlines(s)) }
	if norm(send.Body) == norm(m.Text) {
		return true
	}
	// A minute's slack for clocks, as ReconcileSend reads back to the attempt.
	return send.Status == SendPending && (m.Timestamp.IsZero() || !m.Timestamp.Before(send.CreatedAt.Add(-time.Minute)))
}

// staleDrafts bumps the revision, so open pages show it at once, when a
// live draft of chatID was written before the newest incoming message. A
// settled draft (sent, replaced, declined) has no reply left to go stale,
// and reading only the unsettled ones keeps the chat's history unread.
func staleDrafts(t *txn, chatID, newest string) error {
	var drafts []ReplyDraft
	if err := t.Table("reply_drafts INDEXED BY reply_drafts_chat_settled").Select("id, source_message_revision").
		Where("chat_id = ? AND settled_at IS NULL AND retracted_at IS NULL", chatID).Find(&drafts).Error; err != nil {
		return err
	}
	for _, d := range drafts {
		if sortkey.Compare(newest, d.SourceMessageRevision) > 0 {
			if _, err := t.bump(); err != nil {
				return err
			}
			t.touch("draft:" + d.ID)
		}
	}
	return nil
}

// staleChats maps chat IDs to the newest incoming sort key the watch saw.
func staleChats(tx *gorm.DB, chatIDs []string) (map[string]string, error) {
	out := map[string]string{}
	if len(chatIDs) == 0 {
		return out, nil
	}
	rows, err := scanRows(tx.Raw(`SELECT chat_id, last_incoming_sort_key FROM beeper_watch WHERE chat_id IN ?`, chatIDs),
		func(r *chatWatch) []any { return []any{&r.ChatID, &r.LastIncomingSortKey} })
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ChatID] = r.LastIncomingSortKey
	}
	return out, nil
}

// isStale reports whether a draft was written before the newest incoming message.
func isStale(d contract.DraftView, newest map[string]string) bool {
	n, ok := newest[d.ChatID]
	return ok && n != "" && sortkey.Compare(n, d.SourceMessageRevision) > 0
}

// WatchFailingAfter is how many passes in a row must fail before Home says
// the watch is not seeing new messages: one failure is usually Beeper
// restarting, and the watch retries on its own.
const WatchFailingAfter = 3

// WatchHealth is the watch's state for the Messages page.
type WatchHealth struct {
	Since     *time.Time
	LastOkAt  *time.Time
	LastError string
	Failures  int
}

// WatchStatus reads the watch's cursor and health.
func (s *Store) WatchStatus(ctx context.Context) (WatchHealth, error) {
	var st watchStatus
	if err := s.rdb.WithContext(ctx).Take(&st, 1).Error; err != nil {
		return WatchHealth{}, fmt.Errorf("models: watch status: %w", err)
	}
	return st.health(), nil
}

func (st watchStatus) health() WatchHealth {
	return WatchHealth{Since: st.Since, LastOkAt: st.LastOkAt, LastError: st.LastError, Failures: st.Failures}
}

// watchFailing is the watch's health when its last WatchFailingAfter
// passes all failed, else nil.
func watchFailing(tx *gorm.DB) (*WatchHealth, error) {
	var st watchStatus
	if err := tx.Take(&st, 1).Error; err != nil {
		return nil, err
	}
	if st.Failures < WatchFailingAfter {
		return nil, nil
	}
	h := st.health()
	return &h, nil
}

// markStale sets Stale on drafts written before their chat's newest incoming message.
func markStale(tx *gorm.DB, drafts []contract.DraftView) error {
	chats := make([]string, 0, len(drafts))
	for _, d := range drafts {
		chats = append(chats, d.ChatID)
	}
	slices.Sort(chats)
	newest, err := staleChats(tx, slices.Compact(chats))
	if err != nil {
		return err
	}
	for i := range drafts {
		drafts[i].Stale = isStale(drafts[i], newest)
	}
	return nil
}

// incomingAt is when a message arrived, or nil when Beeper's timestamp lies outside
// the bound on instants: year 9999 at -12:00 is year 10000 in UTC, which
// SQLite's text form cannot read back, and one such row would fail every
// read of the watch's chats (Home's owed count among them).
func incomingAt(timestamp time.Time) *time.Time {
	at := timestamp.UTC()
	if !instant.InRange(at) {
		return nil
	}
	return &at
}
