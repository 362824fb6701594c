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
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 64

// maxErrors bounds the error list so one bad array cannot produce a huge response.
const maxErrors = 100

// FieldError is one problem at one JSON Pointer path.
type FieldError struct {
	Path string `json:"path"`
	// Code names an error a client may act on by name (documented with
	// it); most errors have none.
	Code     string `json:"code,omitempty"`
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
	// Omitted counts the problems past the bound on the list; when it is
	// not zero, the last of Errors is a note saying so, at path "".
	Omitted int
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
	d    *document
	n    uint32 // index in d.nodes
	path string
}

// Bind binds the held value into v under the same rules as Decode, with paths relative to the document root.
func (r Raw) Bind(v any) error {
	if r.d == nil {
		return &ShapeError{Errors: []FieldError{{Path: r.path, Message: "missing value", Found: "nothing"}}}
	}
	rv, err := target(v)
	if err != nil {
		return err
	}
	return bindInto(r.d, r.n, r.path, rv)
}

// Path returns the JSON Pointer of the held value, so callers can report errors of their own at it.
func (r Raw) Path() string { return r.path }

// Present reports whether a value was bound; a missing field leaves its Raw absent.
func (r Raw) Present() bool { return r.d != nil }

// IsObject reports whether the held value is a JSON object, the usual shape for a payload.
func (r Raw) IsObject() bool { return r.d != nil && r.d.nodes[r.n].kind == kindObject }

// Decode parses data as exactly one JSON value and binds it into v (a pointer to struct).
// It returns *SyntaxError or *ShapeError for bad input and leaves v unchanged on any error;
// other errors mean v's type is unsupported, which is a programming mistake.
func Decode(data []byte, v any) error {
	rv, err := target(v)
	if err != nil {
		return err
	}
	d, _, err := parse(data)
	if err != nil {
		return err
	}
	return bindInto(d, uint32(len(d.nodes)-1), "", rv)
}

// DecodeAndHash does Decode(data, v) and Hash(data) from one parse, returning the hash alongside a *ShapeError but "" with a *SyntaxError.
func DecodeAndHash(data []byte, v any) (hash string, err error) {
	return decodeAndHash(data, v, false)
}

// DecodeAndHashPartial is DecodeAndHash that keeps what bound: with a
// *ShapeError, v holds every value that bound and the zero value where one
// did not, so a caller can go on to check the rest and report every
// problem at once. With a *SyntaxError, v is unchanged.
func DecodeAndHashPartial(data []byte, v any) (hash string, err error) {
	return decodeAndHash(data, v, true)
}

func decodeAndHash(data []byte, v any, partial bool) (hash string, err error) {
	rv, err := target(v)
	if err != nil {
		return "", err
	}
	d, canon, err := parse(data)
	if err != nil {
		return "", err
	}
	// A body JCS cannot represent fails as Hash fails, before binding, so v
	// stays unchanged on every error as with Decode.
	if canon != nil {
		return "", canon
	}
	// The hash is computed before binding and returned even when binding
	// fails: a well-formed but invalid body still needs its hash for the
	// caller's idempotency check.
	hash = hashTree(d, len(data), false)
	return hash, bindRoot(d, uint32(len(d.nodes)-1), "", rv, partial)
}

// Canonical returns the RFC 8785 (JCS) canonical form of a well-formed JSON document.
// The document is first checked with the same rules as Decode so both agree on what is well-formed.
func Canonical(data []byte) ([]byte, error) { return canonical(data, false) }

// CanonicalExact is Canonical in the form of Raw.CanonicalExact: integer
// literals beyond 2^53 are written as their decimal digits.
func CanonicalExact(data []byte) ([]byte, error) { return canonical(data, true) }

func canonical(data []byte, exactIntegers bool) ([]byte, error) {
	d, canon, err := parse(data)
	if err != nil {
		return nil, err
	}
	// Values outside I-JSON, such as 1e400 or an unpaired surrogate escape,
	// parse (Decode accepts them) but have no canonical form.
	if canon != nil {
		return nil, canon
	}
	return appendCanonical(make([]byte, 0, len(data)), d, d.root(), exactIntegers), nil
}

// Hash returns "sha256:" + hex of Canonical(data), so equivalent documents hash equally.
func Hash(data []byte) (string, error) { return hash(data, false) }

// HashExact is Hash over the form of Raw.CanonicalExact: integer literals
// beyond 2^53 count by their decimal digits, every other value as RFC 8785
// says. Observations hash their provider data this way.
func HashExact(data []byte) (string, error) { return hash(data, true) }

func hash(data []byte, exactIntegers bool) (string, error) {
	d, canon, err := parse(data)
	if err != nil {
		return "", err
	}
	if canon != nil {
		return "", canon
	}
	return hashTree(d, len(data), exactIntegers), nil
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

// lookupScan is the field count up to which lookup compares names directly;
// for small structs that beats hashing the key.
const lookupScan = 16

// lookup finds the field named k. Agents usually send fields in declaration
// order, so the scan starts at hint, the field after the previous match.
func (si *structInfo) lookup(k string, hint int) (int, bool) {
	nf := len(si.fields)
	if nf > lookupScan {
		i, ok := si.byName[k]
		return i, ok
	}
	for c := range nf {
		i := hint + c
		if i >= nf {
			i -= nf
		}
		if si.fields[i].name == k {
			return i, true
		}
	}
	return 0, false
}

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

// bindInto binds node i into a copy of *v and stores it only on success, so v is untouched on error.
func bindInto(d *document, i uint32, path string, rv reflect.Value) error {
	return bindRoot(d, i, path, rv, false)
}

// bindRoot binds node i into a copy of *v and stores it on success, or also
// on a shape error when partial is set.
func bindRoot(d *document, i uint32, path string, rv reflect.Value, partial bool) error {
	tmp := reflect.New(rv.Type().Elem()).Elem()
	tmp.Set(rv.Elem())
	b := binderPool.Get().(*binder)
	defer b.release()
	b.d, b.base = d, path
	b.bind(i, tmp)
	b.finishRaws(0)
	if b.omitted > 0 {
		b.errs = append(b.errs, FieldError{Path: "", Message: fmt.Sprintf("%d more errors omitted; fix the errors above and resubmit", b.omitted)})
	}
	var err error
	if len(b.errs) > 0 {
		err = &ShapeError{Errors: b.errs, Omitted: b.omitted}
	}
	if err == nil || partial {
		rv.Elem().Set(tmp)
	}
	return err
}

// binder collects shape errors. The path of the value being bound is kept as
// base plus a stack of segments and rendered only when an error or a Raw
// needs it, since a valid document never does.
type binder struct {
	d       *document
	base    string
	segs    []seg
	errs    []FieldError
	omitted int
	infos   [4]typeInfo // recently used struct types, to skip the shared cache
	victim  int         // next infos slot to replace
	// Raws bound so far and their paths, which are written into one buffer
	// and become substrings of one string in finishRaws, instead of one
	// allocation per Raw.
	raws     []pendingRaw
	rawPaths []byte
	slabs    [4]slab // element chunks for the pointer types being bound
	slabNext int     // next slabs slot to replace
}

// slab hands out fresh elements of type t from a chunk, so binding many
// optional (pointer) fields costs a few allocations instead of one each.
type slab struct {
	t, st reflect.Type // element type and []t
	chunk reflect.Value
	used  int
}

// maxSlab bounds a chunk, and so what one surviving pointer can keep alive.
const maxSlab = 128

// newPtr is reflect.New(t), served from a slab.
func (b *binder) newPtr(t reflect.Type) reflect.Value {
	var s *slab
	for i := range b.slabs {
		if b.slabs[i].t == t {
			s = &b.slabs[i]
			break
		}
	}
	if s == nil {
		s = &b.slabs[b.slabNext]
		b.slabNext = (b.slabNext + 1) % len(b.slabs)
		*s = slab{t: t, st: reflect.SliceOf(t)}
	}
	if !s.chunk.IsValid() || s.used == s.chunk.Len() {
		n := 8
		if s.chunk.IsValid() {
			n = min(2*s.chunk.Len(), maxSlab)
		}
		s.chunk, s.used = reflect.MakeSlice(s.st, n, n), 0
	}
	s.used++
	return s.chunk.Index(s.used - 1).Addr()
}

// binderPool recycles binders for their buffers (segs, raws, rawPaths),
// which otherwise regrow on every Decode.
var binderPool = sync.Pool{New: func() any { return new(binder) }}

// release returns b to the pool holding nothing from the document it bound.
func (b *binder) release() {
	if cap(b.rawPaths) > maxScratch || cap(b.raws) > maxScratch/16 {
		return
	}
	// Type infos are global and stay; slab chunks belong to the caller's
	// value and must not be handed out to another bind.
	*b = binder{segs: b.segs[:0], raws: b.raws[:0], rawPaths: b.rawPaths[:0], infos: b.infos, victim: b.victim}
	binderPool.Put(b)
}

type pendingRaw struct {
	r          *Raw
	start, end int
}

// finishRaws gives the Raws bound since raws[from] their paths. It must run
// before a bound value is copied elsewhere (into a map, or into the caller's
// value), because the pending pointers refer to where it was bound.
func (b *binder) finishRaws(from int) {
	if len(b.raws) == from {
		return
	}
	pending := b.raws[from:]
	paths := string(b.rawPaths[pending[0].start:])
	for _, p := range pending {
		p.r.path = paths[p.start-pending[0].start : p.end-pending[0].start]
	}
	b.rawPaths = b.rawPaths[:pending[0].start]
	clear(pending)
	b.raws = b.raws[:from]
}

type typeInfo struct {
	t  reflect.Type
	si *structInfo
}

// info returns infoOf(t), remembering the few struct types a document
// alternates between so most objects avoid the sync.Map lookup.
func (b *binder) info(t reflect.Type) *structInfo {
	for i := range b.infos {
		if b.infos[i].t == t {
			return b.infos[i].si
		}
	}
	si := infoOf(t)
	b.infos[b.victim] = typeInfo{t, si}
	b.victim = (b.victim + 1) % len(b.infos)
	return si
}

func (b *binder) path() string { return pointer(b.base, b.segs, b.d.src, b.d.esc) }

func (b *binder) push(s seg) { b.segs = append(b.segs, s) }

func (b *binder) pop() { b.segs = b.segs[:len(b.segs)-1] }

// memberSeg is the path segment naming member e.
func memberSeg(e *node) seg { return seg{key: e.key, escaped: e.flags&keyEscaped != 0, index: -1} }

// add records a problem at the current path.
func (b *binder) add(msg, expected, found string) { b.addAt("", msg, expected, found) }

// addAt records a problem at the current path plus the member name, if any.
func (b *binder) addAt(member, msg, expected, found string) {
	if len(b.errs) >= maxErrors {
		b.omitted++
		return
	}
	path := b.path()
	if member != "" {
		path = child(path, member)
	}
	b.errs = append(b.errs, FieldError{Path: path, Message: msg, Expected: expected, Found: found})
}

func (b *binder) mismatch(n *node, expected string) {
	if len(b.errs) >= maxErrors {
		b.omitted++
		return
	}
	found := b.describe(n)
	b.add(fmt.Sprintf("expected %s, found %s", expected, found), expected, found)
}

// bind sets v from the node at index i; fresh slices, maps and pointers are always allocated so a failed bind shares nothing with the caller's value.
func (b *binder) bind(i uint32, v reflect.Value) {
	n := &b.d.nodes[i]
	t := v.Type()
	if n.kind == kindNull {
		want := describeType(t)
		b.add(fmt.Sprintf("expected %s, found null; null is not accepted anywhere, omit optional fields instead", want), want, "null")
		return
	}
	if t == rawType {
		// Set through the address: v is always addressable here (it descends
		// from reflect.New or a fresh slice), and boxing a Raw would allocate.
		r := v.Addr().Interface().(*Raw)
		*r = Raw{d: b.d, n: i, path: b.base}
		if len(b.segs) > 0 {
			start := len(b.rawPaths)
			b.rawPaths = appendPointer(b.rawPaths, b.base, b.segs, b.d.src, b.d.esc)
			b.raws = append(b.raws, pendingRaw{r, start, len(b.rawPaths)})
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		p := b.newPtr(t.Elem())
		b.bind(i, p.Elem())
		v.Set(p)
	case reflect.String:
		if n.kind != kindString {
			b.mismatch(n, "string")
			return
		}
		v.SetString(b.d.text(n))
	case reflect.Bool:
		if n.kind != kindBool {
			b.mismatch(n, "boolean")
			return
		}
		v.SetBool(n.b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.kind != kindNumber {
			b.mismatch(n, "integer")
			return
		}
		i, err := strconv.ParseInt(b.d.text(n), 10, t.Bits())
		if errors.Is(err, strconv.ErrRange) {
			lim := int64(1) << (t.Bits() - 1)
			b.mismatch(n, fmt.Sprintf("integer between %d and %d", -lim, lim-1))
			return
		}
		if err != nil {
			b.mismatch(n, "integer")
			return
		}
		v.SetInt(i)
	case reflect.Float32, reflect.Float64:
		if n.kind != kindNumber {
			b.mismatch(n, "number")
			return
		}
		f, err := strconv.ParseFloat(b.d.text(n), t.Bits())
		if err != nil {
			b.mismatch(n, fmt.Sprintf("number within float%d range", t.Bits()))
			return
		}
		v.SetFloat(f)
	case reflect.Slice:
		if n.kind != kindArray {
			b.mismatch(n, "array")
			return
		}
		if n.len() == 0 {
			v.Set(reflect.MakeSlice(t, 0, 0)) // [] binds to an empty, non-nil slice
			return
		}
		// Growing from nil allocates a fresh array, so the caller's slice is
		// never written through, in one allocation where MakeSlice takes two.
		v.SetZero()
		v.Grow(n.len())
		v.SetLen(n.len())
		for j := range n.len() {
			b.push(seg{index: int32(j)})
			b.bind(n.val.start+uint32(j), v.Index(j))
			b.pop()
		}
	case reflect.Map:
		if n.kind != kindObject {
			b.mismatch(n, "object")
			return
		}
		m := reflect.MakeMapWithSize(t, n.len())
		for j := n.val.start; j < n.val.end; j++ {
			e := &b.d.nodes[j]
			k := b.d.key(e)
			ev := reflect.New(t.Elem()).Elem()
			b.push(memberSeg(e))
			mark := len(b.raws)
			b.bind(j, ev)
			b.finishRaws(mark) // ev is copied into the map below
			b.pop()
			m.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		v.Set(m)
	case reflect.Struct:
		b.object(n, v)
	}
}

// object binds a JSON object into a struct; missing fields are reported after the object's own keys to keep document order.
func (b *binder) object(n *node, v reflect.Value) {
	if n.kind != kindObject {
		b.mismatch(n, "object")
		return
	}
	si := b.info(v.Type())
	// A bit set covers every realistic struct without allocating.
	var bits uint64
	var present []bool
	if len(si.fields) > 64 {
		present = make([]bool, len(si.fields))
	}
	next := 0
	for j := n.val.start; j < n.val.end; j++ {
		e := &b.d.nodes[j]
		k := b.d.key(e)
		b.push(memberSeg(e))
		fi, ok := si.lookup(k, next)
		if !ok {
			b.add(fmt.Sprintf("unknown field %q; allowed: %s", k, si.allowed), "one of: "+si.allowed, "field "+quoteTrunc(k))
			b.pop()
			continue
		}
		next = fi + 1
		if present != nil {
			present[fi] = true
		} else {
			bits |= 1 << fi
		}
		f := &si.fields[fi]
		var fv reflect.Value
		if len(f.index) == 1 {
			fv = v.Field(f.index[0])
		} else {
			fv = v.FieldByIndex(f.index)
		}
		b.bind(j, fv)
		b.pop()
	}
	for i := range si.fields {
		f := &si.fields[i]
		if f.optional || (present != nil && present[i]) || (present == nil && bits&(1<<i) != 0) {
			continue
		}
		b.addAt(f.name, fmt.Sprintf("missing required field %q", f.name), describeType(f.typ), "nothing")
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

// describe renders a found value briefly, e.g. `number 12` or `string "x"`.
func (b *binder) describe(n *node) string {
	switch n.kind {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean " + strconv.FormatBool(n.b)
	case kindNumber:
		return "number " + truncate(b.d.text(n))
	case kindString:
		return "string " + quoteTrunc(b.d.text(n))
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
