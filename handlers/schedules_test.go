package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/internal/contract"
	"hearth/models"
)

// schedReq sends a schedule API request as token (agent) or cookie (owner).
func (ta *testApp) schedReq(method, path, token string, cookie *http.Cookie, body string) response {
	ta.t.Helper()
	var req *http.Request
	if body == "" {
		req = httptest.NewRequest(method, path, nil)
	} else {
		req = httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return ta.do(req)
}

// schedJSON is a create body for a daily 08:00 UTC schedule.
func schedJSON(key, id string) string {
	return `{"requestKey":"` + key + `","id":"` + id + `","job":"morning","cron":"0 8 * * *","zone":"UTC","prompt":"Write the morning brief.\nThen the list."}`
}

func (ta *testApp) mustCreateSchedule(token, key, id string) {
	ta.t.Helper()
	if r := ta.schedReq(http.MethodPost, "/api/schedules", token, nil, schedJSON(key, id)); r.status != http.StatusCreated {
		ta.t.Fatalf("create %s: %s", id, r)
	}
}

func TestSchedulesAPIAuthority(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	ops := ta.agentToken(models.ScopeSchedulesAdmin)
	agent := ta.agentToken() // the default scopes: context:read, results:publish, schedules:read
	contextOnly := ta.agentToken(models.ScopeContextRead)
	revokedID, revokedToken := ta.agentCredential(models.ScopeSchedulesAdmin)
	if _, err := ta.store.RevokeCredential(context.Background(), revokedID); err != nil {
		t.Fatal(err)
	}
	ta.mustCreateSchedule(ops, "k-seed", "seed")

	type who struct {
		name   string
		token  string
		cookie *http.Cookie
	}
	nobody, owner := who{"nobody", "", nil}, who{"owner", "", cookie}
	opsW, agentW, ctxW, revokedW := who{"ops", ops, nil}, who{"agent", agent, nil}, who{"context-only", contextOnly, nil}, who{"revoked", revokedToken, nil}
	cases := []struct {
		who          who
		method, path string
		body         string
		status       int
		scope        string // requiredScope of a 403
	}{
		{nobody, "GET", "/api/schedules", "", 401, ""},
		{revokedW, "GET", "/api/schedules", "", 401, ""},
		{ctxW, "GET", "/api/schedules", "", 403, models.ScopeSchedulesRead},
		{ctxW, "GET", "/api/schedules/due", "", 403, models.ScopeSchedulesRead},
		{agentW, "GET", "/api/schedules", "", 200, ""},
		{agentW, "GET", "/api/schedules/due", "", 200, ""},
		{agentW, "GET", "/api/schedules/seed/next", "", 200, ""},
		{agentW, "POST", "/api/schedules", schedJSON("k-agent", "by-agent"), 403, models.ScopeSchedulesAdmin},
		{agentW, "POST", "/api/schedules/seed/cancel", "", 403, models.ScopeSchedulesAdmin},
		{revokedW, "POST", "/api/schedules", schedJSON("k-revoked", "by-revoked"), 401, ""},
		{nobody, "POST", "/api/schedules", schedJSON("k-nobody", "by-nobody"), 401, ""},
		{opsW, "GET", "/api/schedules", "", 200, ""},
		{opsW, "GET", "/api/schedules/due", "", 200, ""},
		{opsW, "POST", "/api/schedules", schedJSON("k-ops", "by-ops"), 201, ""},
		{owner, "GET", "/api/schedules", "", 200, ""},
		{owner, "POST", "/api/schedules", schedJSON("k-owner", "by-owner"), 201, ""},
		{owner, "POST", "/api/schedules/by-owner/cancel", "", 200, ""},
		{opsW, "POST", "/api/schedules/by-ops/cancel", "", 200, ""},
		// The agent may not use the owner's page or its forms either.
		{agentW, "GET", "/schedules", "", 403, ""},
		{opsW, "POST", "/schedules/seed/cancel", "", 403, ""},
		{opsW, "POST", "/schedules/seed/approve", "", 403, ""},
	}
	for _, tc := range cases {
		t.Run(tc.who.name+" "+tc.method+" "+tc.path, func(t *testing.T) {
			r := ta.in(t).schedReq(tc.method, tc.path, tc.who.token, tc.who.cookie, tc.body)
			switch {
			case tc.status == 401:
				assertError(t, r, 401, "unauthorized")
			case tc.status == 403:
				env := assertError(t, r, 403, "forbidden")
				if tc.scope != "" && env.Details["requiredScope"] != tc.scope {
					t.Errorf("requiredScope %v, want %s", env.Details["requiredScope"], tc.scope)
				}
			case r.status != tc.status:
				t.Fatalf("got %s, want %d", r, tc.status)
			}
		})
	}
	// Who created what is the authenticated identity, never a body field.
	list := listSchedules(t, ta, agent)
	by := map[string]models.ScheduleView{}
	for _, v := range list.Schedules {
		by[v.ID] = v
	}
	if by["by-owner"].CreatedBy.Kind != "owner" || by["by-ops"].CreatedBy.Kind != "operator" || by["by-ops"].CreatedBy.Name == "" {
		t.Errorf("creators: owner %+v, ops %+v", by["by-owner"].CreatedBy, by["by-ops"].CreatedBy)
	}
	if _, ok := by["by-agent"]; ok {
		t.Error("a schedules:read credential created a schedule")
	}
	// A cross-origin post from a browser is refused even with the owner's cookie.
	req := httptest.NewRequest(http.MethodPost, "/api/schedules/seed/cancel", nil)
	req.AddCookie(cookie)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	assertError(t, ta.do(req), 403, "forbidden")
}

func listSchedules(t *testing.T, ta *testApp, token string) models.ScheduleList {
	t.Helper()
	r := ta.schedReq(http.MethodGet, "/api/schedules", token, nil, "")
	if r.status != http.StatusOK {
		t.Fatalf("list: %s", r)
	}
	var list models.ScheduleList
	if err := json.Unmarshal(r.body, &list); err != nil {
		t.Fatal(err)
	}
	return list
}

func TestScheduleCreateAndCancelAPI(t *testing.T) {
	ta := newTestApp(t)
	ops := ta.agentToken(models.ScopeSchedulesAdmin)
	at := testNow.Add(2 * time.Hour).Format(time.RFC3339)
	body := `{"requestKey":"k1","job":"dentist","at":"` + at + `","clientZone":"Europe/Berlin","prompt":"Remind me of the dentist."}`

	r := ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, body)
	if r.status != http.StatusCreated {
		t.Fatalf("create: %s", r)
	}
	var receipt map[string]any
	json.Unmarshal(r.body, &receipt)
	for _, k := range []string{"scheduleId", "requestKey", "job", "state", "fingerprint", "zone", "zoneSource", "nextDueAt", "createdAt", "createdBy", "revision"} {
		if _, ok := receipt[k]; !ok {
			t.Errorf("receipt lacks %s: %s", k, r.body)
		}
	}
	if receipt["zoneSource"] != "client" || receipt["nextDueAt"] != testNow.Add(2*time.Hour).In(mustZone(t, "Europe/Berlin")).Format(time.RFC3339) {
		t.Errorf("receipt = %s", r.body)
	}
	id := receipt["scheduleId"].(string)

	// The same key and body: the original receipt, even after the time passed.
	ta.clock.Advance(3 * time.Hour)
	if again := ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, body); again.status != http.StatusOK || !bytes.Equal(again.body, r.body) {
		t.Fatalf("replay: %s, want 200 with %s", again, r.body)
	}
	assertError(t, ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, strings.Replace(body, "dentist.", "doctor.", 1)), 409, "idempotency_conflict")
	env := assertError(t, ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, strings.Replace(body, "k1", "k2", 1)), 422, "invalid_request")
	if errs := fieldErrors(t, env); errs[0].Path != "/at" || !strings.Contains(errs[0].Message, "future") {
		t.Errorf("past at: %+v", errs)
	}
	// A file's or body's claim of authority is just an unknown field.
	env = assertError(t, ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, strings.Replace(body, `"job"`, `"approvedBy":"owner","job"`, 1)), 422, "invalid_request")
	if errs := fieldErrors(t, env); errs[0].Path != "/approvedBy" {
		t.Errorf("approvedBy: %+v", errs)
	}
	assertError(t, ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, `{"requestKey":"k3",`), 400, "malformed_json")

	// Cancel: idempotent, the schedule stays listed, and its ID never revives.
	c1 := ta.schedReq(http.MethodPost, "/api/schedules/"+id+"/cancel", ops, nil, "")
	var res map[string]any
	if c1.status != 200 || json.Unmarshal(c1.body, &res) != nil || res["state"] != "cancelled" || res["runningOccurrence"] != nil || res["alreadyCancelled"] != false {
		t.Fatalf("cancel: %s", c1)
	}
	c2 := ta.schedReq(http.MethodPost, "/api/schedules/"+id+"/cancel", ops, nil, "")
	if c2.status != 200 || !strings.Contains(string(c2.body), `"alreadyCancelled":true`) {
		t.Fatalf("second cancel: %s", c2)
	}
	revive := strings.NewReplacer("k1", "k-revive", `"job"`, `"id":"`+id+`","job"`, at, testNow.Add(5*time.Hour).Format(time.RFC3339)).Replace(body)
	env = assertError(t, ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, revive), 409, "schedule_exists")
	if env.Details["state"] != "cancelled" || env.Details["scheduleId"] != id {
		t.Errorf("schedule_exists details = %v", env.Details)
	}
	if list := listSchedules(t, ta, ops); len(list.Schedules) != 1 || list.Schedules[0].State != "cancelled" {
		t.Errorf("list after cancel = %+v", list)
	}
	assertError(t, ta.schedReq(http.MethodPost, "/api/schedules/nope/cancel", ops, nil, ""), 404, "not_found")
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func TestScheduleDueAndNextAreReadOnly(t *testing.T) {
	ta := newTestApp(t)
	ops := ta.agentToken(models.ScopeSchedulesAdmin)
	agent := ta.agentToken()
	ta.mustCreateSchedule(ops, "k", "daily")
	rev := ta.revision()

	r := ta.schedReq(http.MethodGet, "/api/schedules/due", agent, nil, "")
	if r.status != 200 || string(r.body) != `{"now":"2026-09-29T07:00:00Z","due":[],"held":[]}` {
		t.Fatalf("due now: %s", r)
	}
	for range 2 {
		r = ta.schedReq(http.MethodGet, "/api/schedules/due?now=2026-09-29T10:00:00%2B02:00", agent, nil, "")
		var rep contract.DueReport
		if r.status != 200 || json.Unmarshal(r.body, &rep) != nil || len(rep.Due) != 1 || rep.Due[0].OccurrenceID != "daily/2026-09-29T08:00:00Z" || rep.Due[0].Prompt == "" {
			t.Fatalf("due at 08:00Z: %s", r)
		}
	}
	if ta.revision() != rev {
		t.Error("due changed the revision")
	}
	if list := listSchedules(t, ta, agent); list.Schedules[0].Counters.Admitted != 0 || list.Schedules[0].Outstanding != nil {
		t.Errorf("due admitted: %+v", list.Schedules[0])
	}
	env := assertError(t, ta.schedReq(http.MethodGet, "/api/schedules/due?now=tomorrow", agent, nil, ""), 422, "invalid_request")
	if errs := fieldErrors(t, env); errs[0].Path != "now" {
		t.Errorf("errors = %+v", errs)
	}

	r = ta.schedReq(http.MethodGet, "/api/schedules/daily/next?from=2026-10-01T00:00:00Z&count=2", agent, nil, "")
	if r.status != 200 || string(r.body) != `{"scheduleId":"daily","zone":"UTC","zoneSource":"explicit","next":[{"dueAt":"2026-10-01T08:00:00Z"},{"dueAt":"2026-10-02T08:00:00Z"}],"skipped":[]}` {
		t.Fatalf("next: %s", r)
	}
	assertError(t, ta.schedReq(http.MethodGet, "/api/schedules/daily/next?count=0", agent, nil, ""), 422, "invalid_request")
	assertError(t, ta.schedReq(http.MethodGet, "/api/schedules/daily/next?count=101", agent, nil, ""), 422, "invalid_request")
	assertError(t, ta.schedReq(http.MethodGet, "/api/schedules/nope/next", agent, nil, ""), 404, "not_found")
}

// definitionPath is a schedule's file in the test app's data dir.
func (ta *testApp) definitionPath(id string) string {
	return filepath.Join(ta.store.DataDir(), "schedules", "definitions", id+".md")
}

// schedulePage GETs /schedules as the owner.
func schedulePage(t *testing.T, ta *testApp, cookie *http.Cookie) response {
	t.Helper()
	r := ta.get("/schedules", "", cookie)
	if r.status != http.StatusOK {
		t.Fatalf("GET /schedules: %s", r)
	}
	return r
}

func TestSchedulesPageQuarantineNeedsTheOwnersApproval(t *testing.T) {
	cases := []struct {
		name, reason string
		breakFile    func(t *testing.T, p string)
		mendFile     func(t *testing.T, p string, original []byte)
		approvable   bool // Approve again is offered while it is broken
	}{
		{"edited", "changed", func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte("0 8 * * *"), []byte("0 3 * * *"), 1), 0o600)
		}, nil, true},
		{"symlinked", "symlink", func(t *testing.T, p string) {
			elsewhere := filepath.Join(t.TempDir(), "x.md")
			os.Rename(p, elsewhere)
			os.Symlink(elsewhere, p)
		}, func(t *testing.T, p string, original []byte) {
			os.Remove(p)
			os.WriteFile(p, original, 0o600)
		}, false},
		{"missing", "missing", func(t *testing.T, p string) { os.Remove(p) },
			func(t *testing.T, p string, original []byte) { os.WriteFile(p, original, 0o600) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := newTestApp(t, withOwner())
			cookie := ta.login()
			ops := ta.agentToken(models.ScopeSchedulesAdmin)
			ta.mustCreateSchedule(ops, "k", "q")
			p := ta.definitionPath("q")
			original, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()

			d := schedulePage(t, ta, cookie).doc(t)
			row := has(t, d, `[data-testid="schedule"][data-id="q"]`)
			if row.AttrOr("data-state", "") != "active" || row.Find(`[data-testid="approve-schedule"]`).Length() != 0 ||
				!strings.Contains(row.Find(`[data-testid="schedule-zone"]`).Text(), "UTC (chosen)") ||
				!strings.Contains(row.Find(`[data-testid="schedule-next"]`).Text(), "08:00") {
				t.Fatalf("healthy row: %s", must(row.Html()))
			}
			has(t, d, `nav a[href="/more"][aria-current="page"]`)

			tc.breakFile(t, p)
			ta.clock.Advance(time.Hour + time.Minute) // 08:01Z: due
			if a, err := ta.store.ClaimSchedule(ctx, "q", "runner"); err != nil || a.Admitted != nil || a.Hold != "quarantined" {
				t.Fatalf("claim of a %s file = %+v, %v", tc.name, a, err)
			}
			d = schedulePage(t, ta, cookie).doc(t)
			row = has(t, d, `[data-testid="schedule"][data-id="q"]`)
			if row.AttrOr("data-state", "") != "quarantined" || row.Find(`[data-testid="schedule-file-problem"]`).Length() != 1 {
				t.Fatalf("quarantined row: %s", must(row.Html()))
			}
			if got := row.Find(`[data-testid="approve-schedule"]`).Length() == 1; got != tc.approvable {
				t.Fatalf("Approve again offered = %v, want %v: %s", got, tc.approvable, must(row.Html()))
			}
			if tc.name == "edited" {
				// The owner reads what changed in words; the raw diff is one tap away, for the operator.
				changes := row.Find(`[data-testid="schedule-changes"]`)
				raw := changes.Find(`details[data-testid="schedule-changes-detail"]`).Text()
				shown := changes.Clone()
				shown.Find("details").Remove()
				words := strings.Join(strings.Fields(shown.Text()), " ")
				if !strings.Contains(words, "Timing: every day at 08:00 (UTC) → every day at 03:00 (UTC)") ||
					strings.Contains(words, "cron") || strings.Contains(words, "* * *") || strings.Contains(words, "timing") {
					t.Errorf("what changed, as the owner reads it: %q", words)
				}
				if !strings.Contains(raw, "timing") || !strings.Contains(raw, "cron 0 8 * * *") || !strings.Contains(raw, "cron 0 3 * * *") {
					t.Errorf("what changed, in the details: %q", raw)
				}
			}
			if tc.mendFile != nil {
				tc.mendFile(t, p, original)
				// Putting the file back does not lift the quarantine.
				if a, _ := ta.store.ClaimSchedule(ctx, "q", "runner"); a.Admitted != nil {
					t.Fatalf("claim after the file was put back = %+v", a)
				}
				row = has(t, schedulePage(t, ta, cookie).doc(t), `[data-testid="schedule"][data-id="q"]`)
			}
			fp := row.Find(`[data-testid="schedule-review"] input[name="fingerprint"]`).AttrOr("value", "")
			if fp == "" {
				t.Fatalf("no fingerprint to approve: %s", must(row.Html()))
			}

			// Only the owner approves; an agent or operator credential is refused.
			req := httptest.NewRequest(http.MethodPost, "/schedules/q/approve", strings.NewReader(url.Values{"fingerprint": {fp}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", "Bearer "+ops)
			assertError(t, ta.do(req), 403, "forbidden")
			// A fingerprint the page did not show is refused.
			if r := ta.ownerRequest(http.MethodPost, "/schedules/q/approve", url.Values{"fingerprint": {"sha256:" + strings.Repeat("0", 64)}}, false, cookie); r.status != http.StatusConflict {
				t.Fatalf("approve of another fingerprint: %s", r)
			}
			if a, _ := ta.store.ClaimSchedule(ctx, "q", "runner"); a.Admitted != nil {
				t.Fatalf("claim before approval = %+v", a)
			}
			r := ta.ownerRequest(http.MethodPost, "/schedules/q/approve", url.Values{"fingerprint": {fp}}, false, cookie)
			if r.status != http.StatusSeeOther || r.header.Get("Location") != "/schedules#schedule-q" {
				t.Fatalf("approve: %s", r)
			}
			row = has(t, schedulePage(t, ta, cookie).doc(t), `[data-testid="schedule"][data-id="q"]`)
			if row.AttrOr("data-state", "") != "active" || row.Find(`[data-testid="schedule-review"]`).Length() != 0 {
				t.Fatalf("approved row: %s", must(row.Html()))
			}
			ta.clock.Advance(24 * time.Hour)
			if a, err := ta.store.ClaimSchedule(ctx, "q", "runner"); err != nil || a.Admitted == nil {
				t.Fatalf("claim after approval = %+v, %v", a, err)
			}
		})
	}
}

func must(s string, err error) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// outsideDetails is what the owner reads of sel without opening a details
// element, in single spaces.
func outsideDetails(sel *goquery.Selection) string {
	shown := sel.Clone()
	shown.Find("details").Remove()
	return text(shown)
}

// TestSchedulesPageTellsAFileProblemInWords: a quarantine's reason and the
// file's problem read in words; the raw reason, the validator's message (with
// its cron strings) and a file mode are only in the row's Details.
func TestSchedulesPageTellsAFileProblemInWords(t *testing.T) {
	cases := []struct {
		name      string
		breakFile func(t *testing.T, p string)
		reason    string   // the owner's words for why it was held
		raw       []string // only inside Details
	}{
		{"invalid cron", func(t *testing.T, p string) {
			b, _ := os.ReadFile(p)
			os.WriteFile(p, bytes.Replace(b, []byte("0 8 * * *"), []byte("0 99 * * *"), 1), 0o600)
		}, "the definition file was not a valid definition", []string{"invalid", "0 99 * * *", "schedules: cron"}},
		{"symlink", func(t *testing.T, p string) {
			elsewhere := filepath.Join(t.TempDir(), "x.md")
			os.Rename(p, elsewhere)
			os.Symlink(elsewhere, p)
		}, "the definition file was a symbolic link", []string{"symlink"}},
		{"directory", func(t *testing.T, p string) {
			os.Remove(p)
			os.Mkdir(p, 0o700)
		}, "the definition file was not a regular file", []string{"not_regular", "mode drwx"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := newTestApp(t, withOwner())
			cookie := ta.login()
			ta.mustCreateSchedule(ta.agentToken(models.ScopeSchedulesAdmin), "k", "q")
			tc.breakFile(t, ta.definitionPath("q"))
			ta.clock.Advance(time.Hour + time.Minute)
			if a, err := ta.store.ClaimSchedule(context.Background(), "q", "runner"); err != nil || a.Hold != "quarantined" {
				t.Fatalf("claim = %+v, %v", a, err)
			}
			row := has(t, schedulePage(t, ta, cookie).doc(t), `[data-testid="schedule"][data-id="q"]`)
			words, details := outsideDetails(row), text(row.Find(`[data-testid="schedule-detail"]`))
			if got := text(row.Find(`[data-testid="schedule-reason"]`)); got != tc.reason {
				t.Errorf("reason %q, want %q", got, tc.reason)
			}
			for _, raw := range tc.raw {
				if strings.Contains(words, raw) {
					t.Errorf("the owner reads %q: %q", raw, words)
				}
				if !strings.Contains(details, raw) {
					t.Errorf("Details lack %q: %q", raw, details)
				}
			}
		})
	}
}

func TestSchedulesPageCancelsAndShowsCancelledOnes(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	if d := schedulePage(t, ta, cookie).doc(t); d.Find(`[data-testid="schedules-empty"]`).Length() != 1 {
		t.Error("empty page lacks its note")
	}
	ops := ta.agentToken(models.ScopeSchedulesAdmin)
	ta.mustCreateSchedule(ops, "k", "c")
	rev := ta.revision()
	r := ta.ownerRequest(http.MethodPost, "/schedules/c/cancel", nil, false, cookie)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/schedules#schedule-c" {
		t.Fatalf("cancel: %s", r)
	}
	if ta.revision() != rev+1 {
		t.Error("cancel did not bump the revision")
	}
	row := has(t, schedulePage(t, ta, cookie).doc(t), `[data-testid="schedule"][data-id="c"]`)
	if row.AttrOr("data-state", "") != "cancelled" || row.Find(`[data-testid="cancel-schedule"]`).Length() != 0 ||
		!strings.Contains(row.Find(`[data-testid="schedule-reason"]`).Text(), "cancelled by owner") {
		t.Fatalf("cancelled row: %s", must(row.Html()))
	}
	if r := ta.ownerRequest(http.MethodPost, "/schedules/nope/cancel", nil, false, cookie); r.status != http.StatusNotFound {
		t.Errorf("cancel of an unknown schedule: %s", r)
	}
}
