package models

import (
	"context"
	"encoding/json"
	"testing"

	"hearth/internal/contract"
)

// contextJSON reads a context as the API serves it: decoded into plain
// maps, so a field left out is told from one present with a zero value.
func contextJSON(t *testing.T, read func(context.Context) (contract.AgentContext, error)) map[string]any {
	t.Helper()
	ac, err := read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	contextValidates(t, ac)
	b, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// itemsOf returns a collection's items by their id.
func itemsOf(t *testing.T, ctx map[string]any, collection string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, it := range ctx[collection].(map[string]any)["items"].([]any) {
		m := it.(map[string]any)
		out[m["id"].(string)] = m
	}
	return out
}

// A typical day with three owner decisions the compact context must keep:
// a deferral, a task set back to available by hand (it has a time) and one
// in progress with a note.
func typicalDayWithDecisions(t *testing.T) *Store {
	t.Helper()
	s := typicalDay(t)
	ctx := context.Background()
	for _, d := range []struct{ id, state, until, note string }{
		{"task-10", StateDeferred, "2026-10-02", ""},
		{"task-11", StateAvailable, "", ""},
		{"task-12", StateInProgress, "", "half the parts ordered"},
	} {
		if _, err := s.SetActivityState(ctx, d.id, d.state, d.until, d.note); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestCompactContextLeavesOutTheDefaultUserStateAndPeoplesUpdatedAt(t *testing.T) {
	s := typicalDayWithDecisions(t)
	compact := contextJSON(t, s.CompactContext)

	people := itemsOf(t, compact, "people")
	if len(people) != 20 {
		t.Fatalf("compact lists %d people, want 20", len(people))
	}
	for id, p := range people {
		if _, ok := p["updatedAt"]; ok {
			t.Errorf("compact person %s has updatedAt %v; want it left out", id, p["updatedAt"])
		}
		if p["revision"] == nil || p["evidenceIds"] == nil {
			t.Errorf("compact person %s lost its revision or evidence: %v", id, p)
		}
	}
	activities := itemsOf(t, compact, "activities")
	for _, id := range []string{"task-13", "task-34", "reply-00", "reply-09"} {
		a, ok := activities[id]
		if !ok {
			t.Fatalf("compact does not list open activity %s", id)
		}
		if us, ok := a["userState"]; ok {
			t.Errorf("compact activity %s has the default userState %v; want it left out", id, us)
		}
		if a["revision"] == nil || a["payload"] == nil {
			t.Errorf("compact activity %s lost its revision or payload: %v", id, a)
		}
	}
	// The owner's decisions stay, whole: a deferral, an explicit
	// "available" (it has a time) and a note.
	for id, want := range map[string]map[string]bool{
		"task-10": {"state": true, "until": true, "at": true},
		"task-11": {"state": true, "at": true},
		"task-12": {"state": true, "note": true, "at": true},
	} {
		us, ok := activities[id]["userState"].(map[string]any)
		if !ok {
			t.Errorf("compact activity %s lost the owner's decision: %v", id, activities[id])
			continue
		}
		for field := range want {
			if _, ok := us[field]; !ok {
				t.Errorf("compact activity %s: userState %v has no %s", id, us, field)
			}
		}
	}
	if s := activities["task-10"]["userState"].(map[string]any)["state"]; s != StateDeferred {
		t.Errorf("compact task-10 is %v, want deferred", s)
	}
	if s := activities["task-11"]["userState"].(map[string]any)["state"]; s != StateAvailable {
		t.Errorf("compact task-11 is %v, want available", s)
	}
}

func TestFullContextKeepsEveryUserStateAndUpdatedAt(t *testing.T) {
	s := typicalDayWithDecisions(t)
	full := contextJSON(t, s.AgentContext)
	for id, p := range itemsOf(t, full, "people") {
		if u, _ := p["updatedAt"].(string); u == "" {
			t.Errorf("full person %s has no updatedAt: %v", id, p)
		}
	}
	activities := itemsOf(t, full, "activities")
	if len(activities) != 50 {
		t.Fatalf("full lists %d activities, want 50", len(activities))
	}
	for id, a := range activities {
		us, _ := a["userState"].(map[string]any)
		if st, _ := us["state"].(string); st == "" {
			t.Errorf("full activity %s has no userState.state: %v", id, a)
		}
	}
	if st := activities["task-13"]["userState"].(map[string]any)["state"]; st != StateAvailable {
		t.Errorf("full task-13 is %v, want available", st)
	}
}
