package runner

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hearth/internal/strictjson"
)

// RefusalError is one error of a refused publication as hearth keeps it
// and the runner gives it back to the agent: where, what was expected and
// what was found, redacted so it never carries message contents. The
// redaction is hearth's (models.RefusalErrorOf), copied so the runner links
// no store; refusal_test.go checks the two agree.
type RefusalError struct {
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Found    string `json:"found"`
}

// Bounds on a refused invocation's errors as hearth keeps them.
const (
	maxRefusalPath = 300
	maxRefusalText = 200
	maxFoundRunes  = 80
	maxTokenRunes  = 32 // a quoted value or path segment longer than this is described, not shown
)

// refusalErrorsOf redacts and bounds a refusal's error list.
func refusalErrorsOf(fes []strictjson.FieldError) []RefusalError {
	out := make([]RefusalError, 0, min(len(fes), maxRefusalErrors))
	for _, fe := range fes[:min(len(fes), maxRefusalErrors)] {
		out = append(out, RefusalError{Path: redactPath(fe.Path), Expected: clip(redactQuoted(fe.Expected), maxRefusalText), Found: clip(redactQuoted(fe.Found), maxFoundRunes)})
	}
	return out
}

// tokenLike is a short value without spaces: an ID, an enum word, a field name.
func tokenLike(s string) bool {
	if utf8.RuneCountInString(s) > maxTokenRunes || strings.HasSuffix(s, "…") {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '"' {
			return false
		}
	}
	return true
}

// redactPath replaces each JSON Pointer segment that is not token-like (an
// unknown field named with free text) by "…".
func redactPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if !tokenLike(s) {
			segs[i] = "…"
		}
	}
	return clip(strings.Join(segs, "/"), maxRefusalPath)
}

// redactQuoted replaces each Go-quoted string in s that is not token-like
// with its length, e.g. `string "lunch with Ana"` → "string, a text of 14 characters".
func redactQuoted(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := closingQuote(s, i)
		if j < 0 {
			// An unterminated quote: nothing after it is shown.
			b.WriteString(strings.TrimRight(s[:i], " "))
			b.WriteString(", a text")
			return b.String()
		}
		val, err := strconv.Unquote(s[i : j+1])
		switch {
		case err == nil && tokenLike(val):
			b.WriteString(s[:i])
			b.WriteString(strconv.Quote(val))
		default:
			prefix := strings.TrimRight(s[:i], " ")
			b.WriteString(prefix)
			if prefix != "" {
				b.WriteString(", ")
			}
			n := utf8.RuneCountInString(val)
			if strings.HasSuffix(val, "…") {
				fmt.Fprintf(&b, "a text of more than %d characters", n-1)
			} else {
				fmt.Fprintf(&b, "a text of %d characters", n)
			}
		}
		s = s[j+1:]
	}
}

// closingQuote is the index of the quote ending the Go-quoted string at i, or -1.
func closingQuote(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
