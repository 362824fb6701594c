// Package beepertest is an in-memory Beeper Desktop API server speaking
// the protocol of the official SDK 5 (npm @beeper/desktop-api 5.0.0; the
// e2e conformance test drives it through that SDK), with fault injection,
// for tests and the demo. It lives apart from the client so production code that
// talks to Beeper never links a fake by accident.
package beepertest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"hearth/beeper"
)

// Version is the X-Beeper-Desktop-Version the fake reports: a version with
// the SDK 5 fields (Account.bridge came in Beeper Desktop 4.2.785).
const Version = "4.2.808-hearth-fake"

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

// RecordedFocus is one POST /v1/focus the fake answered, in arrival order.
type RecordedFocus struct {
	ChatID, MessageID, DraftText, DraftAttachmentPath string
	At                                                time.Time
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
	focuses   []RecordedFocus
	seq       int // orders all messages ever added, to break lastActivity ties
	requests  int
	failCode  int
	failN     int
	delay     time.Duration
	sendDelay time.Duration
	dropSend  bool
	holdSends bool
	// noChatUpdate: a Beeper before v4.2.808 (WithoutChatUpdate).
	noChatUpdate bool
}

type fakeChat struct {
	chat beeper.Chat
	msgs []fakeMessage // ascending by sort key
}

type fakeMessage struct {
	beeper.Message
	pendingID string // set on the owner's sends
	finalID   string // the ID a held send takes when it succeeds
	seq       int
}

// out is the message as the API shows it, sharing nothing with the fake's state.
func (m *fakeMessage) out() beeper.Message {
	msg := m.Message
	msg.Attachments = slices.Clone(msg.Attachments)
	msg.Reactions = slices.Clone(msg.Reactions)
	if msg.SendStatus != nil {
		st := *msg.SendStatus
		st.DeliveredToUsers = slices.Clone(st.DeliveredToUsers)
		msg.SendStatus = &st
	}
	return msg
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
	f.accounts = []beeper.Account{{AccountID: AccountID, User: self, Network: "WhatsApp",
		Bridge: beeper.Bridge{ID: "local-whatsapp", Provider: beeper.BridgeLocal, Type: "whatsapp"}}}

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
	f.chats[GroupChatID].chat.IsMuted = true // so search's includeMuted has something to leave out
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

// HoldSends(true) keeps every later send PENDING, under its pending ID, until
// SetSendStatus moves it; by default a send succeeds at once under its final ID.
func (f *Fake) HoldSends(hold bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.holdSends = hold
}

// SetSendStatus sets the send status of one of the owner's sends, found by
// its pending or final ID: SUCCESS gives a held send its final ID and
// delivers it to the chat's other members; message is Beeper's text for the owner.
func (f *Fake) SetSendStatus(chatID, messageID, status, message string) (beeper.Message, error) {
	switch status {
	case beeper.StatusSuccess, beeper.StatusPending, beeper.StatusFailRetriable, beeper.StatusFailPermanent:
	default:
		return beeper.Message{}, fmt.Errorf("beepertest: unknown send status %q", status)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[chatID]
	if !ok {
		return beeper.Message{}, fmt.Errorf("beepertest: no chat %s", chatID)
	}
	m := c.find(messageID)
	if m == nil || m.pendingID == "" {
		return beeper.Message{}, fmt.Errorf("beepertest: no send %s in %s", messageID, chatID)
	}
	st := &beeper.SendStatus{Status: status, Timestamp: f.now().UTC().Truncate(time.Millisecond), Message: message}
	switch status {
	case beeper.StatusSuccess:
		m.ID = m.finalID
		st.DeliveredToUsers = c.othersThan(m.SenderID)
	case beeper.StatusFailRetriable, beeper.StatusFailPermanent:
		st.Reason, st.InternalError = "FAKE_INJECTED", "beepertest: injected "+status
	}
	m.SendStatus = st
	return m.out(), nil
}

// SetSeen sets the read receipts of one of the owner's sends, found by its
// pending or final ID, as the network reports them (beeper.SeenFlag,
// SeenTime, SeenBy).
func (f *Fake) SetSeen(chatID, messageID string, seen beeper.Seen) (beeper.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[chatID]
	if !ok {
		return beeper.Message{}, fmt.Errorf("beepertest: no chat %s", chatID)
	}
	m := c.find(messageID)
	if m == nil || !m.IsSender {
		return beeper.Message{}, fmt.Errorf("beepertest: no message of the owner %s in %s", messageID, chatID)
	}
	m.Seen = seen
	return m.out(), nil
}

// othersThan are the IDs of the chat's members but userID: whom a send is delivered to.
func (c *fakeChat) othersThan(userID string) []string {
	var ids []string
	for _, u := range c.chat.Participants.Items {
		if u.ID != userID {
			ids = append(ids, u.ID)
		}
	}
	return ids
}

// find returns the message with id as its final or pending ID, or nil.
func (c *fakeChat) find(id string) *fakeMessage {
	for i := range c.msgs {
		if m := &c.msgs[i]; m.ID == id || (m.pendingID != "" && m.pendingID == id) {
			return m
		}
	}
	return nil
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
	return m.out()
}

// Add injects msg as the newest message of chatID, from msg.SenderID (the
// owner's when it is SelfID): the fake gives it its ID (unless msg has
// one), sort key, account, chat and time. Type, Text, Attachments,
// Reactions, LinkedMessageID and the isHidden and isDeleted flags are kept as given,
// so every shape SDK 5 declares (a reaction, a notice, a photo without a
// caption) can be served. It counts as unread unless the owner sent it,
// or it is a reaction, hidden or deleted. An unknown chat returns the zero Message.
func (f *Fake) Add(chatID string, msg beeper.Message) beeper.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[chatID]
	if !ok {
		return beeper.Message{}
	}
	from := beeper.User{ID: msg.SenderID}
	for _, u := range c.chat.Participants.Items {
		if u.ID == msg.SenderID {
			from = u
		}
	}
	m := f.appendLocked(c, from, msg.Text, msg.LinkedMessageID, f.now().UTC())
	m.ID = cmp.Or(msg.ID, m.ID)
	m.Type = cmp.Or(msg.Type, m.Type)
	m.Attachments = slices.Clone(msg.Attachments)
	m.Reactions = slices.Clone(msg.Reactions)
	m.IsHidden, m.IsDeleted = msg.IsHidden, msg.IsDeleted
	if !m.IsSender && m.Type != beeper.TypeReaction && !m.IsHidden && !m.IsDeleted {
		m.IsUnread = true
		c.chat.UnreadCount++
	}
	return m.out()
}

// Edit changes a message's text as its sender's edit would: editedTimestamp
// is now, and the chat's activity moves so a watch reads the chat again.
// deleted marks it deleted instead (its text gone).
func (f *Fake) Edit(chatID, messageID, text string, deleted bool) (beeper.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.chats[chatID]
	if !ok {
		return beeper.Message{}, fmt.Errorf("beepertest: no chat %s", chatID)
	}
	m := c.find(messageID)
	if m == nil {
		return beeper.Message{}, fmt.Errorf("beepertest: no message %s in %s", messageID, chatID)
	}
	at := f.now().UTC().Truncate(time.Millisecond)
	m.Text, m.EditedTimestamp = text, at
	if deleted {
		m.Text, m.IsDeleted, m.Attachments = "", true, nil
	}
	c.chat.LastActivity = at
	return m.out(), nil
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
	for i := range c.msgs {
		out[i] = c.msgs[i].out()
	}
	return out
}

// Focuses returns a copy of every focus call the fake answered.
func (f *Fake) Focuses() []RecordedFocus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.focuses)
}

// AddChat adds a one-to-one chat titled title whose only message, text, is
// unread and from its other member (named title too); it returns the chat.
func (f *Fake) AddChat(chatID, title, text string) beeper.Chat {
	f.mu.Lock()
	defer f.mu.Unlock()
	self := f.selfLocked(AccountID)
	other := beeper.User{ID: "@" + strings.Trim(strings.SplitN(chatID, ":", 2)[0], "!") + "-member:beeper.local", FullName: title}
	c := &fakeChat{chat: beeper.Chat{ID: chatID, AccountID: AccountID, Network: "WhatsApp", Title: title, Type: beeper.ChatSingle,
		Participants: beeper.Participants{Items: []beeper.User{self, other}, Total: 2}}}
	f.chats[chatID] = c
	m := f.appendLocked(c, other, text, "", f.now().UTC())
	m.IsUnread = true
	c.chat.UnreadCount = 1
	return c.chat
}

// selfLocked is the owner's user on an account.
func (f *Fake) selfLocked(accountID string) beeper.User {
	for _, a := range f.accounts {
		if a.AccountID == accountID {
			return a.User
		}
	}
	return beeper.User{}
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

// The fake's own control routes (not Beeper's), so a test can drive a fake
// running in another process; each is a POST with the fake's token.
const (
	// IncomingPath takes {chatId, senderId, text} and injects a new message.
	IncomingPath = "/_fake/incoming"
	// HoldSendsPath takes {hold} and calls HoldSends.
	HoldSendsPath = "/_fake/hold-sends"
	// SendStatusPath takes {chatId, messageId, status, message} and calls SetSendStatus.
	SendStatusPath = "/_fake/send-status"
	// ChatPath takes {chatId, title, text} and calls AddChat.
	ChatPath = "/_fake/chat"
	// MessagePath takes {chatId, msg} (msg a Message as the API spells it:
	// senderID, type, text, attachments, linkedMessageID, isHidden,
	// isDeleted) and calls Add.
	MessagePath = "/_fake/message"
	// EditPath takes {chatId, messageId, text, deleted} and calls Edit.
	EditPath = "/_fake/edit"
	// SeenPath takes {chatId, messageId, seen} (seen as SDK 5 spells it:
	// true, a timestamp, or a map of user ID to either) and calls SetSeen.
	SeenPath = "/_fake/seen"
)

// ServeHTTP answers the Beeper Desktop API routes hearth uses.
func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_fake/") && r.Method == http.MethodPost {
		f.serveControl(w, r)
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
	if rep.status == http.StatusNoContent {
		w.WriteHeader(rep.status)
		return
	}
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
	get, post := r.Method == http.MethodGet, r.Method == http.MethodPost
	// Info is for discovery before authentication: the SDK sends no token.
	if len(seg) == 1 && seg[0] == "info" && get {
		return reply{status: http.StatusOK, body: infoFor(r)}
	}
	if r.Header.Get("Authorization") != "Bearer "+f.token {
		return errReply(http.StatusUnauthorized, "UNAUTHORIZED", "missing, invalid or expired access token")
	}
	switch {
	case len(seg) == 1 && seg[0] == "accounts" && get:
		return reply{status: http.StatusOK, body: f.accounts}
	case len(seg) == 1 && seg[0] == "chats" && get:
		return f.listChatsLocked(r.URL.Query(), false)
	case len(seg) == 2 && seg[0] == "chats" && seg[1] == "search" && get:
		return f.listChatsLocked(r.URL.Query(), true)
	case len(seg) == 2 && seg[0] == "messages" && seg[1] == "search" && get:
		return f.searchMessagesLocked(r.URL.Query())
	case len(seg) == 1 && seg[0] == "focus" && post:
		return f.focusLocked(r)
	case len(seg) >= 2 && seg[0] == "chats":
		c, ok := f.chats[seg[1]]
		if !ok {
			return errReply(http.StatusNotFound, "NOT_FOUND", "chat not found")
		}
		switch {
		case len(seg) == 2 && get:
			return reply{status: http.StatusOK, body: c.chat}
		case len(seg) == 2 && r.Method == http.MethodPatch:
			return f.updateChatLocked(c, r)
		case len(seg) == 3 && seg[2] == "read" && post:
			return f.markReadLocked(c, r)
		case len(seg) == 3 && seg[2] == "archive" && post:
			return f.archiveLocked(c, r)
		case len(seg) == 3 && seg[2] == "messages" && get:
			return f.listMessagesLocked(c, r.URL.Query())
		case len(seg) == 3 && seg[2] == "messages" && post:
			return f.sendLocked(c, r)
		case len(seg) == 4 && seg[2] == "messages" && get:
			if m := c.find(seg[3]); m != nil {
				return reply{status: http.StatusOK, body: m.out()}
			}
			return errReply(http.StatusNotFound, "NOT_FOUND", "message not found")
		}
	}
	return errReply(http.StatusNotFound, "NOT_FOUND", "no such route")
}

// infoFor describes the fake as GET /v1/info does, at the address it was reached on.
func infoFor(r *http.Request) beeper.Info {
	var info beeper.Info
	info.App.BundleID, info.App.Name, info.App.Version = "local.hearth.fake-beeper", "Beeper Desktop (hearth fake)", Version
	base := "http://" + r.Host
	info.Endpoints.MCP = base + "/v0/mcp"
	info.Endpoints.Spec = base + "/v1/spec"
	info.Endpoints.WSEvents = "ws://" + r.Host + "/v1/ws"
	o := &info.Endpoints.OAuth
	o.AuthorizationEndpoint, o.IntrospectionEndpoint, o.RegistrationEndpoint = base+"/oauth/authorize", base+"/oauth/introspect", base+"/oauth/register"
	o.RevocationEndpoint, o.TokenEndpoint, o.UserinfoEndpoint = base+"/oauth/revoke", base+"/oauth/token", base+"/oauth/userinfo"
	info.Platform.OS, info.Platform.Arch = runtime.GOOS, runtime.GOARCH
	host, port, _ := net.SplitHostPort(r.Host)
	info.Server.BaseURL, info.Server.Hostname, info.Server.Status = base, host, "running"
	info.Server.Port, _ = strconv.Atoi(port)
	return info
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

// oneOf reports whether the query parameter is absent or one of allowed.
func oneOf(q url.Values, key string, allowed ...string) bool {
	v, ok := q[key]
	return !ok || (len(v) == 1 && slices.Contains(allowed, v[0]))
}

// instant parses an ISO 8601 query parameter; absent is the zero time.
func instant(q url.Values, key string) (time.Time, bool) {
	v := q.Get(key)
	if v == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	return t, err == nil
}

// limitOf reads the optional limit parameter, 1..most; absent is def.
func limitOf(q url.Values, def, most int) (int, bool) {
	v := q.Get("limit")
	if v == "" {
		return def, true
	}
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 1 && n <= most
}

// flag reads an optional boolean query parameter with its default.
func flag(q url.Values, key string, def bool) bool {
	switch q.Get(key) {
	case "true":
		return true
	case "false":
		return false
	}
	return def
}

// matchesAll is literal, case-insensitive token search: every word of query must occur in one of fields.
func matchesAll(query string, fields ...string) bool {
	hay := strings.ToLower(strings.Join(fields, "\n"))
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// listChatsLocked serves the chat list and search; the cursor is the position key of a chat.
func (f *Fake) listChatsLocked(q url.Values, search bool) reply {
	if !validDirection(q.Get("direction")) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "direction must be before or after")
	}
	after, okAfter := instant(q, "lastActivityAfter")
	before, okBefore := instant(q, "lastActivityBefore")
	if search && (!oneOf(q, "scope", beeper.ScopeTitles, beeper.ScopeParticipants) || !oneOf(q, "inbox", "primary", "low-priority", "archive") ||
		!oneOf(q, "type", beeper.ChatSingle, beeper.ChatGroup, "any") || !oneOf(q, "includeMuted", "true", "false") ||
		!oneOf(q, "unreadOnly", "true", "false") || !okAfter || !okBefore) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "invalid search parameter")
	}
	limit := f.pageSize
	accounts := q["accountIDs"]
	var chats []*fakeChat
	for _, c := range f.chats {
		if len(accounts) > 0 && !slices.Contains(accounts, c.chat.AccountID) {
			continue
		}
		if search && !c.matches(q, after, before) {
			continue
		}
		chats = append(chats, c)
	}
	if search {
		var ok bool
		if limit, ok = limitOf(q, limit, 200); !ok {
			return errReply(http.StatusBadRequest, "BAD_REQUEST", "limit must be 1..200")
		}
	}
	// Most recent activity first; the newest message's sequence breaks ties.
	slices.SortFunc(chats, func(a, b *fakeChat) int { return b.position() - a.position() })
	page, more := pageOf(chats, q, limit, (*fakeChat).position, true)
	items := make([]beeper.Chat, len(page))
	for i, c := range page {
		items[i] = c.chat
		// A list item is a ChatListResponse (with preview); search answers plain Chats.
		if n := len(c.msgs); n > 0 && !search {
			p := c.msgs[n-1].out()
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

// matches applies chat search's filters (the parameters were validated).
func (c *fakeChat) matches(q url.Values, after, before time.Time) bool {
	ch := c.chat
	if t := q.Get("type"); t != "" && t != "any" && t != ch.Type {
		return false
	}
	if flag(q, "unreadOnly", false) && ch.UnreadCount == 0 {
		return false
	}
	if !flag(q, "includeMuted", true) && ch.IsMuted {
		return false
	}
	switch q.Get("inbox") {
	case "primary":
		if ch.IsArchived || ch.IsLowPriority {
			return false
		}
	case "low-priority":
		if ch.IsArchived || !ch.IsLowPriority {
			return false
		}
	case "archive":
		if !ch.IsArchived {
			return false
		}
	}
	if (!after.IsZero() && !ch.LastActivity.After(after)) || (!before.IsZero() && !ch.LastActivity.Before(before)) {
		return false
	}
	var names []string
	for _, u := range ch.Participants.Items {
		names = append(names, u.FullName, u.Username)
	}
	switch q.Get("scope") {
	case beeper.ScopeTitles:
		return matchesAll(q.Get("query"), ch.Title, ch.Network)
	case beeper.ScopeParticipants:
		return matchesAll(q.Get("query"), names...)
	}
	return matchesAll(q.Get("query"), append(names, ch.Title, ch.Network)...)
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
		items = append(items, page[i].out())
	}
	body := map[string]any{"items": items, "hasMore": more}
	if len(page) > 0 {
		body["oldestCursor"] = page[0].SortKey
		body["newestCursor"] = page[len(page)-1].SortKey
	}
	return reply{status: http.StatusOK, body: body}
}

// searchMessagesLocked serves GET /v1/messages/search across chats, newest first;
// the cursor is a message's sequence number. The fake's messages are all text,
// so any media filter finds nothing.
func (f *Fake) searchMessagesLocked(q url.Values) reply {
	after, okAfter := instant(q, "dateAfter")
	before, okBefore := instant(q, "dateBefore")
	if !validDirection(q.Get("direction")) || !oneOf(q, "chatType", beeper.ChatSingle, beeper.ChatGroup) || !okAfter || !okBefore ||
		!oneOf(q, "includeMuted", "true", "false") || !oneOf(q, "excludeLowPriority", "true", "false") {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "invalid search parameter")
	}
	for _, m := range q["mediaTypes"] {
		if !slices.Contains([]string{"any", "video", "image", "link", "file"}, m) {
			return errReply(http.StatusBadRequest, "BAD_REQUEST", "invalid mediaTypes")
		}
	}
	limit, ok := limitOf(q, min(f.pageSize, 20), 20)
	if !ok {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "limit must be 1..20")
	}
	accounts, chatIDs, sender := q["accountIDs"], q["chatIDs"], q.Get("sender")
	type hit struct {
		m    *fakeMessage
		chat *fakeChat
	}
	var hits []hit
	for _, c := range f.chats {
		ch := c.chat
		if (len(accounts) > 0 && !slices.Contains(accounts, ch.AccountID)) || (len(chatIDs) > 0 && !slices.Contains(chatIDs, ch.ID)) ||
			(q.Get("chatType") != "" && q.Get("chatType") != ch.Type) || (!flag(q, "includeMuted", true) && ch.IsMuted) ||
			(flag(q, "excludeLowPriority", true) && ch.IsLowPriority) || len(q["mediaTypes"]) > 0 {
			continue
		}
		for i := range c.msgs {
			m := &c.msgs[i]
			switch {
			case sender == "me" && !m.IsSender, sender == "others" && m.IsSender,
				sender != "" && sender != "me" && sender != "others" && sender != m.SenderID,
				!after.IsZero() && !m.Timestamp.After(after), !before.IsZero() && !m.Timestamp.Before(before),
				!hasWords(m.Text, q.Get("query")):
				continue
			}
			hits = append(hits, hit{m, c})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return b.m.seq - a.m.seq })
	page, more := pageOf(hits, q, limit, func(h hit) int { return h.m.seq }, true)
	items := make([]beeper.Message, len(page))
	chats := map[string]beeper.Chat{}
	for i, h := range page {
		items[i] = h.m.out()
		chats[h.chat.chat.ID] = h.chat.chat
	}
	body := map[string]any{"items": items, "hasMore": more, "chats": chats, "oldestCursor": nil, "newestCursor": nil}
	if len(page) > 0 {
		body["newestCursor"] = strconv.Itoa(page[0].m.seq)
		body["oldestCursor"] = strconv.Itoa(page[len(page)-1].m.seq)
	}
	return reply{status: http.StatusOK, body: body}
}

// hasWords is message search's literal word match: every word of query is a word of text.
func hasWords(text, query string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' })
	}
	words := split(text)
	for _, w := range split(query) {
		if !slices.Contains(words, w) {
			return false
		}
	}
	return true
}

// readBody decodes an optional JSON body into v; an empty body leaves v as it is.
func readBody(r *http.Request, v any) bool {
	err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(v)
	return err == nil || errors.Is(err, io.EOF)
}

// markReadLocked marks the chat read through a message (all of it without
// one) and answers the chat, as POST /v1/chats/{chatID}/read does.
func (f *Fake) markReadLocked(c *fakeChat, r *http.Request) reply {
	var in struct {
		MessageID string `json:"messageID"`
	}
	if !readBody(r, &in) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "body must be JSON {messageID?}")
	}
	if len(c.msgs) == 0 {
		return reply{status: http.StatusOK, body: c.chat}
	}
	through := &c.msgs[len(c.msgs)-1]
	if in.MessageID != "" {
		if through = c.find(in.MessageID); through == nil {
			return errReply(http.StatusNotFound, "NOT_FOUND", "message not found")
		}
	}
	unread := 0
	for i := range c.msgs {
		m := &c.msgs[i]
		if m.SortKey.Compare(through.SortKey) <= 0 {
			m.IsUnread = false
		}
		if m.IsUnread && !m.IsSender {
			unread++
		}
	}
	c.chat.UnreadCount, c.chat.LastReadMessageSortKey, c.chat.IsMarkedUnread = unread, through.SortKey, false
	return reply{status: http.StatusOK, body: c.chat}
}

// archiveLocked archives the chat (or unarchives it with archived=false) and answers 204.
func (f *Fake) archiveLocked(c *fakeChat, r *http.Request) reply {
	var in struct {
		Archived *bool `json:"archived"`
	}
	if !readBody(r, &in) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "body must be JSON {archived?}")
	}
	c.chat.IsArchived = in.Archived == nil || *in.Archived
	return reply{status: http.StatusNoContent}
}

// focusLocked records POST /v1/focus and answers {success: true}; a chat
// it does not know is 404, as Beeper cannot open it.
func (f *Fake) focusLocked(r *http.Request) reply {
	var in beeper.FocusRequest
	if !readBody(r, &in) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "body must be JSON {chatID?, messageID?, draftText?, draftAttachmentPath?}")
	}
	if in.ChatID != "" {
		c, ok := f.chats[in.ChatID]
		if !ok {
			return errReply(http.StatusNotFound, "NOT_FOUND", "chat not found")
		}
		if in.MessageID != "" && c.find(in.MessageID) == nil {
			return errReply(http.StatusNotFound, "NOT_FOUND", "message not found")
		}
	}
	f.focuses = append(f.focuses, RecordedFocus{ChatID: in.ChatID, MessageID: in.MessageID, DraftText: in.DraftText,
		DraftAttachmentPath: in.DraftAttachmentPath, At: f.now().UTC()})
	return reply{status: http.StatusOK, body: beeper.FocusResult{Success: true}}
}

func (f *Fake) sendLocked(c *fakeChat, r *http.Request) reply {
	var req beeper.SendRequest
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(&req); err != nil {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "body must be JSON {text, replyToMessageID?}")
	}
	if strings.TrimSpace(req.Text) == "" {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "text is required")
	}
	if req.ReplyToMessageID != "" && c.find(req.ReplyToMessageID) == nil {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "replyToMessageID is not in this chat")
	}
	at := f.now().UTC().Truncate(time.Millisecond)
	self := f.selfLocked(c.chat.AccountID)
	m := f.appendLocked(c, self, req.Text, req.ReplyToMessageID, at)
	m.IsSender = true
	m.pendingID, m.finalID = fmt.Sprintf("pending-%d", m.seq), m.ID
	m.SendStatus = &beeper.SendStatus{Status: beeper.StatusPending, Timestamp: at}
	if f.holdSends {
		m.ID = m.pendingID // until the network confirms it
	} else {
		m.SendStatus.Status = beeper.StatusSuccess
		m.SendStatus.DeliveredToUsers = c.othersThan(self.ID)
	}
	f.sends = append(f.sends, RecordedSend{ChatID: c.chat.ID, Text: req.Text, ReplyToMessageID: req.ReplyToMessageID, At: at})
	if f.dropSend {
		f.dropSend = false
		return reply{drop: true}
	}
	return reply{status: http.StatusOK, body: beeper.SendResult{ChatID: c.chat.ID, PendingMessageID: m.pendingID}}
}

// serveControl answers the fake's control routes (IncomingPath and its siblings).
func (f *Fake) serveControl(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	token := f.token
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var in struct {
		ChatID, SenderID, Text, MessageID, Status, Message, Title string
		Hold, Deleted                                             bool
		Msg                                                       beeper.Message
		Seen                                                      beeper.Seen
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var out any
	switch r.URL.Path {
	case IncomingPath:
		m := f.Incoming(in.ChatID, in.SenderID, in.Text)
		if m.ID == "" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		out = m
	case ChatPath:
		if in.ChatID == "" || in.Title == "" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		out = f.AddChat(in.ChatID, in.Title, in.Text)
	case MessagePath:
		m := f.Add(in.ChatID, in.Msg)
		if m.ID == "" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		out = m
	case EditPath:
		m, err := f.Edit(in.ChatID, in.MessageID, in.Text, in.Deleted)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		out = m
	case HoldSendsPath:
		f.HoldSends(in.Hold)
		out = map[string]bool{"hold": in.Hold}
	case SeenPath:
		m, err := f.SetSeen(in.ChatID, in.MessageID, in.Seen)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		out = m
	case SendStatusPath:
		m, err := f.SetSendStatus(in.ChatID, in.MessageID, in.Status, in.Message)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		out = m
	default:
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}
