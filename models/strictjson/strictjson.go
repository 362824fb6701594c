// Package strictjson decodes agent-published JSON into typed Go structs and
// reports every problem with a JSON Pointer path, so that an AI agent can fix
// its request without guessing.
//
// It is stricter than encoding/json on purpose: duplicate keys, trailing data,
// unknown fields, missing required fields and null are all errors, because
// silently accepting any of them lets an agent believe a field was stored
// when it was not.
package strictjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 64

// maxErrors bounds the error list so one bad array cannot produce a huge response.
const maxErrors = 100

// FieldError is one problem at one JSON Pointer path.
type FieldError struct {
	Path     string `json:"path"`
	Message  string `json:"message"`
	Expected string `json:"expected,omitempty"`
	Found    string `json:"found,omitempty"`
}

// SyntaxError means the body is not one well-formed JSON value (HTTP 400 malformed_json).
type SyntaxError struct {
	Path   string // JSON Pointer of the value being read when the problem was found
	Offset int64  // byte offset where the problem was detected, or -1 if unknown
	Msg    string
}

// Error describes where the body stopped being well-formed JSON.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("malformed JSON at byte %d (path %q): %s", e.Offset, e.Path, e.Msg)
}

// ShapeError lists every structural problem in a well-formed body (HTTP 422).
type ShapeError struct {
	Errors []FieldError
}

// Error summarises the first few problems; the full list is in Errors.
func (e *ShapeError) Error() string {
	const show = 5
	parts := make([]string, 0, show+1)
	for i, fe := range e.Errors {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Errors)-show))
			break
		}
		parts = append(parts, fmt.Sprintf("%q: %s", fe.Path, fe.Message))
	}
	return fmt.Sprintf("invalid JSON body (%d problems): %s", len(e.Errors), strings.Join(parts, "; "))
}

// Raw holds an unbound JSON value (e.g. a per-kind payload) for a second Bind once its schema is known.
type Raw struct {
	n    *node
	path string
}

// Bind binds the held value into v under the same rules as Decode, with paths relative to the document root.
func (r Raw) Bind(v any) error {
	if r.n == nil {
		return &ShapeError{Errors: []FieldError{{Path: r.path, Message: "missing value", Found: "nothing"}}}
	}
	rv, err := target(v)
	if err != nil {
		return err
	}
	return bindInto(r.n, r.path, rv)
}

// Path returns the JSON Pointer of the held value, so callers can report errors of their own at it.
func (r Raw) Path() string { return r.path }

// IsObject reports whether the held value is a JSON object, the usual shape for a payload.
func (r Raw) IsObject() bool { return r.n != nil && r.n.kind == kindObject }

// Decode parses data as exactly one JSON value and binds it into v (a pointer to struct).
// It returns *SyntaxError or *ShapeError for bad input and leaves v unchanged on any error;
// other errors mean v's type is unsupported, which is a programming mistake.
func Decode(data []byte, v any) error {
	rv, err := target(v)
	if err != nil {
		return err
	}
	root, err := parse(data)
	if err != nil {
		return err
	}
	return bindInto(root, "", rv)
}

// Canonical returns the RFC 8785 (JCS) canonical form of a well-formed JSON document.
// The document is first checked with the same rules as Decode so both agree on what is well-formed.
func Canonical(data []byte) ([]byte, error) {
	if _, err := parse(data); err != nil {
		return nil, err
	}
	out, err := jcs.Transform(data)
	if err != nil {
		// Reached only by values outside I-JSON, such as 1e400 or a lone surrogate escape.
		return nil, &SyntaxError{Offset: -1, Msg: "cannot canonicalize: " + err.Error()}
	}
	return out, nil
}

// Hash returns "sha256:" + hex of Canonical(data), so equivalent documents hash equally.
func Hash(data []byte) (string, error) {
	c, err := Canonical(data)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is one parsed value; objects keep keys in document order so errors come out in that order.
type node struct {
	kind  kind
	text  string   // string value, or number literal kept exact for integer checks
	b     bool     // boolean value
	keys  []string // object keys, parallel to elems
	elems []*node  // array elements or object values
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// child returns the JSON Pointer of token under path, escaped per RFC 6901.
func child(path, token string) string { return path + "/" + pointerEscaper.Replace(token) }

type parser struct {
	dec  *json.Decoder
	data []byte
}

// parse builds the node tree, rejecting everything that is not exactly one well-formed value.
func parse(data []byte) (*node, error) {
	if len(bytes.Trim(data, " \t\r\n")) == 0 {
		return nil, &SyntaxError{Offset: 0, Msg: "empty body"}
	}
	if !utf8.Valid(data) {
		off := 0
		for {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return nil, &SyntaxError{Offset: int64(off), Msg: "invalid UTF-8"}
	}
	p := &parser{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	p.dec.UseNumber()
	root, err := p.value("", 0)
	if err != nil {
		return nil, err
	}
	off := p.dec.InputOffset()
	if _, err := p.dec.Token(); err != io.EOF {
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
			off++
		}
		return nil, &SyntaxError{Offset: off, Msg: "trailing data after the JSON value"}
	}
	return root, nil
}

func (p *parser) fail(path string, err error) *SyntaxError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &SyntaxError{Path: path, Offset: se.Offset, Msg: se.Error()}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &SyntaxError{Path: path, Offset: int64(len(p.data)), Msg: "unexpected end of JSON input"}
	}
	return &SyntaxError{Path: path, Offset: p.dec.InputOffset(), Msg: err.Error()}
}

// value reads one value at path; depth counts the containers enclosing it.
func (p *parser) value(path string, depth int) (*node, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.fail(path, err)
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: kindNull}, nil
	case bool:
		return &node{kind: kindBool, b: t}, nil
	case json.Number:
		return &node{kind: kindNumber, text: string(t)}, nil
	case string:
		return &node{kind: kindString, text: t}, nil
	case json.Delim:
		if depth >= maxDepth {
			return nil, &SyntaxError{Path: path, Offset: p.dec.InputOffset(), Msg: fmt.Sprintf("nesting deeper than %d", maxDepth)}
		}
		if t == '[' {
			return p.array(path, depth+1)
		}
		if t == '{' {
			return p.object(path, depth+1)
		}
	}
	return nil, &SyntaxError{Path: path, Offset: p.dec.InputOffset(), Msg: fmt.Sprintf("unexpected token %v", tok)}
}

func (p *parser) array(path string, depth int) (*node, error) {
	n := &node{kind: kindArray}
	for p.dec.More() {
		e, err := p.value(child(path, strconv.Itoa(len(n.elems))), depth)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, e)
	}
	if _, err := p.dec.Token(); err != nil { // the closing ']'
		return nil, p.fail(child(path, strconv.Itoa(len(n.elems))), err)
	}
	return n, nil
}

func (p *parser) object(path string, depth int) (*node, error) {
	n := &node{kind: kindObject}
	seen := map[string]bool{}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.fail(path, err)
		}
		key, _ := tok.(string) // the decoder only yields strings in key position
		kp := child(path, key)
		if seen[key] {
			return nil, &SyntaxError{Path: kp, Offset: p.dec.InputOffset(), Msg: fmt.Sprintf("duplicate key %q", key)}
		}
		seen[key] = true
		e, err := p.value(kp, depth)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, key)
		n.elems = append(n.elems, e)
	}
	if _, err := p.dec.Token(); err != nil { // the closing '}'
		return nil, p.fail(path, err)
	}
	return n, nil
}

// field is one settable struct field, found through embedded structs as encoding/json does.
type field struct {
	name     string
	index    []int
	typ      reflect.Type
	optional bool
}

// structInfo is cached per type because reflection over tags is the slow part of binding.
type structInfo struct {
	fields  []field
	byName  map[string]int
	allowed string // sorted field names for "unknown field" messages
}

var (
	rawType    = reflect.TypeFor[Raw]()
	infoCache  sync.Map // reflect.Type -> *structInfo
	checkCache sync.Map // reflect.Type -> checkResult
)

func infoOf(t reflect.Type) *structInfo {
	if si, ok := infoCache.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{byName: map[string]int{}}
	collectFields(t, nil, si)
	names := make([]string, len(si.fields))
	for i, f := range si.fields {
		names[i] = f.name
	}
	slices.Sort(names)
	si.allowed = strings.Join(names, ", ")
	if si.allowed == "" {
		si.allowed = "(none)"
	}
	infoCache.Store(t, si)
	return si
}

func collectFields(t reflect.Type, index []int, si *structInfo) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		idx := append(slices.Clone(index), i)
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct && f.Type != rawType {
			collectFields(f.Type, idx, si)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := si.byName[name]; dup {
			continue // the shallower or earlier field wins, as in encoding/json
		}
		optional := f.Type.Kind() == reflect.Pointer || slices.Contains(strings.Split(opts, ","), "omitempty")
		si.byName[name] = len(si.fields)
		si.fields = append(si.fields, field{name: name, index: idx, typ: f.Type, optional: optional})
	}
}

// target validates that v is a non-nil pointer to a supported type, so type mistakes
// surface on the first call rather than only when an agent sends a rare field.
func target(v any) (reflect.Value, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return rv, fmt.Errorf("strictjson: need a non-nil pointer, got %T", v)
	}
	t := rv.Type().Elem()
	r, ok := checkCache.Load(t)
	if !ok {
		r, _ = checkCache.LoadOrStore(t, checkResult{checkType(t, map[reflect.Type]bool{})})
	}
	return rv, r.(checkResult).err
}

// checkResult is cached only for whole top-level types: a type inside a cycle
// cannot be judged on its own while its ancestors are still being checked.
type checkResult struct{ err error }

func checkType(t reflect.Type, visiting map[reflect.Type]bool) error {
	if t == rawType || visiting[t] {
		return nil
	}
	var err error
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
	case reflect.Pointer, reflect.Slice:
		err = checkType(t.Elem(), visiting)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			err = fmt.Errorf("strictjson: unsupported map key type in %s", t)
		} else {
			err = checkType(t.Elem(), visiting)
		}
	case reflect.Struct:
		visiting[t] = true
		for _, f := range infoOf(t).fields {
			if err = checkType(f.typ, visiting); err != nil {
				break
			}
		}
	default:
		err = fmt.Errorf("strictjson: unsupported Go type %s", t)
	}
	return err
}

// bindInto binds n into a copy of *v and stores it only on success, so v is untouched on error.
func bindInto(n *node, path string, rv reflect.Value) error {
	tmp := reflect.New(rv.Type().Elem()).Elem()
	tmp.Set(rv.Elem())
	b := &binder{}
	b.bind(n, tmp, path)
	if b.omitted > 0 {
		b.errs = append(b.errs, FieldError{Path: "", Message: fmt.Sprintf("%d more errors omitted; fix the errors above and resubmit", b.omitted)})
	}
	if len(b.errs) > 0 {
		return &ShapeError{Errors: b.errs}
	}
	rv.Elem().Set(tmp)
	return nil
}

type binder struct {
	errs    []FieldError
	omitted int
}

func (b *binder) add(path, msg, expected, found string) {
	if len(b.errs) >= maxErrors {
		b.omitted++
		return
	}
	b.errs = append(b.errs, FieldError{Path: path, Message: msg, Expected: expected, Found: found})
}

func (b *binder) mismatch(n *node, expected, path string) {
	b.add(path, fmt.Sprintf("expected %s, found %s", expected, describeNode(n)), expected, describeNode(n))
}

// bind sets v from n; fresh slices, maps and pointers are always allocated so a failed bind shares nothing with the caller's value.
func (b *binder) bind(n *node, v reflect.Value, path string) {
	t := v.Type()
	if n.kind == kindNull {
		want := describeType(t)
		b.add(path, fmt.Sprintf("expected %s, found null; null is not accepted anywhere, omit optional fields instead", want), want, "null")
		return
	}
	if t == rawType {
		v.Set(reflect.ValueOf(Raw{n: n, path: path}))
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		b.bind(n, p.Elem(), path)
		v.Set(p)
	case reflect.String:
		if n.kind != kindString {
			b.mismatch(n, "string", path)
			return
		}
		v.SetString(n.text)
	case reflect.Bool:
		if n.kind != kindBool {
			b.mismatch(n, "boolean", path)
			return
		}
		v.SetBool(n.b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.kind != kindNumber {
			b.mismatch(n, "integer", path)
			return
		}
		i, err := strconv.ParseInt(n.text, 10, t.Bits())
		if errors.Is(err, strconv.ErrRange) {
			lim := int64(1) << (t.Bits() - 1)
			b.mismatch(n, fmt.Sprintf("integer between %d and %d", -lim, lim-1), path)
			return
		}
		if err != nil {
			b.mismatch(n, "integer", path)
			return
		}
		v.SetInt(i)
	case reflect.Float32, reflect.Float64:
		if n.kind != kindNumber {
			b.mismatch(n, "number", path)
			return
		}
		f, err := strconv.ParseFloat(n.text, t.Bits())
		if err != nil {
			b.mismatch(n, fmt.Sprintf("number within float%d range", t.Bits()), path)
			return
		}
		v.SetFloat(f)
	case reflect.Slice:
		if n.kind != kindArray {
			b.mismatch(n, "array", path)
			return
		}
		s := reflect.MakeSlice(t, len(n.elems), len(n.elems))
		for i, e := range n.elems {
			b.bind(e, s.Index(i), child(path, strconv.Itoa(i)))
		}
		v.Set(s)
	case reflect.Map:
		if n.kind != kindObject {
			b.mismatch(n, "object", path)
			return
		}
		m := reflect.MakeMapWithSize(t, len(n.keys))
		for i, k := range n.keys {
			e := reflect.New(t.Elem()).Elem()
			b.bind(n.elems[i], e, child(path, k))
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), e)
		}
		v.Set(m)
	case reflect.Struct:
		b.object(n, v, path)
	}
}

// object binds a JSON object into a struct; missing fields are reported after the object's own keys to keep document order.
func (b *binder) object(n *node, v reflect.Value, path string) {
	if n.kind != kindObject {
		b.mismatch(n, "object", path)
		return
	}
	si := infoOf(v.Type())
	present := make([]bool, len(si.fields))
	for i, k := range n.keys {
		kp := child(path, k)
		fi, ok := si.byName[k]
		if !ok {
			b.add(kp, fmt.Sprintf("unknown field %q; allowed: %s", k, si.allowed), "one of: "+si.allowed, "field "+quoteTrunc(k))
			continue
		}
		present[fi] = true
		b.bind(n.elems[i], v.FieldByIndex(si.fields[fi].index), kp)
	}
	for i, f := range si.fields {
		if !present[i] && !f.optional {
			b.add(child(path, f.name), fmt.Sprintf("missing required field %q", f.name), describeType(f.typ), "nothing")
		}
	}
}

// describeType names the JSON type a Go type accepts, in the words agents see in Expected.
func describeType(t reflect.Type) string {
	if t == rawType {
		return "any JSON value except null"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return describeType(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "integer" // checkType admits no other kinds
}

// describeNode renders a found value briefly, e.g. `number 12` or `string "x"`.
func describeNode(n *node) string {
	switch n.kind {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean " + strconv.FormatBool(n.b)
	case kindNumber:
		return "number " + truncate(n.text)
	case kindString:
		return "string " + quoteTrunc(n.text)
	case kindArray:
		return "array"
	}
	return "object"
}

func quoteTrunc(s string) string { return strconv.Quote(truncate(s)) }

// truncate keeps error responses small when an agent sends a huge value.
func truncate(s string) string {
	const limit = 60
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit]) + "…"
}
