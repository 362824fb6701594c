package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"hearth/handlers"
	"hearth/static"
)

// TestOwnerDataIsKeptOnlyByTheOwnersBrowser walks every GET route of the
// real app: an agent read, an export, an error or a redirect must not be
// kept by any cache (no-store); the owner's pages, fragments and event
// stream may be kept by the browser alone, revalidated (private, no-cache),
// so Back restores them from the back/forward cache.
func TestOwnerDataIsKeptOnlyByTheOwnersBrowser(t *testing.T) {
	t.Parallel()
	hub := handlers.NewHub()
	ta, cookie := homeApp(t, withConfig(handlers.Config{Hub: hub, Heartbeat: 50 * time.Millisecond}))
	token := ta.agentToken()
	// Public and immutable by design: checked below. /events streams: its
	// header is checked on a real listener.
	public := map[string]bool{"/static/:name": true, "/api/schema/:name": true, "/events": true, "/healthz": true}
	params := map[string]string{":id": "book-bike-service", ":chat": "x", ":collection": "activities"}
	// Answers that show a route ran its handler, where one is known.
	wantStatus := map[string]int{"/": 200, "/home/live": 200, "/people": 200, "/routines": 200, "/schedules": 200,
		"/runs": 200, "/login": 303, "/api/agent-context": 200, "/api/agent-context/:collection": 200,
		"/api/agent-wake": 200, "/api/schedules": 200, "/api/schedules/due": 200}
	seen := 0
	for _, r := range ta.app.GetRoutes(true) {
		if r.Method != http.MethodGet || public[r.Path] {
			continue
		}
		seen++
		path := r.Path
		for p, v := range params {
			path = strings.ReplaceAll(path, p, v)
		}
		if path == "/api/agent-wake" {
			path += "?timeout=0" // a long poll otherwise
		}
		for _, hx := range []bool{false, true} {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			if strings.HasPrefix(path, "/api/") && !strings.HasPrefix(path, "/api/schedules") {
				req.Header.Set("Authorization", "Bearer "+token)
			} else {
				req.AddCookie(cookie)
			}
			if hx {
				req.Header.Set("HX-Request", "true")
			}
			resp := ta.do(req)
			if want, ok := wantStatus[r.Path]; ok && resp.status != want && !hx {
				t.Errorf("GET %s: %d, want %d (%.200s)", path, resp.status, want, resp.body)
			}
			want := "no-store"
			if resp.status == 200 && !strings.HasPrefix(path, "/api/") && strings.HasPrefix(resp.header.Get("Content-Type"), "text/html") {
				want = "private, no-cache"
			}
			if cc := resp.header.Get("Cache-Control"); cc != want {
				t.Errorf("GET %s (htmx %v): %d with Cache-Control %q, want %q", path, hx, resp.status, cc, want)
			}
		}
	}
	if seen < 15 {
		t.Fatalf("only %d GET routes walked: the route list changed shape", seen)
	}

	// Static files keep their long cache; a versioned URL is immutable.
	name := "hearth.css"
	resp := ta.get("/static/"+name+"?v="+static.Hash(name), "", nil)
	if resp.status != 200 || resp.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("versioned static file: %d %q", resp.status, resp.header.Get("Cache-Control"))
	}

	// The event stream, on a real listener (app.Test cannot stream).
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, ta.listen()+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(cookie)
	stream, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	stream.Body.Close()
	if stream.StatusCode != 200 || stream.Header.Get("Cache-Control") != "private, no-cache" {
		t.Fatalf("/events: %d with Cache-Control %q, want private, no-cache", stream.StatusCode, stream.Header.Get("Cache-Control"))
	}
}
