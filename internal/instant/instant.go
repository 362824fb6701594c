// Package instant is hearth's one bound on the times it accepts from
// outside: publication timestamps and dates, schedule instants, query
// parameters, owner form dates and CLI flags all go through it, and read
// paths use the same bound to recognise a stored value an older hearth let
// in. The bound is fixed, not relative to the clock, so a check is a pure
// function of its input: a retried request is judged as the first one was,
// a file or snapshot accepted once stays readable, and the schedules
// package checks files without a clock. Both ends keep a four-digit year
// in every zone offset, so an accepted instant always formats as RFC 3339
// and JSON, and reads back from SQLite.
package instant

import (
	"errors"
	"time"
)

// Earliest is the first instant hearth accepts; End is the first instant
// after the range (exclusive).
var (
	Earliest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	End      = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Expected describes an acceptable instant, for error messages.
const Expected = "an RFC 3339 instant with Z or an offset from -23:59 to +23:59, " +
	"from 2000-01-01T00:00:00Z up to (not including) 2200-01-01T00:00:00Z, like 2026-09-29T07:00:00Z"

// DateExpected describes an acceptable calendar date, for error messages.
const DateExpected = "a date YYYY-MM-DD from 2000-01-01 to 2199-12-31"

// Why an instant or a date is refused; match them with errors.Is. Their
// text is a field error's message; Expected and DateExpected say the rest.
var (
	ErrSyntax = errors.New("not an RFC 3339 instant")
	ErrOffset = errors.New("offset out of range (hours 00-23, minutes 00-59)")
	ErrRange  = errors.New("out of range")

	ErrDateSyntax = errors.New("not a calendar date")
	ErrDateRange  = errors.New("out of range")
)

// Parse reads an RFC 3339 instant (Z or a numeric offset, optional
// fraction) and checks its offset and the bound. Go's own parser takes
// "+24:00" and "+23:60" (an offset of a whole day), which RFC 3339 does
// not, so the offset is checked here.
func Parse(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, ErrSyntax
	}
	if n := len(s); s[n-1] != 'Z' {
		// The layout matched, so the string ends in "±HH:MM".
		hh, mm := int(s[n-5]-'0')*10+int(s[n-4]-'0'), int(s[n-2]-'0')*10+int(s[n-1]-'0')
		if hh > 23 || mm > 59 {
			return time.Time{}, ErrOffset
		}
	}
	if !InRange(t) {
		return time.Time{}, ErrRange
	}
	return t, nil
}

// InRange reports whether t is inside the bound.
func InRange(t time.Time) bool { return !t.Before(Earliest) && t.Before(End) }

// ParseDate reads a calendar date YYYY-MM-DD (midnight UTC) inside the
// bound's years. Go's layout takes exactly four, two and two ASCII digits.
func ParseDate(s string) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, ErrDateSyntax
	}
	if !InRange(d) {
		return time.Time{}, ErrDateRange
	}
	return d, nil
}
