package handlers_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"hearth/internal/contract"
)

// codedError is a details.errors entry with its optional code.
type codedError struct {
	Path     string `json:"path"`
	Code     string `json:"code"`
	Expected string `json:"expected"`
}

func TestAnAgentPublicationThatRewritesAQuickAddIsRefusedWith422OwnerItemReadOnly(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	if resp := ta.post("/mine", url.Values{"text": {"call Ana tomorrow"}}, cookie); resp.status != http.StatusSeeOther {
		t.Fatalf("quick add: %s, want 303 back to Home", resp)
	}
	home := ta.get("/", "", cookie)
	item := has(t, home.doc(t), `[data-testid="mine-ahead"] [data-testid="mine-item"]`)
	id, day := item.AttrOr("data-id", ""), item.AttrOr("data-day", "")
	if text := item.Find(`[data-testid="mine-text"]`).Text(); text != "call Ana" || day != "2026-09-30" {
		t.Fatalf("Home shows %q on %q under Later, want %q on 2026-09-30 (tomorrow)", text, day, "call Ana")
	}

	token := ta.agentToken()
	resp := ta.get("/api/agent-context", token, nil)
	var ac contract.AgentContext
	if resp.status != http.StatusOK || json.Unmarshal(resp.body, &ac) != nil {
		t.Fatalf("context: %s", resp)
	}
	if len(ac.OwnerItems) != 1 || ac.OwnerItems[0].ID != id || ac.OwnerItems[0].AddedBy != "owner" {
		t.Fatalf("context ownerItems %+v, want the quick add %s marked addedBy owner", ac.OwnerItems, id)
	}

	rev := ta.revision()
	edit := taskActivity(id)
	edit["title"] = "Call Ana and book the hike"
	resp = ta.publish(token, minimalPublication("run-edit-mine", rev).Add("activities", edit).JSON())
	env := assertError(t, resp, http.StatusUnprocessableEntity, "invalid_result")
	raw, _ := json.Marshal(env.Details["errors"])
	var errs []codedError
	if err := json.Unmarshal(raw, &errs); err != nil {
		t.Fatal(err)
	}
	want := codedError{Path: "/activities/0/id", Code: "owner_item_readonly", Expected: contract.ExpectedNotOwnerItem}
	if len(errs) != 1 || errs[0] != want {
		t.Errorf("errors %s, want exactly %+v", raw, want)
	}
	if got := ta.revision(); got != rev {
		t.Errorf("revision %d after the refusal, want %d", got, rev)
	}
	// The same publication under another ID is the agent's own task, accepted.
	edit["id"] = "agent-call-ana"
	if resp := ta.publish(token, minimalPublication("run-own-task", rev).Add("activities", edit).JSON()); resp.status != http.StatusCreated {
		t.Errorf("a task of the agent's own: %s, want 201", resp)
	}
}

func TestTheOwnerTicksEditsAndRemovesAQuickAddFromHome(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	live := ta.ownerRequest(http.MethodPost, "/mine", url.Values{"text": {"buy milk"}}, true, cookie)
	if live.status != http.StatusOK {
		t.Fatalf("quick add from htmx: %s", live)
	}
	item := has(t, live.doc(t), `#live [data-testid="mine-today"] [data-testid="mine-item"]`)
	id := item.AttrOr("data-id", "")

	live = ta.ownerRequest(http.MethodPost, "/mine/"+id+"/done", url.Values{"done": {"true"}}, true, cookie)
	if got := has(t, live.doc(t), `[data-testid="mine-item"][data-id="`+id+`"]`).AttrOr("data-done", ""); got != "true" {
		t.Errorf("after the tick data-done=%q, want true", got)
	}
	live = ta.ownerRequest(http.MethodPost, "/mine/"+id+"/edit", url.Values{"text": {"buy oat milk"}, "day": {"2026-10-02"}}, true, cookie)
	moved := has(t, live.doc(t), `[data-testid="mine-ahead"] [data-testid="mine-item"][data-id="`+id+`"]`)
	if got := moved.Find(`[data-testid="mine-text"]`).Text(); got != "buy oat milk" {
		t.Errorf("edited words %q, want %q", got, "buy oat milk")
	}
	refused := ta.ownerRequest(http.MethodPost, "/mine/"+id+"/edit", url.Values{"text": {"buy oat milk"}, "day": {"Friday"}}, true, cookie)
	if refused.status != http.StatusUnprocessableEntity || !bytes.Contains(refused.body, []byte("YYYY-MM-DD")) {
		t.Errorf("edit with day %q: %s, want 422 saying the day's form", "Friday", refused)
	}
	live = ta.ownerRequest(http.MethodPost, "/mine/"+id+"/remove", nil, true, cookie)
	if n := live.doc(t).Find(`[data-testid="mine-item"]`).Length(); live.status != http.StatusOK || n != 0 {
		t.Errorf("after the remove: %d, %d items shown, want 200 and none", live.status, n)
	}
	if resp := ta.ownerRequest(http.MethodPost, "/mine/"+id+"/done", url.Values{"done": {"true"}}, true, cookie); resp.status != http.StatusNotFound {
		t.Errorf("tick of a removed item: %d, want 404", resp.status)
	}
	if resp := ta.ownerRequest(http.MethodPost, "/mine", url.Values{"text": {"   "}}, true, cookie); resp.status != http.StatusUnprocessableEntity {
		t.Errorf("a blank quick add: %d, want 422", resp.status)
	}
}

func TestAQuickAddSentAgainWithItsClientKeyAddsOneItem(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	const key = "ck-quick-add-0123456789abcdef"
	for i := range 2 {
		live := ta.ownerRequest(http.MethodPost, "/mine", url.Values{"text": {"buy milk"}, "clientKey": {key}}, true, cookie)
		if live.status != http.StatusOK {
			t.Fatalf("send %d: %s, want 200 with Home's live part", i+1, live)
		}
		if n := live.doc(t).Find(`[data-testid="mine-item"]`).Length(); n != 1 {
			t.Errorf("after send %d: %d items, want the one the first send added", i+1, n)
		}
	}
	rev := ta.revision()
	other := ta.ownerRequest(http.MethodPost, "/mine", url.Values{"text": {"buy bread"}, "clientKey": {key}}, true, cookie)
	if other.status != http.StatusConflict || other.doc(t).Find(`[data-testid="mine-item"]`).Length() != 1 {
		t.Errorf("the key with other words: %s, want 409 and still one item", other)
	}
	if got := ta.revision(); got != rev {
		t.Errorf("revision %d after a replay and a conflict, want %d", got, rev)
	}
}
