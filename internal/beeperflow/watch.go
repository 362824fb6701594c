package beeperflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"hearth/beeper"
	"hearth/models"
)

// Watch defaults (serve flags).
const (
	DefaultWatchInterval = time.Minute
	DefaultWakeDebounce  = 2 * time.Minute
	DefaultWatchJob      = "messages"
	maxWatchBackoff      = 10 * time.Minute
	// baselineChatPages bounds the first pass, which records nothing: chats
	// beyond it are taken as new when they next show activity.
	baselineChatPages = 10
	// historyPages bounds the one read of a chat's earlier messages for
	// the rhythm (models.RhythmWindow keeps a year of what it finds).
	historyPages = 4
	// historyChatsPerPass bounds how many chats one pass reads back, so
	// the first pass over hundreds of chats stays short; the others are
	// read back on a later pass that sees them active.
	historyChatsPerPass = 10
	// newChatSlack is how much older than the watch's cursor a new chat's
	// message may be and still count as new: clocks differ between networks.
	newChatSlack = time.Minute
)

// errCursorStuck means Beeper answered a page with the cursor it was asked
// for, so paging on would never end.
var errCursorStuck = errors.New("beeper: paging did not move past its cursor")

// WatchStore is what the watch needs of the store: its cursor, a place to
// record each pass, and the sends to settle (models.Store has it).
type WatchStore interface {
	Store
	WatchCursor(ctx context.Context) (models.WatchCursor, error)
	RecordWatch(ctx context.Context, cur models.WatchCursor, read models.WatchRead) (int, error)
	RecordWatchFailure(cause error, unseen string)
	FollowedSends(ctx context.Context) ([]models.Send, error)
	RecordFollow(ctx context.Context, id int64, f models.SendFollow) (models.Send, error)
}

// ChatReader is the part of the Beeper client the watch reads with: chats,
// their messages, and one message by ID (to settle sends Beeper accepted).
type ChatReader interface {
	Chats(ctx context.Context, q beeper.ChatsQuery) (beeper.ChatPage, error)
	MessageReader
}

// WatchOptions tune a Watch; zero values are the defaults.
type WatchOptions struct {
	Interval time.Duration // between reads while Beeper answers
	Debounce time.Duration // one wake-up per window, however many messages
	Job      string        // the job new messages make dirty
	Log      *slog.Logger
}

// Watch reads Beeper chats with activity since its cursor and has the
// store record each new message as an observation (models.RecordWatch: a
// message from someone else marks the job dirty, coalesced into one
// wake-up per debounce window, and makes a live reply draft of that chat
// stale at once).
type Watch struct {
	store WatchStore
	b     ChatReader
	opts  WatchOptions
}

// NewWatch builds the watch over b, recording into st.
func NewWatch(st WatchStore, b ChatReader, opts WatchOptions) *Watch {
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
	return &Watch{store: st, b: b, opts: opts}
}

// Run ticks until ctx ends, backing off (doubling, up to 10 minutes) while
// a pass fails. Logs say what ran, never message contents.
func (w *Watch) Run(ctx context.Context) {
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

// Tick reads once and returns how many new messages it recorded. The first
// tick sets the baseline (each chat's newest message) and records nothing:
// history before the watch started is read from Beeper, not replayed. A
// pass Beeper failed is tried once more at once: one dropped connection or
// one error answer is not hearth losing sight of Beeper. A failed pass,
// whatever failed, is then recorded for the watch's health line, and one
// Beeper did not answer opens a coverage gap.
func (w *Watch) Tick(ctx context.Context) (int, error) {
	n, err := w.pass(ctx)
	if err != nil && ctx.Err() == nil && unseen(err) != "" {
		n, err = w.pass(ctx)
	}
	if err != nil && ctx.Err() == nil {
		w.store.RecordWatchFailure(err, unseen(err))
	}
	if err == nil {
		w.withdrawHandOffs(ctx)
		w.sendDue(ctx)
	}
	return n, err
}

// pass is one read and its record.
func (w *Watch) pass(ctx context.Context) (int, error) {
	cur, err := w.store.WatchCursor(ctx)
	if err != nil {
		return 0, err
	}
	chats, err := w.changedChats(ctx, cur.Since)
	if err != nil {
		return 0, err
	}
	// What became of sent replies is read on the same pass, only for those
	// still followed (unanswered, within 14 days), and before this pass
	// records an answer: a receipt that came with the answer is not lost.
	if _, err := FollowSends(ctx, w.store, w.b); err != nil {
		w.opts.Log.Warn("beeper watch: following sent replies", "err", err)
	}
	read := models.WatchRead{Newest: cur.Since, Job: w.opts.Job, Debounce: w.opts.Debounce}
	histories := 0
	for _, c := range chats {
		if read.Newest == nil || c.LastActivity.After(*read.Newest) {
			t := c.LastActivity
			read.Newest = &t
		}
		last, seen := cur.LastSortKey(c.ID)
		var msgs, changed []beeper.Message
		var said *beeper.Message
		switch {
		case cur.Since == nil && (c.Preview == nil || c.Preview.Counts()):
			// Baseline: the newest message the chat list shows.
			if c.Preview != nil {
				msgs = []beeper.Message{*c.Preview}
			}
		case cur.Since == nil:
			// A reaction or notice is the newest: the newest page shows
			// the message before it, which may be owed a reply.
			var page beeper.MessagePage
			page, err = w.b.Messages(ctx, c.ID, beeper.MessagesQuery{})
			msgs = page.Items
		case seen:
			msgs, changed, said, err = w.newMessages(ctx, c.ID, func(m beeper.Message) bool { return m.SortKey.Compare(beeper.SortKey(last)) > 0 })
		default:
			// A chat not seen before: its messages since the last pass are new.
			from := cur.Since.Add(-newChatSlack)
			msgs, changed, said, err = w.newMessages(ctx, c.ID, func(m beeper.Message) bool { return !m.Timestamp.Before(from) })
		}
		if err != nil {
			return 0, err
		}
		wc := watched(c, msgs, changed, said)
		if !cur.HistoryRead(c.ID) && histories < historyChatsPerPass {
			histories++
			w.readHistory(ctx, &wc)
		}
		read.Chats = append(read.Chats, wc)
	}
	recorded, err := w.store.RecordWatch(ctx, cur, read)
	if err != nil {
		return 0, err
	}
	// A send Beeper accepted is settled by reading its status, so one it
	// later fails for good does not stay "sending" with no page open.
	if _, err := SettleAcceptedSends(ctx, w.store, w.b, ""); err != nil {
		w.opts.Log.Warn("beeper watch: settling accepted sends", "err", err)
	}
	return recorded, nil
}

// readHistory reads, once per chat, its earlier messages back from the
// newest (at most historyPages pages), for the rhythm alone: the store keeps
// when each was said and by whom. A read that fails is left for the
// chat's next activity and fails nothing else.
func (w *Watch) readHistory(ctx context.Context, wc *models.WatchedChat) {
	var history []beeper.Message
	q := beeper.MessagesQuery{}
	for range historyPages {
		page, err := w.b.Messages(ctx, wc.ID, q)
		if err != nil {
			w.opts.Log.Warn("beeper watch: reading a chat's history for its rhythm", "err", err)
			return
		}
		history = append(history, page.Items...)
		if !page.HasMore || page.OldestCursor == "" || page.OldestCursor == q.Cursor {
			break
		}
		q = beeper.MessagesQuery{Cursor: page.OldestCursor, Direction: beeper.Before}
	}
	wc.History, wc.HistoryRead = watched(beeper.Chat{}, history, nil, nil).Messages, true
}

// watched is a chat, its new messages and the earlier ones edited or
// deleted, as the store records them: media as words (beeper.Message.Words),
// and whether each counts (beeper.Message.Counts); said is the newest
// message that counts on the pages read, if any.
func watched(c beeper.Chat, msgs, changed []beeper.Message, said *beeper.Message) models.WatchedChat {
	out := models.WatchedChat{ID: c.ID, AccountID: c.AccountID, Title: c.Title, Muted: c.IsMuted}
	watchedOf := func(m beeper.Message, change bool) models.WatchedMessage {
		return models.WatchedMessage{ID: m.ID, SenderID: m.SenderID, SenderName: m.SenderName,
			Text: m.Words(), Timestamp: m.Timestamp, SortKey: string(m.SortKey), IsSender: m.IsSender, LinkedMessageID: m.LinkedMessageID,
			Type: m.Kind(), Aside: !m.Counts(), Deleted: m.IsDeleted, EditedAt: m.EditedTimestamp, Change: change}
	}
	for _, m := range msgs {
		out.Messages = append(out.Messages, watchedOf(m, false))
	}
	for _, m := range changed {
		out.Messages = append(out.Messages, watchedOf(m, true))
	}
	if said != nil {
		s := watchedOf(*said, false)
		out.Said = &s
	}
	return out
}

// changedChats lists chats whose last activity is after since, newest
// first, paging while the page ends inside the window however many there
// are; on the first tick (since nil), the first baselineChatPages pages.
func (w *Watch) changedChats(ctx context.Context, since *time.Time) ([]beeper.Chat, error) {
	var out []beeper.Chat
	q := beeper.ChatsQuery{}
	for pages := 1; ; pages++ {
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
		if done || !page.HasMore || page.OldestCursor == "" || (since == nil && pages >= baselineChatPages) {
			return out, nil
		}
		if page.OldestCursor == q.Cursor {
			return nil, fmt.Errorf("chats: %w", errCursorStuck)
		}
		q = beeper.ChatsQuery{Cursor: page.OldestCursor, Direction: beeper.Before}
	}
}

// newMessages reads a chat's messages back from the newest while isNew
// holds, however many pages that takes, and returns the new ones oldest
// first: a pass after a busy hour must not lose the older messages. It
// also returns the older messages on the pages read that were edited or
// deleted: an edit moves the chat's activity but not the message's sort
// key, so it shows among the messages already seen (the store records a
// change only to a message it recorded, and only once). said is the newest
// message that counts on the pages read: where the chat's last word stands
// when that word was deleted.
func (w *Watch) newMessages(ctx context.Context, chatID string, isNew func(beeper.Message) bool) (fresh, changed []beeper.Message, said *beeper.Message, err error) {
	q := beeper.MessagesQuery{}
	for {
		page, err := w.b.Messages(ctx, chatID, q)
		if err != nil {
			return nil, nil, nil, err
		}
		reached := false
		for _, m := range page.Items {
			if m.Counts() && (said == nil || m.SortKey.Compare(said.SortKey) > 0) {
				said = &m
			}
			switch {
			case isNew(m):
				fresh = append(fresh, m)
			case m.IsDeleted || !m.EditedTimestamp.IsZero():
				changed = append(changed, m)
				reached = true
			default:
				reached = true
			}
		}
		if reached || !page.HasMore || page.OldestCursor == "" {
			break
		}
		if page.OldestCursor == q.Cursor {
			return nil, nil, nil, fmt.Errorf("messages of %s: %w", chatID, errCursorStuck)
		}
		q = beeper.MessagesQuery{Cursor: page.OldestCursor, Direction: beeper.Before}
	}
	bySortKey := func(a, b beeper.Message) int { return a.SortKey.Compare(b.SortKey) }
	sameID := func(a, b beeper.Message) bool { return a.ID == b.ID }
	slices.SortFunc(fresh, bySortKey)
	slices.SortFunc(changed, bySortKey)
	return slices.CompactFunc(fresh, sameID), slices.CompactFunc(changed, sameID), said, nil
}

// The store is the one implementation; this keeps the interfaces honest.
var _ WatchStore = (*models.Store)(nil)
