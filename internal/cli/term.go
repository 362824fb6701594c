package cli

import (
	"fmt"
	"io"
	"reflect"

	"hearth/internal/termsafe"
)

// Human output goes through Printf: agent text (titles, drafts, request
// text, error messages) reaches the operator's terminal, where an escape
// sequence could retitle or clear it, and a newline or bidi control could
// fake a line. --json output is written as the server sent it.

// Printf is fmt.Fprintf for human output: every string-kinded argument is
// made terminal-safe with termField first; the format, which is ours, is
// written as is.
func Printf(w io.Writer, format string, args ...any) {
	safe := make([]any, len(args))
	for i, a := range args {
		safe[i] = a
		if v := reflect.ValueOf(a); v.IsValid() && v.Kind() == reflect.String {
			safe[i] = termField(v.String())
		}
	}
	fmt.Fprintf(w, format, safe...)
}

// termField escapes s for one field of a line: every control character,
// newline and tab included, is shown as a Go escape.
func termField(s string) string { return termsafe.Field(s) }

// TermText escapes s for free text of several lines (an error message):
// newlines and tabs are kept, every other control character is escaped.
func TermText(s string) string { return termsafe.Text(s) }
