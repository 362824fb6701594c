package handlers_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// statements records the SQL statements a store runs while on.
type statements struct {
	mu  sync.Mutex
	on  bool
	sql []string
}

func (s *statements) heard(sql string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.sql = append(s.sql, sql)
	}
}

// during returns the statements fn ran.
func (s *statements) during(fn func()) []string {
	s.mu.Lock()
	s.on, s.sql = true, nil
	s.mu.Unlock()
	fn()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.sql
}

// withStatements opens the store with rec hearing every statement it runs.
func withStatements(rec *statements) appOption {
	return func(s *appSetup) { s.statement = rec.heard }
}

// TestATickOnHomeRunsAtMostTwelveStatements: ticking a routine's step on
// Home, as the page sends it (the one-tap form with a client key, answered
// by its routine's row), costs at most 12 SQL statements from the session
// check to the rendered answer. The other owner actions' counts are logged
// for docs/figures.md.
func TestATickOnHomeRunsAtMostTwelveStatements(t *testing.T) {
	routine, stretch, weigh := "morning-routine-"+testDate, "stretch-"+testDate, "weigh-in-"+testDate
	key := func(n int) string { return fmt.Sprintf("ck-statements-%04d", n) }
	cases := []struct {
		name  string
		path  string
		form  url.Values
		bound int // 0: logged only
	}{
		{name: "tick", path: "/activities/" + stretch + "/state", form: url.Values{"state": {"completed"}, "expanded": {"false"}}, bound: 12},
		{name: "weigh-in on its row", path: "/activities/" + weigh + "/measurement", form: url.Values{"value": {"72.4"}}},
		{name: "complete a task", path: "/activities/book-bike-service/state", form: url.Values{"state": {"completed"}}},
		{name: "defer a task", path: "/activities/book-bike-service/state", form: url.Values{"state": {"deferred"}, "until": {"2026-10-05"}}},
		{name: "weigh-in on Home's first screen", path: "/weight/entries", form: url.Values{"value": {"72.4"}, "from": {"home"}}},
	}
	for n, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rec statements
			ta, cookie := homeApp(t, withStatements(&rec))
			tc.form.Set("clientKey", key(n))
			var resp response
			ran := rec.during(func() { resp = ta.form(tc.path, tc.form, true, cookie) })
			if resp.status != http.StatusOK {
				t.Fatalf("%s: %s", tc.path, resp)
			}
			t.Logf("%s ran %d statements", tc.name, len(ran))
			if tc.bound == 0 {
				return
			}
			if resp.header.Get("Hearth-Revision") == "" {
				t.Errorf("the tick's answer carries no revision")
			}
			has(t, resp.doc(t), `li[data-row][data-id="`+routine+`"] li[data-row][data-id="`+stretch+`"][data-state="completed"]`)
			if len(ran) > tc.bound {
				t.Errorf("%s ran %d statements, want at most %d:\n%s", tc.name, len(ran), tc.bound, strings.Join(ran, "\n"))
			}
		})
	}
	t.Run("undo", func(t *testing.T) {
		var rec statements
		ta, cookie := homeApp(t, withStatements(&rec))
		r := ta.form("/activities/"+stretch+"/state", url.Values{"state": {"completed"}, "expanded": {"false"}}, true, cookie)
		undo := has(t, r.doc(t), `form[action^="/decisions/"]`).First().AttrOr("action", "")
		var resp response
		ran := rec.during(func() { resp = ta.form(undo, url.Values{}, true, cookie) })
		if resp.status != http.StatusOK {
			t.Fatalf("%s: %s", undo, resp)
		}
		t.Logf("undo ran %d statements", len(ran))
	})
}

// BenchmarkAnOwnerActionOnAHomeRow measures an owner action on one of
// Home's rows as the page sends it (htmx, a client key), answered by its
// row: one of today's tasks set in progress and back, on benchHome's
// data. It reports the server's time (Server-Timing) and the round trip.
func BenchmarkAnOwnerActionOnAHomeRow(b *testing.B) {
	ta, cookie := benchHome(b)
	base := ta.listen()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections() // so the server's shutdown does not wait out its keep-alives
	var server, trip []time.Duration
	for i := 0; b.Loop(); i++ {
		ta.clock.Advance(10 * time.Second)
		form := url.Values{"state": {[]string{"in_progress", "available"}[i/40%2]}, "clientKey": {fmt.Sprintf("ck-bench-%08d", i)}}
		req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/activities/today-%02d/state", base, 10+i%40), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("HX-Request", "true")
		req.AddCookie(cookie)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		trip = append(trip, time.Since(start))
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("action: %d", resp.StatusCode)
		}
		var ms float64
		fmt.Sscanf(resp.Header.Get("Server-Timing"), "app;dur=%g", &ms)
		server = append(server, time.Duration(ms*float64(time.Millisecond)))
	}
	reportPercentiles(b, "server", server)
	reportPercentiles(b, "trip", trip)
}
