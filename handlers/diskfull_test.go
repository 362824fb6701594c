package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hearth/handlers"
	"hearth/internal/contract"
	"hearth/models"
)

// fullDiskApp is Home with a publication and a logged-in owner, served by
// a second Store on the same file that cannot grow (models.Options.FullDisk):
// its writes fail with SQLite's own "database or disk is full" once the
// pages they need are used up.
func fullDiskApp(t *testing.T) (*testApp, *http.Cookie) {
	t.Helper()
	ta, cookie := homeApp(t)
	full, err := models.Open(context.Background(), ta.store.DataDir(), models.Options{Clock: ta.clock.Now, FullDisk: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { full.Close() })
	app := handlers.New(full, handlers.Config{Hosts: []string{"example.com"}})
	return &testApp{t: t, appState: &appState{root: t, app: app, store: full, clock: ta.clock, owner: true}}, cookie
}

// untilRefused sends the form made by post(i) until an answer is not ok,
// and returns that answer: the first write the full database refused.
func untilRefused(t *testing.T, post func(i int) response, ok int) response {
	t.Helper()
	for i := range 5000 {
		resp := post(i)
		if resp.status != ok {
			return resp
		}
	}
	t.Fatal("5000 writes fitted in a database that cannot grow")
	return response{}
}

// assertHTML checks an HTML answer (never the JSON envelope) with status;
// page says whether it is a whole page or a fragment.
func assertHTML(t *testing.T, resp response, status int, page bool) {
	t.Helper()
	if resp.status != status {
		t.Fatalf("got %s, want %d", resp, status)
	}
	if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type %q, want HTML: %s", ct, resp.body)
	}
	if isPage := strings.Contains(string(resp.body), "<html"); isPage != page {
		t.Fatalf("whole page %v, want %v: %s", isPage, page, resp.body)
	}
}

func TestMeasurementOnAFullDiskShowsItsErrorAndKeepsTheValue(t *testing.T) {
	t.Parallel()
	ta, cookie := fullDiskApp(t)
	id := "weigh-in-" + testDate
	path := "/activities/" + id + "/measurement"
	var entered string
	resp := untilRefused(t, func(i int) response {
		entered = fmt.Sprintf("7%d.%d", i%10, i%7)
		return ta.ownerRequest(http.MethodPost, path, url.Values{"value": {entered}}, true, cookie)
	}, http.StatusOK)

	// htmx: the row again, with the message beside the field and the value in it.
	assertHTML(t, resp, http.StatusServiceUnavailable, false)
	d := resp.doc(t)
	has(t, d, `li[data-row][data-id="`+id+`"]`)
	if msg := has(t, d, `[data-testid="measurement-error"]`).Text(); !strings.Contains(msg, "disk is full") || !strings.Contains(msg, "Not saved") {
		t.Errorf("inline error %q", msg)
	}
	if v, _ := has(t, d, `[data-testid="measurement-input"]`).Attr("value"); v != entered {
		t.Errorf("the field holds %q, want what was entered, %q", v, entered)
	}

	// A plain form post: a page saying so, with the value, and a way back to the row.
	rev := ta.revision()
	resp = ta.ownerRequest(http.MethodPost, path, url.Values{"value": {"71.3"}}, false, cookie)
	assertHTML(t, resp, http.StatusServiceUnavailable, true)
	d = resp.doc(t)
	errs := has(t, d, testID("form-errors")).Text()
	for _, want := range []string{"disk is full", "71.3"} {
		if !strings.Contains(errs, want) {
			t.Errorf("the page's errors %q lack %q", errs, want)
		}
	}
	if href, _ := d.Find(`main a`).Last().Attr("href"); !strings.Contains(href, "row-"+id) {
		t.Errorf("the way back is %q, not the row", href)
	}
	if ta.revision() != rev {
		t.Error("a refused write moved the revision")
	}
}

func TestAskOnAFullDiskKeepsTheWords(t *testing.T) {
	t.Parallel()
	ta, cookie := fullDiskApp(t)
	var text string
	resp := untilRefused(t, func(i int) response {
		text = fmt.Sprintf("Remember the bike lock, note %d", i)
		form := url.Values{"requestId": {fmt.Sprintf("req-full-%04d", i)}, "kind": {contract.RequestNote}, "text": {text}, "return": {"/people"}}
		return ta.ownerRequest(http.MethodPost, "/requests", form, false, cookie)
	}, http.StatusSeeOther)
	assertHTML(t, resp, http.StatusServiceUnavailable, true)
	d := resp.doc(t)
	errs := has(t, d, testID("form-errors")).Text()
	for _, want := range []string{"disk is full", text} {
		if !strings.Contains(errs, want) {
			t.Errorf("the page's errors %q lack %q", errs, want)
		}
	}
	if href, _ := d.Find(`main a`).Last().Attr("href"); href != "/people" {
		t.Errorf("the way back is %q, want the form's return /people", href)
	}
}

// TestFormsOnAFullDiskNeverAnswerJSON: a form without its own inline
// error (here the login) still gets a page, while the JSON API keeps its
// envelope.
func TestFormsOnAFullDiskNeverAnswerJSON(t *testing.T) {
	t.Parallel()
	ta, cookie := fullDiskApp(t)
	resp := untilRefused(t, func(int) response {
		req := loginRequest(ownerPassphrase)
		req.Header.Set("Referer", "http://example.com/login")
		return ta.do(req)
	}, http.StatusSeeOther)
	assertHTML(t, resp, http.StatusServiceUnavailable, true)
	if errs := has(t, resp.doc(t), testID("form-errors")).Text(); !strings.Contains(errs, "disk is full") {
		t.Errorf("errors %q", errs)
	}

	resp = untilRefused(t, func(i int) response {
		body := fmt.Sprintf(`{"requestId":"req-api-%04d","kind":"note","text":"note %d"}`, i, i)
		req := httptest.NewRequest(http.MethodPost, "/api/agent-requests", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(cookie)
		return ta.do(req)
	}, http.StatusCreated)
	assertError(t, resp, http.StatusServiceUnavailable, "unavailable")
}
