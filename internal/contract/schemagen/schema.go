// Package schemagen generates the JSON Schemas (2020-12) of the agent
// contract from the Go types the server decodes and encodes (make schema
// writes them into internal/contract/schema, which embeds and serves
// them). A test keeps the two equal, so the served schema never drifts from
// what hearth accepts; the corpus tests hold the schema and the server to
// the same answers. It also derives the strict-mode output schema
// (strict.go). It reflects over internal/contract's types and links no
// store (its tests may: they run the corpus through models); it is kept
// apart because only make schema and the tests need the reflection, not
// what hearth and the runner link at run time (internal/contract/schema).
package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"hearth/internal/contract"
	"hearth/internal/contract/schema"
	"hearth/internal/strictjson"
)

// Documents are the schemas reflected from Go types, by file name; hearth
// serves them under /api/schema/ beside the derived schema.StrictResult.
// The answers (context, receipts, dry-run report, a tool's failure) make
// hearth mcp's tools' output schemas.
var Documents = map[string]any{
	"agent-result.json":                   contract.Result{},
	"agent-request.json":                  contract.RequestIn{},
	"agent-context.json":                  contract.AgentContext{},
	"agent-observation.json":              contract.ObservationIn{},
	"agent-result-receipt.json":           contract.PublishReceipt{},
	"agent-result-dry-run.json":           contract.DryRunReport{},
	"agent-observation-batch-answer.json": contract.ObservationBatchAnswer{},
	"agent-tool-failure.json":             contract.ToolFailure{},
}

// reads are the documents hearth decodes: they carry the decoder's bounds.
// The context and the answers are what hearth writes (its own occurrences
// have hearth: IDs no publication may use), so they are left as reflected.
var reads = map[string]bool{"agent-result.json": true, "agent-request.json": true, "agent-observation.json": true}

// Generate writes document name: reflected from its Go type, then made to
// say every bound and per-kind shape the decoder checks (contract.go). The
// strict form is derived from the full publication schema.
func Generate(name string) ([]byte, error) {
	var doc *object
	if name == schema.StrictResult {
		full, err := document("agent-result.json")
		if err != nil {
			return nil, err
		}
		doc = strictOf(full)
	} else {
		var err error
		if doc, err = document(name); err != nil {
			return nil, err
		}
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// document reflects a Go-typed document and applies the contract to it.
func document(name string) (*object, error) {
	v, ok := Documents[name]
	if !ok {
		return nil, fmt.Errorf("schema: no document %q", name)
	}
	doc, err := reflected(v, "https://hearth.invalid/schema/"+name)
	if err != nil {
		return nil, err
	}
	if !reads[name] {
		return doc, nil
	}
	return doc, applyContract(doc, reflect.TypeOf(v))
}

// reflected reflects v with every field's required-ness by strictjson's
// rule (a non-pointer field without omitempty) and every object closed, as
// the decoder reads it; id, when set, is the document's $id. Without one
// the result is a bare definition.
func reflected(v any, id string) (*object, error) {
	r := &jsonschema.Reflector{
		BaseSchemaID:   "https://hearth.invalid/schema",
		ExpandedStruct: true,
		Namer:          typeName,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			switch t {
			case reflect.TypeOf(strictjson.Raw{}):
				return &jsonschema.Schema{Type: "object", Description: "a JSON object"}
			case reflect.TypeOf(json.RawMessage{}):
				return &jsonschema.Schema{Description: "any JSON value"}
			}
			return nil
		},
	}
	s := r.Reflect(v)
	s.ID = jsonschema.ID(id)
	fixRequired(s, reflect.TypeOf(v), s.Definitions, map[reflect.Type]bool{})
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	parsed, err := parseOrdered(b)
	if err != nil {
		return nil, err
	}
	doc := parsed.(*object)
	if id == "" {
		doc.Delete("$schema")
		doc.Delete("$id")
	}
	return doc, nil
}

// typeName names definitions; generic instances (Page[T]) get T's name.
func typeName(t reflect.Type) string {
	name := t.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		inner := name[i+1 : len(name)-1]
		inner = inner[strings.LastIndexAny(inner, "./")+1:]
		name = name[:i] + "Of" + inner
	}
	return name
}

// fixRequired sets each object's required list by strictjson's rule and
// recurses into the types its fields use.
func fixRequired(root *jsonschema.Schema, t reflect.Type, defs jsonschema.Definitions, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] || t.PkgPath() == "time" {
		return
	}
	seen[t] = true
	target := root
	if d, ok := defs[typeName(t)]; ok && root.Properties == nil {
		target = d
	} else if ok && target != d && root.ID == "" {
		target = d
	}
	if target != nil && target.Properties != nil {
		target.Required = requiredOf(t)
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			fixRequired(target, f.Type, defs, seen)
			continue
		}
		sub := f.Type
		for sub.Kind() == reflect.Pointer || sub.Kind() == reflect.Slice || sub.Kind() == reflect.Map {
			sub = sub.Elem()
		}
		if d, ok := defs[typeName(sub)]; ok {
			fixRequired(d, sub, defs, seen)
		}
	}
}

// requiredOf lists the JSON names strictjson requires on t (embedded
// structs' fields included).
func requiredOf(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			out = append(out, requiredOf(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		if f.Type.Kind() == reflect.Pointer || slices.Contains(strings.Split(opts, ","), "omitempty") || slices.Contains(strings.Split(opts, ","), "omitzero") {
			continue
		}
		out = append(out, name)
	}
	return out
}

// Equal reports whether a generated document matches the committed one.
func Equal(name string) (bool, error) {
	gen, err := Generate(name)
	if err != nil {
		return false, err
	}
	c, ok := schema.Committed(name)
	return ok && bytes.Equal(gen, c), nil
}
