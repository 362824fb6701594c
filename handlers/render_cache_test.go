package handlers_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"

	"hearth/handlers"
)

// requestIDs are the per-response requestIds of a page's forms, which two
// responses never share.
var requestIDs = regexp.MustCompile(`req-[0-9A-Za-z_-]+`)

// gzipPage GETs path from app as the owner, taking gzip, and returns the
// decoded HTML with its requestIds masked.
func gzipPage(t *testing.T, ta *testApp, path string, cookie *http.Cookie) []byte {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.AddCookie(cookie)
	req.Header.Set("Accept-Encoding", "gzip")
	r := ta.do(req)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %s", path, r)
	}
	body := r.body
	if r.header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	return requestIDs.ReplaceAll(body, []byte("req-X"))
}

// TestKeptRendersMatchAColdRenderAfterCommits renders Home and Routines
// after each of a series of commits through the app that keeps renders
// between requests (the page cache and its deflated parts) and through a
// new app on the same store that has kept nothing, and requires the same HTML byte for byte.
func TestKeptRendersMatchAColdRenderAfterCommits(t *testing.T) {
	t.Parallel()
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 7, cookie)
	ta.try("evening", 1, 14, cookie)
	day := "hearth:morning@" + testDate
	post := func(path string, v url.Values) {
		if r := ta.form(path, v, true, cookie); r.status != http.StatusOK {
			t.Fatalf("POST %s: %s", path, r)
		}
	}
	steps := []struct {
		name   string
		commit func()
	}{
		{"nothing yet", func() {}},
		{"a weigh-in", func() {
			post("/activities/"+day+":weigh/measurement", url.Values{"value": {"72.4"}})
		}},
		{"a step done", func() {
			post("/activities/"+day+":stretch/state", url.Values{"state": {"completed"}})
		}},
		{"feedback", func() {
			post("/routines/occurrences/morning@"+testDate+"/feedback", url.Values{"effort": {"easy"}})
		}},
		{"a task dismissed", func() {
			post("/activities/book-bike-service/state", url.Values{"state": {"dismissed"}})
		}},
		{"a new minute", func() { ta.clock.Advance(time.Minute) }},
		{"the next day", func() {
			ta.clock.Advance(24 * time.Hour)
			gzipPage(t, ta, "/", cookie) // Home instantiates the day's occurrences
		}},
		{"a publication", func() { ta.mustPublish(ta.agentToken(), validPublication("run-2", ta.revision()).JSON()) }},
	}
	for _, step := range steps {
		step.commit()
		cold := &testApp{t: t, appState: &appState{root: t, app: handlers.New(ta.store, handlers.Config{Hosts: []string{"example.com"}}),
			store: ta.store, clock: ta.clock, owner: true}}
		for _, path := range []string{"/", "/routines"} {
			warm := gzipPage(t, ta, path, cookie)
			if again := gzipPage(t, ta, path, cookie); !bytes.Equal(again, warm) {
				t.Errorf("after %s: GET %s from the page cache differs from its render", step.name, path)
			}
			if want := gzipPage(t, cold, path, cookie); !bytes.Equal(warm, want) {
				i := 0
				for i < min(len(warm), len(want)) && warm[i] == want[i] {
					i++
				}
				t.Errorf("after %s: GET %s kept differs from a cold render at byte %d:\nkept %q\ncold %q", step.name, path, i,
					warm[max(0, i-80):min(len(warm), i+80)], want[max(0, i-80):min(len(want), i+80)])
			}
		}
	}
}
