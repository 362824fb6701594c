package schemagen

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// strictKeywords are the keywords OpenAI's Structured Outputs strict mode
// accepts ("Supported schemas"); everything else is left out.
var strictKeywords = []string{"type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
	"$ref", "$defs", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"multipleOf", "minItems", "maxItems"}

// strictFormats are the string formats strict mode accepts.
var strictFormats = []string{"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}

// strictNonBlankPattern is nonBlankPattern in short: \s is Unicode-aware
// in some dialects and ASCII in others, which is close enough to steer a
// model.
const strictNonBlankPattern = `^\s*\S[\s\S]*$`

// strictOf derives the strict form from the full publication schema: the
// same definitions and order, every object closed with every property
// required, optional ones null-able, and only strict mode's keywords. A
// bound strict mode cannot carry (lengths, unique items) moves into the
// property's description, so the model still reads it; hearth checks it.
func strictOf(full *object) *object {
	doc := clone(full).(*object)
	doc.Delete("$schema")
	doc.Delete("$id")
	var walk func(s *object)
	walk = func(s *object) {
		var notes []string
		if n, ok := asInt(s.Value("maxLength")); ok {
			notes = append(notes, fmt.Sprintf("at most %d characters", n))
		}
		if s.Value("uniqueItems") == true {
			notes = append(notes, "no item twice")
		}
		if s.Value("pattern") == nonBlankPattern {
			// Guidance is enough here (hearth checks the exact rule): the
			// spelled-out class would cost over a thousand tokens of schema.
			s.Set("pattern", strictNonBlankPattern)
		}
		s.Filter(func(k string, v any) bool {
			if f, ok := v.(string); ok && k == "format" {
				return slices.Contains(strictFormats, f)
			}
			return slices.Contains(strictKeywords, k)
		})
		if len(notes) > 0 {
			d, _ := s.Value("description").(string)
			s.Set("description", strings.TrimPrefix(d+"; "+strings.Join(notes, ", "), "; "))
		}
		if defs := s.obj("$defs"); defs != nil {
			for name := range defs.KeysFromOldest() {
				walk(defs.obj(name))
			}
		}
		if props := s.obj("properties"); props != nil {
			required := s.strings("required")
			all := make([]any, 0, props.Len())
			for name := range props.KeysFromOldest() {
				sub := props.obj(name)
				walk(sub)
				if !slices.Contains(required, name) {
					props.Set(name, nullable(sub))
				}
				all = append(all, name)
			}
			s.Set("required", all)
		} else if s.Value("type") == "object" {
			s.Set("properties", newObject())
			s.Set("required", []any{})
		}
		if it := s.obj("items"); it != nil {
			walk(it)
		}
		if branches, ok := s.Value("anyOf").([]any); ok {
			for _, b := range branches {
				walk(b.(*object))
			}
		}
	}
	walk(doc)
	doc.Set("description", strictDescription())
	return doc
}

// asInt reads a number set by a rule (int) or parsed (json.Number).
func asInt(v any) (int, bool) {
	switch v := v.(type) {
	case int:
		return v, true
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}

// nullable lets s be null too: a property the publication may leave out.
func nullable(s *object) *object {
	null := newObject("type", "null")
	switch {
	case s.has("$ref"):
		return newObject("anyOf", []any{s, null})
	case s.has("anyOf"):
		s.Set("anyOf", append(s.Value("anyOf").([]any), null))
		return s
	}
	if t, ok := s.Value("type").(string); ok {
		s.Set("type", []any{t, "null"})
	}
	if e, ok := s.Value("enum").([]any); ok {
		s.Set("enum", append(e, nil))
	}
	return s
}

func strictDescription() string {
	return "A publication for POST /api/agent-results, in the strict-mode form of agent-result.json for OpenAI Structured Outputs " +
		"(text.format json_schema, strict: true). Every property is listed and required: one the publication leaves out is null " +
		"here, and the runner drops null properties before publishing (null means not given; a null inside a list is refused). " +
		"Lengths and unique items are in descriptions, not keywords, since strict mode has none for them; hearth checks them, " +
		"and everything agent-result.json says. Beyond the schema hearth checks, each a 422 naming the path: " +
		strings.Join(crossItemRules, " ")
}
