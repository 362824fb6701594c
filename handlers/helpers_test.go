package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gofiber/fiber/v2"

	"hearth/beeper/beepertest"
	"hearth/handlers"
	"hearth/internal/storetest"
	"hearth/models"
)

// testNow is the fixed instant every test store starts at.
var testNow = storetest.Start

// testDate is testNow's calendar date, used in IDs and occurrence keys.
const testDate = "2026-09-29"

// ownerPassphrase is the passphrase setOwner stores.
const ownerPassphrase = "correct horse battery staple"

// testApp is the real Fiber app over a real store in a temporary directory,
// bound to the test that is using it (see in).
type testApp struct {
	t testing.TB
	*appState
}

// appState is what the tests sharing one app share.
type appState struct {
	root       testing.TB // the test that built the app; it owns the listener
	app        *fiber.App
	store      *models.Store
	clock      *storetest.Clock
	names      atomic.Int64
	listenOnce sync.Once
	base       string
	owner      bool              // set by setOwner
	beeper     beepertest.Server // set by messagesApp
}

// in binds the app to subtest t, so helpers fail the right test.
func (ta *testApp) in(t testing.TB) *testApp { return &testApp{t: t, appState: ta.appState} }

// appSetup is what newTestApp's options change.
type appSetup struct {
	cfg      handlers.Config
	busy     time.Duration
	owner    bool
	template *storetest.Template
	// statement hears each SQL statement the store runs (withStatements).
	statement func(sql string)
}

// appOption changes how newTestApp builds the app.
type appOption func(*appSetup)

// withConfig builds the app with cfg instead of the zero Config.
func withConfig(cfg handlers.Config) appOption { return func(s *appSetup) { s.cfg = cfg } }

// withBusyTimeout opens the store with a short wait for another
// connection's write lock, for tests that hold it on purpose.
func withBusyTimeout(d time.Duration) appOption { return func(s *appSetup) { s.busy = d } }

// withOwner starts from a database where ownerPassphrase is already set
// (hashed once per package run, at storetest.PassphraseCost).
func withOwner() appOption { return func(s *appSetup) { s.owner = true } }

// withTemplate starts from a copy of tmpl's database (built once per run);
// its prepare must set ownerPassphrase.
func withTemplate(tmpl *storetest.Template) appOption {
	return func(s *appSetup) { s.template, s.owner = tmpl, true }
}

// newTestApp builds the app on a fresh database in t.TempDir with a fixed
// clock. The database is a copy of a template migrated once per package run:
// migrating dominated the suite's time under -race.
func newTestApp(t testing.TB, opts ...appOption) *testApp {
	t.Helper()
	var setup appSetup
	for _, o := range opts {
		o(&setup)
	}
	tmpl := emptyTemplate
	switch {
	case setup.template != nil:
		tmpl = setup.template
	case setup.owner:
		tmpl = ownerTemplate
	}
	dir := t.TempDir()
	tmpl.CopyTo(t, models.DatabasePath(dir))
	clock := storetest.NewClock(testNow)
	store, err := models.Open(context.Background(), dir, models.Options{Clock: clock.Now, BusyTimeout: setup.busy, Statement: setup.statement, PassphraseCost: storetest.PassphraseCost})
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	// httptest.NewRequest addresses example.com: every test app answers for it.
	setup.cfg.Hosts = append(setup.cfg.Hosts, "example.com")
	return &testApp{t: t, appState: &appState{root: t, app: handlers.New(store, setup.cfg), store: store, clock: clock, owner: setup.owner}}
}

func TestMain(m *testing.M) { storetest.Main(m) }

// appTemplate is a template database that prepare fills after migrating;
// prepare may move the clock, which starts at testNow.
func appTemplate(name string, prepare func(context.Context, *models.Store, *storetest.Clock) error) *storetest.Template {
	return &storetest.Template{Name: name, Build: func(ctx context.Context, dir string, clock *storetest.Clock) (string, error) {
		store, err := models.Open(ctx, dir, models.Options{Clock: clock.Now, PassphraseCost: storetest.PassphraseCost})
		if err != nil {
			return "", err
		}
		if prepare != nil {
			err = prepare(ctx, store, clock)
		}
		return store.Path(), errors.Join(err, store.Close())
	}}
}

var (
	emptyTemplate = appTemplate("empty", nil)
	ownerTemplate = appTemplate("owner", func(ctx context.Context, s *models.Store, _ *storetest.Clock) error {
		return s.SetOwnerPassphrase(ctx, ownerPassphrase)
	})
)

// response is a fully read HTTP response.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) String() string { return fmt.Sprintf("%d %s", r.status, r.body) }

// do runs req through app.Test without a timeout and reads the whole body.
// A page answering a form is kept and redirected to (post/redirect/get):
// that redirect is followed, as a browser would, so the answer is the page.
func (ta *testApp) do(req *http.Request) response {
	ta.t.Helper()
	resp, err := ta.app.Test(req, -1)
	if err != nil {
		ta.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	r := readResponse(ta.t, resp)
	if loc := r.header.Get("Location"); r.status == http.StatusSeeOther && strings.HasPrefix(loc, "/answers/") {
		get := httptest.NewRequest(http.MethodGet, loc, nil)
		for _, c := range req.Cookies() {
			get.AddCookie(c)
		}
		return ta.do(get)
	}
	return r
}

// listen serves the app on a real loopback listener until the test that
// built the app ends, and returns its base URL.
func (ta *testApp) listen() string {
	ta.t.Helper()
	ta.listenOnce.Do(func() { ta.base = serve(ta.root, ta.app) })
	if ta.base == "" {
		ta.t.Fatal("listener failed to start")
	}
	return ta.base
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// doNet sends req (built with httptest.NewRequest) over a real loopback
// connection, for what app.Test cannot show: fasthttp's own rejections and
// the TCP peer address.
func (ta *testApp) doNet(req *http.Request) response {
	ta.t.Helper()
	out, err := http.NewRequestWithContext(ta.t.Context(), req.Method, ta.listen()+req.URL.RequestURI(), req.Body)
	if err != nil {
		ta.t.Fatal(err)
	}
	out.Header = req.Header.Clone()
	out.ContentLength = req.ContentLength
	resp, err := noRedirects.Do(out)
	if err != nil {
		ta.t.Fatalf("%s %s: %v", req.Method, out.URL, err)
	}
	return readResponse(ta.t, resp)
}

func readResponse(t testing.TB, resp *http.Response) response {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: body}
}

// agentToken mints a credential with scopes (all scopes when none are given) and returns its token.
func (ta *testApp) agentToken(scopes ...string) string {
	ta.t.Helper()
	_, token := ta.agentCredential(scopes...)
	return token
}

// agentCredential mints a credential and returns its ID and token.
func (ta *testApp) agentCredential(scopes ...string) (id, token string) {
	ta.t.Helper()
	if len(scopes) == 0 {
		scopes = models.DemoScopes
	}
	name := fmt.Sprintf("agent-%d", ta.names.Add(1))
	cred, token, err := ta.store.CreateCredential(context.Background(), name, scopes)
	if err != nil {
		ta.t.Fatalf("create credential: %v", err)
	}
	return cred.ID, token
}

// setOwner stores ownerPassphrase once, at storetest.PassphraseCost.
func (ta *testApp) setOwner() {
	ta.t.Helper()
	if ta.owner {
		return
	}
	if err := ta.store.SetOwnerPassphrase(context.Background(), ownerPassphrase); err != nil {
		ta.t.Fatalf("set passphrase: %v", err)
	}
	ta.owner = true
}

// loginRequest is POST /login with the form field password.
func loginRequest(password string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader(url.Values{"password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return req
}

// login sets the owner passphrase if needed, logs in and returns a new session cookie.
func (ta *testApp) login() *http.Cookie {
	ta.t.Helper()
	ta.setOwner()
	resp, err := ta.app.Test(loginRequest(ownerPassphrase), -1)
	if err != nil {
		ta.t.Fatalf("login: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		ta.t.Fatalf("login: status %d, want 303", resp.StatusCode)
	}
	for _, c := range resp.Cookies() {
		if c.Name == handlers.SessionCookie {
			return c
		}
	}
	ta.t.Fatalf("login: no %s cookie in %v", handlers.SessionCookie, resp.Header["Set-Cookie"])
	return nil
}

// publishRequest is POST /api/agent-results; an empty token sends no Authorization.
func publishRequest(token string, body []byte) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/api/agent-results", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req
}

// publish posts body with token.
func (ta *testApp) publish(token string, body []byte) response {
	ta.t.Helper()
	return ta.do(publishRequest(token, body))
}

// mustPublish posts body and fails the test unless it is accepted (201).
func (ta *testApp) mustPublish(token string, body []byte) receipt {
	ta.t.Helper()
	resp := ta.publish(token, body)
	if resp.status != http.StatusCreated {
		ta.t.Fatalf("publish: %s", resp)
	}
	return decodeReceipt(ta.t, resp)
}

// get runs an authenticated GET: bearer token, session cookie, or neither.
func (ta *testApp) get(path, token string, cookie *http.Cookie) response {
	ta.t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return ta.do(req)
}

// revision reads the workspace revision straight from the store.
func (ta *testApp) revision() int64 {
	ta.t.Helper()
	rev, err := ta.store.Revision(context.Background())
	if err != nil {
		ta.t.Fatalf("revision: %v", err)
	}
	return rev
}

// receipt is the 201/200 body of POST /api/agent-results.
type receipt struct {
	RunID      string    `json:"runId"`
	Revision   int64     `json:"revision"`
	ReceivedAt time.Time `json:"receivedAt"`
}

func decodeReceipt(t testing.TB, resp response) receipt {
	t.Helper()
	var r receipt
	dec := json.NewDecoder(bytes.NewReader(resp.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("receipt %s: %v", resp, err)
	}
	return r
}

// envelope is the API error body (docs/contract.md, The error envelope).
type envelope struct {
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Details   map[string]any `json:"details"`
	RequestID string         `json:"requestId"`
}

// fieldError is one entry of details.errors in a 422.
type fieldError struct {
	Path     string `json:"path"`
	Message  string `json:"message"`
	Expected string `json:"expected"`
	Found    string `json:"found"`
}

// assertError checks status, JSON content type, the envelope's code and that
// its requestId is the X-Request-Id header, and returns the envelope.
func assertError(t testing.TB, resp response, status int, code string) envelope {
	t.Helper()
	if resp.status != status {
		t.Fatalf("status: got %s, want %d %s", resp, status, code)
	}
	if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(resp.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("envelope %s: %v", resp.body, err)
	}
	if env.Code != code {
		t.Errorf("code %q, want %q (body %s)", env.Code, code, resp.body)
	}
	if env.Message == "" {
		t.Errorf("empty message in %s", resp.body)
	}
	id := resp.header.Get("X-Request-Id")
	if id == "" || env.RequestID != id {
		t.Errorf("X-Request-Id %q, envelope requestId %q: want equal and non-empty", id, env.RequestID)
	}
	return env
}

// fieldErrors returns details.errors of a 422 envelope.
func fieldErrors(t testing.TB, env envelope) []fieldError {
	t.Helper()
	raw, err := json.Marshal(env.Details["errors"])
	if err != nil {
		t.Fatal(err)
	}
	var errs []fieldError
	if err := json.Unmarshal(raw, &errs); err != nil || len(errs) == 0 {
		t.Fatalf("details.errors %s: want a non-empty list (%v)", raw, err)
	}
	return errs
}

// doc is the kit's JSON document: a publication or an observation being built.
type doc = storetest.Doc

// validPublication is a demo-like publication that the server accepts on an
// empty workspace: source refs of both kinds, a brief, two people, a routine
// with a measurement and two task steps, a reply with its draft, and a task.
func validPublication(runID string, expectedRevision int64) doc {
	zone := "Europe/Berlin"
	occ := testDate + "@" + zone
	routine := "morning-routine-" + testDate
	observed := testNow.Add(-10 * time.Minute).Format(time.RFC3339)
	return storetest.NewPublication(runID, expectedRevision).With("jobKey", "daily-brief").
		Add("sourceRefs",
			map[string]any{"id": "life-people-ana", "kind": "life", "path": "people/ana-okafor.md",
				"contentHash": "sha256:" + strings.Repeat("4a", 32), "observedAt": observed},
			map[string]any{"id": "life-health", "kind": "life", "path": "areas/health.md",
				"contentHash": "sha256:" + strings.Repeat("1b", 32), "observedAt": observed},
			map[string]any{"id": "beeper-ana-chat", "kind": "beeper", "accountId": "whatsapp-demo",
				"chatId": "!ana-okafor:beeper.local", "messageId": "m-ana-3", "observedAt": observed},
		).
		With("brief", map[string]any{
			"date": testDate, "timeZone": zone,
			"text":        "A light day. Weigh in and stretch, then answer Ana about Saturday's hike.",
			"evidenceIds": []any{"life-people-ana", "beeper-ana-chat", "life-health"},
		}).
		Add("people",
			map[string]any{"id": "ana-okafor", "name": "Ana Okafor", "context": "Friend from the climbing gym.",
				"evidenceIds": []any{"life-people-ana", "beeper-ana-chat"}},
			map[string]any{"id": "tomas-lindqvist", "name": "Tomas Lindqvist", "context": "Neighbour and cycling mechanic.",
				"evidenceIds": []any{}},
		).
		Add("activities",
			map[string]any{"id": routine, "kind": "routine", "title": "Morning routine", "evidenceIds": []any{"life-health"},
				"occurrenceKey": occ, "recommendation": map[string]any{"section": "routine", "rank": 1}, "payload": map[string]any{}},
			map[string]any{"id": "weigh-in-" + testDate, "kind": "measurement", "title": "Weigh in", "detail": "Before breakfast.",
				"evidenceIds": []any{"life-health"}, "parentId": routine, "occurrenceKey": occ,
				"recommendation": map[string]any{"section": "routine", "rank": 1}, "payload": map[string]any{"metric": "weight", "unit": "kg"}},
			map[string]any{"id": "stretch-" + testDate, "kind": "task", "title": "Stretch for ten minutes", "evidenceIds": []any{"life-health"},
				"parentId": routine, "occurrenceKey": occ, "recommendation": map[string]any{"section": "routine", "rank": 2}, "payload": map[string]any{}},
			map[string]any{"id": "reply-ana-hike", "kind": "reply", "title": "Answer Ana about Saturday's hike",
				"evidenceIds": []any{"beeper-ana-chat"}, "personId": "ana-okafor",
				"recommendation": map[string]any{"section": "focus", "rank": 1, "reason": "She asked twice."},
				"payload":        map[string]any{"draftId": "draft-ana-hike"}},
			map[string]any{"id": "book-bike-service", "kind": "task", "title": "Book the bike service", "evidenceIds": []any{},
				"personId": "tomas-lindqvist", "recommendation": map[string]any{"section": "optional", "rank": 1}, "payload": map[string]any{}},
		).
		Add("replyDrafts",
			map[string]any{"id": "draft-ana-hike", "personId": "ana-okafor", "accountId": "whatsapp-demo",
				"chatId": "!ana-okafor:beeper.local", "replyToMessageId": "m-ana-3", "sourceMessageRevision": "3",
				"reason": "Ana asked whether Saturday still works.",
				"candidates": []any{
					map[string]any{"id": "yes-early", "style": "warm", "body": "Saturday works! Trailhead at 8?"},
					map[string]any{"id": "yes-short", "style": "brief", "body": "Yes, 8am?"},
				},
				"evidenceIds": []any{"beeper-ana-chat", "life-people-ana"}},
		)
}

// minimalPublication has every required field and nothing else.
func minimalPublication(runID string, expectedRevision int64) doc {
	return storetest.NewPublication(runID, expectedRevision)
}

// taskActivity is a bare task activity.
func taskActivity(id string) map[string]any { return storetest.Task(id) }

// jsonAt decodes body and returns the value at a JSON Pointer, failing the test if absent.
func jsonAt(t testing.TB, body []byte, pointer string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return valueAt(t, v, pointer)
}

func valueAt(t testing.TB, v any, pointer string) any {
	t.Helper()
	if pointer == "" {
		return v
	}
	cur := v
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				t.Fatalf("%s: no member %q in %v", pointer, tok, keysOf(c))
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				t.Fatalf("%s: index %q out of %d items", pointer, tok, len(c))
			}
			cur = c[i]
		default:
			t.Fatalf("%s: %q under a %T", pointer, tok, cur)
		}
	}
	return cur
}

func keysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// parseHTML parses an HTML response.
func parseHTML(t testing.TB, resp response) *goquery.Document {
	t.Helper()
	if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("Content-Type %q, want text/html (%s)", ct, resp)
	}
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(resp.body))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return d
}

// testID selects elements by data-testid.
func testID(id string) string { return `[data-testid="` + id + `"]` }

// serve runs app on a real loopback listener until the test ends and returns its base URL.
func serve(t testing.TB, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- app.Listener(ln) }()
	t.Cleanup(func() {
		if err := app.ShutdownWithTimeout(5 * time.Second); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}
