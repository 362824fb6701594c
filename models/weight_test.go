package models

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
)

func TestWeightHistoryShowsEachWeighInWithItsCorrections(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	for _, v := range []float64{72.4, 27.4, 72.6} { // a typo, corrected twice
		if _, err := s.RecordMeasurement(ctx, "weigh", v); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.WeightHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) != 1 {
		t.Fatalf("entries = %+v, want one weigh-in", d.Entries)
	}
	e := d.Entries[0]
	if e.Value != 72.6 || e.Unit != "kg" || len(e.Corrections) != 2 || e.Corrections[0].Value != 72.4 || e.Corrections[1].Value != 27.4 {
		t.Fatalf("entry = %+v, want 72.6 kg correcting 72.4 then 27.4", e)
	}
	if len(d.Points) != 1 || d.Points[0].Value != 72.6 || d.Zone.String() != "Europe/Berlin" {
		t.Fatalf("points = %+v in %v; only the current value counts, in the brief's zone", d.Points, d.Zone)
	}
}

func TestWeightGoalIsAnOwnerDecisionThatBumpsTheRevisionOnce(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	before := mustRevision(t, s)
	g := &contract.WeightGoal{Value: 70, Unit: "kg"}
	if err := s.SetWeightGoal(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWeightGoal(ctx, g); err != nil {
		t.Fatal(err)
	}
	if got := mustRevision(t, s); got != before+1 {
		t.Fatalf("revision %d → %d, want one bump for one change", before, got)
	}
	d, _ := s.WeightHistory(ctx)
	if d.Goal == nil || *d.Goal != *g {
		t.Fatalf("goal = %+v", d.Goal)
	}
	// The agent reads it in the context.
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ac.WeightGoal == nil || *ac.WeightGoal != *g {
		t.Fatalf("context weightGoal = %+v, want %+v", ac.WeightGoal, g)
	}
	if err := s.SetWeightGoal(ctx, &contract.WeightGoal{Value: 5, Unit: "kg"}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("a 5 kg goal: %v, want invalid input", err)
	}
	if err := s.SetWeightGoal(ctx, &contract.WeightGoal{Value: 70, Unit: "stone"}); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("a goal in stone: %v, want invalid input", err)
	}
	if err := s.SetWeightGoal(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.WeightHistory(ctx); d.Goal != nil {
		t.Fatalf("cleared goal still %+v", d.Goal)
	}
}

func TestParseWeightCSVReadsEachFormat(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	cases := []struct {
		name, file, format string
		want               []WeightReading
	}{
		{"Libra v6 in kg", "#Version: 6\n#Units: kg\n\n#date;weight;weight trend;body fat;body fat trend;muscle mass;muscle mass trend;log\n" +
			"2026-09-20T05:19:20.000Z;70.0;70.4;11.0;11.1;56.0;56.3;\n2026-09-21T05:07:48.000Z;69.8;70.3;;;;;\n", FormatLibra,
			[]WeightReading{{Line: 5, At: time.Date(2026, 9, 20, 5, 19, 20, 0, time.UTC), Value: 70, Unit: "kg"}, {Line: 6, At: time.Date(2026, 9, 21, 5, 7, 48, 0, time.UTC), Value: 69.8, Unit: "kg"}}},
		{"Libra v5 in lbs", "#Version:5\n#Units:lbs\n\n#date;weight;weight trend;body fat;body fat trend;log\n2026-09-05T06:00:00.000Z;183.1;183.1;;;\n", FormatLibra,
			[]WeightReading{{Line: 5, At: time.Date(2026, 9, 5, 6, 0, 0, 0, time.UTC), Value: 183.1, Unit: "lb"}}},
		{"openScale", "\ufeff\"biceps\",\"bone\",\"comment\",\"dateTime\",\"fat\",\"weight\"\n\"0.0\",\"3.1\",\"\",\"2026-09-20 07:30\",\"20.1\",\"80.5\"\n", FormatOpenScale,
			[]WeightReading{{Line: 2, At: time.Date(2026, 9, 20, 7, 30, 0, 0, berlin), Value: 80.5, Unit: "kg"}}},
		{"plain date,weight in the page's unit", "date,weight\n2026-09-20,160.2\n2026-09-21T06:00:00-04:00,159.8\n", FormatPlain,
			[]WeightReading{{Line: 2, At: time.Date(2026, 9, 20, 8, 0, 0, 0, berlin), Value: 160.2, Unit: "lb"}, {Line: 3, At: time.Date(2026, 9, 21, 10, 0, 0, 0, time.UTC), Value: 159.8, Unit: "lb"}}},
		{"plain with a unit column", "Date, Weight, Unit\n2026-09-20 06:45,72.4,kg\n2026-09-21,\"159,8\",lbs\n", FormatPlain,
			[]WeightReading{{Line: 2, At: time.Date(2026, 9, 20, 6, 45, 0, 0, berlin), Value: 72.4, Unit: "kg"}, {Line: 3, At: time.Date(2026, 9, 21, 8, 0, 0, 0, berlin), Value: 159.8, Unit: "lb"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			format, got, err := ParseWeightCSV([]byte(c.file), berlin, "lb", testNow)
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
			_, got, err := ParseWeightCSV([]byte(c.file), time.UTC, "kg", testNow)
			var bad *WeightImportError
			if !errors.As(err, &bad) || !errors.Is(err, ErrInvalidInput) || got != nil {
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

func TestImportWeightsDryRunWritesNothingAndAReimportAddsNothing(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.4); err != nil { // today, 09:00 Berlin
		t.Fatal(err)
	}
	file := "date,weight\n2026-09-27,73.0\n2026-09-28,72.8\n2026-09-28,72.8\n2026-09-29,72.4\n"
	format, rs, err := ParseWeightCSV([]byte(file), time.UTC, "kg", testNow)
	if err != nil {
		t.Fatal(err)
	}
	before := mustRevision(t, s)
	dry, err := s.ImportWeights(ctx, format, rs, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Added) != 2 || dry.Skipped != 2 {
		t.Fatalf("dry run = %+v, want 2 new (27th, 28th) and 2 skipped (the repeated row, today's saved value)", dry)
	}
	if d, _ := s.WeightHistory(ctx); len(d.Entries) != 1 || mustRevision(t, s) != before {
		t.Fatalf("a dry run wrote: %d entries, revision %d → %d", len(d.Entries), before, mustRevision(t, s))
	}
	got, err := s.ImportWeights(ctx, format, rs, false)
	if err != nil || len(got.Added) != 2 {
		t.Fatalf("import = %+v, %v", got, err)
	}
	if mustRevision(t, s) != before+1 {
		t.Fatalf("an import is one owner action: revision %d → %d", before, mustRevision(t, s))
	}
	again, err := s.ImportWeights(ctx, format, rs, false)
	if err != nil || len(again.Added) != 0 || again.Skipped != 4 || mustRevision(t, s) != before+1 {
		t.Fatalf("re-import = %+v, %v, revision %d", again, err, mustRevision(t, s))
	}
	d, err := s.WeightHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) != 3 || d.Entries[2].Source != "imported" || d.Entries[0].Source != "entered" {
		t.Fatalf("entries = %+v", d.Entries)
	}
	// The agent sees imported readings with no activity.
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ac.Measurements.Items); n != 3 {
		t.Fatalf("context has %d measurements, want 3", n)
	}
}
