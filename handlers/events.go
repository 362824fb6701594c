package handlers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
)

// eventsStore tells a stream when its owner session ended.
type eventsStore interface {
	Revision(ctx context.Context) (int64, error)
	SessionsEnded() <-chan struct{}
	AuthenticateSession(ctx context.Context, token string) (models.OwnerSession, error)
}

// eventsHandlers stream commits to the owner's pages.
type eventsHandlers struct {
	*Server
	store eventsStore
}

// Event is one committed change as /events sends it. Changed names what
// the revisions Since..Revision changed; Since is 0 when that is unknown
// (the first event of a stream, which only says the current revision).
type Event struct {
	Revision int64    `json:"revision"`
	Since    int64    `json:"since,omitempty"`
	Changed  []string `json:"changed"`
	// At is when the hub heard of the commit, right after it (RFC 3339,
	// server time), so a page can tell commit → screen, not request →
	// screen; absent on a stream's first event, which reports no commit.
	At string `json:"at,omitempty"`
}

// Hub fans committed revisions out to /events subscribers. It is the
// models.Notifier of a running server: nothing else knows SSE exists.
type Hub struct {
	mu     sync.Mutex
	subs   map[chan Event]struct{}
	closed bool
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{subs: map[chan Event]struct{}{}} }

// Committed hands the event to every subscriber without blocking. Each
// subscriber buffers one event; for a slow one the newest replaces the
// buffered one and takes over what it named, so a page that only reloads
// what changed misses nothing.
func (h *Hub) Committed(revision int64, changed []string) {
	ev := Event{Revision: revision, Since: revision, Changed: changed, At: time.Now().UTC().Format(time.RFC3339Nano)}
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- ev:
		default:
			merged := ev
			select {
			case old := <-ch:
				merged = Event{Revision: ev.Revision, Since: old.Since, Changed: union(old.Changed, ev.Changed), At: ev.At}
			default:
			}
			ch <- merged
		}
	}
}

// union is a then the keys of b not in a.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, k := range b {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Subscribe registers a listener; call the returned func to leave.
func (h *Hub) Subscribe() (<-chan Event, func()) {
	ch := make(chan Event, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(ch)
		return ch, func() {}
	}
	h.subs[ch] = struct{}{}
	return ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// Subscribers counts the open streams.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends every stream; shutdown calls it so streaming handlers return.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}

// writeEvent writes one SSE event; data is a single JSON line.
func writeEvent(w *bufio.Writer, ev Event) error {
	if ev.Changed == nil {
		ev.Changed = []string{}
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "event: revision\nid: %d\ndata: %s\n\n", ev.Revision, data); err != nil {
		return err
	}
	return w.Flush()
}

// streamEvents serves GET /events with Fiber's own stream writer: the
// current revision on connect, one event per commit, and a comment line as
// heartbeat. A disconnect is noticed on the first failed write, which
// unsubscribes. A stream opened with a session ends with the session.
func (s *eventsHandlers) streamEvents(c *fiber.Ctx) error {
	if s.hub == nil {
		return fiber.ErrNotFound
	}
	// Before anything else, so a logout from here on is signalled to it.
	watch := s.watchSession(identityOf(c))
	// Subscribe before reading the revision so no commit falls in between.
	events, leave := s.hub.Subscribe()
	rev, err := s.store.Revision(c.UserContext())
	if err != nil {
		leave()
		watch.stop()
		return err
	}
	// Cache-Control comes from the cacheControl middleware.
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set("X-Accel-Buffering", "no")
	heartbeat := s.cfg.Heartbeat
	if heartbeat <= 0 {
		heartbeat = 25 * time.Second
	}
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer leave()
		defer watch.stop()
		if err := writeEvent(w, Event{Revision: rev}); err != nil {
			return
		}
		tick := time.NewTicker(heartbeat)
		defer tick.Stop()
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					return
				}
				if err := writeEvent(w, ev); err != nil {
					return
				}
			case <-tick.C:
				if _, err := w.WriteString(": ping\n\n"); err != nil {
					return
				}
				if err := w.Flush(); err != nil {
					return
				}
			case <-watch.ended:
				// Ending the response is what tells the browser: its
				// reconnect is then sent to log in.
				if !watch.alive() {
					return
				}
			case <-watch.recheck:
				if !watch.alive() {
					return
				}
			}
		}
	})
	return nil
}

// SessionRecheck is how often an open stream re-reads its session by
// default, to end when another process (the CLI) ended it.
const SessionRecheck = 10 * time.Second

// sessionWatch tells a stream when the owner session that opened it ends.
// Its channels are nil (never ready) for a stream without a session: the
// Tailscale owner has none to end.
type sessionWatch struct {
	store   eventsStore
	token   string
	ended   <-chan struct{}  // a session ended in this process
	recheck <-chan time.Time // time to re-read the session (another process)
	ticker  *time.Ticker
}

func (s *eventsHandlers) watchSession(id identity) *sessionWatch {
	if id.sessionToken == "" {
		return &sessionWatch{}
	}
	every := s.cfg.SessionRecheck
	if every <= 0 {
		every = SessionRecheck
	}
	w := &sessionWatch{store: s.store, ticker: time.NewTicker(every),
		// A copy: the cookie's bytes belong to the request, which the
		// stream outlives.
		token: strings.Clone(id.sessionToken), ended: s.store.SessionsEnded()}
	w.recheck = w.ticker.C
	return w
}

// alive re-reads the session and re-arms the end signal. Only a session
// known to be gone ends the stream: a failed read is tried again later.
func (w *sessionWatch) alive() bool {
	w.ended = w.store.SessionsEnded()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := w.store.AuthenticateSession(ctx, w.token)
	return !errors.Is(err, models.ErrUnauthorized)
}

func (w *sessionWatch) stop() {
	if w.ticker != nil {
		w.ticker.Stop()
	}
}
