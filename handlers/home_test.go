package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/r3labs/sse/v2"

	"hearth/handlers"
	"hearth/internal/poll"
	"hearth/static"
)

// homeApp is an app with the demo-like publication and a logged-in owner.
func homeApp(t *testing.T, opts ...appOption) (*testApp, *http.Cookie) {
	t.Helper()
	ta := newTestApp(t, append([]appOption{withOwner()}, opts...)...)
	ta.mustPublish(ta.agentToken(), validPublication("run-1", 0).JSON())
	return ta, ta.login()
}

// ownerRequest sends an owner request: form values for a POST, htmx's header when hx.
func (ta *testApp) ownerRequest(method, path string, form url.Values, hx bool, cookie *http.Cookie) response {
	ta.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	if hx {
		req.Header.Set("HX-Request", "true")
	}
	req.AddCookie(cookie)
	return ta.do(req)
}

func (r response) doc(t *testing.T) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// has asserts that sel matches at least one element and returns the selection.
func has(t *testing.T, d *goquery.Document, sel string) *goquery.Selection {
	t.Helper()
	s := d.Find(sel)
	if s.Length() == 0 {
		html, _ := d.Html()
		t.Fatalf("no %s in\n%s", sel, html)
	}
	return s
}

func TestHomePageShowsBriefFreshnessAndSections(t *testing.T) {
	ta, cookie := homeApp(t)
	resp := ta.get("/", "", cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("GET /: %s", resp)
	}
	d := resp.doc(t)
	has(t, d, `[data-testid="brief-text"]`)
	if n := d.Find(`[data-testid="chip"]`).Length(); n != 3 {
		t.Errorf("evidence chips %d, want 3", n)
	}
	// The short content hash is the operator's, one tap away.
	if got := has(t, d, `[data-testid="evidence-detail"] code`).Eq(2).Text(); got != "4a4a4a4a" {
		t.Errorf("short content hash %q", got)
	}
	if job := has(t, d, `[data-testid="freshness-job"]`).Text(); job != "the daily brief" {
		t.Errorf("freshness job %q", job)
	}
	for _, sec := range []string{"routine", "focus", "optional"} {
		has(t, d, `[data-testid="section-`+sec+`"] li[data-row]`)
	}
	if d.Find(`li[data-id="stretch-`+testDate+`"]`).Length() != 0 {
		t.Error("a collapsed routine shows its steps")
	}
	open := ta.get("/?open=morning-routine-"+testDate, "", cookie).doc(t)
	if open.Find(`li[data-id="stretch-`+testDate+`"]`).Parents().Filter(`li[data-id="morning-routine-`+testDate+`"]`).Length() != 1 {
		t.Error("routine step not nested in its open routine")
	}
	if st := resp.header.Get("Server-Timing"); !strings.HasPrefix(st, "app;dur=") {
		t.Errorf("Server-Timing %q", st)
	}
	if csp := resp.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	if d.Find(`[style]`).Length() > 0 || d.Find(`script:not([src])`).Length() > 0 {
		t.Error("inline style attribute or inline script on Home")
	}
}

func TestRowFragmentsCompactAndExpandedForEveryKind(t *testing.T) {
	ta, cookie := homeApp(t)
	cases := []struct {
		id, kind string
		controls []string
	}{
		{"book-bike-service", "task", []string{`[data-testid="complete"]`, `[data-testid="skip"]`, `[data-testid="defer-tomorrow"]`, `[data-testid="defer-date"]`, `[data-testid="dismiss"]`}},
		{"weigh-in-" + testDate, "measurement", []string{`input[inputmode="decimal"][data-testid="measurement-input"]`, `[data-testid="measurement-save"]`, `.unit`}},
		{"morning-routine-" + testDate, "routine", []string{`[data-testid="steps"] li[data-row]`, `[data-testid="skip-routine"]`, `meter`}},
		{"reply-ana-hike", "reply", []string{`textarea[data-testid="draft-body"]`, `input[type="radio"][name="candidate"]`, `[data-testid="review-link"]`, `[data-testid="draft-save"]`}},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			ta := ta.in(t)
			compact := ta.ownerRequest(http.MethodGet, "/activities/"+tc.id+"?expanded=false", nil, true, cookie)
			if compact.status != http.StatusOK {
				t.Fatalf("compact: %s", compact)
			}
			d := compact.doc(t)
			row := has(t, d, `li[data-testid="row"][data-kind="`+tc.kind+`"][data-expanded="false"]`)
			if row.Find(`[data-testid="control-`+tc.kind+`"]`).Length() != 0 {
				t.Error("compact row carries its control")
			}
			if href, _ := row.Find(`a.row-head`).Attr("hx-get"); href != "/activities/"+tc.id+"?expanded=true" {
				t.Errorf("compact head toggles to %q", href)
			}
			expanded := ta.ownerRequest(http.MethodGet, "/activities/"+tc.id+"?expanded=true", nil, true, cookie)
			d = expanded.doc(t)
			has(t, d, `li[data-testid="row"][data-expanded="true"] [data-testid="control-`+tc.kind+`"]`)
			for _, sel := range tc.controls {
				has(t, d, sel)
			}
			if href, ok := d.Find(`[data-testid="review-link"]`).Attr("href"); ok && href != "/messages/%21ana-okafor:beeper.local#draft-draft-ana-hike" {
				t.Errorf("review link %q", href)
			}
		})
	}
	if p := has(t, ta.ownerRequest(http.MethodGet, "/activities/morning-routine-"+testDate+"?expanded=false", nil, true, cookie).doc(t), `[data-testid="progress"]`).Text(); p != "0/2" {
		t.Errorf("routine progress %q", p)
	}
}

func TestRowWithoutHTMXRedirectsToHomeWithRowOpen(t *testing.T) {
	ta, cookie := homeApp(t)
	resp := ta.ownerRequest(http.MethodGet, "/activities/book-bike-service?expanded=true", nil, false, cookie)
	if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/?open=book-bike-service#row-book-bike-service" {
		t.Fatalf("got %s location %q", resp, resp.header.Get("Location"))
	}
	d := ta.get("/?open=book-bike-service", "", cookie).doc(t)
	has(t, d, `li[data-id="book-bike-service"][data-expanded="true"] [data-testid="control-task"]`)
}

func TestMeasurementRejectsBadInputInlineAndSavesNothing(t *testing.T) {
	ta, cookie := homeApp(t)
	id := "weigh-in-" + testDate
	for _, tc := range []struct{ input, message string }{
		{"heavy", "Enter a number"},
		{"7000", "between 20 and 400 kg"},
		{"", "Enter a number"},
	} {
		before := ta.revision()
		resp := ta.ownerRequest(http.MethodPost, "/activities/"+id+"/measurement", url.Values{"value": {tc.input}}, true, cookie)
		if resp.status != http.StatusUnprocessableEntity {
			t.Fatalf("%q: %s", tc.input, resp)
		}
		d := resp.doc(t)
		if msg := has(t, d, `[data-testid="measurement-error"]`).Text(); !strings.Contains(msg, tc.message) {
			t.Errorf("%q: error %q, want %q", tc.input, msg, tc.message)
		}
		if v, _ := d.Find(`[data-testid="measurement-input"]`).Attr("value"); v != tc.input {
			t.Errorf("%q: input not echoed (%q)", tc.input, v)
		}
		if ta.revision() != before {
			t.Errorf("%q: a rejected value changed the revision", tc.input)
		}
	}
}

func TestMeasurementSaveAndCorrectionKeepHistoryAndDrawSparkline(t *testing.T) {
	ta, cookie := homeApp(t)
	id := "weigh-in-" + testDate
	resp := ta.ownerRequest(http.MethodPost, "/activities/"+id+"/measurement", url.Values{"value": {"72,4"}}, true, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("save: %s", resp)
	}
	if saved := has(t, resp.doc(t), `[data-testid="measurement-saved"]`).Text(); !strings.Contains(saved, "72.4 kg") {
		t.Errorf("saved %q", saved)
	}
	resp = ta.ownerRequest(http.MethodPost, "/activities/"+id+"/measurement", url.Values{"value": {"72.1"}}, true, cookie)
	if saved := has(t, resp.doc(t), `[data-testid="measurement-saved"]`).Text(); !strings.Contains(saved, "72.1 kg") || !strings.Contains(saved, "correction") {
		t.Errorf("correction %q", saved)
	}
	// The next day's weigh-in shows yesterday's value and a sparkline once two days have values.
	ta.clock.Advance(24 * time.Hour)
	next := "2026-09-30"
	pub := minimalPublication("run-2", ta.revision())
	pub["activities"] = []any{map[string]any{"id": "weigh-in-" + next, "kind": "measurement", "title": "Weigh in", "evidenceIds": []any{},
		"occurrenceKey": next + "@Europe/Berlin", "payload": map[string]any{"metric": "weight", "unit": "kg"}}}
	ta.mustPublish(ta.agentToken(), pub.JSON())
	d := ta.ownerRequest(http.MethodGet, "/activities/weigh-in-"+next+"?expanded=true", nil, true, cookie).doc(t)
	if last := has(t, d, `[data-testid="measurement-last"]`).Text(); !strings.Contains(last, "72.1 kg") {
		t.Errorf("last value %q", last)
	}
	ta.ownerRequest(http.MethodPost, "/activities/weigh-in-"+next+"/measurement", url.Values{"value": {"71.8"}}, true, cookie)
	d = ta.ownerRequest(http.MethodGet, "/activities/weigh-in-"+next+"?expanded=true", nil, true, cookie).doc(t)
	if points, _ := has(t, d, `[data-testid="sparkline"] polyline`).Attr("points"); len(strings.Fields(points)) != 2 {
		t.Errorf("sparkline points %q, want 2 (the correction replaced the first value)", points)
	}
}

func TestTaskActionsAnswerFragmentOrRedirect(t *testing.T) {
	ta, cookie := homeApp(t)
	resp := ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"completed"}}, true, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("complete: %s", resp)
	}
	has(t, resp.doc(t), `li[data-id="book-bike-service"][data-state="completed"] [data-testid="settled"]`)
	d := ta.get("/", "", cookie).doc(t)
	has(t, d, `[data-testid="done-today"] li[data-id="book-bike-service"]`)

	resp = ta.ownerRequest(http.MethodPost, "/activities/stretch-"+testDate+"/state", url.Values{"state": {"deferred"}, "until": {"2026-09-30"}}, false, cookie)
	if resp.status != http.StatusSeeOther || !strings.HasPrefix(resp.header.Get("Location"), "/?open=morning-routine-"+testDate+"%2Cstretch-") {
		t.Fatalf("plain form: %s %q", resp, resp.header.Get("Location"))
	}
}

func TestOwnerActionErrors(t *testing.T) {
	ta, cookie := homeApp(t)
	cases := []struct {
		name, path string
		form       url.Values
		status     int
		message    string
	}{
		{"unknown state", "/activities/book-bike-service/state", url.Values{"state": {"finished"}}, 422, "State must be one of"},
		{"defer without date", "/activities/book-bike-service/state", url.Values{"state": {"deferred"}}, 422, "date is needed"},
		{"bad defer date", "/activities/book-bike-service/state", url.Values{"state": {"deferred"}, "until": {"soon"}}, 422, "YYYY-MM-DD"},
		{"empty draft", "/drafts/draft-ana-hike/edit?activity=reply-ana-hike", url.Values{"body": {"  "}}, 422, "nothing to send yet"},
		{"measurement on a task", "/activities/book-bike-service/measurement", url.Values{"value": {"70"}}, 422, "not a measurement"},
		{"measurement marked complete", "/activities/weigh-in-" + testDate + "/state", url.Values{"state": {"completed"}}, 422, "completed by saving its value"},
		{"reply marked complete", "/activities/reply-ana-hike/state", url.Values{"state": {"completed"}}, 422, "completed by a confirmed send"},
		{"task marked partial", "/activities/book-bike-service/state", url.Values{"state": {"partial"}}, 422, "Only a routine"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			before := ta.revision()
			resp := ta.ownerRequest(http.MethodPost, tc.path, tc.form, true, cookie)
			if resp.status != tc.status {
				t.Fatalf("got %s", resp)
			}
			if msg := has(t, resp.doc(t), `[role="alert"]`).Text(); !strings.Contains(msg, tc.message) {
				t.Errorf("message %q, want %q", msg, tc.message)
			}
			if ta.revision() != before {
				t.Error("a rejected action changed the revision")
			}
		})
	}
	assertError(t, ta.ownerRequest(http.MethodPost, "/activities/nope/state", url.Values{"state": {"completed"}}, true, cookie), 404, "not_found")
	assertError(t, ta.ownerRequest(http.MethodGet, "/activities/nope?expanded=true", nil, true, cookie), 404, "not_found")
}

func TestDraftEditIsSavedAsOwnersAndSurvivesRepublication(t *testing.T) {
	ta, cookie := homeApp(t)
	resp := ta.ownerRequest(http.MethodPost, "/drafts/draft-ana-hike/edit?activity=reply-ana-hike",
		url.Values{"body": {"Saturday works, see you at 8!"}, "candidate": {"yes-early"}}, true, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("edit: %s", resp)
	}
	has(t, resp.doc(t), `[data-testid="draft-edited"]`)
	pub := validPublication("run-2", ta.revision())
	ta.mustPublish(ta.agentToken(), pub.JSON())
	d := ta.ownerRequest(http.MethodGet, "/activities/reply-ana-hike?expanded=true", nil, true, cookie).doc(t)
	if body := has(t, d, `[data-testid="draft-body"]`).Text(); body != "Saturday works, see you at 8!" {
		t.Errorf("editor holds %q after re-publication", body)
	}
}

func TestLiveFragmentCarriesRevisionAndKeepsOpenRows(t *testing.T) {
	ta, cookie := homeApp(t)
	d := ta.ownerRequest(http.MethodGet, "/home/live?open=book-bike-service", nil, true, cookie).doc(t)
	live := has(t, d, `#live`)
	if rev, _ := live.Attr("data-revision"); rev != "1" {
		t.Errorf("data-revision %q", rev)
	}
	has(t, d, `li[data-id="book-bike-service"][data-expanded="true"]`)
}

func TestStaticFilesAreHashedAndRevalidated(t *testing.T) {
	ta := newTestApp(t)
	hash := static.Hash("hearth.css")
	resp := ta.get(static.URL("hearth.css"), "", nil)
	if resp.status != 200 || !strings.Contains(resp.header.Get("Cache-Control"), "immutable") || resp.header.Get("ETag") != `"`+hash+`"` {
		t.Fatalf("versioned: %d %q %q", resp.status, resp.header.Get("Cache-Control"), resp.header.Get("ETag"))
	}
	req := httptest.NewRequest(http.MethodGet, "/static/hearth.css", nil)
	req.Header.Set("If-None-Match", `"`+hash+`"`)
	if r := ta.do(req); r.status != http.StatusNotModified {
		t.Fatalf("revalidation: %d", r.status)
	}
	if r := ta.get("/static/nope.js", "", nil); r.status != 404 {
		t.Fatalf("unknown file: %d", r.status)
	}
	if r := ta.get("/static/manifest.webmanifest", "", nil); r.header.Get("Content-Type") != "application/manifest+json" {
		t.Fatalf("manifest type %q", r.header.Get("Content-Type"))
	}
}

func TestLoginFormRefusesCrossOriginPost(t *testing.T) {
	ta := newTestApp(t, withOwner())
	req := loginRequest(ownerPassphrase)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
}

func TestEventsStreamRevisionsAndForgetDisconnectedSubscribers(t *testing.T) {
	hub := handlers.NewHub()
	ta, cookie := homeApp(t, withConfig(handlers.Config{Hub: hub, Heartbeat: 50 * time.Millisecond}))
	ta.store.SetNotifier(hub)
	base := ta.listen()

	client := sse.NewClient(base + "/events")
	client.Headers["Cookie"] = cookie.Name + "=" + cookie.Value
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan *sse.Event, 16)
	go client.SubscribeRawWithContext(ctx, func(ev *sse.Event) {
		if len(ev.Data) > 0 { // comment and retry frames arrive as empty events
			events <- ev
		}
	})
	next := func() string {
		select {
		case ev := <-events:
			if string(ev.Event) != "revision" {
				t.Fatalf("event %q", ev.Event)
			}
			return string(ev.Data)
		case <-time.After(5 * time.Second):
			t.Fatal("no event within 5 s")
		}
		return ""
	}
	if got := next(); got != `{"revision":1,"changed":[]}` {
		t.Fatalf("first event %s", got)
	}
	resp := ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"completed"}}, true, cookie)
	if resp.status != 200 {
		t.Fatal(resp)
	}
	// A commit's event carries its server time (at), for commit → screen.
	got := next()
	var ev struct {
		At string `json:"at"`
	}
	if json.Unmarshal([]byte(got), &ev) != nil {
		t.Fatalf("after owner action: %s", got)
	}
	at, err := time.Parse(time.RFC3339Nano, ev.At)
	if err != nil || at.After(time.Now()) {
		t.Fatalf("after owner action: at %q (%v), want the commit's server time", ev.At, err)
	}
	if want := `{"revision":2,"since":2,"changed":["activity:book-bike-service"],"at":"` + ev.At + `"}`; got != want {
		t.Fatalf("after owner action: %s, want %s", got, want)
	}
	if hub.Subscribers() != 1 {
		t.Fatalf("subscribers %d", hub.Subscribers())
	}
	cancel()
	poll.Eventually(t, 5*time.Second, func() (bool, string) {
		return hub.Subscribers() == 0, "subscriber still registered after disconnect"
	})
}

func TestPeopleListsPublishedPeople(t *testing.T) {
	ta, cookie := homeApp(t)
	d := ta.get("/people", "", cookie).doc(t)
	if n := d.Find(`[data-testid="person"]`).Length(); n != 2 {
		t.Errorf("people %d, want 2", n)
	}
	ana := has(t, d, `#person-ana-okafor`)
	if ana.Find(`[data-testid="chip"]`).Length() != 2 || ana.Find(`[data-testid="person-activities"] a[href*="reply-ana-hike"]`).Length() != 1 ||
		ana.Find(`[data-testid="person-conversations"] a[href^="/messages/%21ana-okafor"]`).Length() != 1 {
		html, _ := ana.Html()
		t.Errorf("Ana's card lacks evidence, activity or conversation:\n%s", html)
	}
	assertPage(t, ta.get("/messages", "", cookie), http.StatusServiceUnavailable, "No Beeper is configured")
}

func TestEveryHomeResponseCarriesItsOwnAskRequestID(t *testing.T) {
	ta, cookie := homeApp(t)
	askID := func() string {
		id, _ := has(t, ta.get("/", "", cookie).doc(t), `[data-testid="ask-form"] input[name="requestId"]`).Attr("value")
		return id
	}
	phone, laptop := askID(), askID() // the second is served from the page cache
	if phone == laptop || !strings.HasPrefix(phone, "req-") || !strings.HasPrefix(laptop, "req-") {
		t.Fatalf("two devices got request IDs %q and %q", phone, laptop)
	}
	for id, note := range map[string]string{phone: "Call the dentist", laptop: "Buy bike lights"} {
		form := url.Values{"requestId": {id}, "kind": {"note"}, "text": {note}, "return": {"/"}}
		if r := ta.ownerRequest(http.MethodPost, "/requests", form, false, cookie); r.status != http.StatusSeeOther {
			t.Fatalf("note %q from its own page: %s", note, r)
		}
	}
}

func TestRowFragmentComputesTomorrowInTheOwnersZone(t *testing.T) {
	ta, cookie := homeApp(t)
	// 00:30 on Sept 30 in Berlin (the brief's zone) is still Sept 29 in UTC.
	ta.clock.Advance(time.Date(2026, 9, 29, 22, 30, 0, 0, time.UTC).Sub(testNow))
	d := ta.ownerRequest(http.MethodGet, "/activities/book-bike-service?expanded=true", nil, true, cookie).doc(t)
	if until, _ := has(t, d, `[data-testid="defer-tomorrow"]`).Parent().Find(`input[name="until"]`).Attr("value"); until != "2026-10-01" {
		t.Fatalf("Tomorrow defers to %q, want 2026-10-01", until)
	}
	home := ta.get("/?open=book-bike-service", "", cookie).doc(t)
	if until, _ := has(t, home, `li[data-id="book-bike-service"] input[type="date"]`).Attr("min"); until != "2026-10-01" {
		t.Fatalf("Home's defer date picker starts at %q", until)
	}
}

func TestAPlainFormOnARoutineStepLandsWithTheRoutineOpen(t *testing.T) {
	ta, cookie := homeApp(t)
	step := "stretch-" + testDate
	resp := ta.ownerRequest(http.MethodPost, "/activities/"+step+"/state", url.Values{"state": {"completed"}}, false, cookie)
	loc := resp.header.Get("Location")
	if resp.status != http.StatusSeeOther || !strings.Contains(loc, url.QueryEscape("morning-routine-"+testDate+","+step)) {
		t.Fatalf("redirect %d %q: want the routine and the step open", resp.status, loc)
	}
	u, _ := url.Parse(loc)
	d := ta.get(u.RequestURI(), "", cookie).doc(t)
	has(t, d, `li[data-id="`+step+`"][data-state="completed"]`)
}
