package ids

import (
	"strings"
	"testing"
)

func TestIDsMadeOnlyOfDotsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"a", true},
		{"brief-2026-09-29", true},
		{"mail:work@home.example", true},
		{".env-check", true},
		{"v1.", true},
		{"a..b", true},
		{"..a", true},
		{"_", true},
		{strings.Repeat("a", MaxLen), true},
		{strings.Repeat(".", MaxLen-1) + "a", true},
		{"", false},
		{".", false},
		{"..", false},
		{"...", false},
		{strings.Repeat(".", MaxLen), false},
		{strings.Repeat("a", MaxLen+1), false},
		{"a/b", false},
		{"a b", false},
		{"é", false},
		{"a\n", false},
	} {
		if got := Valid(tc.id); got != tc.want {
			t.Errorf("Valid(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
