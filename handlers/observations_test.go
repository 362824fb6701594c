package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/strictjson"
	"hearth/models"
)

// mailObservation is a valid observation of one mail message.
func mailObservation(ref, subject string) doc {
	return doc{
		"source": "mail:work", "ref": ref, "changeType": "created", "actor": "agent",
		"payload": map[string]any{"kind": "mail", "providerId": "work@example.com",
			"raw": map[string]any{"subject": subject, "from": "ana@example.com", "date": "2026-09-29T06:00:00Z"}},
	}
}

// postObservation posts body to path (the single or the batch endpoint) with token.
func (ta *testApp) postObservation(path, token string, body []byte) response {
	ta.t.Helper()
	return ta.ownerJSON(path, string(body), nil, token)
}

// observationReceipt is the 200 body of POST /api/observations.
type observationReceipt struct {
	Action        string `json:"action"`
	ContentHash   string `json:"contentHash"`
	ObservationID int64  `json:"observationId"`
}

// mustObserve posts d and fails unless it is recorded with action.
func (ta *testApp) mustObserve(token string, d doc, action string) observationReceipt {
	ta.t.Helper()
	resp := ta.postObservation("/api/observations", token, d.JSON())
	if resp.status != http.StatusOK {
		ta.t.Fatalf("observe: %s", resp)
	}
	var rc observationReceipt
	dec := json.NewDecoder(bytes.NewReader(resp.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rc); err != nil {
		ta.t.Fatalf("receipt %s: %v", resp, err)
	}
	if rc.Action != action || rc.ObservationID < 1 || !strings.HasPrefix(rc.ContentHash, "sha256:") || len(rc.ContentHash) != 71 {
		ta.t.Fatalf("receipt %+v, want action %s with an ID and a sha256 hash", rc, action)
	}
	return rc
}

// pendingObservations reads the first page of the context's observations.
func (ta *testApp) pendingObservations(token string) []contract.ObservationView {
	ta.t.Helper()
	resp := ta.get("/api/agent-context", token, nil)
	if resp.status != http.StatusOK {
		ta.t.Fatalf("context: %s", resp)
	}
	var ac contract.AgentContext
	if err := json.Unmarshal(resp.body, &ac); err != nil {
		ta.t.Fatal(err)
	}
	return ac.Observations.Items
}

func TestObservationOfNewRefIsCreatedWithHashHearthComputes(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	rc := ta.mustObserve(token, mailObservation("<m1@example.com>", "Lunch?"), "created")

	// The hash is RFC 8785 over {source, payload}: the same document with
	// other key order and whitespace, hashed independently, agrees.
	want, err := strictjson.Hash([]byte(`{ "payload": {"raw": {"date": "2026-09-29T06:00:00Z", "from": "ana@example.com", "subject": "Lunch?"},
		"providerId": "work@example.com", "kind": "mail"}, "source": "mail:work" }`))
	if err != nil || rc.ContentHash != want {
		t.Errorf("contentHash %s, want %s (%v)", rc.ContentHash, want, err)
	}
	got := ta.pendingObservations(token)
	if len(got) != 1 || got[0].ObservationID != rc.ObservationID || got[0].Ref != "<m1@example.com>" || got[0].ContentHash != want ||
		got[0].Actor != "agent" || got[0].ChangeType != "created" || got[0].Payload.Kind != "mail" ||
		string(got[0].Payload.Raw) != `{"date":"2026-09-29T06:00:00Z","from":"ana@example.com","subject":"Lunch?"}` {
		t.Fatalf("pending observations %+v", got)
	}
	// Observations are input, not state the owner acts on: no new revision,
	// so a publication built on an earlier read is still current.
	if rev := ta.revision(); rev != 0 {
		t.Errorf("revision %d after an observation, want 0", rev)
	}
	ta.mustPublish(token, minimalPublication("run-after-observation", 0).JSON())
}

func TestObservationWithChangedPayloadIsModifiedAndKeepsEarlierVersion(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	first := ta.mustObserve(token, mailObservation("m1", "Lunch?"), "created")
	changed := mailObservation("m1", "Lunch on Friday?")
	changed["changeType"] = "modified"
	second := ta.mustObserve(token, changed, "modified")
	if second.ObservationID == first.ObservationID || second.ContentHash == first.ContentHash {
		t.Fatalf("modified %+v, created %+v: want a new ID and hash", second, first)
	}
	// Back to the first content is a change too: dedup is against the latest.
	ta.mustObserve(token, mailObservation("m1", "Lunch?"), "modified")
	// Another ref with the same content is its own observation.
	ta.mustObserve(token, mailObservation("m2", "Lunch?"), "created")

	got := ta.pendingObservations(token)
	if len(got) != 4 || got[0].ObservationID != first.ObservationID || got[1].ObservationID != second.ObservationID {
		t.Fatalf("pending %+v: want every version in id order", got)
	}
}

func TestIdenticalPendingObservationIsDuplicateAndWritesNothing(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	rc := ta.mustObserve(token, mailObservation("m1", "Lunch?"), "created")

	// Same content with another key order, whitespace, changeType: one canonical hash.
	same := []byte(`{"actor":"agent","changeType":"modified","payload":{"raw":{"subject":"Lunch?","date":"2026-09-29T06:00:00Z",
		"from":"ana@example.com"},"providerId":"work@example.com","kind":"mail"},"ref":"m1","source":"mail:work"}`)
	env := assertError(t, ta.postObservation("/api/observations", token, same), http.StatusConflict, "duplicate")
	if env.Details["observationId"] != float64(rc.ObservationID) || env.Details["status"] != "pending" || env.Details["contentHash"] != rc.ContentHash {
		t.Errorf("details %v, want the pending observation %d and its hash", env.Details, rc.ObservationID)
	}
	if got := ta.pendingObservations(token); len(got) != 1 {
		t.Fatalf("%d observations stored after a duplicate, want 1", len(got))
	}
}

func TestObservationFromUserIsRefused(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	d := mailObservation("m1", "Lunch?")
	d["actor"] = "user"
	errs := fieldErrors(t, assertError(t, ta.postObservation("/api/observations", token, d.JSON()), http.StatusUnprocessableEntity, "invalid_request"))
	if len(errs) != 1 || errs[0].Path != "/actor" || !strings.Contains(errs[0].Message, `"user" is refused`) {
		t.Fatalf("errors %+v, want one at /actor refusing user", errs)
	}
	if got := ta.pendingObservations(token); len(got) != 0 {
		t.Fatalf("stored %+v", got)
	}
}

func TestObservationCarryingItsOwnHashIsRefused(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	hash := "sha256:" + strings.Repeat("ab", 32)
	for _, tc := range []struct{ pointer, path string }{
		{"/contentHash", "/contentHash"},
		{"/payload/contentHash", "/payload/contentHash"},
		{"/hash", "/hash"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			ta := ta.in(t)
			d := mailObservation("m1", "Lunch?")
			d.Set(t, tc.pointer, hash)
			errs := fieldErrors(t, assertError(t, ta.postObservation("/api/observations", token, d.JSON()), http.StatusUnprocessableEntity, "invalid_request"))
			if len(errs) != 1 || errs[0].Path != tc.path || !strings.Contains(errs[0].Message, "hearth computes contentHash") {
				t.Fatalf("errors %+v, want one at %s saying hearth computes the hash", errs, tc.path)
			}
		})
	}
	// A hash inside raw is the provider's data, not a dedup key.
	d := mailObservation("m1", "Lunch?")
	d.Set(t, "/payload/raw/contentHash", hash)
	ta.mustObserve(token, d, "created")
}

func TestObservationsNeedObservationsWriteScope(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	defaultToken := ta.agentToken(models.DefaultScopes...)
	cookie := ta.login()
	single := mailObservation("m1", "Lunch?").JSON()
	batch := doc{"observations": []any{mailObservation("m1", "Lunch?")}}.JSON()
	for path, body := range map[string][]byte{"/api/observations": single, "/api/observations/batch": batch} {
		env := assertError(t, ta.postObservation(path, defaultToken, body), http.StatusForbidden, "forbidden")
		if env.Details["requiredScope"] != models.ScopeObservationsWrite {
			t.Errorf("%s: details %v, want requiredScope %s", path, env.Details, models.ScopeObservationsWrite)
		}
		assertError(t, ta.postObservation(path, "", body), http.StatusUnauthorized, "unauthorized")
		assertError(t, ta.ownerJSON(path, string(body), cookie, ""), http.StatusForbidden, "forbidden")
	}
	if got := ta.pendingObservations(ta.agentToken()); len(got) != 0 {
		t.Fatalf("stored %+v", got)
	}
	ta.mustObserve(ta.agentToken(models.ScopeObservationsWrite), mailObservation("m1", "Lunch?"), "created")
}

func TestObservationBoundsAreReportedWithPaths(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	big := strings.Repeat("x", contract.MaxObservationRawBytes)
	cases := []struct {
		name   string
		change func(t *testing.T, d doc)
		path   string
	}{
		{"source without integration key", func(t *testing.T, d doc) { d.Set(t, "/source", "work") }, "/source"},
		{"source with upper-case key", func(t *testing.T, d doc) { d.Set(t, "/source", "Mail:work") }, "/source"},
		{"source over 128", func(t *testing.T, d doc) { d.Set(t, "/source", "mail:"+strings.Repeat("a", 124)) }, "/source"},
		{"empty ref", func(t *testing.T, d doc) { d.Set(t, "/ref", "") }, "/ref"},
		{"ref with a space", func(t *testing.T, d doc) { d.Set(t, "/ref", "m 1") }, "/ref"},
		{"ref over 512", func(t *testing.T, d doc) { d.Set(t, "/ref", strings.Repeat("r", 513)) }, "/ref"},
		{"unknown changeType", func(t *testing.T, d doc) { d.Set(t, "/changeType", "updated") }, "/changeType"},
		{"unknown actor", func(t *testing.T, d doc) { d.Set(t, "/actor", "robot") }, "/actor"},
		{"kind outside the pattern", func(t *testing.T, d doc) { d.Set(t, "/payload/kind", "Mail!") }, "/payload/kind"},
		{"empty providerId", func(t *testing.T, d doc) { d.Set(t, "/payload/providerId", "") }, "/payload/providerId"},
		{"raw that is not an object", func(t *testing.T, d doc) { d.Set(t, "/payload/raw", []any{"a"}) }, "/payload/raw"},
		{"raw over 16 KiB canonical", func(t *testing.T, d doc) { d.Set(t, "/payload/raw", map[string]any{"body": big}) }, "/payload/raw"},
		{"unknown payload field", func(t *testing.T, d doc) { d.Set(t, "/payload/summary", "x") }, "/payload/summary"},
		{"null ref", func(t *testing.T, d doc) { d.Set(t, "/ref", nil) }, "/ref"},
		{"missing source", func(t *testing.T, d doc) { d.Del(t, "/source") }, "/source"},
		{"integer ref", func(t *testing.T, d doc) { d.Set(t, "/ref", 12) }, "/ref"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			d := mailObservation("m1", "Lunch?")
			tc.change(t, d)
			errs := fieldErrors(t, assertError(t, ta.postObservation("/api/observations", token, d.JSON()), http.StatusUnprocessableEntity, "invalid_request"))
			if len(errs) != 1 || errs[0].Path != tc.path || errs[0].Expected == "" {
				t.Fatalf("errors %+v, want one at %s with what is expected", errs, tc.path)
			}
		})
	}
	// Exactly at the bounds is accepted.
	d := mailObservation(strings.Repeat("r", contract.MaxRefLen), "Lunch?")
	d.Set(t, "/source", "mail:"+strings.Repeat("a", contract.MaxSourceLen-5))
	d.Set(t, "/payload/raw", map[string]any{"b": strings.Repeat("x", contract.MaxObservationRawBytes-len(`{"b":""}`))})
	ta.mustObserve(token, d, "created")
	if got := ta.pendingObservations(token); len(got) != 1 {
		t.Fatalf("%d stored, want only the one at the bounds", len(got))
	}
}

// batchResult is one item of the batch answer.
type batchResult struct {
	Index         int    `json:"index"`
	Status        int    `json:"status"`
	Action        string `json:"action"`
	ContentHash   string `json:"contentHash"`
	ObservationID int64  `json:"observationId"`
	Error         *struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

// batchAnswer is the 200 body of POST /api/observations/batch.
type batchAnswer struct {
	Results []batchResult  `json:"results"`
	Counts  map[string]int `json:"counts"`
}

func (ta *testApp) mustObserveBatch(token string, items ...any) batchAnswer {
	ta.t.Helper()
	if items == nil {
		items = []any{}
	}
	resp := ta.postObservation("/api/observations/batch", token, doc{"observations": items}.JSON())
	if resp.status != http.StatusOK {
		ta.t.Fatalf("batch: %s", resp)
	}
	var out batchAnswer
	dec := json.NewDecoder(bytes.NewReader(resp.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil || len(out.Results) != len(items) {
		ta.t.Fatalf("batch answer %s: %v", resp, err)
	}
	return out
}

func TestObservationBatchAnswersEachItemAndSeesEarlierItems(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	stored := ta.mustObserve(token, mailObservation("m0", "Stored before"), "created")

	user := mailObservation("m2", "By the owner?")
	user["actor"] = "user"
	hashed := mailObservation("m3", "With a hash")
	hashed["contentHash"] = "sha256:" + strings.Repeat("ab", 32)
	out := ta.mustObserveBatch(token,
		mailObservation("m1", "Lunch?"),          // 0 created
		user,                                     // 1 refused
		mailObservation("m1", "Lunch?"),          // 2 duplicate of item 0
		mailObservation("m1", "Lunch on Friday"), // 3 modified
		mailObservation("m0", "Stored before"),   // 4 duplicate of the stored one
		hashed,                                   // 5 refused
		"not an observation",                     // 6 refused
		mailObservation("m4", "Another"),         // 7 created
	)
	want := []struct {
		status int
		action string
		code   string
		path   string
	}{
		{200, "created", "", ""}, {422, "", "invalid_request", "/observations/1/actor"}, {409, "", "duplicate", ""},
		{200, "modified", "", ""}, {409, "", "duplicate", ""}, {422, "", "invalid_request", "/observations/5/contentHash"},
		{422, "", "invalid_request", "/observations/6"}, {200, "created", "", ""},
	}
	for i, w := range want {
		r := out.Results[i]
		if r.Index != i || r.Status != w.status || r.Action != w.action || (r.Error == nil) != (w.code == "") {
			t.Errorf("item %d: %+v, want status %d action %q code %q", i, r, w.status, w.action, w.code)
			continue
		}
		if r.Error != nil && r.Error.Code != w.code {
			t.Errorf("item %d: code %s, want %s", i, r.Error.Code, w.code)
		}
		if w.path != "" {
			raw, _ := json.Marshal(r.Error.Details["errors"])
			var errs []fieldError
			json.Unmarshal(raw, &errs)
			if len(errs) != 1 || errs[0].Path != w.path {
				t.Errorf("item %d: errors %s, want one at %s", i, raw, w.path)
			}
		}
	}
	if id := out.Results[2].Error.Details["observationId"]; id != float64(out.Results[0].ObservationID) {
		t.Errorf("in-batch duplicate names observation %v, want item 0's %d", id, out.Results[0].ObservationID)
	}
	if id := out.Results[4].Error.Details["observationId"]; id != float64(stored.ObservationID) {
		t.Errorf("duplicate of stored names %v, want %d", id, stored.ObservationID)
	}
	if fmt.Sprint(out.Counts) != "map[created:2 duplicate:2 invalid:3 modified:1]" {
		t.Errorf("counts %v", out.Counts)
	}
	if got := ta.pendingObservations(token); len(got) != 4 {
		t.Fatalf("%d pending, want 4 (one stored before, three recorded by the batch)", len(got))
	}
}

func TestObservationBatchEnvelopeErrorsRefuseTheWholeBatch(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	tooMany := make([]any, contract.MaxObservationBatch+1)
	for i := range tooMany {
		tooMany[i] = mailObservation(fmt.Sprintf("m%d", i), "Hello")
	}
	cases := []struct {
		name   string
		body   string
		status int
		code   string
		path   string
	}{
		{"over 500 items", string(doc{"observations": tooMany}.JSON()), 422, "invalid_request", "/observations"},
		{"unknown top-level field", `{"observations": [], "dryRun": true}`, 422, "invalid_request", "/dryRun"},
		{"missing observations", `{}`, 422, "invalid_request", "/observations"},
		{"null item", `{"observations": [null]}`, 422, "invalid_request", "/observations/0"},
		{"duplicate key", `{"observations": [], "observations": []}`, 400, "malformed_json", ""},
		{"not JSON", `{"observations": [`, 400, "malformed_json", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			env := assertError(t, ta.postObservation("/api/observations/batch", token, []byte(tc.body)), tc.status, tc.code)
			if tc.path != "" {
				if errs := fieldErrors(t, env); errs[0].Path != tc.path {
					t.Errorf("errors %+v, want the first at %s", errs, tc.path)
				}
			}
		})
	}
	if got := ta.pendingObservations(token); len(got) != 0 {
		t.Fatalf("stored %d", len(got))
	}
	if out := ta.mustObserveBatch(token); len(out.Results) != 0 {
		t.Fatalf("empty batch: %+v", out)
	}
}

func TestObservationConsumedByPublicationIsNotRecordedAgain(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	seen := ta.mustObserve(token, mailObservation("m1", "Lunch?"), "created")
	other := ta.mustObserve(token, mailObservation("m2", "Dinner?"), "created")

	p := minimalPublication("run-consume", 0)
	p["consumedObservations"] = []any{seen.ObservationID}
	rc := ta.mustPublish(token, p.JSON())
	if got := ta.pendingObservations(token); len(got) != 1 || got[0].ObservationID != other.ObservationID {
		t.Fatalf("pending after consuming %d: %+v", seen.ObservationID, got)
	}

	// The same content again: already consumed, nothing written.
	env := assertError(t, ta.postObservation("/api/observations", token, mailObservation("m1", "Lunch?").JSON()), http.StatusConflict, "duplicate")
	if env.Details["status"] != "consumed" || env.Details["consumedRunId"] != "run-consume" || env.Details["observationId"] != float64(seen.ObservationID) {
		t.Errorf("details %v, want the consumed observation and its run", env.Details)
	}
	// A change after consumption is new work.
	changed := ta.mustObserve(token, mailObservation("m1", "Lunch moved"), "modified")

	cases := []struct {
		name string
		ids  any
		path string
	}{
		{"already consumed", []any{seen.ObservationID}, "/consumedObservations/0"},
		{"unknown", []any{other.ObservationID, 999}, "/consumedObservations/1"},
		{"listed twice", []any{other.ObservationID, other.ObservationID}, "/consumedObservations/1"},
		{"not an ID", []any{0}, "/consumedObservations/0"},
		{"null", nil, "/consumedObservations"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			p := minimalPublication(fmt.Sprintf("run-bad-%d", i), rc.Revision)
			p["consumedObservations"] = tc.ids
			errs := fieldErrors(t, assertError(t, ta.publish(token, p.JSON()), http.StatusUnprocessableEntity, "invalid_result"))
			if len(errs) != 1 || errs[0].Path != tc.path {
				t.Fatalf("errors %+v, want one at %s", errs, tc.path)
			}
		})
	}
	if got := ta.pendingObservations(token); len(got) != 2 {
		t.Fatalf("a refused publication consumed something: %+v", got)
	}
	// Empty is valid and consumes nothing; then both pending ones go.
	p = minimalPublication("run-empty", rc.Revision)
	p["consumedObservations"] = []any{}
	rc = ta.mustPublish(token, p.JSON())
	p = minimalPublication("run-rest", rc.Revision)
	p["consumedObservations"] = []any{changed.ObservationID, other.ObservationID}
	ta.mustPublish(token, p.JSON())
	if got := ta.pendingObservations(token); len(got) != 0 {
		t.Fatalf("pending %+v, want none", got)
	}
}

func TestAgentContextListsPendingObservationsOnlyAndPagesThem(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	const total = 620
	var ids []int64
	for start := 0; start < total; start += contract.MaxObservationBatch {
		var items []any
		for i := start; i < min(start+contract.MaxObservationBatch, total); i++ {
			items = append(items, mailObservation(fmt.Sprintf("m%04d", i), "Hello"))
		}
		for _, r := range ta.mustObserveBatch(token, items...).Results {
			ids = append(ids, r.ObservationID)
		}
	}
	// Consume ten from the start: the context lists the other 610.
	p := minimalPublication("run-consume", 0)
	p["consumedObservations"] = []any{}
	for _, id := range ids[:10] {
		p["consumedObservations"] = append(p["consumedObservations"].([]any), id)
	}
	ta.mustPublish(token, p.JSON())

	resp := ta.get("/api/agent-context", token, nil)
	first := jsonAt(t, resp.body, "/observations")
	var seen []int64
	collect := func(page any) {
		for _, it := range valueAt(t, page, "/items").([]any) {
			seen = append(seen, int64(valueAt(t, it, "/observationId").(float64)))
		}
	}
	collect(first)
	if len(seen) != contract.ContextPageSize || valueAt(t, first, "/truncated") != true {
		t.Fatalf("first page: %d items, truncated %v", len(seen), valueAt(t, first, "/truncated"))
	}
	cursor := valueAt(t, first, "/nextCursor").(string)
	next := "/api/agent-context/observations?cursor=" + url.QueryEscape(cursor)
	page := ta.get(next, token, nil)
	if page.status != http.StatusOK || jsonAt(t, page.body, "/truncated") != false {
		t.Fatalf("page 2: %s", page)
	}
	collect(jsonAt(t, page.body, ""))
	if len(seen) != total-10 {
		t.Fatalf("%d observations over two pages, want %d", len(seen), total-10)
	}
	for i, id := range seen {
		if id != ids[10+i] {
			t.Fatalf("item %d is observation %d, want %d: pending only, in id order", i, id, ids[10+i])
		}
	}
	// A new observation does not move the revision, so the cursor still reads.
	ta.mustObserve(token, mailObservation("late", "Late"), "created")
	if r := ta.get(next, token, nil); r.status != http.StatusOK {
		t.Fatalf("page 2 after an observation: %s", r)
	}
	// A publication does: the cursor of the older revision is a conflict.
	ta.mustPublish(token, minimalPublication("run-next", ta.revision()).JSON())
	assertError(t, ta.get(next, token, nil), http.StatusConflict, "revision_conflict")
	// The first page is there without a cursor.
	if r := ta.get("/api/agent-context/observations", token, nil); r.status != http.StatusOK || len(jsonAt(t, r.body, "/items").([]any)) != contract.ContextPageSize {
		t.Fatalf("first page by collection: %s", r)
	}
}
