package schemagen_test

import (
	"encoding/json"
	"strings"
	"testing"

	"hearth/internal/contract/schema"
)

// crossItemCases are publications hearth refuses for a rule JSON Schema
// cannot express (a reference between items, a stored state, a zone
// database). The schema accepts them, so its description must name the
// rule: rule is a phrase of that description.
var crossItemCases = []struct {
	name, rule string
	edits      []edit
}{
	{"two activities with one ID", "unique within their list", []edit{set("/activities/2/id", "stretch")}},
	{"two candidates with one ID", "candidates within a draft", []edit{set("/replyDrafts/0/candidates/-", map[string]any{"id": "yes", "style": "long", "body": "Yes, gladly."})}},
	{"evidence naming no source ref", "evidenceIds and sourceRefIds name source refs", []edit{set("/activities/1/evidenceIds/0", "life-evening")}},
	{"a person nobody published", "personId names a person", []edit{set("/activities/3/personId", "bo")}},
	{"a task as parent", "parentId names a routine activity", []edit{set("/activities/1/parentId", "weigh")}},
	{"two replies to one draft", "one reply activity per draft", []edit{set("/activities/-", map[string]any{"id": "answer-ana-2", "kind": "reply", "title": "Again", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "draft-ana"}})}},
	{"retracting what is not stored", "a retraction names a stored activity or draft", []edit{set("/retractions/-", map[string]any{"kind": "activity", "id": "gone"})}},
	{"min-steps over the steps", "min-steps n is at most the number of steps", []edit{set("/routineDefinitions/0/completionRule/n", 4)}},
	{"a window running backwards", "its window runs forward", []edit{set("/reviews/0/window/from", "2026-10-30")}},
	{"a review of an unknown revision", "review names a routine revision", []edit{set("/reviews/0/revision", 7)}},
	{"a routine citing no hashed life file", "cites a life source ref with a contentHash", []edit{set("/routineDefinitions/1/evidenceIds", []any{"chat-ana"})}},
	{"a zone hearth does not know", "IANA zones", []edit{set("/brief/timeZone", "Mars/Olympus_Mons")}},
	{"an occurrence on February 30", "real calendar days", []edit{set("/activities/1/occurrenceKey", "2026-02-30@Europe/Berlin")}},
	{"a life path over 1024 bytes in 1000 characters", "1024 bytes of UTF-8", []edit{set("/sourceRefs/0/path", strings.Repeat("é", 1000))}},
	{"completing an unknown request", "completedRequests name pending owner requests", []edit{set("/completedRequests/-", map[string]any{"requestId": "req-1", "sourceRefIds": []any{}})}},
	{"consuming an unknown observation", "consumedObservations name pending observations", []edit{set("/consumedObservations", []any{7})}},
}

func TestTheSchemaNamesWhatOnlyTheServerChecks(t *testing.T) {
	s := dryRunStore(t)
	for _, name := range []string{"agent-result.json", "agent-result.strict.json"} {
		b, ok := schema.Committed(name)
		if !ok {
			t.Fatalf("no committed %s", name)
		}
		var doc struct{ Description string }
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for _, c := range crossItemCases {
			if !strings.Contains(doc.Description, c.rule) {
				t.Errorf("%s's description does not say %q (%s)", name, c.rule, c.name)
			}
		}
	}
	for _, c := range crossItemCases {
		body := apply(t, basePublication, c.edits)
		if _, err := serverPaths(t, s, body); err == nil {
			t.Errorf("%s: hearth accepts it (the case is wrong)", c.name)
		}
		if err := validate(t, "agent-result.json", body); err != nil {
			t.Errorf("%s: the schema refuses it, so it is not a cross-item rule: %v", c.name, err)
		}
	}
}
