package handlers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/weight"
	"hearth/models"
)

// These tests build the app over fakes of one area's narrow store: the
// paths they cover (a database that stops answering, a write that fails
// inside SQLite) are awkward to bring about with a real database.

// pingResult answers the health check's Ping with err, and records whether
// the check gave it a deadline (a hung database must not hang /healthz).
type pingResult struct {
	err         error
	hadDeadline *bool
}

func (p pingResult) Ping(ctx context.Context) error {
	_, *p.hadDeadline = ctx.Deadline()
	return p.err
}

func TestHealthAnswers503WhenTheDatabaseDoesNotPing(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		body   string
	}{
		{name: "database answers", status: http.StatusOK, body: "ok"},
		{name: "database does not answer", err: errors.New("database is locked"), status: http.StatusServiceUnavailable, body: "unavailable"},
		{name: "ping times out", err: context.DeadlineExceeded, status: http.StatusServiceUnavailable, body: "unavailable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var hadDeadline bool
			app := newApp(stores{health: pingResult{err: tc.err, hadDeadline: &hadDeadline}}, Config{Hosts: []string{"example.com"}})
			resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/healthz", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || string(body) != tc.body {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, body, tc.status, tc.body)
			}
			if !hadDeadline {
				t.Error("Ping had no deadline")
			}
		})
	}
}

// ownerSessions accepts every session cookie as the owner's, or fails
// every session check with err.
type ownerSessions struct {
	identityStore
	err error
}

func (o ownerSessions) AuthenticateSession(context.Context, string) (models.OwnerSession, error) {
	return models.OwnerSession{}, o.err
}

// goalNotStored reads a weight history in kg and fails to store a goal
// with err, as SQLite does when the disk or the database fails.
type goalNotStored struct {
	weightStore
	err error
}

func (g goalNotStored) WeightHistory(context.Context) (models.WeightData, error) {
	return models.WeightData{Unit: "kg"}, nil
}

func (g goalNotStored) RoutineKeeping(context.Context, string) (weight.RoutineKeeping, error) {
	return weight.RoutineKeeping{}, nil
}

func (g goalNotStored) SetWeightGoal(context.Context, *contract.WeightGoal) error { return g.err }

func TestWeightGoalThatCouldNotBeStoredIsANotSavedPage(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		htmx     bool
		says     string
		retarget string
	}{
		{name: "database error", err: errors.New("disk I/O error"), says: "Not saved: hearth could not store this just now."},
		{name: "disk full", err: models.ErrStorageFull, says: "Not saved: the server&#39;s disk is full."},
		{name: "database error under htmx", err: errors.New("disk I/O error"), htmx: true, says: "Not saved: hearth could not store this just now.", retarget: "body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app := newApp(stores{identity: ownerSessions{}, weight: goalNotStored{err: tc.err}}, Config{Hosts: []string{"example.com"}})
			req := httptest.NewRequest(http.MethodPost, "/weight/goal", strings.NewReader(url.Values{"goal": {"72.5"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: SessionCookie, Value: "any"})
			if tc.htmx {
				req.Header.Set("HX-Request", "true")
			}
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			if loc := resp.Header.Get("Location"); !tc.htmx && resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(loc, "/answers/") {
				// The page is the answer's own (post/redirect/get).
				get := httptest.NewRequest(http.MethodGet, loc, nil)
				get.AddCookie(&http.Cookie{Name: SessionCookie, Value: "any"})
				if resp, err = app.Test(get, -1); err != nil {
					t.Fatal(err)
				}
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusServiceUnavailable || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("got %d %s %s, want a 503 page", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if !strings.Contains(string(body), tc.says) || strings.Contains(string(body), `"code"`) {
				t.Errorf("page does not say %q (or is the API's envelope): %s", tc.says, body)
			}
			if got := resp.Header.Get("HX-Retarget"); got != tc.retarget {
				t.Errorf("HX-Retarget %q, want %q", got, tc.retarget)
			}
		})
	}
}

func TestSessionCheckThatFailsIsUnavailableNotALogout(t *testing.T) {
	app := newApp(stores{identity: ownerSessions{err: errors.New("database is locked")}}, Config{Hosts: []string{"example.com"}})
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(&http.Cookie{Name: SessionCookie, Value: "any"})
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"code":"unavailable"`) {
		t.Fatalf("got %d %s, want 503 unavailable", resp.StatusCode, body)
	}
	if loc := resp.Header.Get("Location"); loc != "" {
		t.Errorf("sent to %s: a database that did not answer is not a logged-out owner", loc)
	}
	for _, c := range resp.Cookies() {
		if c.Name == SessionCookie {
			t.Errorf("session cookie changed: %v", c)
		}
	}
}
