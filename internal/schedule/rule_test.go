package schedule

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := LoadZone(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func mustRule(t *testing.T, spec RuleSpec, zone string) Rule {
	t.Helper()
	r, err := ParseRule(spec, mustLoc(t, zone))
	if err != nil {
		t.Fatalf("ParseRule(%+v, %s): %v", spec, zone, err)
	}
	return r
}

func ts(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func formatAll(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, v := range ts {
		out[i] = v.Format(time.RFC3339)
	}
	return out
}

func TestParseRuleRefuses(t *testing.T) {
	tests := []struct {
		name      string
		spec      RuleSpec
		wantField string
		wantMsg   string
	}{
		{"at without offset", RuleSpec{At: "2026-03-08T02:30:00"}, "at", "has no offset"},
		{"at without seconds or offset", RuleSpec{At: "2026-03-08T02:30"}, "at", "has no offset"},
		{"at as a date", RuleSpec{At: "2026-03-08"}, "at", "has no offset"},
		{"at as words", RuleSpec{At: "tomorrow 9am"}, "at", "not an RFC 3339 instant"},
		{"both at and cron", RuleSpec{At: "2026-03-08T02:30:00Z", Cron: "30 2 * * *"}, "at", "exclusive"},
		{"neither at nor cron", RuleSpec{}, "at", "needs at or cron"},
		{"endAt on a one-off", RuleSpec{At: "2026-03-08T02:30:00Z", EndAt: "2026-04-01T00:00:00Z"}, "endAt", "never recurs"},
		{"endAt without offset", RuleSpec{Cron: "30 2 * * *", EndAt: "2026-04-01T00:00"}, "endAt", "has no offset"},
		{"cron with 4 fields", RuleSpec{Cron: "30 2 * *"}, "cron", "has 4 fields"},
		{"cron with seconds", RuleSpec{Cron: "0 30 2 * * *"}, "cron", "has 6 fields"},
		{"cron minute 61", RuleSpec{Cron: "61 2 * * *"}, "cron", "above maximum"},
		{"cron hour 24", RuleSpec{Cron: "0 24 * * *"}, "cron", "above maximum"},
		{"cron weekday 7", RuleSpec{Cron: "0 9 * * 7"}, "cron", "above maximum"},
		{"cron step 0", RuleSpec{Cron: "*/0 * * * *"}, "cron", "step"},
		{"cron descriptor", RuleSpec{Cron: "@daily"}, "cron", "has 1 fields"},
		{"cron with a zone prefix", RuleSpec{Cron: "TZ=UTC 2 * * *"}, "cron", "unexpected character"},
		{"cron with a zone prefix and no space", RuleSpec{Cron: "CRON_TZ=UTC"}, "cron", "has 1 fields"},
		{"cron on 31 February", RuleSpec{Cron: "0 0 31 2 *"}, "cron", "no day that exists"},
		{"cron on 30 February", RuleSpec{Cron: "0 0 30 2 *"}, "cron", "no day that exists"},
		{"cron of words", RuleSpec{Cron: "every day at nine"}, "cron", "has 4 fields"},
		{"cron too long", RuleSpec{Cron: strings.Repeat("1,", 70) + "1 * * * *"}, "cron", "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRule(tt.spec, time.UTC)
			var v *ValidationError
			if !errors.As(err, &v) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseRule(%+v) error = %v, want a ValidationError", tt.spec, err)
			}
			if v.Field != tt.wantField || !strings.Contains(v.Message, tt.wantMsg) {
				t.Errorf("ParseRule(%+v) = %s: %q; want %s: …%s…", tt.spec, v.Field, v.Message, tt.wantField, tt.wantMsg)
			}
		})
	}
}

func TestParseRuleNormalises(t *testing.T) {
	r := mustRule(t, RuleSpec{Cron: " 0  9 * *   MON-FRI "}, "Europe/Berlin")
	if r.Cron() != "0 9 * * mon-fri" || r.OneOff() {
		t.Errorf("Cron() = %q, OneOff() = %v; want \"0 9 * * mon-fri\", false", r.Cron(), r.OneOff())
	}
	o := mustRule(t, RuleSpec{At: "2026-05-01T10:00:00+02:00"}, "Europe/Berlin")
	if !o.OneOff() || !o.At().Equal(ts(t, "2026-05-01T08:00:00Z")) || o.Spec().At != "2026-05-01T10:00:00+02:00" {
		t.Errorf("one-off = %v at %v (spec %+v)", o.OneOff(), o.At(), o.Spec())
	}
}

func TestCheckNew(t *testing.T) {
	now := ts(t, "2026-06-01T12:00:00Z")
	tests := []struct {
		name      string
		spec      RuleSpec
		wantField string // "" for accepted
	}{
		{"at in the past", RuleSpec{At: "2026-06-01T11:59:59Z"}, "at"},
		{"at exactly now", RuleSpec{At: "2026-06-01T12:00:00Z"}, "at"},
		{"at in the past, other offset", RuleSpec{At: "2026-06-01T13:00:00+02:00"}, "at"},
		{"at in the future", RuleSpec{At: "2026-06-01T12:00:01Z"}, ""},
		{"at in the future, other offset", RuleSpec{At: "2026-06-01T15:00:00+02:00"}, ""},
		{"cron", RuleSpec{Cron: "30 2 * * *"}, ""},
		{"cron with endAt ahead", RuleSpec{Cron: "30 2 * * *", EndAt: "2026-07-01T00:00:00Z"}, ""},
		{"cron with endAt passed", RuleSpec{Cron: "30 2 * * *", EndAt: "2026-06-01T00:00:00Z"}, "endAt"},
		{"cron ending before its first instant", RuleSpec{Cron: "0 0 1 1 *", EndAt: "2026-07-01T00:00:00Z"}, "cron"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mustRule(t, tt.spec, "UTC").CheckNew(now)
			var v *ValidationError
			switch {
			case tt.wantField == "" && err != nil:
				t.Errorf("CheckNew: %v, want nil", err)
			case tt.wantField != "" && (!errors.As(err, &v) || v.Field != tt.wantField):
				t.Errorf("CheckNew = %v, want a ValidationError on %s", err, tt.wantField)
			}
		})
	}
}

func TestNext(t *testing.T) {
	tests := []struct {
		name        string
		spec        RuleSpec
		zone        string
		from        string
		count       int
		want        []string
		wantSkipped []string
	}{
		{"New York spring-forward gap is skipped and reported", RuleSpec{Cron: "30 2 * * *"}, "America/New_York", "2026-03-06T12:00:00-05:00", 3,
			[]string{"2026-03-07T02:30:00-05:00", "2026-03-09T02:30:00-04:00", "2026-03-10T02:30:00-04:00"}, []string{"2026-03-08T02:30"}},
		{"New York fall-back fold runs once, at the earlier instant", RuleSpec{Cron: "30 1 * * *"}, "America/New_York", "2026-10-31T12:00:00-04:00", 3,
			[]string{"2026-11-01T01:30:00-04:00", "2026-11-02T01:30:00-05:00", "2026-11-03T01:30:00-05:00"}, nil},
		{"from inside the fold's first pass, the repeat is not due", RuleSpec{Cron: "30 1 * * *"}, "America/New_York", "2026-11-01T05:45:00Z", 1,
			[]string{"2026-11-02T01:30:00-05:00"}, nil},
		{"from inside the fold's second pass, the earlier instant has passed", RuleSpec{Cron: "15 1 * * *"}, "America/New_York", "2026-11-01T06:10:00Z", 1,
			[]string{"2026-11-02T01:15:00-05:00"}, nil},
		{"every quarter hour through the fold, each wall time once", RuleSpec{Cron: "*/15 1 * * *"}, "America/New_York", "2026-11-01T00:00:00-04:00", 5,
			[]string{"2026-11-01T01:00:00-04:00", "2026-11-01T01:15:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-01T01:45:00-04:00", "2026-11-02T01:00:00-05:00"}, nil},
		{"every half hour through the gap", RuleSpec{Cron: "*/30 2 * * *"}, "America/New_York", "2026-03-08T00:00:00-05:00", 2,
			[]string{"2026-03-09T02:00:00-04:00", "2026-03-09T02:30:00-04:00"}, []string{"2026-03-08T02:00", "2026-03-08T02:30"}},
		{"a daily rule keeps its wall time across DST, so its UTC instant moves", RuleSpec{Cron: "0 9 * * *"}, "America/New_York", "2026-03-06T12:00:00-05:00", 3,
			[]string{"2026-03-07T09:00:00-05:00", "2026-03-08T09:00:00-04:00", "2026-03-09T09:00:00-04:00"}, nil},
		{"Berlin spring-forward gap", RuleSpec{Cron: "30 2 * * *"}, "Europe/Berlin", "2026-03-28T12:00:00+01:00", 2,
			[]string{"2026-03-30T02:30:00+02:00", "2026-03-31T02:30:00+02:00"}, []string{"2026-03-29T02:30"}},
		{"Berlin fall-back fold", RuleSpec{Cron: "30 2 * * *"}, "Europe/Berlin", "2026-10-24T12:00:00+02:00", 2,
			[]string{"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}, nil},
		{"Tokyo weekdays do not move when New York changes", RuleSpec{Cron: "0 9 * * 1-5"}, "Asia/Tokyo", "2026-03-06T00:00:00+09:00", 3,
			[]string{"2026-03-06T09:00:00+09:00", "2026-03-09T09:00:00+09:00", "2026-03-10T09:00:00+09:00"}, nil},
		{"Tokyo has no gap on New York's gap day", RuleSpec{Cron: "30 2 * * *"}, "Asia/Tokyo", "2026-03-07T12:00:00+09:00", 1,
			[]string{"2026-03-08T02:30:00+09:00"}, nil},
		{"one-off ahead", RuleSpec{At: "2026-05-01T10:00:00+02:00"}, "Europe/Berlin", "2026-04-30T00:00:00Z", 3,
			[]string{"2026-05-01T10:00:00+02:00"}, nil},
		{"one-off passed", RuleSpec{At: "2026-05-01T10:00:00+02:00"}, "Europe/Berlin", "2026-05-01T08:00:00Z", 3, []string{}, nil},
		{"endAt is exclusive", RuleSpec{Cron: "0 * * * *", EndAt: "2026-06-01T03:00:00Z"}, "UTC", "2026-06-01T00:30:00Z", 10,
			[]string{"2026-06-01T01:00:00Z", "2026-06-01T02:00:00Z"}, nil},
		{"day of month or weekday when both are set", RuleSpec{Cron: "0 12 13 * 5"}, "UTC", "2026-04-01T00:00:00Z", 4,
			[]string{"2026-04-03T12:00:00Z", "2026-04-10T12:00:00Z", "2026-04-13T12:00:00Z", "2026-04-17T12:00:00Z"}, nil},
		{"29 February waits for a leap year", RuleSpec{Cron: "0 0 29 2 *"}, "UTC", "2026-01-01T00:00:00Z", 1,
			[]string{"2028-02-29T00:00:00Z"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped := mustRule(t, tt.spec, tt.zone).Next(ts(t, tt.from), tt.count)
			if g := formatAll(got); strings.Join(g, " ") != strings.Join(tt.want, " ") {
				t.Errorf("Next = %v\nwant   %v", g, tt.want)
			}
			var walls []string
			for _, s := range skipped {
				if s.Reason != SkipNonexistent || !s.DueAt.IsZero() {
					t.Errorf("skip %+v: want a nonexistent wall time", s)
				}
				walls = append(walls, s.WallTime)
			}
			if strings.Join(walls, " ") != strings.Join(tt.wantSkipped, " ") {
				t.Errorf("skipped = %v, want %v", walls, tt.wantSkipped)
			}
		})
	}
}

func TestNextFoldIsTheEarlierInstant(t *testing.T) {
	got, _ := mustRule(t, RuleSpec{Cron: "30 1 * * *"}, "America/New_York").Next(ts(t, "2026-11-01T00:00:00-04:00"), 1)
	if len(got) != 1 || got[0].UTC().Format(time.RFC3339) != "2026-11-01T05:30:00Z" {
		t.Errorf("fold instant = %v, want 2026-11-01T05:30:00Z (01:30 EDT)", got)
	}
}

func TestNextCountBounds(t *testing.T) {
	r := mustRule(t, RuleSpec{Cron: "* * * * *"}, "UTC")
	from := ts(t, "2026-06-01T00:00:00Z")
	if got, _ := r.Next(from, 0); len(got) != 0 {
		t.Errorf("Next(count 0) = %d instants, want 0", len(got))
	}
	if got, _ := r.Next(from, 10*MaxNext); len(got) != MaxNext {
		t.Errorf("Next(count %d) = %d instants, want MaxNext (%d)", 10*MaxNext, len(got), MaxNext)
	}
}

func TestNextReportJSON(t *testing.T) {
	r := mustRule(t, RuleSpec{Cron: "30 2 * * *"}, "America/New_York")
	got, err := json.Marshal(NextReport("night-check", r, ZoneExplicit, ts(t, "2026-03-07T00:00:00-05:00"), 2))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"scheduleId":"night-check","zone":"America/New_York","zoneSource":"explicit",` +
		`"next":[{"dueAt":"2026-03-07T02:30:00-05:00"},{"dueAt":"2026-03-09T02:30:00-04:00"}],` +
		`"skipped":[{"wallTime":"2026-03-08T02:30","reason":"nonexistent"}]}`
	if string(got) != want {
		t.Errorf("next JSON\n got %s\nwant %s", got, want)
	}

	past := mustRule(t, RuleSpec{At: "2026-01-01T00:00:00Z"}, "UTC")
	got, _ = json.Marshal(NextReport("once", past, ZoneUTC, ts(t, "2026-06-01T00:00:00Z"), 5))
	if want := `{"scheduleId":"once","zone":"UTC","zoneSource":"utc","next":[],"skipped":[]}`; string(got) != want {
		t.Errorf("empty next JSON\n got %s\nwant %s", got, want)
	}
}
