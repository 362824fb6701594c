package schemagen_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"hearth/internal/contract/schema"
	"hearth/internal/contract/schema/strictmode"
	"hearth/internal/strictjson"
)

const strictName = "agent-result.strict.json"

func strictDoc(t *testing.T) map[string]any {
	t.Helper()
	b, ok := schema.Committed(strictName)
	if !ok {
		t.Fatalf("no committed %s", strictName)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestStrictSchemaFollowsOpenAIStrictMode(t *testing.T) {
	problems, st := strictmode.Check(strictDoc(t))
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("strict schema: %d properties, %d enum values, %d characters of names and enum values, %d levels of objects",
		st.Properties, st.EnumValues, st.Chars, st.Nesting)
}

// strictShape fills every property a publication leaves out with null, as
// a model answering under the strict schema writes it. The schema says
// which properties an object has: an anyOf branch is picked by kind.
func strictShape(t *testing.T, doc map[string]any, v any, s map[string]any) any {
	t.Helper()
	if ref, ok := s["$ref"].(string); ok {
		s = doc["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	if branches, ok := s["anyOf"].([]any); ok {
		var pick map[string]any
		for _, b := range branches {
			b := b.(map[string]any)
			if r, ok := b["$ref"].(string); ok {
				b = doc["$defs"].(map[string]any)[strings.TrimPrefix(r, "#/$defs/")].(map[string]any)
			}
			if b["type"] == "null" {
				continue
			}
			kind, _ := b["properties"].(map[string]any)["kind"].(map[string]any)
			obj, _ := v.(map[string]any)
			if kind == nil || obj != nil && slices.Contains(kind["enum"].([]any), obj["kind"]) {
				pick = b
				break
			}
		}
		if pick == nil {
			t.Fatalf("no branch of %v for %v", s, v)
		}
		s = pick
	}
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for name, sub := range s["properties"].(map[string]any) {
			if x, ok := v[name]; ok {
				out[name] = strictShape(t, doc, x, sub.(map[string]any))
			} else {
				out[name] = nil
			}
		}
		for name := range v {
			if _, ok := out[name]; !ok {
				t.Fatalf("property %q is not in the strict schema", name)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = strictShape(t, doc, x, s["items"].(map[string]any))
		}
		return out
	}
	return v
}

// validPublications are the valid publications the tests know: the corpus's
// base and every agent-result example of the README.
func validPublications(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{"corpus base": apply(t, basePublication, nil)}
	readme, err := os.ReadFile("../../../docs/agent-api.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range readmeExample.FindAllSubmatch(readme, -1) {
		if string(m[1]) == "agent-result" {
			out[fmt.Sprintf("README example %d", i)] = m[2]
		}
	}
	return out
}

func TestEveryValidPublicationIsAcceptedByTheServerAndBothSchemas(t *testing.T) {
	s := dryRunStore(t)
	doc := strictDoc(t)
	for name, body := range validPublications(t) {
		if _, err := serverPaths(t, s, body); err != nil {
			t.Errorf("%s: hearth refuses it: %v", name, err)
		}
		if err := validate(t, "agent-result.json", body); err != nil {
			t.Errorf("%s: the schema refuses it: %v", name, err)
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		shaped, _ := json.Marshal(strictShape(t, doc, v, doc))
		if err := validate(t, strictName, shaped); err != nil {
			t.Errorf("%s: the strict schema refuses it in strict shape: %v\n%s", name, err, shaped)
		}
	}
}

func TestAStrictAnswerPublishesAsTheContractsPublication(t *testing.T) {
	s := dryRunStore(t)
	doc := strictDoc(t)
	for name, body := range validPublications(t) {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		shaped, _ := json.Marshal(strictShape(t, doc, v, doc))
		if _, err := serverPaths(t, s, shaped); err == nil {
			t.Fatalf("%s: hearth accepts nulls; the strict answer would need no normalizing", name)
		}
		got, err := schema.FromStrict(shaped)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, _ := strictjson.Canonical(body)
		if canon, _ := strictjson.Canonical(got); !bytes.Equal(canon, want) {
			t.Errorf("%s: normalized\n%s\nwant (canonical)\n%s", name, canon, want)
		}
		gotReport, err := dryRun(s, context.Background(), "cred", got)
		if err != nil {
			t.Fatalf("%s: the normalized answer is refused: %v", name, err)
		}
		wantReport, _ := dryRun(s, context.Background(), "cred", body)
		if !reflect.DeepEqual(gotReport, wantReport) {
			t.Errorf("%s: dry run %+v, want %+v", name, gotReport, wantReport)
		}
	}
}

func TestFromStrictDropsNullMembersAndRefusesNullItems(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{`{"a":null}`, `{}`, ""},
		{` {"z":1,"a":{"b":null,"c":[{"d":null,"e":"x"}]},"n":1.50e2,"s":"<\u00e9>"} `, `{"z":1,"a":{"c":[{"e":"x"}]},"n":1.50e2,"s":"<é>"}`, ""},
		{`{"people":[null]}`, "", "/people/0"},
		{`{"a":{"b":[1,null]}}`, "", "/a/b/1"},
		{`null`, "", "object"},
		{`[]`, "", "object"},
		{`{"a":1} {"b":2}`, "", "after"},
		{`{"a":1`, "", "JSON"},
		{"{\"a\":\"\xff\"}", "", "UTF-8"},
		{strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70), "", "nesting"},
	} {
		got, err := schema.FromStrict([]byte(c.in))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("FromStrict(%s): %v", c.in, err)
		case c.err == "" && string(got) != c.want:
			t.Errorf("FromStrict(%s) = %s, want %s", c.in, got, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("FromStrict(%s) = %s, %v; want an error saying %q", c.in, got, err, c.err)
		}
	}
}

func TestTheStrictSchemaIsDerivedFromTheFullOne(t *testing.T) {
	full, _ := schema.Committed("agent-result.json")
	strict, _ := schema.Committed(strictName)
	var f, s map[string]any
	json.Unmarshal(full, &f)
	json.Unmarshal(strict, &s)
	fd, sd := f["$defs"].(map[string]any), s["$defs"].(map[string]any)
	for name := range fd {
		if sd[name] == nil {
			t.Errorf("the strict schema lacks definition %s", name)
		}
	}
	fp, sp := f["properties"].(map[string]any), s["properties"].(map[string]any)
	for name := range fp {
		if sp[name] == nil {
			t.Errorf("the strict schema lacks property %s", name)
		}
	}
	// A model writes properties in the order the schema lists them: keep
	// the contract's order (runId first, the routine arrays last).
	at := func(b []byte, name string) int { return bytes.Index(b, []byte(`"`+name+`": {`)) }
	for _, b := range [][]byte{full, strict} {
		order := []int{at(b, "runId"), at(b, "jobKey"), at(b, "sourceRefs"), at(b, "activities"), at(b, "routineDefinitions")}
		if !slices.IsSorted(order) || order[0] < 0 {
			t.Errorf("top-level properties out of the contract's order: %v", order)
		}
	}
}

// The checker bites: the full schema (optional properties, $schema at the
// root) is what the real API refuses.
func TestTheFullSchemaFailsTheStrictModeCheck(t *testing.T) {
	b, _ := schema.Committed("agent-result.json")
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	problems, _ := strictmode.Check(doc)
	joined := strings.Join(problems, "\n")
	if !strings.Contains(joined, "the root has $schema") || !strings.Contains(joined, "strict mode requires every property") {
		t.Fatalf("the full schema passes for strict:\n%s", joined)
	}
}
