package handlers_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"hearth/handlers"
	"hearth/internal/poll"
	"hearth/models"
)

type wakeJob struct {
	JobKey         string    `json:"jobKey"`
	Reasons        []string  `json:"reasons"`
	Marks          int       `json:"marks"`
	LeaseID        string    `json:"leaseId"`
	LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
}

type wakeBody struct {
	Jobs     []wakeJob `json:"jobs"`
	TimedOut bool      `json:"timedOut"`
}

func wakeRequest(token, timeout string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/api/agent-wake?timeout="+timeout, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

func ackRequest(token, body string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/api/agent-wake/ack", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	return req
}

// pollNow is one GET /api/agent-wake?timeout=0, decoded.
func (ta *testApp) pollNow(token string) wakeBody {
	ta.t.Helper()
	r := ta.do(wakeRequest(token, "0"))
	var body wakeBody
	if r.status != http.StatusOK || json.Unmarshal(r.body, &body) != nil || body.Jobs == nil {
		ta.t.Fatalf("poll: %s", r)
	}
	return body
}

func (ta *testApp) mark(job, reason string, debounce time.Duration) {
	ta.t.Helper()
	if err := ta.store.MarkDirty(context.Background(), job, reason, debounce); err != nil {
		ta.t.Fatal(err)
	}
}

func TestWakeLongPollTimesOutCleanlyWithNoJobs(t *testing.T) {
	ta := newTestApp(t)
	r := ta.doNet(wakeRequest(ta.agentToken(), "0.2"))
	var body wakeBody
	if r.status != http.StatusOK || json.Unmarshal(r.body, &body) != nil || !body.TimedOut || body.Jobs == nil || len(body.Jobs) != 0 {
		t.Fatalf("timeout answer: %s", r)
	}
}

func TestWakeLongPollWakesOnADirtyMark(t *testing.T) {
	ta := newTestApp(t)
	token := ta.agentToken()
	// The mark comes only once the poll has looked, found nothing and is
	// about to wait: answering then needs the wake-on-mark signal, since the
	// poll's own next look is a minute away (no job is dirty to bring it closer).
	store := pollLooked{Store: ta.store, looked: make(chan struct{}, 1)}
	base := serve(t, handlers.NewWithWakeStore(ta.store, store, handlers.Config{}))
	got := make(chan response, 1)
	go func() {
		req := wakeRequest(token, "120")
		out, _ := http.NewRequest(req.Method, base+req.URL.RequestURI(), nil)
		out.Header = req.Header
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			got <- response{body: []byte(err.Error())}
			return
		}
		got <- readResponse(t, resp)
	}()
	<-store.looked
	ta.mark("messages", "3 new messages in Ana Okafor", 0)
	var r response
	select {
	case r = <-got:
	case <-time.After(30 * time.Second): // half the poll's next look: only the mark's signal answers sooner
		t.Fatal("the long-poll did not wake on the mark")
	}
	var body wakeBody
	if r.status != http.StatusOK || json.Unmarshal(r.body, &body) != nil || body.TimedOut || len(body.Jobs) != 1 ||
		body.Jobs[0].JobKey != "messages" || body.Jobs[0].Reasons[0] != "3 new messages in Ana Okafor" ||
		body.Jobs[0].LeaseID == "" || !body.Jobs[0].LeaseExpiresAt.Equal(testNow.Add(models.WakeLeaseTTL)) {
		t.Fatalf("wake answer: %s", r)
	}
	// Leased: the next poll finds nothing while the lease is live.
	if body := ta.pollNow(token); len(body.Jobs) != 0 {
		t.Fatalf("second poll: %+v", body)
	}
}

func TestWakeNeedsAnAgentWithContextRead(t *testing.T) {
	ta := newTestApp(t, withOwner())
	assertError(t, ta.do(wakeRequest(ta.agentToken("results:publish"), "0")), http.StatusForbidden, "forbidden")
	assertError(t, ta.do(wakeRequest(ta.agentToken(), "300")), http.StatusBadRequest, "bad_request")
	req := httptest.NewRequest(http.MethodGet, "/api/agent-wake", nil)
	req.AddCookie(ta.login())
	assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
	assertError(t, ta.do(ackRequest(ta.agentToken("results:publish"), `{"leaseId":"0123456789abcdef0123456789abcdef"}`)), http.StatusForbidden, "forbidden")
	req = ackRequest("", `{"leaseId":"0123456789abcdef0123456789abcdef"}`)
	req.Header.Del("Authorization")
	req.AddCookie(ta.login())
	assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
}

// wakeRequestsLogged returns the statuses of the finished /api/agent-wake requests in logs.
func wakeRequestsLogged(t *testing.T, logs *logBuffer) []float64 {
	t.Helper()
	var out []float64
	for _, r := range logs.requests(t) {
		if r["route"] == "/api/agent-wake" {
			status, _ := r["status"].(float64)
			out = append(out, status)
		}
	}
	return out
}

func TestWakeSurvivesAnAbandonedPoll(t *testing.T) {
	ta, logs := newLoggedApp(t)
	token := ta.agentToken()
	// The runner's client once gave up after 30 s on a 60 s poll; this one gives up sooner.
	impatient := &http.Client{Timeout: 200 * time.Millisecond}
	req, _ := http.NewRequest(http.MethodGet, ta.listen()+"/api/agent-wake?timeout=60", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := impatient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the poll answered %d with nothing dirty", resp.StatusCode)
	}
	if !poll.Within(10*time.Second, func() bool { return len(wakeRequestsLogged(t, logs)) == 1 }) {
		t.Errorf("the server kept polling for a client that had left")
	} else if st := wakeRequestsLogged(t, logs); st[0] != 499 {
		t.Errorf("the abandoned poll was logged with status %v, want 499", st[0])
	}
	// A message arrives after the client left.
	ta.mark("messages", "1 new message in Ana Okafor", 0)
	poll.Within(10*time.Second, func() bool { return len(wakeRequestsLogged(t, logs)) == 1 })
	var body wakeBody
	r := ta.doNet(wakeRequest(token, "0"))
	if r.status != http.StatusOK || json.Unmarshal(r.body, &body) != nil || len(body.Jobs) != 1 || body.Jobs[0].JobKey != "messages" {
		t.Fatalf("the next poll after an abandoned one: %s: the wake-up was lost", r)
	}
}

func TestWakeAnsweredButNeverAcknowledgedIsOfferedAgain(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	ta.mark("messages", "2 new messages in Ana Okafor", 0)
	first := ta.pollNow(token)
	if len(first.Jobs) != 1 {
		t.Fatalf("first poll: %+v", first)
	}
	// The answer is lost (or the runner dies before its run starts): no ack.
	ta.clock.Advance(models.WakeLeaseTTL - time.Second)
	if again := ta.pollNow(token); len(again.Jobs) != 0 {
		t.Fatalf("offered again under a live lease: %+v", again)
	}
	ta.clock.Advance(time.Second)
	again := ta.pollNow(token)
	if len(again.Jobs) != 1 || again.Jobs[0].JobKey != "messages" || again.Jobs[0].LeaseID == first.Jobs[0].LeaseID {
		t.Fatalf("after the lease expired: %+v, want the job under a new lease", again)
	}
}

func TestWakeAckClearsTheLeaseButNotMarksThatCameAfterIt(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	ta.mark("messages", "1 new message in Ana Okafor", 0)
	leased := ta.pollNow(token)
	if len(leased.Jobs) != 1 {
		t.Fatalf("poll: %+v", leased)
	}
	ta.mark("messages", "1 new message in Ben Ito", 0) // after the lease, before the run starts
	ack := `{"leaseId":"` + leased.Jobs[0].LeaseID + `"}`
	for range 2 { // idempotent
		if r := ta.do(ackRequest(token, ack)); r.status != http.StatusNoContent {
			t.Fatalf("ack: %s", r)
		}
	}
	next := ta.pollNow(token)
	if len(next.Jobs) != 1 || next.Jobs[0].Marks != 1 || len(next.Jobs[0].Reasons) != 1 || next.Jobs[0].Reasons[0] != "1 new message in Ben Ito" {
		t.Fatalf("after the ack: %+v, want the mark that came after the lease", next)
	}
	if r := ta.do(ackRequest(token, `{"leaseId":"`+next.Jobs[0].LeaseID+`"}`)); r.status != http.StatusNoContent {
		t.Fatalf("ack: %s", r)
	}
	ta.clock.Advance(2 * models.WakeLeaseTTL)
	if after := ta.pollNow(token); len(after.Jobs) != 0 {
		t.Fatalf("offered after every lease was acknowledged: %+v", after)
	}
}

func TestWakeAckRefusesWhatIsNotALease(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	for _, c := range []struct {
		body   string
		status int
		code   string
	}{
		{`{"leaseId":"nope"}`, http.StatusUnprocessableEntity, "invalid_request"},
		{`{}`, http.StatusUnprocessableEntity, "invalid_request"},
		{`{"leaseId":"0123456789abcdef0123456789abcdef","job":"x"}`, http.StatusUnprocessableEntity, "invalid_request"},
		{`{"leaseId":`, http.StatusBadRequest, "malformed_json"},
	} {
		assertError(t, ta.do(ackRequest(token, c.body)), c.status, c.code)
	}
	// An unknown but well-formed lease is a no-op: an ack retried after it took effect.
	if r := ta.do(ackRequest(token, `{"leaseId":"0123456789abcdef0123456789abcdef"}`)); r.status != http.StatusNoContent {
		t.Fatalf("unknown lease: %s", r)
	}
}

func TestWakeTimeoutIsAPlainNumberOfSeconds(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	for _, bad := range []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "infinity", "1e400", "-1", "-0", "120.5", "0x1p3", "1e1", "+5", "5s", " 5", "1.", ""} {
		r := ta.do(wakeRequest(token, url.QueryEscape(bad)))
		var env struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		}
		if r.status != http.StatusBadRequest || json.Unmarshal(r.body, &env) != nil || env.Code != "bad_request" || !strings.Contains(env.Message, "seconds") {
			t.Errorf("timeout=%q: %s, want 400 bad_request naming seconds", bad, r)
		}
	}
	// Short good values only: a good timeout really waits.
	for _, good := range []string{"0", "0.0", "0.05"} {
		if r := ta.do(wakeRequest(token, good)); r.status != http.StatusOK {
			t.Errorf("timeout=%q: %s, want 200", good, r)
		}
	}
}

// pollSignal is the store with a hook: it reports each time a wake poll
// starts waiting for a mark.
type pollSignal struct {
	*models.Store
	waiting chan struct{}
}

func (p pollSignal) DirtyChanged() <-chan struct{} {
	select {
	case p.waiting <- struct{}{}:
	default:
	}
	return p.Store.DirtyChanged()
}

// pollLooked is the store with a hook: it reports each time a wake poll
// has leased nothing and asks when to look again, the last step before it
// waits for a mark.
type pollLooked struct {
	*models.Store
	looked chan struct{}
}

func (p pollLooked) NextWakeAt(ctx context.Context) (time.Time, bool, error) {
	at, ok, err := p.Store.NextWakeAt(ctx)
	select {
	case p.looked <- struct{}{}:
	default:
	}
	return at, ok, err
}

func TestShutdownEndsAnOpenWakePollAtOnce(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	store := pollSignal{Store: ta.store, waiting: make(chan struct{}, 1)}
	app := handlers.NewWithWakeStore(ta.store, store, handlers.Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- app.Listener(ln) }()
	got := make(chan response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/api/agent-wake?timeout=120", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- response{body: []byte(err.Error())}
			return
		}
		got <- readResponse(t, resp)
	}()
	<-store.waiting
	// Shorter than the poll's 120 s: a shutdown that waited for it fails.
	if err := app.ShutdownWithTimeout(20 * time.Second); err != nil {
		t.Fatalf("shutdown with an open poll: %v", err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.status != http.StatusServiceUnavailable || !strings.Contains(string(r.body), `"unavailable"`) || r.header.Get("Retry-After") == "" {
		t.Fatalf("the poll at shutdown: %s, want 503 unavailable with Retry-After", r)
	}
}
