package handlers_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hearth/handlers"
	"hearth/models"
)

// streamWait bounds how long a test waits for a stream to end: a liveness
// deadline, not a timing claim (the injected recheck is 100 ms).
const streamWait = 15 * time.Second

// eventStream is an open GET /events read by a raw HTTP client.
type eventStream struct {
	first  chan string   // the first data line
	closed chan struct{} // closed when the body ended
}

// openEvents opens /events on base with cookie and reads it in the background.
func openEvents(t *testing.T, base string, cookie *http.Cookie) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(cookie)
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("GET /events: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	es := &eventStream{first: make(chan string, 1), closed: make(chan struct{})}
	go func() {
		defer close(es.closed)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				select {
				case es.first <- data:
				default:
				}
			}
		}
	}()
	select {
	case <-es.first:
	case <-time.After(streamWait):
		t.Fatal("no first event")
	}
	return es
}

// isOpen reports whether the stream is still open, after giving a closing
// one a moment: used only to check a stream was NOT closed.
func (es *eventStream) isOpen() bool {
	select {
	case <-es.closed:
		return false
	case <-time.After(300 * time.Millisecond):
		return true
	}
}

func (es *eventStream) waitClosed(t *testing.T, why string) {
	t.Helper()
	select {
	case <-es.closed:
	case <-time.After(streamWait):
		t.Fatalf("the stream is still open %s after %s", streamWait, why)
	}
}

// eventsApp is Home's app with a hub on a real listener; recheck is how
// often a stream re-reads its session (0: SessionRecheck).
func eventsApp(t *testing.T, recheck time.Duration) (*testApp, string) {
	t.Helper()
	hub := handlers.NewHub()
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{Hub: hub, Heartbeat: 50 * time.Millisecond, SessionRecheck: recheck}))
	ta.store.SetNotifier(hub)
	return ta, ta.listen()
}

func TestEventsStreamEndsAtItsSessionsLogout(t *testing.T) {
	t.Parallel()
	// A recheck far beyond the test: only the logout itself may close it.
	ta, base := eventsApp(t, time.Hour)
	mine, other := ta.login(), ta.login()
	stream, otherStream := openEvents(t, base, mine), openEvents(t, base, other)

	req := httptest.NewRequest(http.MethodPost, "/logout", nil)
	req.AddCookie(mine)
	if resp := ta.doNet(req); resp.status != http.StatusSeeOther {
		t.Fatalf("logout: %s", resp)
	}
	stream.waitClosed(t, "its logout")
	if !otherStream.isOpen() {
		t.Fatal("another session's stream closed at this session's logout")
	}
}

// TestEventsStreamsEndWhenAnotherProcessEndsTheirSessions: the CLI's
// logout-all and passwd write the database from another process, whose
// signal cannot reach serve; the stream notices at its next recheck.
func TestEventsStreamsEndWhenAnotherProcessEndsTheirSessions(t *testing.T) {
	t.Parallel()
	cases := map[string]func(ctx context.Context, other *models.Store) error{
		"logout-all": func(ctx context.Context, other *models.Store) error { _, err := other.LogoutAll(ctx); return err },
		"passwd": func(ctx context.Context, other *models.Store) error {
			return other.SetOwnerPassphrase(ctx, "a brand new passphrase")
		},
	}
	for name, end := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ta, base := eventsApp(t, 100*time.Millisecond)
			streams := []*eventStream{openEvents(t, base, ta.login()), openEvents(t, base, ta.login())}
			if !streams[0].isOpen() {
				t.Fatal("a stream of a live session closed by itself")
			}
			// A second Store on the same file is what the CLI opens.
			other, err := models.OpenExisting(context.Background(), ta.store.DataDir(), models.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if err := end(context.Background(), other); err != nil {
				t.Fatal(err)
			}
			for _, s := range streams {
				s.waitClosed(t, name+" in another process")
			}
		})
	}
}

func TestEventsStreamOfTailscaleOwnerIsNotEndedByLogouts(t *testing.T) {
	t.Parallel()
	hub := handlers.NewHub()
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{Hub: hub, Heartbeat: 50 * time.Millisecond,
		SessionRecheck: 100 * time.Millisecond, TailscaleOwner: tailnetLogin, Hosts: []string{tailnetHost}}))
	ta.store.SetNotifier(hub)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, ta.listen()+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = tailnetHost
	req.Header.Set("Tailscale-User-Login", tailnetLogin)
	resp, err := noRedirects.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /events through tailscale serve: %v %v", resp, err)
	}
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	if _, err := ta.store.LogoutAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
		t.Fatal("logout-all closed a stream that no session opened")
	case <-time.After(500 * time.Millisecond):
	}
}
