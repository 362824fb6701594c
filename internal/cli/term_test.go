package cli

import (
	"bytes"
	"testing"
)

func TestTermEscapeShowsControlCharactersAsEscapes(t *testing.T) {
	cases := []struct {
		name, in, field, text string
	}{
		{"plain text is unchanged", "Ana's hike, Zürich 🥾 \\d", "Ana's hike, Zürich 🥾 \\d", "Ana's hike, Zürich 🥾 \\d"},
		{"OSC retitle", "a\x1b]0;pwned\x07b", `a\x1b]0;pwned\x07b`, `a\x1b]0;pwned\x07b`},
		{"CSI clear", "\x1b[2J", `\x1b[2J`, `\x1b[2J`},
		{"newline and tab kept only in text", "a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"carriage return", "a\rb", `a\rb`, `a\rb`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`, `a\x00b\x7f`},
		{"C1 controls", "a\u0085b\u009bc", `a\u0085b\u009bc`, `a\u0085b\u009bc`},
		{"bidi overrides and isolates", "\u202eabc\u202c\u2066x\u2069\u200e\u200f\u061c", `\u202eabc\u202c\u2066x\u2069\u200e\u200f\u061c`, `\u202eabc\u202c\u2066x\u2069\u200e\u200f\u061c`},
		{"line and paragraph separators", "a\u2028b\u2029", `a\u2028b\u2029`, `a\u2028b\u2029`},
		{"invalid UTF-8 byte by byte", "a\x9b[2Jb\xff", `a\x9b[2Jb\xff`, `a\x9b[2Jb\xff`},
		{"a real replacement character stays", "a\uFFFDb", "a\uFFFDb", "a\uFFFDb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := termField(c.in); got != c.field {
				t.Errorf("termField(%q) = %q, want %q", c.in, got, c.field)
			}
			if got := TermText(c.in); got != c.text {
				t.Errorf("TermText(%q) = %q, want %q", c.in, got, c.text)
			}
		})
	}
}

// kind stands for the models' named string types (kinds, states).
type kind string

func TestPrintfEscapesStringArgumentsButNotTheFormat(t *testing.T) {
	var b bytes.Buffer
	Printf(&b, "%s\t%-6s %d %v\n", "x\x1b[2J\ny", kind("k\u202e"), 7, 1.5)
	if want := "x\\x1b[2J\\ny\tk\\u202e 7 1.5\n"; b.String() != want {
		t.Errorf("Printf wrote %q, want %q", b.String(), want)
	}
}
