package contract

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hearth/internal/strictjson"
)

// Bounds on a refused invocation's errors as hearth keeps them.
const (
	// MaxRefusalErrors bounds the errors kept per refused invocation.
	MaxRefusalErrors = 20
	// MaxRefusalPath bounds a kept error's path, in runes.
	MaxRefusalPath = 300
	// MaxRefusalText bounds a kept error's expected text, in runes.
	MaxRefusalText = 200
	maxFoundRunes  = 80
	maxTokenRunes  = 32 // a quoted value or path segment longer than this is described, not shown
)

// RefusalError is one error of a refused publication as hearth keeps it
// and gives it back to the agent: where, what was expected and what was
// found, redacted so it never carries message contents.
type RefusalError struct {
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Found    string `json:"found"`
}

// RefusalErrorOf is a validation error as a refusal keeps it: the message
// (which may quote the value) is dropped, and quoted values that are not
// short tokens, like a draft's text, become "a text of N characters".
func RefusalErrorOf(fe strictjson.FieldError) RefusalError {
	return RefusalError{Path: fe.Path, Expected: fe.Expected, Found: fe.Found}.Redacted()
}

// RefusalErrorsOf redacts and bounds a refusal's error list.
func RefusalErrorsOf(fes []strictjson.FieldError) []RefusalError {
	out := make([]RefusalError, 0, min(len(fes), MaxRefusalErrors))
	for _, fe := range fes[:min(len(fes), MaxRefusalErrors)] {
		out = append(out, RefusalErrorOf(fe))
	}
	return out
}

// Redacted applies the redaction; it is stable, so a report replayed
// after redaction compares equal.
func (e RefusalError) Redacted() RefusalError {
	return RefusalError{Path: redactPath(e.Path), Expected: clip(redactQuoted(e.Expected), MaxRefusalText), Found: clip(redactQuoted(e.Found), maxFoundRunes)}
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
	return clip(strings.Join(segs, "/"), MaxRefusalPath)
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

// clip shortens s to n runes, marking the cut with "…".
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
