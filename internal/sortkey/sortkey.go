// Package sortkey orders Beeper's message sort keys, so the store can tell
// a stale draft without importing the Beeper client.
package sortkey

import "strings"

// Compare returns -1, 0 or +1; decimal keys compare numerically so "10" sorts after "9".
func Compare(a, b string) int {
	if isDigits(a) && isDigits(b) {
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			if len(a) < len(b) {
				return -1
			}
			return 1
		}
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
