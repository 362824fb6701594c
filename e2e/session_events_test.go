package e2e

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"hearth/handlers"
)

// openOwnerEvents opens /events as the logged-in owner o and returns a
// channel closed when the server ends the stream.
func openOwnerEvents(t *testing.T, o *ownerClient) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.base+"/events", nil)
	must(t, err)
	u, _ := url.Parse(o.base)
	for _, c := range o.hc.Jar.Cookies(u) {
		req.AddCookie(c)
	}
	// Not o.hc: its timeout would end the stream, not the server.
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET /events: %d", resp.StatusCode)
	}
	first := make(chan struct{})
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		defer resp.Body.Close()
		// Its own copy: clearing the shared variable raced with the
		// select below, which then waited on a nil channel.
		first := first
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") && first != nil {
				close(first)
				first = nil
			}
		}
	}()
	select {
	case <-first:
	case <-time.After(httpTimeout):
		t.Fatal("no first event on /events")
	}
	return closed
}

// TestEventsStreamEndsWithItsSessionAcrossProcesses: an open Home keeps
// receiving the owner's data over /events; a logout in the browser ends
// the stream at once, and a logout-all from the CLI (another process,
// writing the database) within handlers.SessionRecheck.
func TestEventsStreamEndsWithItsSessionAcrossProcesses(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo")

	browser := loginOwner(t, srv.URL)
	stream := openOwnerEvents(t, browser)
	if status, _, err := browser.page(http.MethodPost, "/logout", url.Values{}); err != nil || status != http.StatusSeeOther {
		t.Fatalf("logout: %d %v", status, err)
	}
	select {
	case <-stream:
	case <-time.After(httpTimeout):
		t.Fatal("the stream outlived its logout")
	}

	streams := []<-chan struct{}{openOwnerEvents(t, loginOwner(t, srv.URL)), openOwnerEvents(t, loginOwner(t, srv.URL))}
	res := runHearth(t, nil, "owner", "logout-all", "--data", srv.DataDir)
	wantExit(t, res, 0, "stdout", "Ended 2 owner session(s)")
	// The window plus slack for a loaded machine: a deadline, not a measurement.
	deadline := time.After(handlers.SessionRecheck + 5*time.Second)
	for i, s := range streams {
		select {
		case <-s:
		case <-deadline:
			t.Fatalf("stream %d still open %s after logout-all", i, handlers.SessionRecheck+5*time.Second)
		}
	}
}
