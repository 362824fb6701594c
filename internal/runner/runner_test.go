package runner

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hearth/internal/apiclient"
	"hearth/internal/poll"
)

// syncBuffer is a log the runner writes while the test waits.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestIdleWatchPollsAreQuiet serves the wake-up channel as hearth does
// when nothing is dirty (it holds each poll for the whole ?timeout= and
// answers late by a little) and expects the runner to wait for every
// answer: no poll abandoned, nothing logged.
func TestIdleWatchPollsAreQuiet(t *testing.T) {
	var polls, answered atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/agent-wake" {
			http.NotFound(w, r)
			return
		}
		polls.Add(1)
		secs, err := strconv.ParseFloat(r.URL.Query().Get("timeout"), 64)
		if err != nil || secs <= 0 {
			http.Error(w, "bad timeout", http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(time.Duration(secs*float64(time.Second)) + 300*time.Millisecond):
		case <-r.Context().Done():
			return // the runner gave up on the poll
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jobs":[],"schedules":[],"timedOut":true}`))
		answered.Add(1)
	}))
	defer srv.Close()
	logs := &syncBuffer{}
	r := &Runner{client: apiclient.New(srv.URL, "t"), log: slog.New(slog.NewTextHandler(logs, nil)), wakeWait: time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Watch(ctx) }()
	if !poll.Within(30*time.Second, func() bool { return answered.Load() >= 3 }) {
		t.Fatalf("%d polls, %d answered in 30 s\n%s", polls.Load(), answered.Load(), logs)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not stop with its context (SIGTERM) during a poll")
	}
	if p, a := polls.Load(), answered.Load(); p-a > 1 {
		t.Fatalf("%d polls, %d answered: the runner abandoned idle polls", p, a)
	}
	if out := logs.String(); out != "" {
		t.Fatalf("idle polls logged:\n%s", out)
	}
}
