package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"gorm.io/gorm"

	"hearth/beeper"
	"hearth/internal/instant"
	"hearth/internal/strictjson"
)

// Watch defaults (serve flags).
const (
	DefaultWatchInterval = time.Minute
	DefaultWakeDebounce  = 2 * time.Minute
	DefaultWatchJob      = "messages"
	maxWatchBackoff      = 10 * time.Minute
	watchChatPages       = 10
	watchMessagePages    = 5
)

// ChatReader is the part of the Beeper client the watch reads with: chats,
// their messages, and one message by ID (to settle sends Beeper accepted).
type ChatReader interface {
	Chats(ctx context.Context, q beeper.ChatsQuery) (beeper.ChatPage, error)
	MessageReader
}

// WatchOptions tune a BeeperWatch; zero values are the defaults.
type WatchOptions struct {
	Interval time.Duration // between reads while Beeper answers
	Debounce time.Duration // one wake-up per window, however many messages
	Job      string        // the job new messages make dirty
	Log      *slog.Logger
}

// BeeperWatch reads Beeper chats with activity since its cursor and records
// each new message as an observation (source beeper:<account>, ref the
// message ID, actor hearth). A new message from someone else marks the
// watch's job dirty, coalesced into one wake-up per debounce window, and
// makes a live reply draft of that chat stale at once.
type BeeperWatch struct {
	store *Store
	b     ChatReader
	opts  WatchOptions
}

// NewBeeperWatch builds the watch over b.
func (s *Store) NewBeeperWatch(b ChatReader, opts WatchOptions) *BeeperWatch {
	if opts.Interval <= 0 {
		opts.Interval = DefaultWatchInterval
	}
	if opts.Debounce < 0 {
		opts.Debounce = 0
	}
	if opts.Job == "" {
		opts.Job = DefaultWatchJob
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &BeeperWatch{store: s, b: b, opts: opts}
}

// Run ticks until ctx ends, backing off (doubling, up to 10 minutes) while
// Beeper does not answer. Logs say what ran, never message contents.
func (w *BeeperWatch) Run(ctx context.Context) {
	delay := time.Duration(0)
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		n, err := w.Tick(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			failures++
			delay = min(w.opts.Interval<<min(failures, 10), maxWatchBackoff)
			w.opts.Log.Warn("beeper watch: read failed; backing off", "err", err, "retryIn", delay, "failures", failures)
		default:
			failures, delay = 0, w.opts.Interval
			if n > 0 {
				w.opts.Log.Info("beeper watch", "newMessages", n)
			}
		}
	}
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
	UpdatedAt           time.Time
	// Title, Muted and LastIncomingText let hearth list owed replies
	// without asking Beeper.
	Title            string
	Muted            bool
	LastIncomingText string
}

func (chatWatch) TableName() string { return "beeper_watch" }

// Tick reads once and returns how many new messages it recorded. The first
// tick sets the baseline (each chat's newest message) and records nothing:
// history before the watch started is read from Beeper, not replayed.
func (w *BeeperWatch) Tick(ctx context.Context) (int, error) {
	var st watchStatus
	if err := w.store.rdb.WithContext(ctx).Take(&st, 1).Error; err != nil {
		return 0, fmt.Errorf("models: watch: %w", err)
	}
	known := map[string]chatWatch{}
	var rows []chatWatch
	if err := w.store.rdb.WithContext(ctx).Find(&rows).Error; err != nil {
		return 0, fmt.Errorf("models: watch: %w", err)
	}
	for _, r := range rows {
		known[r.ChatID] = r
	}
	chats, err := w.changedChats(ctx, st.Since)
	if err != nil {
		w.recordFailure(err)
		return 0, err
	}
	type chatNews struct {
		chat beeper.Chat
		msgs []beeper.Message
	}
	var news []chatNews
	newest := st.Since
	for _, c := range chats {
		if newest == nil || c.LastActivity.After(*newest) {
			t := c.LastActivity
			newest = &t
		}
		prev, seen := known[c.ID]
		if st.Since == nil || !seen {
			// Baseline: the newest message the chat list shows.
			var msgs []beeper.Message
			if c.Preview != nil {
				msgs = []beeper.Message{*c.Preview}
			}
			news = append(news, chatNews{chat: c, msgs: msgs})
			continue
		}
		msgs, err := w.newMessages(ctx, c.ID, beeper.SortKey(prev.LastSortKey))
		if err != nil {
			w.recordFailure(err)
			return 0, err
		}
		news = append(news, chatNews{chat: c, msgs: msgs})
	}
	recorded := 0
	baseline := st.Since == nil
	_, err = w.store.commit(ctx, func(t *txn) error {
		for _, n := range news {
			prev, seen := known[n.chat.ID]
			row := chatWatch{ChatID: n.chat.ID, AccountID: n.chat.AccountID, UpdatedAt: t.now}
			if seen {
				row = prev
				row.UpdatedAt = t.now
			}
			row.Title, row.Muted = n.chat.Title, n.chat.IsMuted
			var incoming []beeper.Message
			for _, m := range n.msgs {
				if m.SortKey.Compare(beeper.SortKey(row.LastSortKey)) > 0 {
					row.LastSortKey = string(m.SortKey)
				}
				if !m.IsSender && m.SortKey.Compare(beeper.SortKey(row.LastIncomingSortKey)) > 0 {
					row.LastIncomingSortKey = string(m.SortKey)
					row.LastIncomingAt = incomingAt(m)
					row.LastIncomingText = m.Text
				}
				if baseline || !seen {
					continue
				}
				if err := recordMessage(t, n.chat, m); err != nil {
					return err
				}
				recorded++
				if !m.IsSender {
					incoming = append(incoming, m)
				}
			}
			if err := t.Save(&row).Error; err != nil {
				return err
			}
			if len(incoming) > 0 {
				reason := fmt.Sprintf("%d new message(s) in %s (%s)", len(incoming), n.chat.Title, n.chat.ID)
				if err := markDirty(t.DB, w.opts.Job, reason, w.opts.Debounce, t.now); err != nil {
					return err
				}
				if err := staleDrafts(t, n.chat.ID, row.LastIncomingSortKey); err != nil {
					return err
				}
			}
		}
		now := t.now
		return t.Model(&watchStatus{ID: 1}).Updates(map[string]any{"since": newest, "last_ok_at": now, "last_error": "", "failures": 0}).Error
	})
	if err != nil {
		return 0, fmt.Errorf("models: watch: %w", err)
	}
	if recorded > 0 {
		w.store.signalDirty()
	}
	// A send Beeper accepted is settled by reading its status, so one it
	// later fails for good does not stay "sending" with no page open.
	if _, err := w.store.SettleAcceptedSends(ctx, w.b, ""); err != nil {
		w.opts.Log.Warn("beeper watch: settling accepted sends", "err", err)
	}
	return recorded, nil
}

// changedChats lists chats whose last activity is after since (all, on the
// first tick), newest first, paging while the page ends inside the window.
func (w *BeeperWatch) changedChats(ctx context.Context, since *time.Time) ([]beeper.Chat, error) {
	var out []beeper.Chat
	q := beeper.ChatsQuery{}
	for range watchChatPages {
		page, err := w.b.Chats(ctx, q)
		if err != nil {
			return nil, err
		}
		done := false
		for _, c := range page.Items {
			// The chat at the cursor itself is read again: activity in the
			// same instant is not lost, and its old messages are filtered by sort key.
			if since != nil && c.LastActivity.Before(*since) {
				done = true
				continue
			}
			out = append(out, c)
		}
		if done || !page.HasMore || page.OldestCursor == "" {
			break
		}
		q = beeper.ChatsQuery{Cursor: page.OldestCursor, Direction: beeper.Before}
	}
	return out, nil
}

// newMessages reads a chat's messages newer than after, oldest first.
func (w *BeeperWatch) newMessages(ctx context.Context, chatID string, after beeper.SortKey) ([]beeper.Message, error) {
	var out []beeper.Message
	q := beeper.MessagesQuery{}
	for range watchMessagePages {
		page, err := w.b.Messages(ctx, chatID, q)
		if err != nil {
			return nil, err
		}
		reached := false
		for _, m := range page.Items {
			if m.SortKey.Compare(after) > 0 {
				out = append(out, m)
			} else {
				reached = true
			}
		}
		if reached || !page.HasMore || page.OldestCursor == "" {
			break
		}
		q = beeper.MessagesQuery{Cursor: page.OldestCursor, Direction: beeper.Before}
	}
	slices.SortFunc(out, func(a, b beeper.Message) int { return a.SortKey.Compare(b.SortKey) })
	return slices.CompactFunc(out, func(a, b beeper.Message) bool { return a.ID == b.ID }), nil
}

func (w *BeeperWatch) recordFailure(cause error) {
	_ = w.store.write(context.Background(), func(tx *gorm.DB) error {
		return tx.Model(&watchStatus{ID: 1}).Updates(map[string]any{"last_error": cause.Error(), "failures": gorm.Expr("failures + 1")}).Error
	})
}

// recordMessage records one message as an observation hearth made; a
// message already recorded unchanged is skipped.
func recordMessage(t *txn, chat beeper.Chat, m beeper.Message) error {
	raw, _ := json.Marshal(map[string]any{"chatId": chat.ID, "chatTitle": chat.Title, "senderId": m.SenderID, "senderName": m.SenderName,
		"text": m.Text, "timestamp": m.Timestamp, "sortKey": m.SortKey, "isSender": m.IsSender, "replyTo": m.LinkedMessageID})
	body, _ := json.Marshal(map[string]any{"source": "beeper:" + chat.AccountID, "ref": m.ID, "changeType": ChangeCreated, "actor": ActorAgent,
		"payload": map[string]any{"kind": "message", "providerId": chat.AccountID, "raw": json.RawMessage(raw)}})
	var in ObservationIn
	if _, err := strictjson.DecodeAndHash(body, &in); err != nil {
		return fmt.Errorf("message %s: %w", m.ID, err)
	}
	o, err := checkObservation(in, "")
	if err != nil {
		return fmt.Errorf("message %s: %w", m.ID, err)
	}
	o.in.Actor = ActorHearth
	_, err = recordObservation(t.DB, o, "", t.now)
	var dup *DuplicateObservationError
	if errors.As(err, &dup) {
		return nil
	}
	return err
}

// staleDrafts bumps the revision, so open pages show it at once, when a
// live draft of chatID was written before the newest incoming message.
func staleDrafts(t *txn, chatID, newest string) error {
	var drafts []ReplyDraft
	if err := t.Select("id, source_message_revision").Where("chat_id = ? AND retracted_at IS NULL", chatID).Find(&drafts).Error; err != nil {
		return err
	}
	for _, d := range drafts {
		if beeper.SortKey(newest).Compare(beeper.SortKey(d.SourceMessageRevision)) > 0 {
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
	var rows []chatWatch
	if err := tx.Where("chat_id IN ?", chatIDs).Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ChatID] = r.LastIncomingSortKey
	}
	return out, nil
}

// isStale reports whether a draft was written before the newest incoming message.
func isStale(d DraftView, newest map[string]string) bool {
	n, ok := newest[d.ChatID]
	return ok && n != "" && beeper.SortKey(n).Compare(beeper.SortKey(d.SourceMessageRevision)) > 0
}

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
	return WatchHealth{Since: st.Since, LastOkAt: st.LastOkAt, LastError: st.LastError, Failures: st.Failures}, nil
}

// markStale sets Stale on drafts written before their chat's newest incoming message.
func markStale(tx *gorm.DB, drafts []DraftView) error {
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

// incomingAt is when m arrived, or nil when Beeper's timestamp lies outside
// the bound on instants: year 9999 at -12:00 is year 10000 in UTC, which
// SQLite's text form cannot read back, and one such row would fail every
// read of the watch's chats (Home's owed count among them).
func incomingAt(m beeper.Message) *time.Time {
	at := m.Timestamp.UTC()
	if !instant.InRange(at) {
		return nil
	}
	return &at
}
