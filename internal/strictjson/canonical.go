package strictjson

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"sync"

	"github.com/gowebpki/jcs"
)

// This file writes the RFC 8785 (JCS) canonical form straight from the parsed
// tree, so hashing a publication does not parse it a second and third time.
// FuzzCanonical checks it against jcs.Transform byte for byte.

// appendCanonical appends the canonical form of node n of d to dst (with
// exactIntegers, CanonicalExact's form). d must come from a parse that
// reported no canonicalization problem: every number is then within
// float64 range and every string is well-formed Unicode.
func appendCanonical(dst []byte, d *document, n *node, exactIntegers bool) []byte {
	w := canonWriter{d: d, out: dst, exactIntegers: exactIntegers}
	w.value(n)
	return w.out
}

// Canonical returns the RFC 8785 canonical form of the held value, so a
// caller can store or hash one part of a body exactly as Hash would see
// it. It fails as Hash does on a document JCS cannot represent, and on the
// zero Raw.
func (r Raw) Canonical() ([]byte, error) { return r.canonical(false) }

// CanonicalExact is Canonical with one departure from RFC 8785, so provider
// IDs beyond 2^53 (snowflakes) are neither rounded nor merged: an integer
// literal (an optional minus and digits, no fraction or exponent) is
// written as its decimal digits. Every other number is formatted as RFC
// 8785 says, and an integer of magnitude at most 2^53 has the same form
// either way, so only integers beyond 2^53 differ from Canonical.
func (r Raw) CanonicalExact() ([]byte, error) { return r.canonical(true) }

func (r Raw) canonical(exactIntegers bool) ([]byte, error) {
	if r.d == nil {
		return nil, &ShapeError{Errors: []FieldError{{Path: r.path, Message: "missing value", Found: "nothing"}}}
	}
	if r.d.canon != nil {
		return nil, r.d.canon
	}
	return appendCanonical(make([]byte, 0, 64), r.d, &r.d.nodes[r.n], exactIntegers), nil
}

type canonWriter struct {
	d     *document
	out   []byte
	order []uint32 // node indices of the members being written, innermost object last
	// exactIntegers writes integer literals digit for digit (CanonicalExact).
	exactIntegers bool
}

func (w *canonWriter) value(n *node) {
	switch n.kind {
	case kindNull:
		w.out = append(w.out, "null"...)
	case kindBool:
		if n.b {
			w.out = append(w.out, "true"...)
		} else {
			w.out = append(w.out, "false"...)
		}
	case kindNumber:
		w.out = appendNumber(w.out, w.d.text(n), w.exactIntegers)
	case kindString:
		w.out = w.appendString(n.val, n.flags&textEscaped != 0)
	case kindArray:
		w.out = append(w.out, '[')
		for i := n.val.start; i < n.val.end; i++ {
			if i > n.val.start {
				w.out = append(w.out, ',')
			}
			w.value(&w.d.nodes[i])
		}
		w.out = append(w.out, ']')
	case kindObject:
		// The order stack is shared by nested objects: they append beyond
		// this object's indices and truncate back, so idx stays intact even
		// if a nested append moves the stack to a new array.
		base := len(w.order)
		for i := n.val.start; i < n.val.end; i++ {
			w.order = append(w.order, i)
		}
		idx := w.order[base:]
		w.sortMembers(idx)
		w.out = append(w.out, '{')
		for j, i := range idx {
			if j > 0 {
				w.out = append(w.out, ',')
			}
			m := &w.d.nodes[i]
			w.out = w.appendString(m.key, m.flags&keyEscaped != 0)
			w.out = append(w.out, ':')
			w.value(m)
		}
		w.out = append(w.out, '}')
		w.order = w.order[:base]
	}
}

// sortMembers orders idx by member name in UTF-16 code units, as RFC 8785
// §3.2.3 requires. Insertion sort handles the small objects that make up
// real documents without the closure allocation of a generic sort.
func (w *canonWriter) sortMembers(idx []uint32) {
	d := w.d
	if len(idx) > 12 {
		slices.SortFunc(idx, func(a, b uint32) int { return compareUTF16(d.key(&d.nodes[a]), d.key(&d.nodes[b])) })
		return
	}
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && compareUTF16(d.key(&d.nodes[idx[j]]), d.key(&d.nodes[idx[j-1]])) < 0; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// compareUTF16 compares two valid UTF-8 strings by their UTF-16 code units.
// UTF-8 byte order is code point order, which agrees with UTF-16 order except
// that supplementary characters (4-byte UTF-8, surrogate pairs in UTF-16)
// sort below U+E000..U+FFFF (lead bytes 0xEE and 0xEF) in UTF-16. That case
// can only arise where the first differing bytes are both lead bytes: a
// difference in a continuation byte means both runes share a lead byte and
// therefore a length, and within one length the two orders agree.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	ca, cb := a[i], b[i]
	if ca >= 0xF0 && (cb == 0xEE || cb == 0xEF) {
		return -1
	}
	if cb >= 0xF0 && (ca == 0xEE || ca == 0xEF) {
		return 1
	}
	return int(ca) - int(cb)
}

// appendNumber appends the ECMAScript form of a validated number literal;
// with exactIntegers, an integer literal of any length is kept as written.
func appendNumber(dst []byte, lit string, exactIntegers bool) []byte {
	// An integer of at most 15 digits is exact in float64, and ECMAScript
	// prints such a value digit for digit, so the literal is already
	// canonical apart from -0. This skips float formatting for ids, ranks
	// and counts, which are nearly all the numbers agents send.
	digits := lit
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if (len(digits) <= 15 || exactIntegers) && allDigits(digits) {
		if digits == "0" {
			return append(dst, '0')
		}
		return append(dst, lit...)
	}
	// Neither call can fail: the parser checked the literal's grammar and
	// range, and a finite float64 always has an ES6 form.
	f, _ := strconv.ParseFloat(lit, 64)
	s, _ := jcs.NumberToJSON(f)
	return append(dst, s...)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// appendString appends the string at s. A string that had no escapes in the
// body is already in canonical form there, quotes included: it holds no
// control character, quote or backslash, and JCS escapes nothing else.
func (w *canonWriter) appendString(s span, escaped bool) []byte {
	if escaped {
		return appendString(w.out, w.d.esc[s.start:s.end])
	}
	return append(w.out, w.d.src[s.start-1:s.end+1]...)
}

// appendString appends s quoted with the JCS escapes: the two-character
// escapes for " \ \b \f \n \r \t, \u00xx for other control characters, and
// every other character as raw UTF-8.
func appendString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// hashBufs recycles canonical-form buffers: the hash needs the bytes only
// until they are summed, and a publication's canonical form is tens of KB.
var hashBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuf keeps one huge body from pinning a huge buffer in the pool.
const maxPooledBuf = 1 << 20

// hashTree returns "sha256:" + hex of the canonical form of d (with
// exactIntegers, CanonicalExact's form).
func hashTree(d *document, sizeHint int, exactIntegers bool) string {
	bp := hashBufs.Get().(*[]byte)
	buf := *bp
	if cap(buf) < sizeHint {
		buf = make([]byte, 0, sizeHint)
	}
	buf = appendCanonical(buf[:0], d, d.root(), exactIntegers)
	sum := sha256.Sum256(buf)
	if cap(buf) <= maxPooledBuf {
		*bp = buf[:0]
		hashBufs.Put(bp)
	}
	var out [len("sha256:") + 2*sha256.Size]byte
	copy(out[:], "sha256:")
	hex.Encode(out[len("sha256:"):], sum[:])
	return string(out[:])
}
