package handlers_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/contract/schema"
	"hearth/models"
)

// assertNothingWritten checks that a rejected publication left no trace: the
// revision is unchanged and runID is still free, so a valid publication under
// it is accepted as new (201), not replayed or refused as a conflict.
func assertNothingWritten(t *testing.T, ta *testApp, token, runID string, revBefore int64) {
	t.Helper()
	if rev := ta.revision(); rev != revBefore {
		t.Fatalf("revision %d after a rejected publication, want %d", rev, revBefore)
	}
	resp := ta.publish(token, validPublication(runID, revBefore).JSON())
	if resp.status != http.StatusCreated {
		t.Fatalf("valid publication under the rejected runId %q: got %s, want 201", runID, resp)
	}
	if r := decodeReceipt(t, resp); r.RunID != runID || r.Revision != revBefore+1 {
		t.Fatalf("receipt %+v, want runId %q revision %d", r, runID, revBefore+1)
	}
}

// gzipped compresses b.
func gzipped(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func TestPublishRejectsBadInputAndWritesNothing(t *testing.T) {
	t.Parallel()
	const routine = "morning-routine-" + testDate
	cases := []struct {
		name string
		// mutate edits the valid publication; raw, when set, rewrites its bytes afterwards.
		mutate func(t *testing.T, d doc)
		raw    func(valid []byte) []byte
		// header overrides request headers; an empty value removes the header.
		header map[string]string
		// overNetwork sends the request over a real connection, to show a
		// real client gets the response rather than a reset connection.
		overNetwork bool
		status      int
		code        string
		// path is details.path (400) or a details.errors[].path (422) that must be reported.
		path string
		// expected must be contained in that 422 error's expected (415: equal details.expected).
		expected string
	}{
		// 400: not one well-formed JSON value.
		{name: "not JSON", raw: func([]byte) []byte { return []byte("hello") }, status: 400, code: "malformed_json"},
		{name: "empty body", raw: func([]byte) []byte { return nil }, status: 400, code: "malformed_json"},
		{name: "truncated", raw: func(b []byte) []byte { return b[:len(b)/2] }, status: 400, code: "malformed_json"},
		{name: "trailing object", raw: func(b []byte) []byte { return append(b, "{}"...) }, status: 400, code: "malformed_json"},
		{name: "trailing garbage after whitespace", raw: func(b []byte) []byte { return append(b, "\n x"...) }, status: 400, code: "malformed_json"},
		{name: "duplicate top-level key", raw: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`{`), []byte(`{"jobKey":"again",`), 1)
		}, status: 400, code: "malformed_json", path: "/jobKey"},
		{name: "duplicate nested key", raw: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"title":"Morning routine"`), []byte(`"title":"x","title":"Morning routine"`), 1)
		}, status: 400, code: "malformed_json", path: "/activities/0/title"},
		{name: "duplicate key in payload", raw: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"payload":{"metric"`), []byte(`"payload":{"unit":"lb","metric"`), 1)
		}, status: 400, code: "malformed_json", path: "/activities/1/payload/unit"},
		{name: "invalid UTF-8", raw: func(b []byte) []byte {
			return bytes.Replace(b, []byte("Morning routine"), []byte("Morning \xff routine"), 1)
		}, status: 400, code: "malformed_json"},

		// 415 and 413: the envelope, before any parsing.
		{name: "text/plain", header: map[string]string{"Content-Type": "text/plain"}, status: 415, code: "unsupported_media_type"},
		{name: "form media type", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, status: 415, code: "unsupported_media_type"},
		{name: "no media type", header: map[string]string{"Content-Type": ""}, status: 415, code: "unsupported_media_type"},
		{name: "gzip content encoding", raw: gzipped, header: map[string]string{"Content-Encoding": "gzip"}, status: 415, code: "unsupported_media_type", expected: "identity"},
		{name: "body over 1 MiB", raw: func(b []byte) []byte {
			return append(b, bytes.Repeat([]byte(" "), contract.MaxBodyBytes)...)
		}, overNetwork: true, status: 413, code: "payload_too_large"},

		// 422: well-formed but not the contract.
		{name: "unknown top-level field", mutate: func(t *testing.T, d doc) { d.Set(t, "/notes", "hi") },
			status: 422, code: "invalid_result", path: "/notes", expected: "activities, brief, completedRequests"},
		{name: "unknown activity field", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/0/foo", 1) },
			status: 422, code: "invalid_result", path: "/activities/0/foo", expected: "kind"},
		{name: "unknown recommendation field", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/0/recommendation/weight", 2) },
			status: 422, code: "invalid_result", path: "/activities/0/recommendation/weight", expected: "section"},
		{name: "unknown payload field", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/1/payload/goal", 70) },
			status: 422, code: "invalid_result", path: "/activities/1/payload/goal", expected: "metric, unit"},
		{name: "field on an empty payload", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/2/payload/minutes", 10) },
			status: 422, code: "invalid_result", path: "/activities/2/payload/minutes"},
		{name: "null top-level", mutate: func(t *testing.T, d doc) { d.Set(t, "/brief", nil) },
			status: 422, code: "invalid_result", path: "/brief", expected: "object"},
		{name: "null required", mutate: func(t *testing.T, d doc) { d.Set(t, "/jobKey", nil) },
			status: 422, code: "invalid_result", path: "/jobKey", expected: "string"},
		{name: "null nested optional", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/1/detail", nil) },
			status: 422, code: "invalid_result", path: "/activities/1/detail"},
		{name: "null array element", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/0/evidenceIds/0", nil) },
			status: 422, code: "invalid_result", path: "/activities/0/evidenceIds/0"},
		{name: "null inside payload", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/1/payload/unit", nil) },
			status: 422, code: "invalid_result", path: "/activities/1/payload/unit"},
		{name: "null payload", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/4/payload", nil) },
			status: 422, code: "invalid_result", path: "/activities/4/payload"},
		{name: "missing jobKey", mutate: func(t *testing.T, d doc) { d.Del(t, "/jobKey") },
			status: 422, code: "invalid_result", path: "/jobKey", expected: "string"},
		{name: "missing empty array", mutate: func(t *testing.T, d doc) { d.Del(t, "/retractions") },
			status: 422, code: "invalid_result", path: "/retractions", expected: "array"},
		{name: "missing nested field", mutate: func(t *testing.T, d doc) { d.Del(t, "/activities/3/title") },
			status: 422, code: "invalid_result", path: "/activities/3/title"},
		{name: "missing payload", mutate: func(t *testing.T, d doc) { d.Del(t, "/activities/4/payload") },
			status: 422, code: "invalid_result", path: "/activities/4/payload"},
		{name: "wrong type", mutate: func(t *testing.T, d doc) { d.Set(t, "/expectedRevision", "0") },
			status: 422, code: "invalid_result", path: "/expectedRevision", expected: "integer"},
		{name: "fractional revision", mutate: func(t *testing.T, d doc) { d.Set(t, "/expectedRevision", 0.5) },
			status: 422, code: "invalid_result", path: "/expectedRevision", expected: "integer"},
		{name: "negative revision", mutate: func(t *testing.T, d doc) { d.Set(t, "/expectedRevision", -1) },
			status: 422, code: "invalid_result", path: "/expectedRevision"},
		{name: "title over 200 characters", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/2/title", strings.Repeat("é", 201)) },
			status: 422, code: "invalid_result", path: "/activities/2/title", expected: "200"},
		{name: "empty title", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/2/title", "  ") },
			status: 422, code: "invalid_result", path: "/activities/2/title"},
		{name: "501 activities", mutate: func(t *testing.T, d doc) {
			acts := make([]any, contract.MaxActivities+1)
			for i := range acts {
				acts[i] = taskActivity(fmt.Sprintf("task-%03d", i))
			}
			d.Set(t, "/activities", acts)
		}, status: 422, code: "invalid_result", path: "/activities", expected: "500"},
		{name: "duplicate activity ID", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/4/id", "reply-ana-hike") },
			status: 422, code: "invalid_result", path: "/activities/4/id"},
		{name: "runId with a space", mutate: func(t *testing.T, d doc) { d.Set(t, "/runId", "run 1") },
			status: 422, code: "invalid_result", path: "/runId", expected: "[A-Za-z0-9._:@-]"},
		{name: "runId with a slash", mutate: func(t *testing.T, d doc) { d.Set(t, "/runId", "run/1") },
			status: 422, code: "invalid_result", path: "/runId", expected: "[A-Za-z0-9._:@-]"},
		{name: "runId too long", mutate: func(t *testing.T, d doc) { d.Set(t, "/runId", strings.Repeat("r", 129)) },
			status: 422, code: "invalid_result", path: "/runId", expected: "1-128"},
		{name: "generatedAt not RFC 3339", mutate: func(t *testing.T, d doc) { d.Set(t, "/generatedAt", "2026-09-29 07:00:00") },
			status: 422, code: "invalid_result", path: "/generatedAt", expected: "RFC 3339"},
		{name: "generatedAt without zone", mutate: func(t *testing.T, d doc) { d.Set(t, "/generatedAt", "2026-09-29T07:00:00") },
			status: 422, code: "invalid_result", path: "/generatedAt", expected: "RFC 3339"},
		{name: "unknown brief time zone", mutate: func(t *testing.T, d doc) { d.Set(t, "/brief/timeZone", "Mars/Olympus_Mons") },
			status: 422, code: "invalid_result", path: "/brief/timeZone", expected: "IANA"},
		{name: "Local is not a time zone name", mutate: func(t *testing.T, d doc) { d.Set(t, "/brief/timeZone", "Local") },
			status: 422, code: "invalid_result", path: "/brief/timeZone", expected: "IANA"},
		{name: "bad brief date", mutate: func(t *testing.T, d doc) { d.Set(t, "/brief/date", "2026-02-30") },
			status: 422, code: "invalid_result", path: "/brief/date", expected: "YYYY-MM-DD"},
		{name: "content hash not hex", mutate: func(t *testing.T, d doc) { d.Set(t, "/sourceRefs/0/contentHash", "sha256:xyz") },
			status: 422, code: "invalid_result", path: "/sourceRefs/0/contentHash", expected: "64"},
		{name: "content hash uppercase", mutate: func(t *testing.T, d doc) {
			d.Set(t, "/sourceRefs/0/contentHash", "sha256:"+strings.Repeat("4A", 32))
		}, status: 422, code: "invalid_result", path: "/sourceRefs/0/contentHash", expected: "lowercase"},
		{name: "content hash on a beeper ref", mutate: func(t *testing.T, d doc) {
			d.Set(t, "/sourceRefs/2/contentHash", "sha256:"+strings.Repeat("4a", 32))
		}, status: 422, code: "invalid_result", path: "/sourceRefs/2/contentHash"},
		{name: "absolute life path", mutate: func(t *testing.T, d doc) { d.Set(t, "/sourceRefs/0/path", "/etc/passwd") },
			status: 422, code: "invalid_result", path: "/sourceRefs/0/path", expected: "'..'"},
		{name: "life path climbing out", mutate: func(t *testing.T, d doc) { d.Set(t, "/sourceRefs/0/path", "people/../../secrets.md") },
			status: 422, code: "invalid_result", path: "/sourceRefs/0/path", expected: "'..'"},
		{name: "unknown source kind", mutate: func(t *testing.T, d doc) { d.Set(t, "/sourceRefs/1/kind", "web") },
			status: 422, code: "invalid_result", path: "/sourceRefs/1/kind", expected: "life, beeper"},
		{name: "dangling brief evidence", mutate: func(t *testing.T, d doc) { d.Set(t, "/brief/evidenceIds/1", "no-such-ref") },
			status: 422, code: "invalid_result", path: "/brief/evidenceIds/1", expected: "source ref"},
		{name: "dangling activity evidence", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/0/evidenceIds/0", "no-such-ref") },
			status: 422, code: "invalid_result", path: "/activities/0/evidenceIds/0", expected: "source ref"},
		{name: "dangling personId", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/3/personId", "nobody") },
			status: 422, code: "invalid_result", path: "/activities/3/personId", expected: "person"},
		{name: "dangling draft personId", mutate: func(t *testing.T, d doc) { d.Set(t, "/replyDrafts/0/personId", "nobody") },
			status: 422, code: "invalid_result", path: "/replyDrafts/0/personId", expected: "person"},
		{name: "dangling parentId", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/1/parentId", "no-such-routine") },
			status: 422, code: "invalid_result", path: "/activities/1/parentId", expected: "routine"},
		{name: "dangling payload draftId", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/3/payload/draftId", "no-such-draft") },
			status: 422, code: "invalid_result", path: "/activities/3/payload/draftId", expected: "reply draft"},
		{name: "routines that are each other's parent", mutate: func(t *testing.T, d doc) {
			evening := map[string]any{"id": "evening-routine", "kind": "routine", "title": "Evening routine",
				"evidenceIds": []any{}, "parentId": routine, "payload": map[string]any{}}
			d.Set(t, "/activities/0/parentId", "evening-routine")
			d.Set(t, "/activities", append(d["activities"].([]any), evening))
		}, status: 422, code: "invalid_result", path: "/activities/0/parentId", expected: "without cycles"},
		{name: "own parent", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/0/parentId", routine) },
			status: 422, code: "invalid_result", path: "/activities/0/parentId", expected: "routine"},
		{name: "parentId naming a task", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/2/parentId", "book-bike-service") },
			status: 422, code: "invalid_result", path: "/activities/2/parentId", expected: "routine"},
		{name: "unknown activity kind", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/4/kind", "errand") },
			status: 422, code: "invalid_result", path: "/activities/4/kind", expected: "task, measurement, reply, routine"},
		{name: "unknown metric", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/1/payload/metric", "mood") },
			status: 422, code: "invalid_result", path: "/activities/1/payload/metric", expected: "weight"},
		{name: "unknown section", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/4/recommendation/section", "later") },
			status: 422, code: "invalid_result", path: "/activities/4/recommendation/section", expected: "routine, focus, optional"},
		{name: "draft without candidates", mutate: func(t *testing.T, d doc) { d.Set(t, "/replyDrafts/0/candidates", []any{}) },
			status: 422, code: "invalid_result", path: "/replyDrafts/0/candidates", expected: "1-5"},
		{name: "retraction of an unknown activity", mutate: func(t *testing.T, d doc) {
			d.Set(t, "/retractions", []any{map[string]any{"kind": "activity", "id": "never-published"}})
		}, status: 422, code: "invalid_result", path: "/retractions/0/id"},
		{name: "completing an unknown request", mutate: func(t *testing.T, d doc) {
			d.Set(t, "/completedRequests", []any{map[string]any{"requestId": "req-1", "sourceRefIds": []any{"life-health"}}})
		}, status: 422, code: "invalid_result", path: "/completedRequests/0/requestId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ta := newTestApp(t)
			token := ta.agentToken()
			const runID = "run-rejected"
			d := validPublication(runID, 0)
			if tc.mutate != nil {
				tc.mutate(t, d)
			}
			body := d.JSON()
			if tc.raw != nil {
				body = tc.raw(body)
			}
			req := publishRequest(token, body)
			for k, v := range tc.header {
				if v == "" {
					req.Header.Del(k)
				} else {
					req.Header.Set(k, v)
				}
			}
			send := ta.do
			if tc.overNetwork {
				send = ta.doNet
			}
			env := assertError(t, send(req), tc.status, tc.code)
			switch tc.status {
			case http.StatusBadRequest:
				if _, ok := env.Details["offset"]; !ok {
					t.Errorf("details %v: want an offset", env.Details)
				}
				if tc.path != "" && env.Details["path"] != tc.path {
					t.Errorf("details.path %v, want %q", env.Details["path"], tc.path)
				}
			case http.StatusUnprocessableEntity:
				errs := fieldErrors(t, env)
				i := slices.IndexFunc(errs, func(e fieldError) bool { return e.Path == tc.path })
				if i < 0 {
					t.Fatalf("no error at %q in %+v", tc.path, errs)
				}
				if e := errs[i]; e.Message == "" || !strings.Contains(e.Expected, tc.expected) {
					t.Errorf("error %+v: want a message and expected containing %q", e, tc.expected)
				}
				for _, e := range errs {
					if !strings.HasPrefix(e.Path, "/") {
						t.Errorf("path %q is not a JSON Pointer", e.Path)
					}
				}
			case http.StatusRequestEntityTooLarge:
				if env.Details["limit"] != float64(contract.MaxBodyBytes) {
					t.Errorf("details %v: want limit %d", env.Details, contract.MaxBodyBytes)
				}
			case http.StatusUnsupportedMediaType:
				want := cmp.Or(tc.expected, "application/json")
				if env.Details["expected"] != want {
					t.Errorf("details %v: want expected %s", env.Details, want)
				}
			}
			assertNothingWritten(t, ta, token, runID, 0)
		})
	}
}

func TestPublishAcceptsJSONWithCharset(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	req := publishRequest(ta.agentToken(), validPublication("run-1", 0).JSON())
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp := ta.do(req)
	if resp.status != http.StatusCreated {
		t.Fatalf("got %s, want 201", resp)
	}
	if r := decodeReceipt(t, resp); r.RunID != "run-1" || r.Revision != 1 || !r.ReceivedAt.Equal(testNow) {
		t.Fatalf("receipt %+v", r)
	}
}

func TestPublishRejectsWrongCallerAndWritesNothing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		// prepare returns the request's Authorization header and session cookie.
		prepare func(t *testing.T, ta *testApp) (authorization string, cookie *http.Cookie)
		status  int
		code    string
	}{
		{name: "no credential", prepare: func(*testing.T, *testApp) (string, *http.Cookie) { return "", nil },
			status: 401, code: "unauthorized"},
		{name: "not a bearer token", prepare: func(t *testing.T, ta *testApp) (string, *http.Cookie) { return "Basic " + ta.agentToken(), nil },
			status: 401, code: "unauthorized"},
		{name: "empty bearer token", prepare: func(*testing.T, *testApp) (string, *http.Cookie) { return "Bearer ", nil },
			status: 401, code: "unauthorized"},
		{name: "unknown token", prepare: func(*testing.T, *testApp) (string, *http.Cookie) {
			return "Bearer hearth_" + strings.Repeat("A", 43), nil
		}, status: 401, code: "unauthorized"},
		{name: "revoked token", prepare: func(t *testing.T, ta *testApp) (string, *http.Cookie) {
			id, token := ta.agentCredential()
			if _, err := ta.store.RevokeCredential(t.Context(), id); err != nil {
				t.Fatalf("revoke: %v", err)
			}
			return "Bearer " + token, nil
		}, status: 401, code: "unauthorized"},
		{name: "credential without results:publish", prepare: func(t *testing.T, ta *testApp) (string, *http.Cookie) {
			return "Bearer " + ta.agentToken(models.ScopeContextRead), nil
		}, status: 403, code: "forbidden"},
		{name: "owner session", prepare: func(t *testing.T, ta *testApp) (string, *http.Cookie) { return "", ta.login() },
			status: 403, code: "forbidden"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ta := newTestApp(t, withOwner())
			const runID = "run-refused"
			auth, cookie := tc.prepare(t, ta)
			req := publishRequest("", validPublication(runID, 0).JSON())
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			if cookie != nil {
				req.AddCookie(cookie)
			}
			resp := ta.do(req)
			env := assertError(t, resp, tc.status, tc.code)
			if tc.status == http.StatusUnauthorized && !strings.HasPrefix(resp.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate %q, want a Bearer challenge", resp.header.Get("WWW-Authenticate"))
			}
			if tc.name == "credential without results:publish" && env.Details["requiredScope"] != models.ScopeResultsPublish {
				t.Errorf("details %v: want requiredScope %s", env.Details, models.ScopeResultsPublish)
			}
			assertNothingWritten(t, ta, ta.agentToken(), runID, 0)
		})
	}
}

func TestPublishReplayReturnsOriginalReceipt(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	first := validPublication("run-a", 0).JSON()

	created := ta.publish(token, first)
	if created.status != http.StatusCreated {
		t.Fatalf("first publish: %s", created)
	}
	if id := created.header.Get("X-Request-Id"); id == "" {
		t.Error("201 without X-Request-Id")
	}
	original := decodeReceipt(t, created)
	if original.RunID != "run-a" || original.Revision != 1 || !original.ReceivedAt.Equal(testNow) {
		t.Fatalf("first receipt %+v", original)
	}

	// A later publication raises the revision and happens at a later time.
	ta.clock.Advance(time.Hour)
	later := validPublication("run-b", 1)
	later.Set(t, "/brief/text", "Changed my mind.")
	if r := ta.mustPublish(token, later.JSON()); r.Revision != 2 {
		t.Fatalf("second receipt %+v, want revision 2", r)
	}

	ta.clock.Advance(time.Hour)
	replay := ta.publish(token, first)
	if replay.status != http.StatusOK {
		t.Fatalf("replay: got %s, want 200", replay)
	}
	if !bytes.Equal(replay.body, created.body) {
		t.Fatalf("replay receipt %s, want the original %s", replay.body, created.body)
	}
	if rev := ta.revision(); rev != 2 {
		t.Fatalf("revision %d after a replay, want 2", rev)
	}
}

func TestPublishReplayIsByCanonicalPayload(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	d := validPublication("run-a", 0)
	created := ta.publish(token, d.JSON())
	if created.status != http.StatusCreated {
		t.Fatalf("publish: %s", created)
	}

	// The same document with top-level keys in reverse order, indented, and
	// a string spelled with an escape.
	keys := keysOf(d)
	slices.Sort(keys)
	slices.Reverse(keys)
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range keys {
		v, err := json.MarshalIndent(d[k], "  ", "\t")
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteString(" ,\r\n")
		}
		fmt.Fprintf(&b, "  %q :  %s", k, v)
	}
	b.WriteString("\n}\n")
	reordered := bytes.Replace(b.Bytes(), []byte(`"daily-brief"`), []byte(`"daily\u002dbrief"`), 1)
	if bytes.Equal(reordered, b.Bytes()) {
		t.Fatal("escape not applied")
	}

	replay := ta.publish(token, reordered)
	if replay.status != http.StatusOK {
		t.Fatalf("reordered replay: got %s, want 200", replay)
	}
	if !bytes.Equal(replay.body, created.body) {
		t.Fatalf("replay receipt %s, want %s", replay.body, created.body)
	}
	if rev := ta.revision(); rev != 1 {
		t.Fatalf("revision %d, want 1", rev)
	}
}

func TestPublishSameRunIDDifferentContentConflicts(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	ta.mustPublish(token, validPublication("run-a", 0).JSON())

	cases := []struct {
		name   string
		mutate func(t *testing.T, d doc)
	}{
		{name: "changed title", mutate: func(t *testing.T, d doc) { d.Set(t, "/activities/4/title", "Book it today") }},
		{name: "changed expectedRevision", mutate: func(t *testing.T, d doc) { d.Set(t, "/expectedRevision", 1) }},
		{name: "changed and stale", mutate: func(t *testing.T, d doc) { d.Set(t, "/jobKey", "other") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			d := validPublication("run-a", 0)
			tc.mutate(t, d)
			assertError(t, ta.publish(token, d.JSON()), http.StatusConflict, "idempotency_conflict")
			if rev := ta.revision(); rev != 1 {
				t.Fatalf("revision %d, want 1", rev)
			}
		})
	}
}

func TestPublishReplayIsPerPublisher(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.mustPublish(ta.agentToken(), validPublication("run-a", 0).JSON())
	// Another credential reusing the runId is a new publication, judged on its revision.
	other := ta.agentToken()
	env := assertError(t, ta.publish(other, validPublication("run-a", 0).JSON()), http.StatusConflict, "revision_conflict")
	if env.Details["currentRevision"] != float64(1) {
		t.Fatalf("details %v", env.Details)
	}
	if r := ta.mustPublish(other, validPublication("run-a", 1).JSON()); r.Revision != 2 {
		t.Fatalf("receipt %+v", r)
	}
}

func TestPublishStaleRevisionConflictsAndWritesNothing(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	ta.mustPublish(token, validPublication("run-a", 0).JSON())

	stale := validPublication("run-b", 0)
	stale.Set(t, "/brief/text", "Written against revision 0.")
	env := assertError(t, ta.publish(token, stale.JSON()), http.StatusConflict, "revision_conflict")
	if env.Details["currentRevision"] != float64(1) || env.Details["expectedRevision"] != float64(0) {
		t.Fatalf("details %v, want currentRevision 1 and expectedRevision 0", env.Details)
	}
	resp := ta.get("/api/agent-context", token, nil)
	if got := jsonAt(t, resp.body, "/brief/text"); got == "Written against revision 0." {
		t.Fatal("a stale publication changed the brief")
	}
	// No receipt was kept for run-b: rebuilt against revision 1 it is new.
	assertNothingWritten(t, ta, token, "run-b", 1)
}

func TestPublishResponsesCarryRequestID(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	req := publishRequest(ta.agentToken(), []byte("{"))
	req.Header.Set("X-Request-Id", "client-chosen-id-1")
	env := assertError(t, ta.do(req), http.StatusBadRequest, "malformed_json")
	if env.RequestID != "client-chosen-id-1" {
		t.Fatalf("requestId %q, want the well-formed client ID echoed", env.RequestID)
	}

	req = httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.Header.Set("X-Request-Id", "bad id\twith spaces")
	resp := ta.do(req)
	if id := resp.header.Get("X-Request-Id"); id == "" || strings.Contains(id, " ") {
		t.Fatalf("X-Request-Id %q: want a fresh ID instead of a malformed one", id)
	}
}

func TestDryRunValidatesFullyAndReportsChangesWithoutWriting(t *testing.T) {
	ta := newTestApp(t)
	token := ta.agentToken()
	dry := func(body []byte) response { return ta.do(dryRunRequest(token, body, "true")) }
	pub := validPublication("run-1", 0)
	r := dry(pub.JSON())
	if r.status != http.StatusOK {
		t.Fatalf("dry run: %s", r)
	}
	var rep struct {
		DryRun, Valid bool
		Changes       map[string]struct{ Created, Updated int }
		Conflicts     []struct{ Code string }
	}
	decodeJSONBody(t, r.body, &rep)
	if !rep.DryRun || !rep.Valid || rep.Changes["activities"].Created != len(pub["activities"].([]any)) || len(rep.Conflicts) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if ta.revision() != 0 {
		t.Fatal("a dry run wrote")
	}
	// It stored no receipt: the same runId publishes for real afterwards.
	ta.mustPublish(token, pub.JSON())
	r = dry(pub.JSON()) // now an update, and a replay
	decodeJSONBody(t, r.body, &rep)
	if rep.Changes["activities"].Updated != len(pub["activities"].([]any)) || rep.Changes["activities"].Created != 0 {
		t.Fatalf("second report %+v", rep)
	}
	stale := validPublication("run-2", 0)
	decodeJSONBody(t, dry(stale.JSON()).body, &rep)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Code != "revision_conflict" {
		t.Fatalf("stale dry run conflicts %+v", rep.Conflicts)
	}
	bad := validPublication("run-3", 1)
	bad.Set(t, "/activities/0/kind", "chore")
	assertError(t, dry(bad.JSON()), http.StatusUnprocessableEntity, "invalid_result")
	assertError(t, ta.do(dryRunRequest(token, pub.JSON(), "maybe")), http.StatusBadRequest, "bad_request")
	if ta.revision() != 1 {
		t.Fatalf("dry runs changed the revision to %d", ta.revision())
	}
}

func decodeJSONBody(t *testing.T, body []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

func dryRunRequest(token string, body []byte, value string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/api/agent-results?dryRun="+value, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func TestSchemasAreServedAsCommitted(t *testing.T) {
	ta := newTestApp(t)
	for _, name := range schema.Names() {
		r := ta.get("/api/schema/"+name, "", nil)
		want, _ := schema.Committed(name)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/schema+json" || !bytes.Equal(r.body, want) {
			t.Errorf("%s: %d %q", name, r.status, r.header.Get("Content-Type"))
		}
	}
	assertError(t, ta.get("/api/schema/secrets.json", "", nil), http.StatusNotFound, "not_found")
}

func TestCompactContextIsServedAndItsFlagChecked(t *testing.T) {
	ta := newTestApp(t)
	token := ta.agentToken()
	ta.mustPublish(token, validPublication("run-1", 0).JSON())
	if r := ta.get("/api/agent-context?compact=true", token, nil); r.status != http.StatusOK || !json.Valid(r.body) {
		t.Fatalf("compact: %s", r)
	}
	assertError(t, ta.get("/api/agent-context?compact=yes", token, nil), http.StatusBadRequest, "bad_request")
}

func TestTheStrictOutputSchemaIsServedAtItsStableURL(t *testing.T) {
	ta := newTestApp(t)
	r := ta.get("/api/schema/agent-result.strict.json", "", nil)
	want, ok := schema.Committed("agent-result.strict.json")
	if !ok || r.status != http.StatusOK || r.header.Get("Content-Type") != "application/schema+json" || !bytes.Equal(r.body, want) {
		t.Fatalf("GET /api/schema/agent-result.strict.json: %d %q (committed: %v)", r.status, r.header.Get("Content-Type"), ok)
	}
	var doc map[string]any
	if err := json.Unmarshal(r.body, &doc); err != nil || doc["type"] != "object" || doc["$schema"] != nil || doc["additionalProperties"] != false {
		t.Fatalf("not a strict-mode root (an object, closed, without $schema): %v %.200s", err, r.body)
	}
}
