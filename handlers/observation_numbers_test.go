package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// wantInBody fails unless resp's body holds part.
func wantInBody(t *testing.T, resp response, part string) {
	t.Helper()
	if !strings.Contains(string(resp.body), part) {
		t.Errorf("body lacks %s: %s", part, resp)
	}
}

// snowflakeObservation is a chat message whose raw carries a 19-digit ID,
// beyond the 2^53 that an IEEE double holds exactly.
func snowflakeObservation(id string) []byte {
	return []byte(`{"source":"chat:discord","ref":"channel-1/message-9","changeType":"modified","actor":"agent",
		"payload":{"kind":"message","providerId":"bot@example.com","raw":{"id":` + id + `,"text":"hi","edits":[` + id + `]}}}`)
}

func TestObservationDifferingOnlyInLargeIntegerIsModified(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	first := ta.postObservation("/api/observations", token, snowflakeObservation("1234567890123456789"))
	if first.status != http.StatusOK {
		t.Fatalf("first: %s", first)
	}
	// 1234567890123456789 and ...788 are the same double: the second used
	// to read as a duplicate of the first.
	second := ta.postObservation("/api/observations", token, snowflakeObservation("1234567890123456788"))
	if second.status != http.StatusOK {
		t.Fatalf("second, differing only in the ID's last digit: %s", second)
	}
	wantInBody(t, second, `"action":"modified"`)
	// The same digits again are a duplicate.
	assertError(t, ta.postObservation("/api/observations", token, snowflakeObservation("1234567890123456788")), http.StatusConflict, "duplicate")

	got := ta.pendingObservations(token)
	if len(got) != 2 {
		t.Fatalf("%d pending observations, want 2", len(got))
	}
	for i, want := range []string{
		`{"edits":[1234567890123456789],"id":1234567890123456789,"text":"hi"}`,
		`{"edits":[1234567890123456788],"id":1234567890123456788,"text":"hi"}`,
	} {
		if raw := string(got[i].Payload.Raw); raw != want {
			t.Errorf("observation %d raw read back as %s, want every digit: %s", i, raw, want)
		}
	}
	// The raw bytes of the context keep the digits too (not only a decode of it).
	ctx := ta.get("/api/agent-context", token, nil)
	wantInBody(t, ctx, `"id":1234567890123456789,`)
	wantInBody(t, ctx, `"id":1234567890123456788,`)
}

func TestObservationHashOfOrdinaryPayloadIsUnchanged(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	// Numbers RFC 8785 formats as doubles: exponents, fractions, -0, 2^53
	// itself, a negative, and a large value written with an exponent.
	body := []byte(`{"source":"mail:work","ref":"m1","changeType":"created","actor":"agent","payload":{"kind":"mail",
		"providerId":"work@example.com","raw":{"subject":"Lunch? é 😀","n":[1.0,1e2,-0,0.1,1.50,-7,9007199254740992,1234567890123456e3,5e-324],
		"nested":{"b":true,"a":null},"size":42}}}`)
	resp := ta.postObservation("/api/observations", token, body)
	if resp.status != http.StatusOK {
		t.Fatalf("observe: %s", resp)
	}
	// Pinned from hearth before integers beyond 2^53 kept their digits.
	wantInBody(t, resp, `"contentHash":"sha256:183eaed0dbf7196091d3ad2c4977c9d287b05341dbd7b105e4eecdd8d3635551"`)
	got := ta.pendingObservations(token)
	want := `{"n":[1,100,0,0.1,1.5,-7,9007199254740992,1234567890123456000,5e-324],"nested":{"a":null,"b":true},"size":42,"subject":"Lunch? é 😀"}`
	if len(got) != 1 || string(got[0].Payload.Raw) != want {
		t.Fatalf("raw %s, want %s", got[0].Payload.Raw, want)
	}
}
