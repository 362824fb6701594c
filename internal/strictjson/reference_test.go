package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// This file keeps the parser strictjson used before the single-pass scanner,
// built on encoding/json's Decoder.Token, as an oracle: the scanner must
// accept exactly what it accepted, build the same values and report errors
// at the same paths.

// refNode is a parsed value in a form both parsers can be compared in.
type refNode struct {
	kind  kind
	text  string
	b     bool
	keys  []string
	elems []*refNode
}

type refParser struct {
	dec  *json.Decoder
	data []byte
}

func refParse(data []byte) (*refNode, error) {
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
	p := &refParser{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
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

func (p *refParser) fail(path string, err error) *SyntaxError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &SyntaxError{Path: path, Offset: se.Offset, Msg: se.Error()}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &SyntaxError{Path: path, Offset: int64(len(p.data)), Msg: "unexpected end of JSON input"}
	}
	return &SyntaxError{Path: path, Offset: p.dec.InputOffset(), Msg: err.Error()}
}

func (p *refParser) value(path string, depth int) (*refNode, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.fail(path, err)
	}
	switch t := tok.(type) {
	case nil:
		return &refNode{kind: kindNull}, nil
	case bool:
		return &refNode{kind: kindBool, b: t}, nil
	case json.Number:
		return &refNode{kind: kindNumber, text: string(t)}, nil
	case string:
		return &refNode{kind: kindString, text: t}, nil
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

func (p *refParser) array(path string, depth int) (*refNode, error) {
	n := &refNode{kind: kindArray}
	for p.dec.More() {
		e, err := p.value(child(path, strconv.Itoa(len(n.elems))), depth)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, e)
	}
	if _, err := p.dec.Token(); err != nil {
		return nil, p.fail(child(path, strconv.Itoa(len(n.elems))), err)
	}
	return n, nil
}

func (p *refParser) object(path string, depth int) (*refNode, error) {
	n := &refNode{kind: kindObject}
	seen := map[string]bool{}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.fail(path, err)
		}
		key, _ := tok.(string)
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
	if _, err := p.dec.Token(); err != nil {
		return nil, p.fail(path, err)
	}
	return n, nil
}

// toRef converts node i of d for comparison with refParse's result.
func toRef(d *document, i uint32) *refNode {
	n := &d.nodes[i]
	r := &refNode{kind: n.kind, b: n.b}
	switch n.kind {
	case kindString, kindNumber:
		r.text = d.text(n)
	case kindArray, kindObject:
		for j := n.val.start; j < n.val.end; j++ {
			if n.kind == kindObject {
				r.keys = append(r.keys, d.key(&d.nodes[j]))
			}
			r.elems = append(r.elems, toRef(d, j))
		}
	}
	return r
}

func sameRef(a, b *refNode) bool {
	if a.kind != b.kind || a.text != b.text || a.b != b.b || len(a.elems) != len(b.elems) || len(a.keys) != len(b.keys) {
		return false
	}
	for i := range a.keys {
		if a.keys[i] != b.keys[i] {
			return false
		}
	}
	for i := range a.elems {
		if !sameRef(a.elems[i], b.elems[i]) {
			return false
		}
	}
	return true
}

// scalarError reports whether msg comes from inside a string, number or
// literal, where the token parser's offset counted only the bytes its
// internal Decode calls had scanned; the scanner reports the offending byte.
func scalarError(msg string) bool {
	for _, s := range []string{" in string literal", " in string escape code", ` in \u hexadecimal`, " in numeric literal",
		" after decimal point in numeric literal", " in exponent of numeric literal", " in literal "} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// pointsAt reports whether e's offset is the byte its message complains about.
func pointsAt(data []byte, e *SyntaxError) bool {
	return e.Offset >= 0 && e.Offset < int64(len(data)) &&
		strings.HasPrefix(e.Msg, "invalid character "+quoteChar(data[e.Offset])+" ")
}

// checkAgainstReference fails if parse and refParse disagree on data.
func checkAgainstReference(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := refParse(data)
	d, _, gotErr := parse(data)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%q: reference error %v, scanner error %v", data, wantErr, gotErr)
	}
	if wantErr != nil {
		w, g := wantErr.(*SyntaxError), gotErr.(*SyntaxError)
		if w.Path != g.Path {
			t.Fatalf("%q: path %q, reference %q (%v)", data, g.Path, w.Path, g)
		}
		wmsg := w.Msg
		// The token parser gave no context for a bad first key; the scanner says what it expected.
		if strings.HasPrefix(wmsg, "invalid character ") && strings.HasSuffix(wmsg, "'") && strings.HasSuffix(g.Msg, " looking for beginning of object key string") {
			wmsg += " looking for beginning of object key string"
		}
		if g.Msg != wmsg {
			t.Fatalf("%q: message %q, reference %q", data, g.Msg, w.Msg)
		}
		if strings.HasPrefix(g.Msg, "invalid character ") && !pointsAt(data, g) {
			t.Fatalf("%q: offset %d is not the byte %s complains about", data, g.Offset, g.Msg)
		}
		// Where the token parser's offset came from encoding/json's value
		// scanner it counted only the bytes its Decode calls had read; the
		// scanner must then point exactly at the offending byte instead.
		scanned := scalarError(g.Msg) || strings.HasSuffix(g.Msg, " looking for beginning of value")
		if g.Offset != w.Offset && !(scanned && pointsAt(data, g)) {
			t.Fatalf("%q: offset %d, reference %d (%s)", data, g.Offset, w.Offset, g.Msg)
		}
		return
	}
	if got := toRef(d, uint32(len(d.nodes)-1)); !sameRef(got, want) {
		t.Fatalf("%q: trees differ", data)
	}
}

func TestParseMatchesReference(t *testing.T) {
	bodies := []string{
		validPlan, `{}`, `[]`, `0`, `-0`, `1.5e-3`, `"x"`, ` true `, `false`, `null`, `[[],{},[{}]]`,
		`{"a":[1,2,{"b":null}],"c":"d\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r"}`,
		`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\ud800\udc00"`, `"\udc00\ud800"`, `"\ud800x"`, `"\ud800\"`, `{"\ud800":1,"\udc00":2}`,
		`{"\ufffd":1,"\ud800":2}`, `{"a\u0000b":1,"a\u0000c":2}`, `{"~/":1,"~/":2}`, `{"x":{"y":[1,{"z":1,"z":2}]}}`,
		"", " \n", "\xff", `{"a":"` + "\xc3" + `"}`, `{`, `[`, `{"a"`, `{"a":`, `{"a":1`, `{"a":1,`, `[1`, `[1,`, `"abc`, `"\`, `"\u12`,
		`{"a" 1}`, `{"a":1 "b":2}`, `{"a":1,}`, `{,}`, `{]`, `{'a':1}`, `{1:2}`, `[1 2]`, `[1,]`, `[,1]`, `[}`, `[1}`, `{"a":1]`, `{"a"::1}`,
		`{"a":tru}`, `{"a":nul}`, `{"a":fals}`, `{"a":truex}`, `[truex]`, `{"a":01}`, `01`, `-`, `-x`, `1.`, `1.x`, `1e`, `1e+`, `1ex`, `.5`, `+1`,
		`"a` + "\n" + `"`, `"\x"`, `"\u12g4"`, `"\'"`, `[1]]`, `{} {}`, `{}x`, `{}]`, `{} null`, "{}\n\"a\"", `{}  x`, `1 2`, `"a" "b"`,
		`é`, `[é]`, `{"a":é}`, `]`, `}`, `:`, `,`, `[:]`, `{"a",}`,
		strings.Repeat("[", 64) + strings.Repeat("]", 64), strings.Repeat("[", 65) + strings.Repeat("]", 65),
		strings.Repeat(`{"a":`, 70), `[` + strings.Repeat(`1,`, 40) + `{"k":[1,2,tru]}]`,
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":3}`,
		`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k\u0031":16}`,
		`{"a\/b":{"c":tru}}`, `{"\u007e":[1,}`, `{"x\n":{"y\u0000":{"x\n":1,"x\n":2}}}`, `{"é\u00e9":{"":[{"~1":nul}]}}`,
		string(benchBody()),
	}
	for _, b := range bodies {
		checkAgainstReference(t, []byte(b))
	}
}
