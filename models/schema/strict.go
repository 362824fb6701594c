package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// StrictResult is the strict-mode form of agent-result.json: an output
// schema an OpenAI model can be held to (Codex --output-schema sends it as
// text.format {type: json_schema, strict: true}).
const StrictResult = "agent-result.strict.json"

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
	doc.del("$schema")
	doc.del("$id")
	var walk func(s *object)
	walk = func(s *object) {
		var notes []string
		if n, ok := asInt(s.get("maxLength")); ok {
			notes = append(notes, fmt.Sprintf("at most %d characters", n))
		}
		if s.get("uniqueItems") == true {
			notes = append(notes, "no item twice")
		}
		if s.get("pattern") == nonBlankPattern {
			// Guidance is enough here (hearth checks the exact rule): the
			// spelled-out class would cost over a thousand tokens of schema.
			s.set("pattern", strictNonBlankPattern)
		}
		for _, k := range slices.Clone(s.keys) {
			f, isFormat := s.get(k).(string)
			if !slices.Contains(strictKeywords, k) || k == "format" && isFormat && !slices.Contains(strictFormats, f) {
				s.del(k)
			}
		}
		if len(notes) > 0 {
			d, _ := s.get("description").(string)
			s.set("description", strings.TrimPrefix(d+"; "+strings.Join(notes, ", "), "; "))
		}
		if defs := s.obj("$defs"); defs != nil {
			for _, name := range defs.keys {
				walk(defs.obj(name))
			}
		}
		if props := s.obj("properties"); props != nil {
			required := s.strings("required")
			all := make([]any, 0, len(props.keys))
			for _, name := range props.keys {
				sub := props.obj(name)
				walk(sub)
				if !slices.Contains(required, name) {
					props.set(name, nullable(sub))
				}
				all = append(all, name)
			}
			s.set("required", all)
		} else if s.get("type") == "object" {
			s.set("properties", newObject())
			s.set("required", []any{})
		}
		if it := s.obj("items"); it != nil {
			walk(it)
		}
		if branches, ok := s.get("anyOf").([]any); ok {
			for _, b := range branches {
				walk(b.(*object))
			}
		}
	}
	walk(doc)
	doc.set("description", strictDescription())
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
		s.set("anyOf", append(s.get("anyOf").([]any), null))
		return s
	}
	if t, ok := s.get("type").(string); ok {
		s.set("type", []any{t, "null"})
	}
	if e, ok := s.get("enum").([]any); ok {
		s.set("enum", append(e, nil))
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
