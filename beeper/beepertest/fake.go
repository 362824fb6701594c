// Package beepertest is an in-memory Beeper Desktop API server speaking
// the protocol of ../shared/beeper-api.md, with fault injection, for tests
// and the demo. It lives apart from the client so production code that
// talks to Beeper never links a fake by accident.
package beepertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"hearth/beeper"
)

// Version is the X-Beeper-Desktop-Version the fake reports.
const Version = "4.1.0-hearth-fake"

// BaseTime is the fake's default clock: fixed, so seeded data and tests are deterministic.
var BaseTime = time.Date(2026, time.March, 11, 9, 0, 0, 0, time.UTC)

// Seeded identifiers, shared with hearth's demo publication.
const (
	AccountID   = "whatsapp-demo"
	SelfID      = "@owner:beeper.local"
	AnaChatID   = "!ana-okafor:beeper.local"
	TomasChatID = "!tomas-lindqvist:beeper.local"
	GroupChatID = "!climbing-crew:beeper.local"
)

// RecordedSend is one send the fake accepted, in arrival order.
type RecordedSend struct {
	ChatID           string
	Text             string
	ReplyToMessageID string
	At               time.Time
}

// Option configures a Fake.
type Option func(*Fake)

// WithClock sets the clock; seeded messages are placed relative to its first reading.
func WithClock(now func() time.Time) Option { return func(f *Fake) { f.now = now } }

// WithPageSize sets how many chats or messages one page holds (default 50).
func WithPageSize(n int) Option { return func(f *Fake) { f.pageSize = max(n, 1) } }

// Fake is an in-memory Beeper Desktop API server (an http.Handler) with fault injection.
type Fake struct {
	mu        sync.Mutex
	now       func() time.Time
	pageSize  int
	token     string
	accounts  []beeper.Account
	chats     map[string]*fakeChat
	sends     []RecordedSend
	seq       int // orders all messages ever added, to break lastActivity ties
	requests  int
	failCode  int
	failN     int
	delay     time.Duration
	sendDelay time.Duration
	dropSend  bool
}

type fakeChat struct {
	chat beeper.Chat
	msgs []fakeMessage // ascending by sort key
}

type fakeMessage struct {
	beeper.Message
	pendingID string
	seq       int
}

// New returns a fake seeded with fictional chats that accepts token as Bearer.
func New(token string, opts ...Option) *Fake {
	f := &Fake{now: func() time.Time { return BaseTime }, pageSize: 50, token: token, chats: map[string]*fakeChat{}}
	for _, o := range opts {
		o(f)
	}
	f.seed(f.now().UTC().Truncate(time.Millisecond))
	return f
}

func (f *Fake) seed(base time.Time) {
	self := beeper.User{ID: SelfID, FullName: "Sam Rivera", IsSelf: true}
	ana := beeper.User{ID: "@ana:beeper.local", FullName: "Ana Okafor"}
	tomas := beeper.User{ID: "@tomas:beeper.local", FullName: "Tomas Lindqvist"}
	jules := beeper.User{ID: "@jules:beeper.local", FullName: "Jules Moreau"}
	f.accounts = []beeper.Account{{AccountID: AccountID, User: self, Network: "WhatsApp"}}

	type line struct {
		id   string
		from beeper.User
		ago  time.Duration
		text string
	}
	add := func(id, title, typ string, people []beeper.User, unread int, lines ...line) {
		c := &fakeChat{chat: beeper.Chat{
			ID: id, AccountID: AccountID, Network: "WhatsApp", Title: title, Type: typ,
			Participants: beeper.Participants{Items: people, Total: len(people)},
		}}
		f.chats[id] = c
		for i, l := range lines {
			m := f.appendLocked(c, l.from, l.text, "", base.Add(-l.ago))
			m.ID = l.id
			m.IsUnread = i >= len(lines)-unread
		}
		c.chat.UnreadCount = unread
	}
	add(GroupChatID, "Climbing crew", beeper.ChatGroup, []beeper.User{self, ana, jules}, 0,
		line{"m-crew-1", jules, 50 * time.Hour, "Bouldering Thursday at 7? The new problems went up."},
		line{"m-crew-2", ana, 49 * time.Hour, "I'm in. Sam?"},
		line{"m-crew-3", self, 48 * time.Hour, "Count me in, I'll bring the spare chalk bag."},
	)
	add(TomasChatID, "Tomas Lindqvist", beeper.ChatSingle, []beeper.User{self, tomas}, 0,
		line{"m-tomas-1", tomas, 30 * time.Hour, "If your bike still needs a service, the shop on Kastanienallee is great."},
		line{"m-tomas-2", self, 29 * time.Hour, "Thanks! Do they take walk-ins?"},
		line{"m-tomas-3", tomas, 28 * time.Hour, "Bookings by phone only, usually a week out."},
	)
	add(AnaChatID, "Ana Okafor", beeper.ChatSingle, []beeper.User{self, ana}, 1,
		line{"m-ana-1", ana, 40 * time.Hour, "Are we still on for the coast trail hike on Saturday?"},
		line{"m-ana-2", ana, 16 * time.Hour, "Checking again about Saturday: does it still work for you?"},
		line{"m-ana-3", ana, 1 * time.Hour, "And what time should we meet? I'd like an early start."},
	)
}

// appendLocked adds a message with the next sort key in its chat and bumps the chat's activity.
func (f *Fake) appendLocked(c *fakeChat, from beeper.User, text, replyTo string, at time.Time) *fakeMessage {
	at = at.UTC().Truncate(time.Millisecond) // the API's timestamp precision
	f.seq++
	next := 1
	if n := len(c.msgs); n > 0 {
		last, _ := strconv.Atoi(string(c.msgs[n-1].SortKey))
		next = last + 1
	}
	c.msgs = append(c.msgs, fakeMessage{seq: f.seq, Message: beeper.Message{
		ID: fmt.Sprintf("m-%d", f.seq), AccountID: c.chat.AccountID, ChatID: c.chat.ID,
		SenderID: from.ID, SenderName: from.FullName, SortKey: beeper.SortKey(strconv.Itoa(next)),
		Timestamp: at, Type: "TEXT", Text: text, IsSender: from.ID == SelfID, LinkedMessageID: replyTo,
	}})
	c.chat.LastActivity = at
	return &c.msgs[len(c.msgs)-1]
}

// FailNext makes the next n requests of any kind answer status with an error body.
func (f *Fake) FailNext(status, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failCode, f.failN = status, n
}

// SetToken changes the accepted token, so the client's token is rejected with 401.
func (f *Fake) SetToken(t string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.token = t
}

// SetDelay holds every response for d after the request has been applied,
// so a client timeout leaves the server-side effect in place, as with a real slow server.
func (f *Fake) SetDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delay = d
}

// SetSendDelay holds each send's answer for d after the message was
// applied: a client (or process) that gives up or dies meanwhile leaves the
// message sent without knowing it.
func (f *Fake) SetSendDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sendDelay = d
}

// DropNextSendResponse makes the next send be recorded and applied, then closes
// the connection without answering: "accepted but the response never arrived".
func (f *Fake) DropNextSendResponse() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.dropSend = true
}

// Incoming injects a newer unread message from senderID; it returns the zero beeper.Message for an unknown chat.
func (f *Fake) Incoming(chatID, senderID, text string) beeper.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[chatID]
	if !ok {
		return beeper.Message{}
	}
	from := beeper.User{ID: senderID}
	for _, u := range c.chat.Participants.Items {
		if u.ID == senderID {
			from = u
		}
	}
	m := f.appendLocked(c, from, text, "", f.now().UTC())
	if !m.IsSender {
		m.IsUnread = true
		c.chat.UnreadCount++
	}
	return m.Message
}

// Sends returns a copy of every send the fake accepted.
func (f *Fake) Sends() []RecordedSend {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sends)
}

// Messages returns a copy of a chat's messages, oldest first (nil for an unknown chat).
func (f *Fake) Messages(chatID string) []beeper.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[chatID]
	if !ok {
		return nil
	}
	out := make([]beeper.Message, len(c.msgs))
	for i, m := range c.msgs {
		out[i] = m.Message
	}
	return out
}

// Requests returns how many requests the fake has received, including failed ones.
func (f *Fake) Requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests
}

// reply is a response decided under the lock and written after it is released.
type reply struct {
	status int
	body   any
	header http.Header
	drop   bool
}

func errReply(status int, code, msg string) reply {
	return reply{status: status, body: map[string]string{"code": code, "message": msg}}
}

// IncomingPath is the fake's own control route (not Beeper's): a POST of
// {chatId, senderId, text} with the fake's token injects a new message, so
// a test can drive a fake running in another process.
const IncomingPath = "/_fake/incoming"

// ServeHTTP answers the Beeper Desktop API routes hearth uses.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == IncomingPath && r.Method == http.MethodPost {
		f.serveIncoming(w, r)
		return
	}
	f.mu.Lock()
	delay := f.delay
	if r.Method == http.MethodPost {
		delay += f.sendDelay
	}
	rep := f.handleLocked(r)
	f.mu.Unlock()

	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if rep.drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // closes the connection without a response
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	w.Header().Set("X-Beeper-Desktop-Version", Version)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rep.status)
	_ = json.NewEncoder(w).Encode(rep.body)
}

func (f *Fake) handleLocked(r *http.Request) reply {
	f.requests++
	if f.failN > 0 {
		f.failN--
		rep := errReply(f.failCode, codeFor(f.failCode), "injected failure")
		if f.failCode == http.StatusTooManyRequests {
			rep.header = http.Header{"Retry-After": {"2"}}
		}
		return rep
	}
	if !strings.HasPrefix(r.URL.Path, "/v1/") {
		return errReply(http.StatusNotFound, "NOT_FOUND", "no such route")
	}
	// Accept raw and percent-encoded chat IDs alike by unescaping each segment.
	var seg []string
	for _, s := range strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/v1/"), "/") {
		u, err := url.PathUnescape(s)
		if err != nil {
			return errReply(http.StatusBadRequest, "BAD_REQUEST", "malformed path")
		}
		seg = append(seg, u)
	}
	if len(seg) == 1 && seg[0] == "info" && r.Method == http.MethodGet {
		return reply{status: http.StatusOK, body: map[string]any{
			"app":    map[string]string{"name": "Beeper Desktop (hearth fake)", "version": Version},
			"server": map[string]string{"status": "running"},
		}}
	}
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		return errReply(http.StatusUnauthorized, "UNAUTHORIZED", "missing, invalid or expired access token")
	}
	get, post := r.Method == http.MethodGet, r.Method == http.MethodPost
	switch {
	case len(seg) == 1 && seg[0] == "accounts" && get:
		return reply{status: http.StatusOK, body: f.accounts}
	case len(seg) == 1 && seg[0] == "chats" && get:
		return f.listChatsLocked(r.URL.Query(), false)
	case len(seg) == 2 && seg[0] == "chats" && seg[1] == "search" && get:
		return f.listChatsLocked(r.URL.Query(), true)
	case len(seg) >= 2 && seg[0] == "chats":
		c, ok := f.chats[seg[1]]
		if !ok {
			return errReply(http.StatusNotFound, "NOT_FOUND", "chat not found")
		}
		switch {
		case len(seg) == 2 && get:
			return reply{status: http.StatusOK, body: c.chat}
		case len(seg) == 3 && seg[2] == "messages" && get:
			return f.listMessagesLocked(c, r.URL.Query())
		case len(seg) == 3 && seg[2] == "messages" && post:
			return f.sendLocked(c, r)
		case len(seg) == 4 && seg[2] == "messages" && get:
			for _, m := range c.msgs {
				if m.ID == seg[3] || (m.pendingID != "" && m.pendingID == seg[3]) {
					return reply{status: http.StatusOK, body: m.Message}
				}
			}
			return errReply(http.StatusNotFound, "NOT_FOUND", "message not found")
		}
	}
	return errReply(http.StatusNotFound, "NOT_FOUND", "no such route")
}

func codeFor(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "UNAUTHORIZED"
	case http.StatusForbidden:
		return "FORBIDDEN"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RATE_LIMITED"
	}
	if status >= 500 {
		return "INTERNAL_SERVER_ERROR"
	}
	return "BAD_REQUEST"
}

func validDirection(d string) bool { return d == "" || d == beeper.Before || d == beeper.After }

// listChatsLocked serves the chat list and search; the cursor is the position key of a chat.
func (f *Fake) listChatsLocked(q url.Values, search bool) reply {
	if !validDirection(q.Get("direction")) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "direction must be before or after")
	}
	limit := f.pageSize
	accounts := q["accountIDs"]
	var chats []*fakeChat
	for _, c := range f.chats {
		if len(accounts) > 0 && !slices.Contains(accounts, c.chat.AccountID) {
			continue
		}
		if search {
			if t := q.Get("type"); t != "" && t != "any" && t != c.chat.Type {
				continue
			}
			if q.Get("unreadOnly") == "true" && c.chat.UnreadCount == 0 {
				continue
			}
			switch q.Get("inbox") {
			case "archive":
				if !c.chat.IsArchived {
					continue
				}
			case "primary":
				if c.chat.IsArchived {
					continue
				}
			}
			if s := strings.ToLower(q.Get("query")); s != "" && !strings.Contains(strings.ToLower(c.chat.Title), s) {
				continue
			}
		}
		chats = append(chats, c)
	}
	if search && q.Get("limit") != "" {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > 200 {
			return errReply(http.StatusBadRequest, "BAD_REQUEST", "limit must be 1..200")
		}
		limit = n
	}
	// Most recent activity first; the newest message's sequence breaks ties.
	slices.SortFunc(chats, func(a, b *fakeChat) int { return b.position() - a.position() })
	page, more := pageOf(chats, q, limit, (*fakeChat).position, true)
	items := make([]beeper.Chat, len(page))
	for i, c := range page {
		items[i] = c.chat
		if n := len(c.msgs); n > 0 {
			p := c.msgs[n-1].Message
			items[i].Preview = &p
		}
	}
	body := map[string]any{"items": items, "hasMore": more}
	if len(page) > 0 {
		body["newestCursor"] = strconv.Itoa(page[0].position())
		body["oldestCursor"] = strconv.Itoa(page[len(page)-1].position())
	}
	return reply{status: http.StatusOK, body: body}
}

// position orders chats by last activity; message sequence numbers grow with time in the fake.
func (c *fakeChat) position() int {
	if n := len(c.msgs); n > 0 {
		return c.msgs[n-1].seq
	}
	return 0
}

// pageOf takes one page from items sorted by key (descending if desc): the newest
// page without a cursor, else the items nearest the cursor on its older
// ("before", the default) or newer ("after") side.
func pageOf[T any](items []T, q url.Values, size int, key func(T) int, desc bool) ([]T, bool) {
	after := q.Get("direction") == beeper.After
	sel := items
	if cursor := q.Get("cursor"); cursor != "" {
		c, _ := strconv.Atoi(cursor)
		sel = nil
		for _, it := range items {
			if k := key(it); (after && k > c) || (!after && k < c) {
				sel = append(sel, it)
			}
		}
	} else {
		after = false
	}
	if desc != after {
		return sel[:min(size, len(sel))], len(sel) > size
	}
	return sel[max(0, len(sel)-size):], len(sel) > size
}

// listMessagesLocked pages a chat's messages by sort key and returns them newest first,
// which exercises clients that must not rely on page order.
func (f *Fake) listMessagesLocked(c *fakeChat, q url.Values) reply {
	if !validDirection(q.Get("direction")) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "direction must be before or after")
	}
	sortKey := func(m fakeMessage) int { n, _ := strconv.Atoi(string(m.SortKey)); return n }
	page, more := pageOf(c.msgs, q, f.pageSize, sortKey, false)
	items := make([]beeper.Message, 0, len(page))
	for i := len(page) - 1; i >= 0; i-- {
		items = append(items, page[i].Message)
	}
	body := map[string]any{"items": items, "hasMore": more}
	if len(page) > 0 {
		body["oldestCursor"] = page[0].SortKey
		body["newestCursor"] = page[len(page)-1].SortKey
	}
	return reply{status: http.StatusOK, body: body}
}

func (f *Fake) sendLocked(c *fakeChat, r *http.Request) reply {
	var req beeper.SendRequest
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(&req); err != nil {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "body must be JSON {text, replyToMessageID?}")
	}
	if strings.TrimSpace(req.Text) == "" {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "text is required")
	}
	if req.ReplyToMessageID != "" && !slices.ContainsFunc(c.msgs, func(m fakeMessage) bool { return m.ID == req.ReplyToMessageID }) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "replyToMessageID is not in this chat")
	}
	at := f.now().UTC().Truncate(time.Millisecond)
	var self beeper.User
	for _, a := range f.accounts {
		if a.AccountID == c.chat.AccountID {
			self = a.User
		}
	}
	m := f.appendLocked(c, self, req.Text, req.ReplyToMessageID, at)
	m.IsSender = true
	m.pendingID = fmt.Sprintf("pending-%d", m.seq)
	f.sends = append(f.sends, RecordedSend{ChatID: c.chat.ID, Text: req.Text, ReplyToMessageID: req.ReplyToMessageID, At: at})
	if f.dropSend {
		f.dropSend = false
		return reply{drop: true}
	}
	return reply{status: http.StatusOK, body: beeper.SendResult{ChatID: c.chat.ID, PendingMessageID: m.pendingID}}
}

func (f *Fake) serveIncoming(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	token := f.token
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var in struct{ ChatID, SenderID, Text string }
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	m := f.Incoming(in.ChatID, in.SenderID, in.Text)
	if m.ID == "" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(m)
}
