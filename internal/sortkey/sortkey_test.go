package sortkey

import "testing"

func TestDecimalKeysCompareByValueAndOthersByText(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"9", "10", -1}, {"10", "9", 1}, {"007", "7", 0}, {"100", "99", 1},
		{"b", "a", 1}, {"a1", "a10", -1}, {"", "1", -1}, {"1", "", 1}, {"", "", 0},
	} {
		if got := Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
