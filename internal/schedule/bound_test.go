package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestRulesAndFilesRefuseInstantsOutsideTheBound(t *testing.T) {
	t.Parallel()
	loc, err := LoadZone("Pacific/Kiritimati")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, value, message string }{
		{"year 10000 in UTC", "9999-12-31T23:59:59-12:00", "out of range"},
		{"year 9999", "9999-12-31T12:00:00Z", "out of range"},
		{"before 2000", "1999-12-31T23:59:59Z", "out of range"},
		{"offset +24:00", "2026-09-29T07:00:00+24:00", "offset out of range"},
		{"offset +23:60", "2026-09-29T07:00:00+23:60", "offset out of range"},
	} {
		for _, field := range []string{"at", "endAt"} {
			spec := RuleSpec{At: tc.value}
			if field == "endAt" {
				spec = RuleSpec{Cron: "0 8 * * *", EndAt: tc.value}
			}
			_, err := ParseRule(spec, loc)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != field || !strings.Contains(ve.Message, tc.message) || !strings.Contains(ve.Expected, "2000-01-01") {
				t.Errorf("%s %s: ParseRule = %v; want %s refused with %q", field, tc.name, err, field, tc.message)
			}
			file := "---\nid: x\njob: x\n"
			if field == "at" {
				file += "at: \"" + tc.value + "\"\n"
			} else {
				file += "cron: \"0 8 * * *\"\nendAt: \"" + tc.value + "\"\n"
			}
			file += "zone: Pacific/Kiritimati\n---\n\nHello.\n"
			if _, err := ParseDefinition("x", []byte(file)); !errors.As(err, &ve) || ve.Field != field {
				t.Errorf("%s %s: ParseDefinition = %v; want %s refused", field, tc.name, err, field)
			}
		}
	}
	// The last instants inside still parse, and their due times encode in the zone.
	r, err := ParseRule(RuleSpec{At: "2199-12-31T23:59:59Z"}, loc)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range NextReport("x", r, ZoneExplicit, time.Date(2199, 12, 31, 0, 0, 0, 0, time.UTC), 1).Next {
		if _, err := d.DueAt.MarshalJSON(); err != nil {
			t.Errorf("%v: %v", d.DueAt, err)
		}
	}
}
