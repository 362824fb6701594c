// Package strictmode checks a JSON Schema against OpenAI's Structured
// Outputs strict mode ("Supported schemas"): what a schema sent as
// text.format {type: json_schema, strict: true} may use. hearth's schema
// test and the e2e test's scripted Responses endpoint share it, so the
// endpoint refuses what the real API would.
package strictmode

import (
	"fmt"
	"slices"
	"strings"
)

var (
	keywords = []string{"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
		"$ref", "$defs", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"multipleOf", "minItems", "maxItems"}
	types   = []string{"string", "number", "boolean", "integer", "object", "array", "null"}
	formats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
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
	MaxProperties = 5000
	MaxNesting    = 5
	MaxEnumValues = 1000
	MaxChars      = 120_000
)

// Stats are a schema's sizes that strict mode limits.
type Stats struct {
	Properties, EnumValues, Chars, Nesting int
}

// Check returns every way doc breaks strict mode (none when it follows
// it), each with the path of the schema concerned, and its sizes.
func Check(doc map[string]any) ([]string, Stats) {
	var problems []string
	errf := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	defs, _ := doc["$defs"].(map[string]any)
	for _, k := range []string{"$schema", "$id", "anyOf"} {
		if _, ok := doc[k]; ok {
			errf("the root has %s", k)
		}
	}
	if doc["type"] != "object" {
		errf("the root is %v, not an object", doc["type"])
	}
	var st Stats
	var check func(path string, s map[string]any)
	check = func(path string, s map[string]any) {
		if len(s) == 0 {
			errf("%s: an empty schema (any value)", path)
		}
		for k := range s {
			if !slices.Contains(keywords, k) {
				errf("%s: keyword %q is not in strict mode", path, k)
			}
		}
		if _, ok := s["$defs"]; ok && path != "#" {
			errf("%s: $defs below the root", path)
		}
		tys := typesOf(s["type"])
		_, isRef := s["$ref"]
		_, isAnyOf := s["anyOf"]
		if len(tys) == 0 && !isRef && !isAnyOf {
			errf("%s: no type, $ref or anyOf", path)
		}
		if isRef && len(s) > 2 || isRef && len(s) == 2 && s["description"] == nil {
			errf("%s: $ref beside other keywords", path)
		}
		for _, ty := range tys {
			if !slices.Contains(types, ty) {
				errf("%s: type %q", path, ty)
			}
		}
		if len(tys) > 2 || len(tys) == 2 && tys[1] != "null" {
			errf("%s: type %v: strict mode takes one type, or one and null", path, tys)
		}
		for k, want := range keywordTypes {
			if _, ok := s[k]; ok && !slices.ContainsFunc(tys, func(ty string) bool { return slices.Contains(want, ty) }) {
				errf("%s: %s on a schema of type %v", path, k, tys)
			}
		}
		// JSON Schema searches a pattern; some constrained decoders match it
		// whole. Anchored at both ends, both readings agree.
		if p, ok := s["pattern"].(string); ok && (!strings.HasPrefix(p, "^") || !strings.HasSuffix(p, "$")) {
			errf("%s: pattern %q is not anchored at both ends", path, p)
		}
		if f, ok := s["format"].(string); ok && !slices.Contains(formats, f) {
			errf("%s: format %q", path, f)
		}
		if ref, ok := s["$ref"].(string); ok {
			if name, found := strings.CutPrefix(ref, "#/$defs/"); !found || defs[name] == nil {
				errf("%s: $ref %q names no definition", path, ref)
			}
		}
		if e, ok := s["enum"].([]any); ok {
			st.EnumValues += len(e)
			for _, v := range e {
				if s, ok := v.(string); ok {
					st.Chars += len(s)
				}
				if v == nil && !slices.Contains(tys, "null") {
					errf("%s: null in the enum of a type %v", path, tys)
				}
			}
		}
		if slices.Contains(tys, "object") {
			p, _ := s["properties"].(map[string]any)
			if p == nil {
				errf("%s: an object without properties", path)
			}
			if s["additionalProperties"] != false {
				errf("%s: additionalProperties is %v, not false", path, s["additionalProperties"])
			}
			var req []string
			reqList, _ := s["required"].([]any)
			for _, r := range reqList {
				name, _ := r.(string)
				req = append(req, name)
			}
			var names []string
			for name, sub := range p {
				names = append(names, name)
				st.Properties++
				st.Chars += len(name)
				if sub, ok := sub.(map[string]any); ok {
					check(path+"/properties/"+name, sub)
				} else {
					errf("%s/properties/%s: not a schema", path, name)
				}
			}
			slices.Sort(names)
			slices.Sort(req)
			if !slices.Equal(names, req) {
				errf("%s: required %v, properties %v: strict mode requires every property", path, req, names)
			}
		}
		if it, ok := s["items"].(map[string]any); ok {
			check(path+"/items", it)
		} else if slices.Contains(tys, "array") {
			errf("%s: an array without items", path)
		}
		if a, ok := s["anyOf"].([]any); ok {
			for i, b := range a {
				if b, ok := b.(map[string]any); ok {
					check(fmt.Sprintf("%s/anyOf/%d", path, i), b)
				}
			}
		}
	}
	names := make([]string, 0, len(defs))
	for name := range defs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if d, ok := defs[name].(map[string]any); ok {
			check("#/$defs/"+name, d)
		}
	}
	root := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != "$defs" {
			root[k] = v
		}
	}
	check("#", root)
	st.Nesting = nesting(doc, doc, map[string]bool{})
	if st.Properties > MaxProperties || st.EnumValues > MaxEnumValues || st.Chars > MaxChars {
		errf("over strict mode's limits: %d properties (max %d), %d enum values (max %d), %d characters (max %d)",
			st.Properties, MaxProperties, st.EnumValues, MaxEnumValues, st.Chars, MaxChars)
	}
	if st.Nesting > MaxNesting {
		errf("%d levels of nested objects; keep to %d", st.Nesting, MaxNesting)
	}
	return problems, st
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

// nesting is the deepest chain of objects below s, following references
// (a recursive definition would be infinite: reported as a large depth).
func nesting(doc, s map[string]any, onPath map[string]bool) int {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		defs, _ := doc["$defs"].(map[string]any)
		def, _ := defs[name].(map[string]any)
		if onPath[name] || def == nil {
			return 100
		}
		onPath[name] = true
		defer delete(onPath, name)
		return nesting(doc, def, onPath)
	}
	deepest := 0
	if p, ok := s["properties"].(map[string]any); ok {
		for _, sub := range p {
			if sub, ok := sub.(map[string]any); ok {
				deepest = max(deepest, nesting(doc, sub, onPath))
			}
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		deepest = max(deepest, nesting(doc, it, onPath))
	}
	if a, ok := s["anyOf"].([]any); ok {
		for _, b := range a {
			if b, ok := b.(map[string]any); ok {
				deepest = max(deepest, nesting(doc, b, onPath))
			}
		}
	}
	if slices.Contains(typesOf(s["type"]), "object") {
		return deepest + 1
	}
	return deepest
}
