package handlers_test

import (
	"net/http"
	"testing"
)

func TestAnUnreadableStoredTimeDoesNotTakePagesDown(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	agent := ta.agentToken()
	pub := validPublication("run-2", ta.revision())
	pub["routineDefinitions"] = routineDefinitions()
	ta.mustPublish(agent, pub.JSON())
	ta.try("morning", 1, 14, cookie)
	// A stored time inside the bound reads: Runs says how fresh the sources were.
	has(t, ta.get("/runs", "", cookie).doc(t), `[data-testid="sources-freshness"]`)
	storedByAnOlderHearth(t, ta,
		`UPDATE source_refs SET observed_at = '10000-01-01 11:59:59+00:00' WHERE id = 'life-people-ana'`,
		`UPDATE source_refs SET observed_at = 'not a time' WHERE id = 'beeper-ana-chat'`,
		`UPDATE source_refs SET observed_at = '9999-12-31 23:59:59+00:00' WHERE id = 'life-health'`)
	for _, page := range []struct{ path, token string }{
		{"/", ""}, {"/home/live", ""}, {"/people", ""}, {"/messages", ""}, {anaPath, ""}, {"/routines", ""}, {"/runs", ""},
		{"/api/agent-context", agent}, {"/api/agent-context?compact=true", agent},
	} {
		var c = cookie
		if page.token != "" {
			c = nil
		}
		if r := ta.get(page.path, page.token, c); r.status != http.StatusOK {
			t.Errorf("GET %s: %s", page.path, r)
		}
	}
	if r := ta.ownerRequest(http.MethodGet, "/activities/reply-ana-hike?expanded=true", nil, true, cookie); r.status != http.StatusOK {
		t.Errorf("row fragment: %s", r)
	}
	// The chips still show: the time they do not display is not needed to draw them.
	d := ta.get("/", "", cookie).doc(t)
	if n := d.Find(`[data-testid="brief"] [data-testid="chip"]`).Length(); n != 3 {
		t.Errorf("brief shows %d evidence chips, want 3", n)
	}
}
