package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// ownerJSON posts body as the owner (or with token, as an agent).
func (ta *testApp) ownerJSON(path, body string, cookie *http.Cookie, token string) response {
	ta.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	if cookie != nil {
		req.AddCookie(cookie)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return ta.do(req)
}

func requestStatus(t *testing.T, ta *testApp, token, id string) string {
	t.Helper()
	resp := ta.get("/api/agent-context", token, nil)
	var ac struct {
		Requests struct {
			Items []struct{ RequestID, Status string }
		}
	}
	json.Unmarshal(resp.body, &ac)
	for _, r := range ac.Requests.Items {
		if r.RequestID == id {
			return r.Status
		}
	}
	return "" // the context lists pending requests only
}

// completion publishes a result completing requestID with the given refs.
func completion(t *testing.T, ta *testApp, runID, requestID string, refs []any, sourceRefs []any) doc {
	t.Helper()
	p := minimalPublication(runID, ta.revision())
	p["sourceRefs"] = sourceRefs
	p["completedRequests"] = []any{map[string]any{"requestId": requestID, "sourceRefIds": refs}}
	return p
}

var lifeRef = map[string]any{"id": "life-ana", "kind": "life", "path": "people/ana.md",
	"contentHash": "sha256:" + string(bytes.Repeat([]byte("ab"), 32)), "observedAt": "2026-09-29T06:00:00Z"}

func TestRequestLifecycleThroughHTTP(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	token := ta.agentToken()
	note := `{"requestId":"req-note-1","kind":"note","text":"Remind me to call the dentist"}`

	if r := ta.ownerJSON("/api/agent-requests", note, cookie, ""); r.status != http.StatusCreated {
		t.Fatalf("create: %s", r)
	}
	if r := ta.ownerJSON("/api/agent-requests", note, cookie, ""); r.status != http.StatusOK {
		t.Fatalf("identical replay: %s", r)
	}
	assertError(t, ta.ownerJSON("/api/agent-requests", `{"requestId":"req-note-1","kind":"note","text":"Something else"}`, cookie, ""),
		http.StatusConflict, "idempotency_conflict")
	if st := requestStatus(t, ta, token, "req-note-1"); st != "pending" {
		t.Fatalf("agent context shows %q", st)
	}

	// Completed by a publication that cites a source ref of its own.
	ta.mustPublish(token, completion(t, ta, "run-done", "req-note-1", []any{"life-ana"}, []any{lifeRef}).JSON())
	// The agent sees it completed (settled requests stay listed 14 days).
	if st := requestStatus(t, ta, token, "req-note-1"); st != "completed" {
		t.Fatalf("completed request shows as %q", st)
	}

	// Completing it again, an unknown one, or a cancelled one is 422 and writes nothing.
	ta.ownerJSON("/api/agent-requests", `{"requestId":"req-refresh","kind":"refresh","text":""}`, cookie, "")
	if r := ta.ownerJSON("/api/agent-requests/req-refresh/cancel", "", cookie, ""); r.status != http.StatusOK {
		t.Fatalf("cancel: %s", r)
	}
	assertError(t, ta.ownerJSON("/api/agent-requests/req-refresh/cancel", "", cookie, ""), http.StatusConflict, "not_pending")
	for _, id := range []string{"req-note-1", "req-unknown", "req-refresh"} {
		before := ta.revision()
		env := assertError(t, ta.publish(token, completion(t, ta, "run-"+id, id, []any{"life-ana"}, []any{lifeRef}).JSON()),
			http.StatusUnprocessableEntity, "invalid_result")
		if errs := fieldErrors(t, env); errs[0].Path != "/completedRequests/0/requestId" {
			t.Errorf("%s: %+v", id, errs)
		}
		if ta.revision() != before {
			t.Errorf("%s: a rejected completion wrote", id)
		}
	}
}

func TestCRMEditCompletionNeedsALifeRefWithAHashInThisPublication(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	token := ta.agentToken()
	edit := `{"requestId":"req-edit","kind":"crm-edit","entityId":"ana-okafor","text":"She moved","edit":{"field":"city","value":"Lisbon"}}`
	if r := ta.ownerJSON("/api/agent-requests", edit, cookie, ""); r.status != http.StatusCreated {
		t.Fatalf("create: %s", r)
	}
	beeperRef := map[string]any{"id": "chat-ana", "kind": "beeper", "accountId": "a", "chatId": "c", "observedAt": "2026-09-29T06:00:00Z"}
	env := assertError(t, ta.publish(token, completion(t, ta, "run-1", "req-edit", []any{"chat-ana"}, []any{beeperRef}).JSON()),
		http.StatusUnprocessableEntity, "invalid_result")
	if errs := fieldErrors(t, env); errs[0].Path != "/completedRequests/0/sourceRefIds" {
		t.Errorf("errors %+v", errs)
	}
	// A ref stored earlier but not in this publication does not count either.
	ta.mustPublish(token, func() doc {
		p := minimalPublication("run-refs", ta.revision())
		p["sourceRefs"] = []any{lifeRef}
		return p
	}().JSON())
	assertError(t, ta.publish(token, completion(t, ta, "run-2", "req-edit", []any{"life-ana"}, []any{}).JSON()),
		http.StatusUnprocessableEntity, "invalid_result")
	// Cited in this publication, a hash hearth already had completes it: the
	// correction may already have been true in life.
	ta.mustPublish(token, completion(t, ta, "run-3", "req-edit", []any{"life-ana"}, []any{lifeRef}).JSON())
}

func TestRequestsAreOwnerOnlyAndValidated(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	token := ta.agentToken()
	assertError(t, ta.ownerJSON("/api/agent-requests", `{"requestId":"r1","kind":"note","text":"x"}`, nil, token), http.StatusForbidden, "forbidden")
	assertError(t, ta.ownerJSON("/api/agent-requests/r1/cancel", "", nil, token), http.StatusForbidden, "forbidden")
	for _, body := range []string{
		`{"requestId":"r2","kind":"crm-edit","entityId":"p","text":"x"}`,               // no edit
		`{"requestId":"r3","kind":"note","text":""}`,                                   // empty note
		`{"requestId":"r4","kind":"reply-draft","text":"draft it"}`,                    // no chat
		`{"requestId":"r5","kind":"wish","text":"x"}`,                                  // unknown kind
		`{"requestId":"r6","kind":"note","text":"x","edit":{"field":"a","value":"b"}}`, // edit on a note
	} {
		assertError(t, ta.ownerJSON("/api/agent-requests", body, cookie, ""), http.StatusUnprocessableEntity, "invalid_request")
	}
	assertError(t, ta.ownerJSON("/api/agent-requests", `{"requestId":"r7","kind":"note","text":"x","text":"y"}`, cookie, ""),
		http.StatusBadRequest, "malformed_json")
	// The same body guard as publishing: an encoded body is refused, not inflated.
	req := httptest.NewRequest(http.MethodPost, "/api/agent-requests", strings.NewReader("\x1f\x8b"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	req.AddCookie(cookie)
	assertError(t, ta.do(req), http.StatusUnsupportedMediaType, "unsupported_media_type")
}

func TestAskFormMakesOnePendingRequestAndCancelSettlesIt(t *testing.T) {
	ta, cookie := homeApp(t)
	d := ta.get("/", "", cookie).doc(t)
	id, _ := has(t, d, `[data-testid="ask-form"] input[name="requestId"]`).Attr("value")
	form := url.Values{"requestId": {id}, "kind": {"note"}, "text": {"Book a table for Friday"}, "return": {"/"}}
	for range 2 { // a double submit is one request
		if r := ta.post("/requests", form, cookie); r.status != http.StatusSeeOther || r.header.Get("Location") != "/" {
			t.Fatalf("submit: %s %q", r, r.header.Get("Location"))
		}
	}
	// Home says a request once: in the waiting list, with the agent.
	d = ta.get("/", "", cookie).doc(t)
	req := has(t, d, `[data-testid="waiting-agent"] [data-testid="waiting-item"][data-status="pending"]`)
	if req.Length() != 1 || !strings.Contains(req.Text(), "Book a table") {
		t.Fatalf("pending requests on Home: %d %q", req.Length(), req.Text())
	}
	if n := d.Find(`main :is([data-testid="request"], #h-requests)`).Length(); n != 0 {
		t.Errorf("Home shows the request a second time, outside the waiting list (%d elements)", n)
	}
	if r := ta.post("/requests/"+id+"/cancel", url.Values{"return": {"/"}}, cookie); r.status != http.StatusSeeOther {
		t.Fatalf("cancel: %s", r)
	}
	d = ta.get("/", "", cookie).doc(t)
	done := has(t, d, `[data-testid="waiting-finished"] [data-testid="waiting-item"][data-status="cancelled"]`)
	if got := done.Find(`[data-testid="waiting-detail"]`).Text(); got != "cancelled by you" {
		t.Errorf("the cancelled request says %q, want %q", got, "cancelled by you")
	}
	if n := d.Find(`[data-testid="waiting-agent"] [data-testid="waiting-item"]`).Length(); n != 0 {
		t.Errorf("the cancelled request is still with the agent (%d items)", n)
	}
	if r := ta.post("/requests", url.Values{"requestId": {"req-x"}, "kind": {"note"}, "text": {""}}, cookie); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("empty note: %s", r)
	}
}

func TestCorrectionShowsPendingUntilAPublicationConfirmsIt(t *testing.T) {
	ta, cookie := homeApp(t)
	token := ta.agentToken()
	form := url.Values{"requestId": {"req-city"}, "kind": {"crm-edit"}, "entityId": {"ana-okafor"}, "field": {"city"}, "value": {"Lisbon"},
		"text": {"She moved in May"}, "return": {"/people#person-ana-okafor"}}
	ta.post("/requests", form, cookie)
	state := func() string {
		return has(t, ta.get("/people", "", cookie).doc(t), `#person-ana-okafor [data-testid="request"] [data-testid="request-state"]`).Text()
	}
	if got := state(); got != "pending" {
		t.Fatalf("before the agent: %q", got)
	}
	changed := map[string]any{"id": "life-ana-2", "kind": "life", "path": "people/ana-okafor.md",
		"contentHash": "sha256:" + strings.Repeat("ef", 32), "observedAt": "2026-09-29T06:30:00Z"}
	ta.mustPublish(token, completion(t, ta, "run-city", "req-city", []any{"life-ana-2"}, []any{changed}).JSON())
	if got := state(); got != "confirmed in life" {
		t.Fatalf("after the publication: %q", got)
	}
}

// TestNextURLRefusesProtocolRelativeHosts: a form's return address is followed
// only when it is a path on this site; anything a browser could read as
// another host sends the owner Home instead.
func TestNextURLRefusesProtocolRelativeHosts(t *testing.T) {
	ta, cookie := homeApp(t)
	cases := []struct{ ret, want string }{
		{"/", "/"},
		{"/people#person-ana-okafor", "/people#person-ana-okafor"},
		{"/messages/chat-1?before=x", "/messages/chat-1?before=x"},
		{"//evil.example", "/"},
		{`/\evil.example`, "/"},
		{`/\/evil.example`, "/"},
		{`\\evil.example`, "/"},
		{`\/evil.example`, "/"},
		{"/\t/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"/%2Fevil.example", "/"},
		{"/%5Cevil.example", "/"},
		{"/%252F/evil.example", "/"},
		{"https://evil.example/", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{" //evil.example", "/"},
		{"", "/"},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%q", tc.ret), func(t *testing.T) {
			ta := ta.in(t)
			id := fmt.Sprintf("req-next-%02d", i)
			form := url.Values{"requestId": {id}, "kind": {"note"}, "text": {"Call the dentist"}, "return": {tc.ret}}
			if r := ta.post("/requests", form, cookie); r.status != http.StatusSeeOther || r.header.Get("Location") != tc.want {
				t.Errorf("submit: %d Location %q, want 303 to %q", r.status, r.header.Get("Location"), tc.want)
			}
			if r := ta.post("/requests/"+id+"/cancel", url.Values{"return": {tc.ret}}, cookie); r.status != http.StatusSeeOther || r.header.Get("Location") != tc.want {
				t.Errorf("cancel: %d Location %q, want 303 to %q", r.status, r.header.Get("Location"), tc.want)
			}
		})
	}
}
