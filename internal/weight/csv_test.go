package weight

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// testNow is the store tests' clock start: every reading the files hold is before it.
var testNow = time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)

func TestParseWeightCSVReadsEachFormat(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	cases := []struct {
		name, file, format string
		want               []Reading
	}{
		{"Libra v6 in kg", "#Version: 6\n#Units: kg\n\n#date;weight;weight trend;body fat;body fat trend;muscle mass;muscle mass trend;log\n" +
			"2026-09-20T05:19:20.000Z;70.0;70.4;11.0;11.1;56.0;56.3;\n2026-09-21T05:07:48.000Z;69.8;70.3;;;;;\n", FormatLibra,
			[]Reading{{Line: 5, At: time.Date(2026, 9, 20, 5, 19, 20, 0, time.UTC), Value: 70, Unit: "kg"}, {Line: 6, At: time.Date(2026, 9, 21, 5, 7, 48, 0, time.UTC), Value: 69.8, Unit: "kg"}}},
		{"Libra v5 in lbs", "#Version:5\n#Units:lbs\n\n#date;weight;weight trend;body fat;body fat trend;log\n2026-09-05T06:00:00.000Z;183.1;183.1;;;\n", FormatLibra,
			[]Reading{{Line: 5, At: time.Date(2026, 9, 5, 6, 0, 0, 0, time.UTC), Value: 183.1, Unit: "lb"}}},
		{"openScale", "\ufeff\"biceps\",\"bone\",\"comment\",\"dateTime\",\"fat\",\"weight\"\n\"0.0\",\"3.1\",\"\",\"2026-09-20 07:30\",\"20.1\",\"80.5\"\n", FormatOpenScale,
			[]Reading{{Line: 2, At: time.Date(2026, 9, 20, 7, 30, 0, 0, berlin), Value: 80.5, Unit: "kg"}}},
		{"plain date,weight in the page's unit", "date,weight\n2026-09-20,160.2\n2026-09-21T06:00:00-04:00,159.8\n", FormatPlain,
			[]Reading{{Line: 2, At: time.Date(2026, 9, 20, 8, 0, 0, 0, berlin), Value: 160.2, Unit: "lb"}, {Line: 3, At: time.Date(2026, 9, 21, 10, 0, 0, 0, time.UTC), Value: 159.8, Unit: "lb"}}},
		{"plain with a unit column", "Date, Weight, Unit\n2026-09-20 06:45,72.4,kg\n2026-09-21,\"159,8\",lbs\n", FormatPlain,
			[]Reading{{Line: 2, At: time.Date(2026, 9, 20, 6, 45, 0, 0, berlin), Value: 72.4, Unit: "kg"}, {Line: 3, At: time.Date(2026, 9, 21, 8, 0, 0, 0, berlin), Value: 159.8, Unit: "lb"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			format, got, err := ParseCSV([]byte(c.file), berlin, "lb", testNow)
			if err != nil {
				t.Fatal(err)
			}
			if format != c.format || len(got) != len(c.want) {
				t.Fatalf("%s %+v, want %s %+v", format, got, c.format, c.want)
			}
			for i := range got {
				if got[i].Line != c.want[i].Line || !got[i].At.Equal(c.want[i].At) || got[i].Value != c.want[i].Value || got[i].Unit != c.want[i].Unit {
					t.Fatalf("row %d = %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestParseWeightCSVNamesEveryBadRowByLine(t *testing.T) {
	cases := []struct {
		name, file string
		want       []string
	}{
		{"unknown header", "when,kilos\n2026-09-20,70\n", []string{"line 1: the header"}},
		{"empty", "", []string{"line 1: the file is empty"}},
		{"header only", "date,weight\n", []string{"line 1: no readings found"}},
		{"bad rows", "date,weight\n2026-09-20,70\n2026-13-01,70\n2026-09-22,7o\n2026-09-23,1e2\n2026-09-24,900\n2031-01-01,70\n2026-09-25\n",
			[]string{"line 3: date \"2026-13-01\"", "line 4: weight \"7o\"", "line 5: weight \"1e2\"", "line 6: weight 900 kg is outside 20–400 kg", "line 7: date 2031-01-01", "line 8: expected date,weight"}},
		{"Libra bad unit", "#Units: stone\n#date;weight\n2026-09-20T05:00:00Z;70\n", []string{"line 1: units \"stone\""}},
		{"broken quotes", "date,weight\n\"2026-09-20,70\n", []string{"line 2"}},
		{"CSV injection is just a bad date", "date,weight\n=1+2,70\n", []string{"line 2: date \"=1+2\""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, got, err := ParseCSV([]byte(c.file), time.UTC, "kg", testNow)
			var bad *ImportError
			if !errors.As(err, &bad) || got != nil {
				t.Fatalf("got %+v, %v; want an import error and no readings", got, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
