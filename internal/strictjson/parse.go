package strictjson

import (
	"fmt"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file is a single-pass scanner over the request body. It replaced a
// parser built on encoding/json's Decoder.Token, which boxed every token in an
// interface, re-scanned each scalar and built a JSON Pointer string for every
// value; that made a 22 KB publication cost milliseconds. Errors keep the
// paths, offsets and wording of the token-based parser (reference_test.go
// keeps it as an oracle), except that offsets inside a scalar now point at
// the offending byte, a bad first key says what was expected, and a value
// that cannot be canonicalized is reported with its path and offset.

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// document is one parsed body. Nodes hold no Go pointers: strings are spans
// of src or esc and children are index ranges of nodes. That makes the tree
// memory the garbage collector never scans, allocated in one piece for a
// typical body, and lets the parser move nodes without write barriers, which
// dominated the cost of a tree of pointers.
type document struct {
	src   string       // the body, copied once so bound strings are immutable substrings of it
	esc   string       // decoded text of every string that contained an escape, concatenated
	nodes []node       // children of a container are contiguous; the root is last
	canon *SyntaxError // what makes the document not canonicalizable, if anything (see parser.canon)
}

// node is one parsed value; objects keep members in document order so errors
// come out in that order. It is 20 bytes, which matters because the node
// slice is most of what a parse allocates.
type node struct {
	kind  kind
	b     bool  // boolean value
	flags uint8 // which of key and val live in document.esc
	key   span  // member name, when this node is the value of an object member
	// val is the string value or the number literal (kept exact for integer
	// checks), or for an array or object the range of document.nodes that
	// holds its elements or members.
	val span
}

const (
	keyEscaped uint8 = 1 << iota
	textEscaped
)

// span is a byte range of document.src or document.esc.
type span struct{ start, end uint32 }

func (d *document) root() *node { return &d.nodes[len(d.nodes)-1] }

func (d *document) text(n *node) string { return d.str(n.val, n.flags&textEscaped != 0) }

func (n *node) len() int { return int(n.val.end - n.val.start) }

func (d *document) key(n *node) string { return d.str(n.key, n.flags&keyEscaped != 0) }

func (d *document) str(s span, escaped bool) string {
	if escaped {
		return d.esc[s.start:s.end]
	}
	return d.src[s.start:s.end]
}

// seg is one JSON Pointer reference token: an array index, or a member name
// given as a span of the body or of the decoded-escape text. Paths are kept
// as a stack of these and rendered only when an error or a Raw needs one,
// because almost every value parses and binds without ever needing its path.
// A seg holds no Go pointers so pushing one costs no GC write barrier.
type seg struct {
	key     span
	escaped bool
	index   int32 // array index, or -1 for a member name
}

// pointer renders base followed by segs as an RFC 6901 JSON Pointer, reading
// member names from src or, for escaped names, esc.
func pointer[S ~string | ~[]byte](base string, segs []seg, src, esc S) string {
	if len(segs) == 0 {
		return base
	}
	n := len(base)
	for _, s := range segs {
		n += 11 + int(s.key.end-s.key.start)*2 // room for an index, or a name with every byte escaped
	}
	return string(appendPointer(make([]byte, 0, n), base, segs, src, esc))
}

// appendPointer appends the JSON Pointer that pointer returns to dst.
func appendPointer[S ~string | ~[]byte](dst []byte, base string, segs []seg, src, esc S) []byte {
	dst = append(dst, base...)
	for _, s := range segs {
		dst = append(dst, '/')
		if s.index >= 0 {
			dst = strconv.AppendInt(dst, int64(s.index), 10)
			continue
		}
		k := src[s.key.start:s.key.end]
		if s.escaped {
			k = esc[s.key.start:s.key.end]
		}
		for i := 0; i < len(k); i++ {
			switch k[i] {
			case '~':
				dst = append(dst, '~', '0')
			case '/':
				dst = append(dst, '~', '1')
			default:
				dst = append(dst, k[i])
			}
		}
	}
	return dst
}

// child returns the JSON Pointer of token under path.
func child(path, token string) string {
	return pointer(path, []seg{{key: span{0, uint32(len(token))}, index: -1}}, token, "")
}

// maxBody bounds the body so positions fit the 32-bit spans; hearth caps
// bodies far below it (contract.MaxBodyBytes), so it only guards against misuse.
const maxBody = 1<<31 - 1

// parser holds the state of one parse.
type parser struct {
	doc   *document
	data  []byte
	pos   int
	stack []node // children of the containers still open, innermost last
	segs  []seg  // path of the value being parsed
	esc   []byte // becomes document.esc
	// canon is the first value RFC 8785 cannot represent (an unpaired
	// surrogate escape or a number beyond float64). Decode accepts such
	// documents as before; only hashing rejects them.
	canon *SyntaxError
}

// parse builds the document, rejecting everything that is not exactly one
// well-formed value. The second result is the canonicalization problem, if
// any, for callers that hash.
func parse(data []byte) (*document, *SyntaxError, error) {
	if isBlank(data) {
		return nil, nil, &SyntaxError{Offset: 0, Msg: "empty body"}
	}
	if len(data) > maxBody {
		return nil, nil, &SyntaxError{Offset: -1, Msg: "body too large"}
	}
	// Checked up front, as before, so invalid UTF-8 is reported ahead of any
	// syntax error and the scanner can pass every byte >= 0x80 through.
	if !utf8.Valid(data) {
		off := 0
		for {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			off += size
		}
		return nil, nil, &SyntaxError{Offset: int64(off), Msg: "invalid UTF-8"}
	}
	// Real publications average about 20 bytes per value; starting near
	// that avoids regrowing the node slice for typical bodies.
	d := &document{src: string(data), nodes: make([]node, 0, len(data)/16+8)}
	sc := scratchPool.Get().(*scratch)
	p := &parser{doc: d, data: data, stack: sc.stack[:0], segs: sc.segs[:0], esc: sc.esc[:0]}
	defer sc.keep(p)
	if err := p.value(0); err != nil {
		return nil, nil, err
	}
	p.skipSpace()
	if p.pos < len(data) {
		return nil, nil, &SyntaxError{Offset: int64(p.pos), Msg: "trailing data after the JSON value"}
	}
	d.nodes = append(d.nodes, p.stack[0])
	if len(p.esc) > 0 {
		d.esc = string(p.esc)
	}
	d.canon = p.canon
	return d, p.canon, nil
}

// scratch is the parser's working memory, recycled between parses. It holds
// no Go pointers into the document (nodes and segs are pointer-free, esc is
// copied into document.esc), so a recycled scratch pins nothing.
type scratch struct {
	stack []node
	segs  []seg
	esc   []byte
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{stack: make([]node, 0, 256), segs: make([]seg, 0, maxDepth+1)}
}}

// maxScratch keeps one huge body from pinning huge buffers in the pool.
const maxScratch = 1 << 20

// keep returns p's buffers to the pool, with whatever growth they needed.
func (sc *scratch) keep(p *parser) {
	if cap(p.stack)*int(unsafe.Sizeof(node{})) > maxScratch || cap(p.esc) > maxScratch {
		return
	}
	sc.stack, sc.segs, sc.esc = p.stack[:0], p.segs[:0], p.esc[:0]
	scratchPool.Put(sc)
}

func isBlank(data []byte) bool {
	for _, c := range data {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (p *parser) skipSpace() {
	for p.pos < len(p.data) && isSpace(p.data[p.pos]) {
		p.pos++
	}
}

// errAt reports a problem at byte off in the value currently being parsed.
func (p *parser) errAt(off int, msg string) *SyntaxError {
	return &SyntaxError{Path: pointer("", p.segs, p.data, p.esc), Offset: int64(off), Msg: msg}
}

// badChar words an unexpected byte the way encoding/json does, so messages
// agents already know keep their meaning.
func (p *parser) badChar(off int, context string) *SyntaxError {
	return p.errAt(off, "invalid character "+quoteChar(p.data[off])+context)
}

func (p *parser) eof() *SyntaxError {
	return p.errAt(len(p.data), "unexpected end of JSON input")
}

// quoteChar formats c as a quoted character literal, as encoding/json does.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// value reads one value and pushes its node onto p.stack; depth counts the
// containers enclosing it. Nodes are built in place on the stack rather than
// returned, which profiling showed to be a large share of parse time.
func (p *parser) value(depth int) *SyntaxError {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return p.eof()
	}
	switch c := p.data[p.pos]; c {
	case '"':
		s, escaped, err := p.str()
		n := node{kind: kindString, val: s}
		if escaped {
			n.flags = textEscaped
		}
		p.stack = append(p.stack, n)
		return err
	case '{', '[':
		if depth >= maxDepth {
			return p.errAt(p.pos+1, fmt.Sprintf("nesting deeper than %d", maxDepth))
		}
		if c == '{' {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case 't':
		p.stack = append(p.stack, node{kind: kindBool, b: true})
		return p.literal("true")
	case 'f':
		p.stack = append(p.stack, node{kind: kindBool})
		return p.literal("false")
	case 'n':
		p.stack = append(p.stack, node{kind: kindNull})
		return p.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		s, err := p.number()
		p.stack = append(p.stack, node{kind: kindNumber, val: s})
		return err
	}
	return p.badChar(p.pos, " looking for beginning of value")
}

func (p *parser) literal(word string) *SyntaxError {
	for i := 1; i < len(word); i++ {
		j := p.pos + i
		if j >= len(p.data) {
			return p.eof()
		}
		if p.data[j] != word[i] {
			return p.badChar(j, " in literal "+word+" (expecting "+quoteChar(word[i])+")")
		}
	}
	p.pos += len(word)
	return nil
}

// number validates the RFC 8259 number grammar and returns the literal
// unchanged, so integer binding and hashing see exactly what was sent.
func (p *parser) number() (span, *SyntaxError) {
	d, start := p.data, p.pos
	i := start
	if d[i] == '-' {
		i++
		if i >= len(d) {
			return span{}, p.eof()
		}
		if !isDigit(d[i]) {
			return span{}, p.badChar(i, " in numeric literal")
		}
	}
	if d[i] == '0' {
		i++
	} else {
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	exp := false
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) {
			return span{}, p.eof()
		}
		if !isDigit(d[i]) {
			return span{}, p.badChar(i, " after decimal point in numeric literal")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		exp = true
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) {
			return span{}, p.eof()
		}
		if !isDigit(d[i]) {
			return span{}, p.badChar(i, " in exponent of numeric literal")
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	p.pos = i
	lit := p.doc.src[start:i]
	// Only an exponent or more than 308 digits can exceed float64, so the
	// common case skips ParseFloat here; the canonical form needs the range
	// known before hashing starts.
	if (exp || len(lit) > 308) && p.canon == nil {
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			p.canon = p.errAt(start, "cannot canonicalize: number "+truncate(lit)+" is outside the IEEE 754 double range")
		}
	}
	return span{uint32(start), uint32(i)}, nil
}

// strSafe marks bytes that may appear in a string without ending it or
// starting an escape; everything at or above 0x80 is safe because the body
// was checked to be valid UTF-8.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads the string whose opening quote is at p.pos and returns its span,
// which is in document.esc when escaped is true.
func (p *parser) str() (s span, escaped bool, err *SyntaxError) {
	d := p.data
	start := p.pos + 1
	i := start
	for i < len(d) && strSafe[d[i]] {
		i++
	}
	if i >= len(d) {
		return span{}, false, p.eof()
	}
	switch d[i] {
	case '"':
		p.pos = i + 1
		return span{uint32(start), uint32(i)}, false, nil
	case '\\':
		s, err := p.strEscaped(start, i)
		return s, true, err
	}
	return span{}, false, p.badChar(i, " in string literal")
}

// strEscaped finishes a string whose first escape is at i, decoding it onto
// p.esc. Escapes decode as encoding/json decodes them, including its
// treatment of a surrogate escape that is not half of a valid pair: it
// becomes U+FFFD.
func (p *parser) strEscaped(start, i int) (span, *SyntaxError) {
	d := p.data
	from := len(p.esc)
	b := append(p.esc, d[start:i]...)
	defer func() { p.esc = b }()
	for i < len(d) {
		c := d[i]
		if strSafe[c] {
			j := i + 1
			for j < len(d) && strSafe[d[j]] {
				j++
			}
			b = append(b, d[i:j]...)
			i = j
			continue
		}
		switch c {
		case '"':
			p.pos = i + 1
			return span{uint32(from), uint32(len(b))}, nil
		case '\\':
		default:
			return span{}, p.badChar(i, " in string literal")
		}
		if i+1 >= len(d) {
			return span{}, p.eof()
		}
		switch e := d[i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, err := p.hex4(i + 2)
			if err != nil {
				return span{}, err
			}
			esc := i
			i += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4At(d, i); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						b = utf8.AppendRune(b, dec)
						i += 6
						continue
					}
				}
				if p.canon == nil {
					p.canon = p.errAt(esc, "cannot canonicalize: unpaired UTF-16 surrogate escape "+string(d[esc:esc+6]))
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return span{}, p.badChar(i+1, " in string escape code")
		}
		i += 2
	}
	return span{}, p.eof()
}

// hex4 reads the four hex digits of a \u escape starting at i.
func (p *parser) hex4(i int) (rune, *SyntaxError) {
	var r rune
	for j := i; j < i+4; j++ {
		if j >= len(p.data) {
			return 0, p.eof()
		}
		v := unhex(p.data[j])
		if v < 0 {
			return 0, p.badChar(j, ` in \u hexadecimal character escape`)
		}
		r = r<<4 | v
	}
	return r, nil
}

// hex4At decodes a complete \uXXXX escape at i, if there is one.
func hex4At(d []byte, i int) (rune, bool) {
	if i+6 > len(d) || d[i] != '\\' || d[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range d[i+2 : i+6] {
		v := unhex(c)
		if v < 0 {
			return 0, false
		}
		r = r<<4 | v
	}
	return r, true
}

func unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// array reads an array whose '[' is at p.pos. As before, a problem between
// elements is reported at the path of the element that was expected next.
func (p *parser) array(depth int) *SyntaxError {
	p.pos++
	base := len(p.stack)
	top := len(p.segs)
	p.segs = append(p.segs, seg{index: 0})
	p.skipSpace()
	if p.pos >= len(p.data) {
		return p.eof()
	}
	if p.data[p.pos] != ']' {
		for i := int32(1); ; i++ {
			if err := p.value(depth); err != nil {
				return err
			}
			p.segs[top].index = i
			p.skipSpace()
			if p.pos >= len(p.data) {
				return p.eof()
			}
			c := p.data[p.pos]
			if c == ']' {
				break
			}
			if c != ',' {
				return p.badChar(p.pos, " after array element")
			}
			p.pos++
		}
	}
	p.pos++ // the ']'
	p.segs = p.segs[:top]
	p.close(kindArray, base)
	return nil
}

// dupScanLimit is the member count up to which duplicate keys are found by
// comparing with earlier keys; beyond it a map keeps hostile objects linear.
const dupScanLimit = 16

// object reads an object whose '{' is at p.pos. Problems with a key are
// reported at the object's path, problems after it at the member's path.
func (p *parser) object(depth int) *SyntaxError {
	p.pos++
	base := len(p.stack)
	var seen map[string]struct{}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return p.eof()
	}
	if p.data[p.pos] != '}' {
		for {
			if p.data[p.pos] != '"' {
				return p.badChar(p.pos, " looking for beginning of object key string")
			}
			ks, escaped, err := p.str()
			if err != nil {
				return err
			}
			var flags uint8
			if escaped {
				flags = keyEscaped
			}
			key := p.keyBytes(ks, flags)
			dup := false
			if members := p.stack[base:]; len(members) < dupScanLimit {
				for j := range members {
					if string(p.keyBytes(members[j].key, members[j].flags)) == string(key) {
						dup = true
						break
					}
				}
			} else {
				if seen == nil {
					seen = make(map[string]struct{}, 2*len(members))
					for j := range members {
						seen[string(p.keyBytes(members[j].key, members[j].flags))] = struct{}{}
					}
				}
				if _, dup = seen[string(key)]; !dup {
					seen[string(key)] = struct{}{}
				}
			}
			p.segs = append(p.segs, seg{key: ks, escaped: escaped, index: -1})
			if dup {
				return p.errAt(p.pos, fmt.Sprintf("duplicate key %q", key))
			}
			p.skipSpace()
			if p.pos >= len(p.data) {
				return p.eof()
			}
			if p.data[p.pos] != ':' {
				return p.badChar(p.pos, " after object key")
			}
			p.pos++
			if err := p.value(depth); err != nil {
				return err
			}
			p.segs = p.segs[:len(p.segs)-1]
			m := &p.stack[len(p.stack)-1]
			m.key = ks
			m.flags |= flags
			p.skipSpace()
			if p.pos >= len(p.data) {
				return p.eof()
			}
			c := p.data[p.pos]
			if c == '}' {
				break
			}
			if c != ',' {
				return p.badChar(p.pos, " after object key:value pair")
			}
			p.pos++
			p.skipSpace()
			if p.pos >= len(p.data) {
				return p.eof()
			}
		}
	}
	p.pos++ // the '}'
	p.close(kindObject, base)
	return nil
}

// keyBytes returns a member name while the parse is running, when p.esc is
// still growing and document.esc does not exist yet.
func (p *parser) keyBytes(s span, flags uint8) []byte {
	if flags&keyEscaped != 0 {
		return p.esc[s.start:s.end]
	}
	return p.data[s.start:s.end]
}

// close finishes the container whose children are p.stack[base:]: they move
// to the document, where they stay contiguous, and the container's node
// takes their place on the stack.
func (p *parser) close(k kind, base int) {
	first := uint32(len(p.doc.nodes))
	p.doc.nodes = append(p.doc.nodes, p.stack[base:]...)
	p.stack = append(p.stack[:base], node{kind: k, val: span{first, uint32(len(p.doc.nodes))}})
}
