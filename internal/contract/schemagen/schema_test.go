package schemagen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"hearth/internal/contract"
	"hearth/internal/contract/schema"
	"hearth/internal/contract/schemagen"
	"hearth/internal/costpolicy"
	"hearth/internal/ids"
	"hearth/models"
	"hearth/models/read"
)

func TestCommittedSchemasMatchTheGoContract(t *testing.T) {
	for _, name := range schema.Names() {
		ok, err := schemagen.Equal(name)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("internal/contract/schema/%s differs from the Go contract types: run make schema and commit", name)
		}
	}
}

// compiled compiles a committed schema document.
func compiled(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	b, ok := schema.Committed(name)
	if !ok {
		t.Fatalf("no committed %s", name)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "https://hearth.invalid/schema/" + name
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validate(t *testing.T, name string, body []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	return compiled(t, name).Validate(inst)
}

// readmeExample matches a fenced block whose info string names a schema:
// ```json agent-result
var readmeExample = regexp.MustCompile("(?s)```json (agent-[a-z]+)\n(.*?)```")

func TestEveryReadmeExampleValidates(t *testing.T) {
	readme, err := os.ReadFile("../../../docs/agent-api.md")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, m := range readmeExample.FindAllSubmatch(readme, -1) {
		name := string(m[1]) + ".json"
		found[name]++
		if err := validate(t, name, m[2]); err != nil {
			t.Errorf("README example %d of %s does not validate: %v\n%s", found[name], name, err, m[2])
		}
	}
	for _, name := range []string{"agent-result.json", "agent-request.json", "agent-observation.json"} {
		if found[name] == 0 {
			t.Errorf("the README has no example of %s (a ```json %s block)", name, strings.TrimSuffix(name, ".json"))
		}
	}
}

func TestSchemaRefusesWhatTheDecoderRefuses(t *testing.T) {
	ok := `{"runId":"r1","jobKey":"j","expectedRevision":0,"generatedAt":"2026-09-29T07:00:00Z","sourceRefs":[],"people":[],"activities":[],"replyDrafts":[],"retractions":[],"completedRequests":[]}`
	if err := validate(t, "agent-result.json", []byte(ok)); err != nil {
		t.Fatalf("a minimal valid publication: %v", err)
	}
	for name, body := range map[string]string{
		"unknown field":           strings.Replace(ok, `"runId"`, `"extra":1,"runId"`, 1),
		"null":                    strings.Replace(ok, `"people":[]`, `"people":null`, 1),
		"missing required":        strings.Replace(ok, `"jobKey":"j",`, ``, 1),
		"bad id":                  strings.Replace(ok, `"r1"`, `"r 1"`, 1),
		"dot id":                  strings.Replace(ok, `"r1"`, `"."`, 1),
		"dot-dot id":              strings.Replace(ok, `"r1"`, `".."`, 1),
		"dots id":                 strings.Replace(ok, `"r1"`, `"..."`, 1),
		"id too long":             strings.Replace(ok, `"r1"`, `"`+strings.Repeat("r", ids.MaxLen+1)+`"`, 1),
		"routineDefinitions null": strings.Replace(ok, `"people":[]`, `"people":[],"routineDefinitions":null`, 1),
	} {
		if err := validate(t, "agent-result.json", []byte(body)); err == nil {
			t.Errorf("%s: the schema accepts what hearth refuses", name)
		}
	}
}

func TestSchemaIDsFollowTheServersOneRule(t *testing.T) {
	seen := 0
	var walk func(v any, strict bool)
	walk = func(v any, strict bool) {
		switch v := v.(type) {
		case map[string]any:
			// An observation's source is "integration:scope", not an ID.
			if p, ok := v["pattern"].(string); ok && strings.Contains(p, "A-Za-z0-9._:@-") && p != contract.SourcePattern {
				seen++
				// Strict mode has no maxLength: the strict form says it in words.
				long := v["maxLength"] == float64(ids.MaxLen)
				if strict {
					d, _ := v["description"].(string)
					long = v["maxLength"] == nil && strings.Contains(d, fmt.Sprintf("at most %d characters", ids.MaxLen))
				}
				if p != ids.Pattern || !long {
					t.Errorf("an ID property reads pattern %q, maxLength %v, description %q; want ids.Pattern %q, at most %d", p, v["maxLength"], v["description"], ids.Pattern, ids.MaxLen)
				}
			}
			for _, sub := range v {
				walk(sub, strict)
			}
		case []any:
			for _, sub := range v {
				walk(sub, strict)
			}
		}
	}
	for _, name := range schema.Names() {
		b, _ := schema.Committed(name)
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		walk(doc, name == schema.StrictResult)
	}
	if seen < 5 {
		t.Errorf("%d ID patterns in the schemas; want runId, jobKey, source ref, activity and request IDs at least", seen)
	}
	ok := `{"runId":".env-check","jobKey":"v1.","expectedRevision":0,"generatedAt":"2026-09-29T07:00:00Z","sourceRefs":[],"people":[],"activities":[],"replyDrafts":[],"retractions":[],"completedRequests":[]}`
	if err := validate(t, "agent-result.json", []byte(ok)); err != nil {
		t.Errorf("IDs with dots and another character: %v", err)
	}
}

func TestAContextTheServerProducesValidates(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 10, 1, 13, 0, 0, 0, time.UTC)
	s, err := models.Open(ctx, t.TempDir(), models.Options{Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pub := map[string]any{
		"runId": "run-1", "jobKey": "daily", "expectedRevision": 0, "generatedAt": "2026-10-01T12:00:00Z",
		"sourceRefs": []any{map[string]any{"id": "life-1", "kind": "life", "path": "routines/morning.md", "contentHash": "sha256:" + strings.Repeat("ab", 32), "observedAt": "2026-10-01T12:00:00Z"}},
		"brief":      map[string]any{"date": "2026-10-01", "timeZone": "America/New_York", "text": "Today.", "evidenceIds": []any{"life-1"}},
		"people":     []any{map[string]any{"id": "ana", "name": "Ana", "context": "friend", "evidenceIds": []any{"life-1"}}},
		"activities": []any{
			map[string]any{"id": "t1", "kind": "task", "title": "Call", "personId": "ana", "evidenceIds": []any{}, "payload": map[string]any{},
				"recommendation": map[string]any{"section": "focus", "rank": 1, "reason": "why"}},
			map[string]any{"id": "r1", "kind": "reply", "title": "Answer", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "d1"}},
		},
		"replyDrafts": []any{map[string]any{"id": "d1", "personId": "ana", "accountId": "a", "chatId": "c", "sourceMessageRevision": "3",
			"reason": "asked", "candidates": []any{map[string]any{"id": "c1", "style": "short", "body": "Yes"}}, "evidenceIds": []any{}}},
		"retractions": []any{}, "completedRequests": []any{},
		"routineDefinitions": []any{map[string]any{"id": "morning", "revision": 1, "title": "Morning", "purpose": "steady",
			"trigger": map[string]any{"kind": "daily"}, "status": "candidate", "evidenceIds": []any{"life-1"},
			"completionRule": map[string]any{"kind": "all-required"},
			"steps":          []any{map[string]any{"id": "weigh", "title": "Weigh", "kind": "measurement", "required": true, "payload": map[string]any{"metric": "weight", "unit": "kg"}}}}},
	}
	body, _ := json.Marshal(pub)
	if err := validate(t, "agent-result.json", body); err != nil {
		t.Fatalf("the test's own publication: %v", err)
	}
	// The publication is a run's, with a reported cost, so the context
	// carries what its work became (jobFates).
	if _, err := s.StartRun(ctx, "cred", contract.RunStartIn{RunID: "run", Job: "daily", Trigger: contract.TriggerManual}, costpolicy.Policy{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartInvocation(ctx, "cred", "run"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := publish(s, ctx, "cred", body); err != nil {
		t.Fatal(err)
	}
	cost := 0.25
	if _, err := s.FinishInvocation(ctx, "cred", "run", 1, contract.InvocationFinishIn{PublicationRunID: "run-1", Outcome: contract.InvocationPublished, CostUSD: &cost}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "t1", models.StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartTrial(ctx, models.TrialCommand{RoutineID: "morning", Revision: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordMeasurement(ctx, "hearth:morning@2026-10-01:weigh", 72.5); err != nil {
		t.Fatal(err)
	}
	if _, _, err := createRequest(s, ctx, []byte(`{"requestId":"req-1","kind":"crm-edit","entityId":"ana","text":"moved","edit":{"field":"city","value":"Lisbon"}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := recordObservation(s, ctx, "cred", []byte(`{"source":"beeper:acc","ref":"m1","changeType":"created","actor":"agent","payload":{"kind":"message","providerId":"acc","raw":{"text":"hi"}}}`)); err != nil {
		t.Fatal(err)
	}
	ac, err := read.Of(s).AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ac.JobFates) == 0 || ac.JobFates[0].Done != 1 || ac.JobFates[0].CostPerAcceptedUSD == nil {
		t.Fatalf("the context's job fates: %+v", ac.JobFates)
	}
	out, _ := json.Marshal(ac)
	if err := validate(t, "agent-context.json", out); err != nil {
		t.Fatalf("the server's own context does not validate: %v", err)
	}
}

// TestTheServedNamesAreTheGeneratedDocuments: the schema package lists its
// committed files by hand (it imports no store, so it cannot see
// Documents); this keeps the list and the generator's documents the same.
func TestTheServedNamesAreTheGeneratedDocuments(t *testing.T) {
	want := []string{schema.StrictResult}
	for name := range schemagen.Documents {
		want = append(want, name)
	}
	slices.Sort(want)
	if got := schema.Names(); !slices.Equal(got, want) {
		t.Fatalf("schema.Names() = %v, want %v", got, want)
	}
}
