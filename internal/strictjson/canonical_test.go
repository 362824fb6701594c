package strictjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// canonicalDocs exercise every part of RFC 8785: member order by UTF-16 code
// units (including supplementary characters against U+E000..U+FFFF, where
// UTF-8 and UTF-16 order disagree), string escaping, ES6 number formatting
// and nesting.
var canonicalDocs = []string{
	`{"n":1.0}`, `{"n":1e2}`, `{"n":-0}`, `{"n":0.1}`, `{"n":12345678901234567890}`, `[-0.0, 0e5, 1E+2, 1e-0, 100e-2]`,
	`[123456789012345, 1234567890123456, 9007199254740993, -999999999999999, 1e21, 1e20, 1e-6, 1e-7, 5e-324, 1.7976931348623157e308]`,
	`[0.000001, 123.456e3, -1.5e-10, 3.0e0, 2e-308, 4.9e-324, 1e-400, 0.30000000000000004, 12e1]`,
	`{"b":[1,2],"a":{"y":"z","x":true}}`, `[[[]],[[{}]],[1,[2,[3,[null,false,true]]]]]`,
	`{"é":1,"e":2,"z":3,"\u00e8":4,"😀":5,"\uffff":6,"\ue000":7,"\ud7ff":8,"€":9,"":10,"a\u0000":11,"a":12}`,
	`{"😀":{"😁":1,"\uffff":2},"\uffff":{"😀":3,"\ue000":4}}`,
	`{"s":"\u0000\u0001\u001f\u007f\b\f\n\r\t\"\\\/","u":"\u2028\u2029\ud83d\ude00é","raw":"é😀€"}`,
	`"\u00e9\u0041"`, `"plain"`, `true`, `null`, `0`, `-1`, `[]`, `{}`,
	`{"k0":0,"k9":9,"k1":1,"k8":8,"k2":2,"k7":7,"k3":3,"k6":6,"k4":4,"k5":5,"k10":10,"k11":11,"k12":12,"k13":13,"K":1,"k":0.5}`,
	validPlan,
}

// jcsHash is the reference: the hash of jcs.Transform's output.
func jcsHash(t testing.TB, data []byte) (string, []byte) {
	out, err := jcs.Transform(data)
	if err != nil {
		t.Fatalf("jcs.Transform(%s): %v", data, err)
	}
	sum := sha256.Sum256(out)
	return "sha256:" + hex.EncodeToString(sum[:]), out
}

func TestDecodeAndHashMatchesHashAndJCS(t *testing.T) {
	docs := append(slicesClone(canonicalDocs), string(benchBody()))
	for _, doc := range docs {
		data := []byte(doc)
		want, wantCanon := jcsHash(t, data)
		canon, err := Canonical(data)
		if err != nil || !bytes.Equal(canon, wantCanon) {
			t.Errorf("Canonical(%s) = %s, %v; jcs.Transform gives %s", doc, canon, err, wantCanon)
		}
		h, err := Hash(data)
		if err != nil || h != want {
			t.Errorf("Hash(%s) = %s, %v; want %s", doc, h, err, want)
		}
		var r Raw
		h2, err := DecodeAndHash(data, &r)
		if doc == "null" {
			// null binds nowhere, but the hash of a well-formed body is still returned.
			if !errors.As(err, new(*ShapeError)) {
				t.Errorf("DecodeAndHash(null) error %v, want *ShapeError", err)
			}
		} else if err != nil {
			t.Errorf("DecodeAndHash(%s): %v", doc, err)
		}
		if h2 != want {
			t.Errorf("DecodeAndHash(%s) = %s, want %s", doc, h2, want)
		}
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

func TestDecodeAndHashBindsLikeDecode(t *testing.T) {
	var a, b plan
	if err := Decode([]byte(validPlan), &a); err != nil {
		t.Fatal(err)
	}
	h, err := DecodeAndHash([]byte(validPlan), &b)
	if err != nil || h == "" {
		t.Fatalf("got %q %v", h, err)
	}
	if !reflect.DeepEqual(a.Activities[1].Payload.Path(), b.Activities[1].Payload.Path()) || a.Name != b.Name || *a.Score != *b.Score {
		t.Fatalf("DecodeAndHash bound %+v, Decode %+v", b, a)
	}
	var m measurement
	if err := b.Activities[1].Payload.Bind(&m); err != nil || m.Value != 71.5 {
		t.Fatalf("payload bind: %+v %v", m, err)
	}
}

func TestDecodeAndHashReturnsHashWithShapeError(t *testing.T) {
	body := []byte(`{"name":"new","activities":[],"foo":1}`)
	p := plan{Name: "keep"}
	h, err := DecodeAndHash(body, &p)
	var se *ShapeError
	if !errors.As(err, &se) || only(t, se.Errors).Path != "/foo" {
		t.Fatalf("got %v", err)
	}
	if want, _ := Hash(body); h != want || h == "" {
		t.Fatalf("hash %q, want %q", h, want)
	}
	if p.Name != "keep" {
		t.Fatalf("target modified: %+v", p)
	}
}

func TestDecodeAndHashRejectsMalformedWithoutHash(t *testing.T) {
	for _, body := range []string{``, `{"name":`, `{"a":1,"a":2}`, `{} x`, "\"\xff\""} {
		p := plan{Name: "keep"}
		h, err := DecodeAndHash([]byte(body), &p)
		if h != "" || !errors.As(err, new(*SyntaxError)) || p.Name != "keep" {
			t.Errorf("%q: got %q %v %+v", body, h, err, p)
		}
	}
	if _, err := DecodeAndHash([]byte(`{}`), plan{}); err == nil || errors.As(err, new(*SyntaxError)) || errors.As(err, new(*ShapeError)) {
		t.Errorf("non-pointer target: got %v", err)
	}
}

// Values outside I-JSON decode as before but cannot be hashed; the error now
// names where they are.
func TestHashRejectsWhatJCSCannotRepresent(t *testing.T) {
	cases := []struct{ body, path, msg string }{
		{`{"name":"x","activities":[],"tags":{"k":"\ud800"}}`, "/tags/k", `unpaired UTF-16 surrogate escape \ud800`},
		{`{"a":["\udc00\ud800"]}`, "/a/0", `unpaired UTF-16 surrogate escape \udc00`},
		{`{"a":"\ud800\u0041"}`, "/a", `\ud800`},
		{`{"\ud800":1}`, "", `\ud800`},
		{`{"a":[1,1e400]}`, "/a/1", "number 1e400 is outside"},
		{`[` + strings.Repeat("9", 400) + `]`, "/0", "is outside"},
	}
	for _, c := range cases {
		data := []byte(c.body)
		if _, err := jcs.Transform(data); err == nil {
			t.Fatalf("%s: jcs accepts it; the test is wrong", c.body)
		}
		var r Raw
		if err := Decode(data, &r); err != nil {
			t.Errorf("%s: Decode: %v", c.body, err)
		}
		h, err := Hash(data)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Path != c.path || !strings.Contains(se.Msg, "cannot canonicalize") || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%s: Hash = %q, %v", c.body, h, err)
		}
		if h, err := DecodeAndHash(data, &r); h != "" || !errors.As(err, &se) {
			t.Errorf("%s: DecodeAndHash = %q, %v", c.body, h, err)
		}
	}
	// encoding/json's handling of lone surrogates is kept for Decode: they become U+FFFD.
	var m map[string]string
	if err := Decode([]byte(`{"a":"\ud800\u0041","b":"\udc00\ud83d\ude00"}`), &m); err != nil || m["a"] != "\ufffdA" || m["b"] != "\ufffd😀" {
		t.Fatalf("got %q %v", m, err)
	}
}

func TestCompareUTF16(t *testing.T) {
	keys := []string{"", "a", "a\x00", "ab", "b", "é", "\ud7ff", "😀", "😁", "\ue000", "\uffff"}
	for i := range keys {
		for j := range keys {
			got := compareUTF16(keys[i], keys[j])
			if (got < 0) != (i < j) || (got == 0) != (i == j) {
				t.Errorf("compareUTF16(%q, %q) = %d", keys[i], keys[j], got)
			}
		}
	}
}

// FuzzCanonical checks the tree-based canonical form against jcs.Transform:
// whenever strictjson accepts a document, jcs must accept it too and produce
// the same bytes, and both hash entry points must agree with it.
func FuzzCanonical(f *testing.F) {
	for _, doc := range canonicalDocs {
		f.Add([]byte(doc))
	}
	f.Add([]byte(`{"a":"\ud800"}`))
	f.Add([]byte(`[1e400]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Canonical(data)
		h, herr := Hash(data)
		var r Raw
		dh, dherr := DecodeAndHash(data, &r)
		if (err == nil) != (herr == nil) {
			t.Fatalf("Canonical error %v, Hash error %v", err, herr)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Canonical error type %T", err)
			}
			if dh != "" || !errors.As(dherr, new(*SyntaxError)) {
				t.Fatalf("DecodeAndHash = %q, %v after Canonical failed with %v", dh, dherr, err)
			}
			if strings.HasPrefix(se.Msg, "cannot canonicalize") {
				if _, jerr := jcs.Transform(data); jerr == nil {
					t.Fatalf("jcs accepts what strictjson cannot canonicalize: %v", err)
				}
			}
			return
		}
		out, jerr := jcs.Transform(data)
		if jerr != nil {
			t.Fatalf("strictjson accepts what jcs rejects: %v", jerr)
		}
		if !bytes.Equal(c, out) {
			t.Fatalf("canonical forms differ:\n strictjson %q\n jcs        %q", c, out)
		}
		sum := sha256.Sum256(out)
		want := "sha256:" + hex.EncodeToString(sum[:])
		if h != want || dh != want {
			t.Fatalf("Hash %s, DecodeAndHash %s, want %s", h, dh, want)
		}
		if dherr != nil && !errors.As(dherr, new(*ShapeError)) {
			t.Fatalf("DecodeAndHash error %v for a canonicalizable body", dherr)
		}
		checkExact(t, data, out)
	})
}

// exactCanonical is the CanonicalExact form of a whole document.
func exactCanonical(t testing.TB, data []byte) []byte {
	t.Helper()
	d, canon, err := parse(data)
	if err != nil || canon != nil {
		t.Fatalf("parse(%s): %v, %v", data, err, canon)
	}
	return appendCanonical(nil, d, d.root(), true)
}

// checkExact checks the exact-integer form of a canonicalizable document
// against its RFC 8785 form jcsOut: it differs only in how integers are
// written (so jcs maps it back to jcsOut), HashExact hashes it, and
// hashing it again gives the same hash (ContentHash re-hashes stored raw).
func checkExact(t *testing.T, data, jcsOut []byte) {
	t.Helper()
	exact := exactCanonical(t, data)
	back, err := jcs.Transform(exact)
	if err != nil || !bytes.Equal(back, jcsOut) {
		t.Fatalf("jcs of the exact form %q is %q, %v; want %q", exact, back, err, jcsOut)
	}
	sum := sha256.Sum256(exact)
	want := "sha256:" + hex.EncodeToString(sum[:])
	h, err := HashExact(data)
	if err != nil || h != want {
		t.Fatalf("HashExact = %s, %v; want %s", h, err, want)
	}
	if again, err := HashExact(exact); err != nil || again != want {
		t.Fatalf("HashExact of the exact form = %s, %v; want %s", again, err, want)
	}
}

func TestCanonicalExactKeepsIntegerDigitsBeyondTwoToThe53(t *testing.T) {
	cases := []struct{ in, exact, rfc string }{
		{`{"id":1234567890123456789}`, `{"id":1234567890123456789}`, `{"id":1234567890123456800}`},
		{`{"id":1234567890123456788}`, `{"id":1234567890123456788}`, `{"id":1234567890123456800}`},
		{`[9007199254740993,-9007199254740993]`, `[9007199254740993,-9007199254740993]`, `[9007199254740992,-9007199254740992]`},
		{`[12345678901234567890123]`, `[12345678901234567890123]`, `[1.2345678901234568e+22]`},
		// At or below 2^53 both forms agree; a fraction or an exponent is RFC 8785's.
		{`[9007199254740992,-9007199254740992,1234567890123456,-0,0]`, `[9007199254740992,-9007199254740992,1234567890123456,0,0]`, `[9007199254740992,-9007199254740992,1234567890123456,0,0]`},
		{`[1.0,1e2,12345678901234567890.0,1234567890123456789e0,0.1]`, `[1,100,12345678901234567000,1234567890123456800,0.1]`, `[1,100,12345678901234567000,1234567890123456800,0.1]`},
	}
	for _, c := range cases {
		var doc struct {
			Raw Raw `json:"raw"`
		}
		if err := Decode([]byte(`{"raw":`+c.in+`}`), &doc); err != nil {
			t.Fatal(err)
		}
		exact, err := doc.Raw.CanonicalExact()
		if err != nil || string(exact) != c.exact {
			t.Errorf("CanonicalExact(%s) = %s, %v; want %s", c.in, exact, err, c.exact)
		}
		if whole, err := CanonicalExact([]byte(c.in)); err != nil || string(whole) != c.exact {
			t.Errorf("CanonicalExact of the document %s = %s, %v; want %s", c.in, whole, err, c.exact)
		}
		if rfc, err := doc.Raw.Canonical(); err != nil || string(rfc) != c.rfc {
			t.Errorf("Canonical(%s) = %s, %v; want %s", c.in, rfc, err, c.rfc)
		}
		_, jcsOut := jcsHash(t, []byte(c.in))
		checkExact(t, []byte(c.in), jcsOut)
	}
	a, _ := HashExact([]byte(`{"id":1234567890123456789}`))
	b, _ := HashExact([]byte(`{"id":1234567890123456788}`))
	if a == b {
		t.Errorf("two IDs one apart hash alike: %s", a)
	}
}

func TestHashExactEqualsHashWithoutLargeIntegers(t *testing.T) {
	for _, doc := range canonicalDocs {
		data := []byte(doc)
		_, jcsOut := jcsHash(t, data)
		checkExact(t, data, jcsOut)
		if strings.Contains(doc, "12345678901234567890") || strings.Contains(doc, "9007199254740993") {
			continue // integers beyond 2^53: the one place the forms differ
		}
		h, _ := Hash(data)
		if he, err := HashExact(data); err != nil || he != h {
			t.Errorf("HashExact(%s) = %s, %v; Hash gives %s", doc, he, err, h)
		}
	}
	if _, err := HashExact([]byte(`[1e400]`)); !errors.As(err, new(*SyntaxError)) {
		t.Errorf("HashExact(1e400): %v, want *SyntaxError", err)
	}
	var doc struct {
		Raw Raw `json:"raw"`
	}
	if err := Decode([]byte(`{"raw": {"s": "\ud800"}}`), &doc); err != nil {
		t.Fatal(err)
	}
	if _, err := doc.Raw.CanonicalExact(); !errors.As(err, new(*SyntaxError)) {
		t.Errorf("CanonicalExact of an unpaired surrogate: %v, want *SyntaxError", err)
	}
}

// The parser and binder recycle their buffers through pools; concurrent use
// must not let one call see another's state.
func TestDecodeAndHashConcurrent(t *testing.T) {
	bodies := [][]byte{benchBody(), []byte(validPlan)}
	want := make([]string, len(bodies))
	for i, b := range bodies {
		want[i], _ = Hash(b)
	}
	done := make(chan error)
	for g := range 8 {
		go func() {
			for i := range 50 {
				k := (g + i) % len(bodies)
				var r Raw
				h, err := DecodeAndHash(bodies[k], &r)
				if err == nil && h != want[k] {
					err = errors.New("hash mismatch")
				}
				if err == nil && k == 1 {
					var p plan
					if err = r.Bind(&p); err == nil && (p.Activities[1].Payload.Path() != "/activities/1/payload" || *p.Activities[1].Note != "am") {
						err = errors.New("bound wrong values")
					}
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestRawCanonicalIsJCSOfTheHeldValue(t *testing.T) {
	var doc struct {
		Raw Raw `json:"raw"`
	}
	for _, inner := range canonicalDocs {
		if inner == "null" {
			continue // null binds nowhere
		}
		body := []byte(`{"raw": ` + inner + `}`)
		if err := Decode(body, &doc); err != nil {
			t.Fatalf("Decode(%s): %v", body, err)
		}
		got, err := doc.Raw.Canonical()
		_, want := jcsHash(t, []byte(inner))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("Canonical of %s = %s, %v; want %s", inner, got, err, want)
		}
	}
}

func TestRawCanonicalRefusesWhatHashRefuses(t *testing.T) {
	var doc struct {
		Raw Raw `json:"raw"`
	}
	// Decode accepts an unpaired surrogate; the canonical form cannot hold it.
	if err := Decode([]byte(`{"raw": {"s": "\ud800"}}`), &doc); err != nil {
		t.Fatal(err)
	}
	if _, err := doc.Raw.Canonical(); !errors.As(err, new(*SyntaxError)) {
		t.Errorf("got %v, want *SyntaxError", err)
	}
	if _, err := (Raw{}).Canonical(); !errors.As(err, new(*ShapeError)) {
		t.Errorf("zero Raw: got %v, want *ShapeError", err)
	}
}
