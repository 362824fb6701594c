package handlers_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"hearth/handlers"
	"hearth/internal/contract"
)

// logBuffer collects JSON log lines; the server writes from its own goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// requests returns the "request" lines.
func (b *logBuffer) requests(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(b.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] == "request" {
			out = append(out, m)
		}
	}
	return out
}

func newLoggedApp(t *testing.T, opts ...appOption) (*testApp, *logBuffer) {
	logs := &logBuffer{}
	cfg := handlers.Config{Log: slog.New(slog.NewJSONHandler(logs, nil))}
	return newTestApp(t, append(opts, withConfig(cfg))...), logs
}

func TestRequestsAreLoggedWithoutSecrets(t *testing.T) {
	t.Parallel()
	ta, logs := newLoggedApp(t, withOwner())
	token := ta.agentToken()
	cookie := ta.login()
	d := validPublication("run-logged", 0)
	ta.mustPublish(token, d.JSON())
	resp := ta.get("/", "", cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("GET /: %s", resp)
	}

	lines := logs.requests(t)
	if len(lines) != 3 {
		t.Fatalf("%d request lines, want 3 (login, publish, home):\n%s", len(lines), logs)
	}
	last := lines[2]
	if last["method"] != "GET" || last["route"] != "/" || last["status"] != float64(200) || last["requestId"] != resp.header.Get("X-Request-Id") {
		t.Errorf("home line %v", last)
	}
	all := logs.String()
	for _, secret := range []string{ownerPassphrase, token, cookie.Value, "Weigh in and stretch", "Saturday works"} {
		if strings.Contains(all, secret) {
			t.Errorf("log contains %q:\n%s", secret, all)
		}
	}
}

func TestOversizedBodiesAreLoggedWithTheirRequestID(t *testing.T) {
	t.Parallel()
	t.Run("over 1 MiB: the handler answers", func(t *testing.T) {
		ta, logs := newLoggedApp(t)
		body := append(validPublication("run-big", 0).JSON(), bytes.Repeat([]byte(" "), contract.MaxBodyBytes)...)
		env := assertError(t, ta.do(publishRequest(ta.agentToken(), body)), http.StatusRequestEntityTooLarge, "payload_too_large")
		lines := logs.requests(t)
		if len(lines) != 1 || lines[0]["status"] != float64(413) || lines[0]["route"] != "/api/agent-results" || lines[0]["requestId"] != env.RequestID {
			t.Fatalf("request lines %v, want one 413 line for /api/agent-results with requestId %s", lines, env.RequestID)
		}
	})
	t.Run("over the hard ceiling: fasthttp refuses before any middleware", func(t *testing.T) {
		ta, logs := newLoggedApp(t)
		body := bytes.Repeat([]byte(" "), 4*contract.MaxBodyBytes)
		// app.Test reports fasthttp's refusal as an error, not a response.
		if resp, err := ta.app.Test(publishRequest(ta.agentToken(), body), -1); err == nil {
			resp.Body.Close()
			t.Fatalf("a %d-byte body was read: status %d", len(body), resp.StatusCode)
		}
		lines := logs.requests(t)
		if len(lines) != 1 || lines[0]["status"] != float64(413) || lines[0]["requestId"] == "" {
			t.Fatalf("request lines %v, want one 413 line with a requestId", lines)
		}
	})
}
