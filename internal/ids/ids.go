// Package ids is hearth's one rule for the IDs clients choose: publication
// IDs of every kind, schedule and run IDs, job keys, request and send keys.
// The server's validation, the schedule files and (verbatim) the JSON
// Schemas use it; it imports nothing of hearth, so every package may.
package ids

import "regexp"

// MaxLen bounds an ID, in bytes (the alphabet is ASCII).
const MaxLen = 128

// Pattern is the ID alphabet, with at least one character that is not a
// dot. IDs name URL path segments (/activities/ID, /runs/ID/resolve,
// /api/schedules/ID/cancel) and files (DATA/schedules/definitions/ID.md);
// "." and ".." are resolved away in both, so such an ID could never be
// addressed. Refusing IDs made only of dots is the narrowest rule that
// closes that: a leading dot elsewhere (".env-check") breaks nothing, and
// "..." is refused with its kind because it has no use as a name either.
// RE2 and ECMA-262 read the pattern alike, so the schemas carry it as is,
// with maxLength MaxLen.
const Pattern = `^\.*[A-Za-z0-9_:@-][A-Za-z0-9._:@-]*$`

// Expected describes a valid ID in field errors.
const Expected = "1-128 characters of [A-Za-z0-9._:@-], not only dots"

var pattern = regexp.MustCompile(Pattern)

// Valid reports whether s is a valid ID.
func Valid(s string) bool { return len(s) <= MaxLen && pattern.MatchString(s) }
