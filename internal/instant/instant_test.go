package instant

import (
	"errors"
	"testing"
	"time"
)

func TestParseRefusesWhatCannotRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"2026-09-29T07:00:00Z", nil},
		{"2026-09-29T07:00:00.123456789+02:00", nil},
		{"2026-09-29T07:00:00+23:59", nil},
		{"2026-09-29T07:00:00-23:59", nil},
		{"2026-09-29T07:00:00-00:00", nil},
		{"2000-01-01T00:00:00Z", nil},
		{"2199-12-31T23:59:59.999999999Z", nil},
		{"2200-01-01T13:00:00+14:00", nil}, // 2199-12-31T23:00Z
		{"2026-09-29T07:00:00+24:00", ErrOffset},
		{"2026-09-29T07:00:00+23:60", ErrOffset},
		{"2026-09-29T07:00:00-24:00", ErrOffset},
		{"2026-09-29T07:00:00+99:99", ErrSyntax},
		{"9999-12-31T23:59:59-12:00", ErrRange},
		{"9999-12-31T12:00:00Z", ErrRange},
		{"2200-01-01T00:00:00Z", ErrRange},
		{"1999-12-31T23:59:59Z", ErrRange},
		{"2000-01-01T00:00:00+00:01", ErrRange},
		{"0000-01-01T00:00:00Z", ErrRange},
		{"2026-09-29T07:00:00", ErrSyntax},
		{"2026-09-29 07:00:00Z", ErrSyntax},
		{"2026-09-29t07:00:00z", ErrSyntax},
		{"2026-02-30T07:00:00Z", ErrSyntax},
		{"2026-09-29T24:00:00Z", ErrSyntax},
		{"", ErrSyntax},
		{"tomorrow", ErrSyntax},
	} {
		got, err := Parse(tc.in)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("Parse(%q) = %v, %v; want error %v", tc.in, got, err, tc.want)
			continue
		}
		if err == nil {
			if b, merr := got.MarshalJSON(); merr != nil {
				t.Errorf("Parse(%q) accepted an instant JSON cannot write: %v", tc.in, merr)
			} else if _, merr := got.UTC().MarshalJSON(); merr != nil {
				t.Errorf("Parse(%q) = %s, but not in UTC: %v", tc.in, b, merr)
			}
			for _, zone := range []string{"Pacific/Kiritimati", "Etc/GMT+12"} {
				loc, _ := time.LoadLocation(zone)
				if _, merr := got.In(loc).MarshalJSON(); merr != nil {
					t.Errorf("Parse(%q) in %s cannot be written: %v", tc.in, zone, merr)
				}
			}
		}
	}
}

func TestParseDateKeepsToTheBoundsYears(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"2026-09-29", nil},
		{"2000-01-01", nil},
		{"2199-12-31", nil},
		{"1999-12-31", ErrDateRange},
		{"2200-01-01", ErrDateRange},
		{"9999-12-31", ErrDateRange},
		{"0001-01-01", ErrDateRange},
		{"2026-02-30", ErrDateSyntax},
		{"2026-9-29", ErrDateSyntax},
		{"2026-09-29x", ErrDateSyntax},
		{"+2026-09-29", ErrDateSyntax},
		{"02026-09-29", ErrDateSyntax},
		{"2026-09-2", ErrDateSyntax},
		{"2026-09-29 ", ErrDateSyntax},
		{"", ErrDateSyntax},
	} {
		if _, err := ParseDate(tc.in); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("ParseDate(%q) = %v, want %v", tc.in, err, tc.want)
		}
	}
}

// FuzzParse: whatever Parse accepts is inside the bound and encodes as
// JSON in UTC and at the widest offsets.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2026-09-29T07:00:00Z", "2199-12-31T23:59:59.999999999-23:59", "2000-01-01T00:00:00+23:59", "9999-12-31T23:59:59-12:00", "2026-09-29T07:00:00+24:00"} {
		f.Add(s)
	}
	east, _ := time.LoadLocation("Pacific/Kiritimati")
	west := time.FixedZone("-23:59", -(23*3600 + 59*60))
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			return
		}
		if !InRange(got) {
			t.Fatalf("Parse(%q) = %v, outside the bound", s, got)
		}
		for _, loc := range []*time.Location{time.UTC, east, west, got.Location()} {
			if _, err := got.In(loc).MarshalJSON(); err != nil {
				t.Fatalf("Parse(%q) = %v does not encode in %v: %v", s, got, loc, err)
			}
		}
	})
}
