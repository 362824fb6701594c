package handlers_test

import (
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"testing"

	_ "github.com/glebarez/go-sqlite" // "sqlite": to store what an older hearth stored, by hand
)

// outOfBound are instants hearth refuses wherever it takes one: after
// 2199, before 2000, and offsets RFC 3339 does not have (Go's parser takes
// them as a whole day).
var outOfBound = []struct{ name, value, message string }{
	{"year 10000 in UTC", "9999-12-31T23:59:59-12:00", "out of range"},
	{"year 9999", "9999-12-31T12:00:00Z", "out of range"},
	{"before 2000", "1999-12-31T23:59:59Z", "out of range"},
	{"offset +24:00", "2026-09-29T07:00:00+24:00", "offset out of range"},
	{"offset +23:60", "2026-09-29T07:00:00+23:60", "offset out of range"},
}

// safeID makes a test case's name an ID.
func safeID(name string) string {
	return strings.NewReplacer(" ", "-", "+", "p", ":", "-").Replace(name)
}

// wantFieldError asserts a 422 whose details.errors names path with message.
func wantFieldError(t *testing.T, resp response, code, path, message string) {
	t.Helper()
	env := assertError(t, resp, http.StatusUnprocessableEntity, code)
	for _, e := range fieldErrors(t, env) {
		if e.Path == path {
			if !strings.Contains(e.Message, message) || !strings.Contains(e.Expected, "2000-01-01") {
				t.Errorf("error at %s: %+v; want message %q and the bound in expected", path, e, message)
			}
			return
		}
	}
	t.Errorf("no error at %s in %s", path, resp.body)
}

func TestPublicationRefusesTimesOutsideTheBound(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	type tc struct{ name, pointer, value, path, message string }
	var cases []tc
	for _, b := range outOfBound {
		cases = append(cases,
			tc{"generatedAt " + b.name, "/generatedAt", b.value, "/generatedAt", b.message},
			tc{"observedAt " + b.name, "/sourceRefs/1/observedAt", b.value, "/sourceRefs/1/observedAt", b.message})
	}
	cases = append(cases,
		tc{"brief date year 9999", "/brief/date", "9999-12-31", "/brief/date", "out of range"},
		tc{"brief date year 1", "/brief/date", "0001-01-01", "/brief/date", "out of range"},
		tc{"occurrence key year 9999", "/activities/0/occurrenceKey", "9999-12-31@Europe/Berlin", "/activities/0/occurrenceKey", "out of range"},
		tc{"review window from year 1", "/reviews/0/window/from", "0001-01-01", "/reviews/0/window/from", "out of range"},
		tc{"review window to year 9999", "/reviews/0/window/to", "9999-12-31", "/reviews/0/window/to", "out of range"},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ta := ta.in(t)
			before := ta.revision()
			d := validPublication(safeID("bound-"+c.name), before)
			d["routineDefinitions"] = routineDefinitions()
			d["reviews"] = []any{map[string]any{"id": "rv-1", "routineId": "morning", "revision": 1,
				"window":       map[string]any{"from": testDate, "to": "2026-10-05"},
				"observations": []any{}, "uncertainties": []any{}, "proposals": []any{}, "evidenceIds": []any{"life-health"}}}
			d.Set(t, c.pointer, c.value)
			wantFieldError(t, ta.publish(token, d.JSON()), "invalid_result", c.path, c.message)
			if rev := ta.revision(); rev != before {
				t.Errorf("a refused publication wrote: revision %d", rev)
			}
		})
	}
}

func TestOwnerDatesOutsideTheBoundAreRefused(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 14, cookie)
	cases := []struct {
		name, path string
		form       url.Values
		message    string
	}{
		{"defer to year 9999", "/activities/book-bike-service/state", url.Values{"state": {"deferred"}, "until": {"9999-12-31"}}, "defer date"},
		{"defer to year 1", "/activities/book-bike-service/state", url.Values{"state": {"deferred"}, "until": {"0001-01-01"}}, "defer date"},
		{"defer to a non-date", "/activities/book-bike-service/state", url.Values{"state": {"deferred"}, "until": {"2026-10-01x"}}, "defer date"},
		{"earlier day year 1", "/routines/morning/outcomes", url.Values{"date": {"0001-01-01"}, "outcome": {"completed"}}, "date"},
		{"earlier day not a date", "/routines/morning/outcomes", url.Values{"date": {"2026-09-30x"}, "outcome": {"completed"}}, "date"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			before := ta.revision()
			resp := ta.form(tc.path, tc.form, true, cookie)
			if resp.status != http.StatusUnprocessableEntity {
				t.Fatalf("got %s", resp)
			}
			msg := text(has(t, resp.doc(t), `[role="alert"]`))
			if !strings.Contains(msg, tc.message) || !strings.Contains(msg, "2000-01-01") {
				t.Errorf("message %q: want it to name %q and the bound", msg, tc.message)
			}
			if ta.revision() != before {
				t.Error("a refused date wrote")
			}
		})
	}
}

// storedByAnOlderHearth writes values straight into the database, as a
// hearth without the bound stored them: glebarez formats a year-10000
// instant as text that no DATETIME scan reads back.
func storedByAnOlderHearth(t *testing.T, ta *testApp, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+ta.store.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
