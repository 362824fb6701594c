package schema_test

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

	"hearth/models/schema"
	"hearth/models/strictjson"
)

const strictName = "agent-result.strict.json"

// OpenAI's Structured Outputs strict mode ("Supported schemas"): what a
// schema sent as text.format {type: json_schema, strict: true} may use.
var (
	openAIKeywords = []string{"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
		"$ref", "$defs", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"multipleOf", "minItems", "maxItems"}
	openAITypes   = []string{"string", "number", "boolean", "integer", "object", "array", "null"}
	openAIFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
	// keywordTypes says which type a type-specific keyword belongs to.
	keywordTypes = map[string][]string{
		"pattern": {"string"}, "format": {"string"},
		"minimum": {"number", "integer"}, "maximum": {"number", "integer"}, "exclusiveMinimum": {"number", "integer"},
		"exclusiveMaximum": {"number", "integer"}, "multipleOf": {"number", "integer"},
		"minItems": {"array"}, "maxItems": {"array"}, "items": {"array"},
		"properties": {"object"}, "required": {"object"}, "additionalProperties": {"object"},
	}
)

// Limits of strict mode. OpenAI's current guide allows 5,000 properties and
// 10 levels of nesting; older versions said 100 and 5. hearth keeps to the
// older nesting limit, which it can; its properties are over 100.
const (
	maxStrictProperties = 5000
	maxStrictNesting    = 5
	maxStrictEnumValues = 1000
	maxStrictChars      = 120_000
)

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

// typesOf reads a type keyword: a name or a list of names.
func typesOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

func TestStrictSchemaFollowsOpenAIStrictMode(t *testing.T) {
	doc := strictDoc(t)
	defs, _ := doc["$defs"].(map[string]any)
	for _, k := range []string{"$schema", "$id", "anyOf"} {
		if _, ok := doc[k]; ok {
			t.Errorf("the root has %s", k)
		}
	}
	if doc["type"] != "object" {
		t.Errorf("the root is %v, not an object", doc["type"])
	}
	var props, enums, chars int
	var check func(path string, s map[string]any)
	check = func(path string, s map[string]any) {
		if len(s) == 0 {
			t.Errorf("%s: an empty schema (any value)", path)
		}
		for k := range s {
			if !slices.Contains(openAIKeywords, k) {
				t.Errorf("%s: keyword %q is not in strict mode", path, k)
			}
		}
		if _, ok := s["$defs"]; ok && path != "#" {
			t.Errorf("%s: $defs below the root", path)
		}
		types := typesOf(s["type"])
		_, isRef := s["$ref"]
		_, isAnyOf := s["anyOf"]
		if len(types) == 0 && !isRef && !isAnyOf {
			t.Errorf("%s: no type, $ref or anyOf", path)
		}
		if isRef && len(s) > 2 || isRef && len(s) == 2 && s["description"] == nil {
			t.Errorf("%s: $ref beside other keywords", path)
		}
		for _, ty := range types {
			if !slices.Contains(openAITypes, ty) {
				t.Errorf("%s: type %q", path, ty)
			}
		}
		if len(types) > 2 || len(types) == 2 && types[1] != "null" {
			t.Errorf("%s: type %v: strict mode takes one type, or one and null", path, types)
		}
		for k, want := range keywordTypes {
			if _, ok := s[k]; ok && !slices.ContainsFunc(types, func(ty string) bool { return slices.Contains(want, ty) }) {
				t.Errorf("%s: %s on a schema of type %v", path, k, types)
			}
		}
		// JSON Schema searches a pattern; some constrained decoders match it
		// whole. Anchored at both ends, both readings agree.
		if p, ok := s["pattern"].(string); ok && (!strings.HasPrefix(p, "^") || !strings.HasSuffix(p, "$")) {
			t.Errorf("%s: pattern %q is not anchored at both ends", path, p)
		}
		if f, ok := s["format"].(string); ok && !slices.Contains(openAIFormats, f) {
			t.Errorf("%s: format %q", path, f)
		}
		if ref, ok := s["$ref"].(string); ok {
			if name, found := strings.CutPrefix(ref, "#/$defs/"); !found || defs[name] == nil {
				t.Errorf("%s: $ref %q names no definition", path, ref)
			}
		}
		if e, ok := s["enum"].([]any); ok {
			enums += len(e)
			for _, v := range e {
				if s, ok := v.(string); ok {
					chars += len(s)
				}
				if v == nil && !slices.Contains(types, "null") {
					t.Errorf("%s: null in the enum of a type %v", path, types)
				}
			}
		}
		if slices.Contains(types, "object") {
			p, _ := s["properties"].(map[string]any)
			if p == nil {
				t.Errorf("%s: an object without properties", path)
			}
			if s["additionalProperties"] != false {
				t.Errorf("%s: additionalProperties is %v, not false", path, s["additionalProperties"])
			}
			var req []string
			for _, r := range s["required"].([]any) {
				req = append(req, r.(string))
			}
			var names []string
			for name, sub := range p {
				names = append(names, name)
				props++
				chars += len(name)
				check(path+"/properties/"+name, sub.(map[string]any))
			}
			slices.Sort(names)
			slices.Sort(req)
			if !slices.Equal(names, req) {
				t.Errorf("%s: required %v, properties %v: strict mode requires every property", path, req, names)
			}
		}
		if it, ok := s["items"].(map[string]any); ok {
			check(path+"/items", it)
		} else if slices.Contains(types, "array") {
			t.Errorf("%s: an array without items", path)
		}
		if a, ok := s["anyOf"].([]any); ok {
			for i, b := range a {
				check(fmt.Sprintf("%s/anyOf/%d", path, i), b.(map[string]any))
			}
		}
	}
	for name, d := range defs {
		check("#/$defs/"+name, d.(map[string]any))
	}
	root := shallowCopy(doc)
	delete(root, "$defs")
	check("#", root)

	depth := nesting(doc, doc, map[string]bool{})
	t.Logf("strict schema: %d properties, %d enum values, %d characters of names and enum values, %d levels of objects", props, enums, chars, depth)
	if props > maxStrictProperties || enums > maxStrictEnumValues || chars > maxStrictChars {
		t.Errorf("over strict mode's limits: %d properties (max %d), %d enum values (max %d), %d characters (max %d)",
			props, maxStrictProperties, enums, maxStrictEnumValues, chars, maxStrictChars)
	}
	if depth > maxStrictNesting {
		t.Errorf("%d levels of nested objects; keep to %d", depth, maxStrictNesting)
	}
}

func shallowCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// nesting is the deepest chain of objects below s, following references
// (a recursive definition would be infinite: reported as a large depth).
func nesting(doc, s map[string]any, onPath map[string]bool) int {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		if onPath[name] {
			return 100
		}
		onPath[name] = true
		defer delete(onPath, name)
		return nesting(doc, doc["$defs"].(map[string]any)[name].(map[string]any), onPath)
	}
	deepest := 0
	if p, ok := s["properties"].(map[string]any); ok {
		for _, sub := range p {
			deepest = max(deepest, nesting(doc, sub.(map[string]any), onPath))
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		deepest = max(deepest, nesting(doc, it, onPath))
	}
	if a, ok := s["anyOf"].([]any); ok {
		for _, b := range a {
			deepest = max(deepest, nesting(doc, b.(map[string]any), onPath))
		}
	}
	if slices.Contains(typesOf(s["type"]), "object") {
		return deepest + 1
	}
	return deepest
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
	readme, err := os.ReadFile("../../README.md")
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
		gotReport, err := s.PublishDryRun(context.Background(), "cred", got)
		if err != nil {
			t.Fatalf("%s: the normalized answer is refused: %v", name, err)
		}
		wantReport, _ := s.PublishDryRun(context.Background(), "cred", body)
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
