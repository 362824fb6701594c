package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

type wakeBody struct {
	Jobs []struct {
		JobKey  string   `json:"jobKey"`
		Reasons []string `json:"reasons"`
	} `json:"jobs"`
	TimedOut bool `json:"timedOut"`
}

func wakeRequest(token, timeout string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/api/agent-wake?timeout="+timeout, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return req
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
	got := make(chan response, 1)
	go func() { got <- ta.in(t).doNet(wakeRequest(token, "60")) }()
	time.Sleep(100 * time.Millisecond) // let the poll start waiting
	if err := ta.store.MarkDirty(context.Background(), "messages", "3 new messages in Ana Okafor", 0); err != nil {
		t.Fatal(err)
	}
	var r response
	select {
	case r = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("the long-poll did not wake on the mark")
	}
	var body wakeBody
	if r.status != http.StatusOK || json.Unmarshal(r.body, &body) != nil || body.TimedOut || len(body.Jobs) != 1 ||
		body.Jobs[0].JobKey != "messages" || body.Jobs[0].Reasons[0] != "3 new messages in Ana Okafor" {
		t.Fatalf("wake answer: %s", r)
	}
	// Taken once: the next poll finds nothing.
	if r := ta.doNet(wakeRequest(token, "0")); !json.Valid(r.body) || json.Unmarshal(r.body, &body) != nil || len(body.Jobs) != 0 {
		t.Fatalf("second poll: %s", r)
	}
}

func TestWakeNeedsAnAgentWithContextRead(t *testing.T) {
	ta := newTestApp(t, withOwner())
	assertError(t, ta.do(wakeRequest(ta.agentToken("results:publish"), "0")), http.StatusForbidden, "forbidden")
	assertError(t, ta.do(wakeRequest(ta.agentToken(), "300")), http.StatusBadRequest, "bad_request")
	req := httptest.NewRequest(http.MethodGet, "/api/agent-wake", nil)
	req.AddCookie(ta.login())
	assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
}
