package apiclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hearth/handlers"
	"hearth/internal/apiclient"
	"hearth/models"
)

// hearthOnLoopback serves a real hearth (store on a temp SQLite file, the
// handlers' app) on a loopback port and returns its URL and an agent token
// with the default scopes.
func hearthOnLoopback(t *testing.T) (string, string) {
	t.Helper()
	ctx := context.Background()
	store, err := models.Open(ctx, t.TempDir(), models.Options{Init: true})
	if err != nil {
		t.Fatal(err)
	}
	_, token, err := store.CreateCredential(ctx, "apiclient-test", models.DefaultScopes)
	if err != nil {
		t.Fatal(err)
	}
	hub := handlers.NewHub()
	store.SetNotifier(hub)
	app := handlers.New(store, handlers.Config{Hub: hub})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() {
		hub.Close()
		app.ShutdownWithTimeout(5 * time.Second)
		store.Close()
	})
	return "http://" + ln.Addr().String(), token
}

func TestTheClientReadsTheContextOfARealHearthAndDecodesIt(t *testing.T) {
	base, token := hearthOnLoopback(t)
	c := apiclient.New(base, token)
	var ac struct {
		Revision *int64 `json:"revision"`
	}
	r, err := c.JSON(context.Background(), http.MethodGet, "/api/agent-context?compact=true", nil, &ac)
	if err != nil || r.Status != http.StatusOK || ac.Revision == nil {
		t.Fatalf("status %d, err %v, revision %v: want 200 and the context", r.Status, err, ac.Revision)
	}
	if c.Base() != base {
		t.Fatalf("Base %q, want %q", c.Base(), base)
	}
}

func TestAWrongTokenIsATypedErrorKeepingTheStatusAndTheServersEnvelope(t *testing.T) {
	base, _ := hearthOnLoopback(t)
	r, err := apiclient.New(base, "hearth_not_a_token").Do(context.Background(), http.MethodGet, "/api/agent-context", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || r.Status != http.StatusUnauthorized {
		t.Fatalf("status %d: want 401", r.Status)
	}
	e := r.Err()
	if e.Status != http.StatusUnauthorized || e.Envelope.Code == "" || e.Envelope.RequestID == "" {
		t.Fatalf("error %+v: want the status and the server's envelope with its request ID", e)
	}
	if !strings.HasPrefix(e.Error(), e.Envelope.Code+": "+e.Envelope.Message) || !strings.Contains(e.Error(), "(request "+e.Envelope.RequestID+")") {
		t.Fatalf("message %q", e.Error())
	}
	if e.Unavailable() || apiclient.Unavailable(e) {
		t.Fatal("a refused credential reads as hearth unavailable: the CLI would exit 2 and invite a retry")
	}
	if apiclient.EnvelopeCode(r.Body) != e.Envelope.Code {
		t.Fatalf("EnvelopeCode %q, want %q", apiclient.EnvelopeCode(r.Body), e.Envelope.Code)
	}
}

func TestARefusedPublicationComesBackAsTheAnswerWithItsFieldErrors(t *testing.T) {
	base, token := hearthOnLoopback(t)
	c := apiclient.New(base, token)
	r, err := c.JSON(context.Background(), http.MethodPost, "/api/agent-results", map[string]any{"runId": "x"}, &struct{}{})
	if err != nil {
		t.Fatalf("a 4xx is an answer for JSON's caller, not an error: %v", err)
	}
	if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusBadRequest {
		t.Fatalf("status %d %s: want the refusal", r.Status, r.Body)
	}
	e := r.Err()
	if e.Envelope.Code == "" || len(e.Envelope.Details) == 0 || !strings.Contains(e.Error(), "\n") {
		t.Fatalf("envelope %+v, message %q: want the code, the details indented under it", e.Envelope, e.Error())
	}
}

func TestAnUnreachableHearthIsATransportErrorThatReadsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close()
	_, err = apiclient.New(base, "t").Do(context.Background(), http.MethodGet, "/healthz", nil)
	var te *apiclient.TransportError
	if !errors.As(err, &te) || !apiclient.Unavailable(err) {
		t.Fatalf("err %v: want a *TransportError that reads unavailable", err)
	}
	_, err = apiclient.New(base, "t").PostRetrying(context.Background(), "/api/agent-results", []byte("{}"), []time.Duration{time.Millisecond})
	if err == nil || !strings.HasPrefix(err.Error(), "hearth unreachable after 2 attempts: ") || !apiclient.Unavailable(err) {
		t.Fatalf("err %v: want the attempts counted and the failure unavailable", err)
	}
}

// TestRequestsCarryTheTokenAndJSONHeadersOnlyWithABody pins the headers every
// caller sent before the client was shared.
func TestRequestsCarryTheTokenAndJSONHeadersOnlyWithABody(t *testing.T) {
	type seen struct{ auth, accept, ctype, body string }
	got := make(chan seen, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 64)
		n, _ := r.Body.Read(b)
		got <- seen{r.Header.Get("Authorization"), r.Header.Get("Accept"), r.Header.Get("Content-Type"), string(b[:n])}
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	c := apiclient.New(srv.URL, "tok")
	c.Do(context.Background(), http.MethodGet, "/x", nil)
	if s := <-got; s != (seen{"Bearer tok", "application/json", "", ""}) {
		t.Fatalf("GET sent %+v", s)
	}
	c.JSON(context.Background(), http.MethodPost, "/x", map[string]int{"a": 1}, nil)
	if s := <-got; s != (seen{"Bearer tok", "application/json", "application/json", `{"a":1}`}) {
		t.Fatalf("POST sent %+v", s)
	}
}

func TestTransientAnswersAreRetriedWithTheSameBytesHonouringRetryAfter(t *testing.T) {
	var calls atomic.Int64
	bodies := make(chan string, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 64)
		n, _ := r.Body.Read(b)
		bodies <- string(b[:n])
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"code":"rate_limited","message":"slow down"}`))
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"runId":"r"}`))
	}))
	defer srv.Close()
	start := time.Now()
	r, err := apiclient.New(srv.URL, "t").PostRetrying(context.Background(), "/p", []byte(`{"same":true}`), []time.Duration{time.Millisecond, time.Millisecond})
	if err != nil || r.Status != http.StatusCreated {
		t.Fatalf("status %d, err %v", r.Status, err)
	}
	if time.Since(start) < time.Second {
		t.Fatal("the 429's Retry-After: 1 was not waited for")
	}
	if a, b := <-bodies, <-bodies; a != b || a != `{"same":true}` {
		t.Fatalf("bodies %q, %q: want the same bytes", a, b)
	}
}

func TestAFinalTransientOrUnreadableAnswerIsUnavailableAndA2xxThatIsNotJSONIsADecodeError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/down":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"code":"busy","message":"try later","details":{"a":1}}`))
		case "/proxy":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`<html>bad gateway config</html>`))
		default:
			w.Write([]byte(`not json`))
		}
	}))
	defer srv.Close()
	c := apiclient.New(srv.URL, "t")
	_, err := c.PostRetrying(context.Background(), "/down", nil, nil)
	var e *apiclient.Error
	if !errors.As(err, &e) || e.Status != 503 || e.RetryAfter != 7*time.Second || !e.Transient() || !apiclient.Unavailable(err) {
		t.Fatalf("err %#v: want a transient *Error with status 503 and Retry-After 7 s", err)
	}
	if e.Error() != "busy: try later\n{\n  \"a\": 1\n}" {
		t.Fatalf("message %q", e.Error())
	}
	r, _ := c.Do(context.Background(), http.MethodGet, "/proxy", nil)
	if e := r.Err(); e.Error() != "HTTP 400 with an unreadable body" || !e.Unavailable() {
		t.Fatalf("a 400 that is not hearth's envelope: %q, unavailable %v", e.Error(), e.Unavailable())
	}
	_, err = c.JSON(context.Background(), http.MethodGet, "/ok", nil, &struct{}{})
	var de *apiclient.DecodeError
	if !errors.As(err, &de) || !strings.HasPrefix(err.Error(), "unreadable answer from hearth: ") || !apiclient.Unavailable(err) {
		t.Fatalf("err %v: want a *DecodeError", err)
	}
	if _, err := c.JSON(context.Background(), http.MethodGet, "/down", nil, nil); !errors.As(err, &e) || e.Status != 503 {
		t.Fatalf("JSON on a 5xx: %v", err)
	}
}

func TestALongPollClientHasItsOwnTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	_, err := apiclient.New(srv.URL, "t").WithTimeout(50*time.Millisecond).Do(context.Background(), http.MethodGet, "/wait", nil)
	var te *apiclient.TransportError
	if !errors.As(err, &te) {
		t.Fatalf("err %v: want the poll's own timeout as a transport error", err)
	}
}
