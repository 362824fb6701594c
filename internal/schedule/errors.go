package schedule

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrInvalid matches every *ValidationError with errors.Is, so callers can
// map all of them to one status (422) and exit code (1).
var ErrInvalid = errors.New("schedules: invalid")

// ValidationError is one refused input, named by the field a user wrote.
type ValidationError struct {
	Field    string // "at", "cron", "zone", "endAt", "id", "limits.deadline", "frontmatter", "prompt", …
	Message  string
	Expected string
	Found    string
}

// Error names the field, the problem, and what was expected and found.
func (e *ValidationError) Error() string {
	s := fmt.Sprintf("schedules: %s: %s", e.Field, e.Message)
	if e.Expected != "" {
		s += "; expected " + e.Expected
	}
	if e.Found != "" {
		s += ", found " + e.Found
	}
	return s
}

// Is makes errors.Is(err, ErrInvalid) true for every validation error.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

func invalid(field, msg, expected, found string) *ValidationError {
	return &ValidationError{Field: field, Message: msg, Expected: expected, Found: found}
}

// quote shows a refused value, shortened so an error never echoes a whole prompt.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
