package handlers_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/models"
)

func TestAgentContextAfterPublication(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	credID, token := ta.agentCredential()

	empty := ta.get("/api/agent-context", token, nil)
	if empty.status != http.StatusOK {
		t.Fatalf("empty context: %s", empty)
	}
	for pointer, want := range map[string]any{
		"/revision": float64(0), "/people/items": []any{}, "/activities/items": []any{},
		"/replyDrafts/items": []any{}, "/measurements/items": []any{}, "/activities/truncated": false,
	} {
		if got := jsonAt(t, empty.body, pointer); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("empty %s = %v, want %v", pointer, got, want)
		}
	}

	ta.mustPublish(token, validPublication("run-demo", 0).JSON())
	resp := ta.get("/api/agent-context", token, nil)
	if resp.status != http.StatusOK || resp.header.Get("X-Request-Id") == "" {
		t.Fatalf("context: %s (X-Request-Id %q)", resp, resp.header.Get("X-Request-Id"))
	}
	for pointer, want := range map[string]any{
		"/revision":                            float64(1),
		"/generatedAt":                         testNow.Format(time.RFC3339),
		"/brief/date":                          testDate,
		"/brief/timeZone":                      "Europe/Berlin",
		"/brief/evidenceIds/1":                 "beeper-ana-chat",
		"/brief/revision":                      float64(1),
		"/people/items/0/id":                   "ana-okafor",
		"/people/items/1/name":                 "Tomas Lindqvist",
		"/people/truncated":                    false,
		"/activities/truncated":                false,
		"/replyDrafts/items/0/id":              "draft-ana-hike",
		"/replyDrafts/items/0/candidates/1/id": "yes-short",
		"/replyDrafts/items/0/personId":        "ana-okafor",
		"/lastPublication/runId":               "run-demo",
		"/lastPublication/jobKey":              "daily-brief",
		"/lastPublication/publisher":           credID,
		"/lastPublication/revision":            float64(1),
		"/lastPublication/receivedAt":          testNow.Format(time.RFC3339),
	} {
		if got := jsonAt(t, resp.body, pointer); got != want {
			t.Errorf("%s = %v, want %v", pointer, got, want)
		}
	}

	items := jsonAt(t, resp.body, "/activities/items").([]any)
	byID := map[string]any{}
	for _, it := range items {
		byID[valueAt(t, it, "/id").(string)] = it
		if state := valueAt(t, it, "/userState/state"); state != models.StateAvailable {
			t.Errorf("activity %v: userState.state %v, want available", valueAt(t, it, "/id"), state)
		}
	}
	wantIDs := []string{"book-bike-service", "morning-routine-" + testDate, "reply-ana-hike", "stretch-" + testDate, "weigh-in-" + testDate}
	if got := slices.Sorted(func(yield func(string) bool) {
		for id := range byID {
			if !yield(id) {
				return
			}
		}
	}); !slices.Equal(got, wantIDs) {
		t.Fatalf("activity IDs %v, want %v", got, wantIDs)
	}
	weigh := byID["weigh-in-"+testDate]
	for pointer, want := range map[string]any{
		"/kind": "measurement", "/parentId": "morning-routine-" + testDate, "/payload/unit": "kg",
		"/occurrenceKey": testDate + "@Europe/Berlin", "/recommendation/section": "routine", "/detail": "Before breakfast.",
	} {
		if got := valueAt(t, weigh, pointer); got != want {
			t.Errorf("weigh-in %s = %v, want %v", pointer, got, want)
		}
	}
	if got := valueAt(t, byID["reply-ana-hike"], "/payload/draftId"); got != "draft-ana-hike" {
		t.Errorf("reply payload draftId %v", got)
	}
}

func TestAgentContextPagesRejectBadInput(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	cases := []struct {
		name   string
		path   string
		status int
		code   string
	}{
		{name: "cursor that is not base64url", path: "/api/agent-context/activities?cursor=" + url.QueryEscape("!!!"), status: 422, code: "invalid_request"},
		{name: "cursor too long", path: "/api/agent-context/people?cursor=" + base64.RawURLEncoding.EncodeToString(make([]byte, 300)), status: 422, code: "invalid_request"},
		{name: "measurement cursor that is not an ID", path: "/api/agent-context/measurements?cursor=" + base64.RawURLEncoding.EncodeToString([]byte("abc")), status: 422, code: "invalid_request"},
		{name: "unknown collection", path: "/api/agent-context/nope", status: 404, code: "not_found"},
		{name: "unknown collection with cursor", path: "/api/agent-context/nope?cursor=" + base64.RawURLEncoding.EncodeToString([]byte("x")), status: 404, code: "not_found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			env := assertError(t, ta.get(tc.path, token, nil), tc.status, tc.code)
			if tc.status == http.StatusNotFound && fmt.Sprint(env.Details["allowed"]) != fmt.Sprint(contract.ContextCollections) {
				t.Errorf("details %v: want the allowed collections %v", env.Details, contract.ContextCollections)
			}
		})
	}
}

func TestAgentContextRejectsForgedCursor(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	for _, cursor := range []string{
		"bad", // valid base64url, but not a cursor this server issued
		base64.RawURLEncoding.EncodeToString([]byte("people:p1")),               // another collection's cursor
		base64.RawURLEncoding.EncodeToString([]byte("measurements:12abc")),      // a non-numeric measurement key
		base64.RawURLEncoding.EncodeToString([]byte("activities:-1:task-0001")), // a revision that cannot be
	} {
		collection := "activities"
		if strings.HasPrefix(cursor, base64.RawURLEncoding.EncodeToString([]byte("measurements"))[:12]) {
			collection = "measurements"
		}
		assertError(t, ta.get("/api/agent-context/"+collection+"?cursor="+cursor, token, nil), http.StatusUnprocessableEntity, "invalid_request")
	}
}

func TestAgentContextNeedsContextScope(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	publishOnly := ta.agentToken(models.ScopeResultsPublish)
	cookie := ta.login()
	for _, path := range []string{"/api/agent-context", "/api/agent-context/activities"} {
		env := assertError(t, ta.get(path, publishOnly, nil), http.StatusForbidden, "forbidden")
		if env.Details["requiredScope"] != models.ScopeContextRead {
			t.Errorf("%s: details %v", path, env.Details)
		}
		assertError(t, ta.get(path, "", nil), http.StatusUnauthorized, "unauthorized")
		assertError(t, ta.get(path, "", cookie), http.StatusForbidden, "forbidden")
	}
}

func TestAgentContextPagesThroughAllActivities(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	const total = 600
	publishTasks(ta, token, total)

	resp := ta.get("/api/agent-context", token, nil)
	if resp.status != http.StatusOK {
		t.Fatalf("context: %s", resp)
	}
	first := jsonAt(t, resp.body, "/activities")
	seen := map[string]int{}
	var order []string
	collect := func(page any) {
		for _, it := range valueAt(t, page, "/items").([]any) {
			id := valueAt(t, it, "/id").(string)
			seen[id]++
			order = append(order, id)
		}
	}
	collect(first)
	if n := len(valueAt(t, first, "/items").([]any)); n != contract.ContextPageSize {
		t.Fatalf("first page has %d activities, want %d", n, contract.ContextPageSize)
	}
	page, pages := first, 1
	for valueAt(t, page, "/truncated") == true {
		cursor, _ := valueAt(t, page, "/nextCursor").(string)
		if cursor == "" {
			t.Fatalf("page %d is truncated without nextCursor", pages)
		}
		resp := ta.get("/api/agent-context/activities?cursor="+url.QueryEscape(cursor), token, nil)
		if resp.status != http.StatusOK {
			t.Fatalf("page %d: %s", pages+1, resp)
		}
		page = jsonAt(t, resp.body, "")
		collect(page)
		if pages++; pages > 10 {
			t.Fatal("paging does not end")
		}
	}
	if pages != 2 {
		t.Errorf("%d pages, want 2", pages)
	}
	if _, ok := page.(map[string]any)["nextCursor"]; ok {
		t.Errorf("last page has a nextCursor: %v", page.(map[string]any)["nextCursor"])
	}
	if len(seen) != total || len(order) != total {
		t.Fatalf("%d distinct of %d activities seen, want %d", len(seen), len(order), total)
	}
	for i := range total {
		if id := fmt.Sprintf("task-%04d", i); seen[id] != 1 {
			t.Errorf("%s seen %d times", id, seen[id])
		}
	}
	if !slices.IsSorted(order) {
		t.Error("activities are not in one stable order across pages")
	}
}

// publishTasks publishes total tasks task-0000… in two publications (a
// publication holds at most 500), leaving the workspace at revision 2.
func publishTasks(ta *testApp, token string, total int) {
	ta.t.Helper()
	for p := range 2 {
		d := minimalPublication(fmt.Sprintf("run-page-%d", p), int64(p))
		acts := make([]any, total/2)
		for i := range acts {
			// Interleave the two publications' IDs so each page mixes them.
			acts[i] = taskActivity(fmt.Sprintf("task-%04d", 2*i+p))
		}
		d.Set(ta.t, "/activities", acts)
		ta.mustPublish(token, d.JSON())
	}
}

func TestContextCursorFromOlderRevisionIsConflict(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	publishTasks(ta, token, 600)
	first := ta.get("/api/agent-context", token, nil)
	if first.status != http.StatusOK || jsonAt(t, first.body, "/revision") != float64(2) {
		t.Fatalf("context: %s", first)
	}
	cursor, _ := jsonAt(t, first.body, "/activities/nextCursor").(string)
	if cursor == "" {
		t.Fatal("the first page of 600 activities has no nextCursor")
	}
	page2 := "/api/agent-context/activities?cursor=" + url.QueryEscape(cursor)
	if r := ta.get(page2, token, nil); r.status != http.StatusOK || len(jsonAt(t, r.body, "/items").([]any)) != 100 {
		t.Fatalf("page 2 at the same revision: %s", r)
	}

	// An owner decision commits revision 3; page 2 of revision 2 is gone.
	if _, err := ta.store.SetActivityState(t.Context(), "task-0550", models.StateDismissed, "", ""); err != nil {
		t.Fatal(err)
	}
	env := assertError(t, ta.get(page2, token, nil), http.StatusConflict, "revision_conflict")
	if env.Details["currentRevision"] != float64(3) || env.Details["cursorRevision"] != float64(2) {
		t.Errorf("details %v, want currentRevision 3 and cursorRevision 2", env.Details)
	}
	// A cursor this server never issued is still a bad request, not a conflict.
	assertError(t, ta.get("/api/agent-context/activities?cursor=garbage", token, nil), http.StatusUnprocessableEntity, "invalid_request")
}

// TestAgentContextIsCachedUntilACommitAWriteOrTheMinute: between commits
// the context is the same bytes (generatedAt included: it says when the
// snapshot was read); a publication, an observation (a write without a
// revision) and a new minute each give a fresh read; full and compact are
// kept apart.
func TestAgentContextIsCachedUntilACommitAWriteOrTheMinute(t *testing.T) {
	ta := newTestApp(t)
	token := ta.agentToken("context:read", "results:publish", "observations:write")
	read := func(compact bool) string {
		t.Helper()
		path := "/api/agent-context"
		if compact {
			path += "?compact=true"
		}
		r := ta.get(path, token, nil)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %s (%s)", path, r, r.header.Get("Content-Type"))
		}
		return string(r.body)
	}
	first := read(false)
	ta.clock.Advance(time.Second)
	if again := read(false); again != first {
		t.Fatalf("between commits the context changed:\n%s\n%s", first, again)
	}
	if compact := read(true); compact == first {
		t.Fatal("the compact context is the full one")
	}

	ta.mustPublish(token, validPublication("run-cache", 0).JSON())
	afterPublish := read(false)
	if afterPublish == first || jsonAt(t, []byte(afterPublish), "/revision") != float64(1) {
		t.Fatalf("after a publication: %s", afterPublish)
	}

	obs := `{"source":"mail:work","ref":"m1","changeType":"created","actor":"agent","payload":{"kind":"mail","providerId":"work","raw":{"subject":"hi"}}}`
	req := httptest.NewRequest(http.MethodPost, "/api/observations", strings.NewReader(obs))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if r := ta.do(req); r.status != http.StatusOK {
		t.Fatalf("observation: %s", r)
	}
	afterObservation := read(false)
	if items := jsonAt(t, []byte(afterObservation), "/observations/items"); fmt.Sprint(items) == "[]" {
		t.Fatalf("the observation is missing from the context after it arrived: %s", afterObservation)
	}

	ta.clock.Advance(time.Minute)
	if later := read(false); jsonAt(t, []byte(later), "/generatedAt") == jsonAt(t, []byte(afterObservation), "/generatedAt") {
		t.Fatal("a new minute served the cached context")
	}
}
