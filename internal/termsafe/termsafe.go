// Package termsafe makes text from outside (an agent's titles, errors, its
// stderr) safe to write to a terminal, where an escape sequence could
// retitle or clear it, and a newline or bidi control could fake a line.
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Field escapes s for one field of a line: every control character,
// newline and tab included, is shown as a Go escape.
func Field(s string) string { return escape(s, false) }

// Text escapes s for free text of several lines (an error message, a log):
// newlines and tabs are kept, every other control character is escaped.
func Text(s string) string { return escape(s, true) }

// escape writes C0 controls, DEL, C1 controls, bidi controls
// (unicode.Bidi_Control: U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069),
// U+2028/U+2029 and bytes of invalid UTF-8 as Go escapes (\x1b, \u202e),
// keeping \n and \t when layout is true. A backslash is left alone, so
// ordinary text reads as written.
func escape(s string, layout bool) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, size, layout) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !unsafeRune(r, size, layout):
			b.WriteString(s[i : i+size])
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether r (size bytes of s) must be escaped.
func unsafeRune(r rune, size int, layout bool) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case layout && (r == '\n' || r == '\t'):
		return false
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	default:
		return unicode.Is(unicode.Bidi_Control, r)
	}
}
