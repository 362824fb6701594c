package demo

import (
	"context"
	"io"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"hearth/models"
	"hearth/models/read"
)

// exportByDay counts an export's rows by the owner's date in column col
// (a date, or a local time starting with one), counting only rows keep accepts.
func exportByDay(t *testing.T, s *models.Store, name, column string, keep func(map[string]string) bool) map[string]int {
	t.Helper()
	tab, err := read.Of(s).ExportCSV(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range tab.Rows {
		row := map[string]string{}
		for i, h := range tab.Header {
			row[h] = r[i]
		}
		if keep == nil || keep(row) {
			out[row[column][:10]]++
		}
	}
	return out
}

func TestASeededDayIsTheOwnersDayItClaims(t *testing.T) {
	loc, _ := time.LoadLocation(demoZone)
	now := time.Date(2026, 11, 30, 23, 30, 0, 0, loc) // late enough for three whole days
	dir := filepath.Join(t.TempDir(), "data")
	days, err := SeedYears(context.Background(), io.Discard, dir, SeedPlan{Days: 3, Seed: 19, Horizon: models.DefaultObservationHorizon}, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 3 || days[0].Date != "2026-11-28" || days[2].Date != "2026-11-30" {
		t.Fatalf("days %+v; want 2026-11-28 to 2026-11-30", days)
	}
	store, err := models.Open(context.Background(), dir, models.Options{Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	measured := exportByDay(t, store, read.ExportMeasurements, "recorded_at", nil)
	outcomes := exportByDay(t, store, read.ExportOccurrences, "date", func(r map[string]string) bool { return r["outcome"] != "" })
	sent := exportByDay(t, store, read.ExportSends, "created_at", func(r map[string]string) bool { return r["status"] == "sent" })
	total := SeedStats{}
	for _, d := range days {
		// A typical day of use: a publication every hour or so, ~50 activities,
		// ~200 Beeper messages, ~5 sends, a few measurements, routine outcomes.
		if d.Publications != seedLastHour-seedFirstHour+1 {
			t.Errorf("%s: %d publications, want one an hour from %d to %d", d.Date, d.Publications, seedFirstHour, seedLastHour)
		}
		if d.Activities < 35 || d.Activities > 70 {
			t.Errorf("%s: %d activities, want about 50", d.Date, d.Activities)
		}
		if d.Observations < 150 || d.Observations > 250 {
			t.Errorf("%s: %d observations, want about 200", d.Date, d.Observations)
		}
		if d.Sends != seedSendsPerDay || sent[d.Date] != seedSendsPerDay {
			t.Errorf("%s: %d sends claimed, %d sent in the database; want %d", d.Date, d.Sends, sent[d.Date], seedSendsPerDay)
		}
		if measured[d.Date] < 1 || measured[d.Date] > 3 {
			t.Errorf("%s: %d measurements, want a few", d.Date, measured[d.Date])
		}
		if outcomes[d.Date] < 1 {
			t.Errorf("%s: no routine occurrence with an outcome", d.Date)
		}
		total.Publications += d.Publications
		total.Activities += d.Activities
		total.Observations += d.Observations
	}
	// What the days claim is what the database holds (plus the first
	// day's import of the routine definitions).
	rows, err := store.CountRows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int64{}
	for _, r := range rows {
		count[r.Table] = r.Rows
	}
	if count["receipts"] != int64(total.Publications+1) || count["runs"] != int64(total.Publications+1) {
		t.Errorf("%d receipts and %d runs for %d publications (+1 setup)", count["receipts"], count["runs"], total.Publications)
	}
	if count["observations"] != int64(total.Observations) {
		t.Errorf("%d observations stored, %d claimed", count["observations"], total.Observations)
	}
	if count["activities"] < int64(total.Activities) {
		t.Errorf("%d activities stored, %d published", count["activities"], total.Activities)
	}
	ctx := context.Background()
	ac, err := read.Of(store).AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ac.Observations.Items); n != 0 {
		t.Errorf("%d observations pending after the last publication; each publication consumes what came before it", n)
	}
}

func TestASeedIsTheSameHistoryForTheSameSeedAndMoment(t *testing.T) {
	loc, _ := time.LoadLocation(demoZone)
	now := time.Date(2026, 11, 30, 23, 30, 0, 0, loc)
	history := func(seed uint64) [][][]string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "data")
		if _, err := SeedYears(context.Background(), io.Discard, dir, SeedPlan{Days: 2, Seed: seed}, now); err != nil {
			t.Fatal(err)
		}
		s, err := models.Open(context.Background(), dir, models.Options{Clock: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var out [][][]string
		for _, name := range []string{read.ExportMeasurements, read.ExportOccurrences, read.ExportSends} {
			tab, err := read.Of(s).ExportCSV(context.Background(), name)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tab.Rows)
		}
		return out
	}
	a, b, other := history(19), history(19), history(20)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two seeds with the same seed at the same moment differ")
	}
	if reflect.DeepEqual(a, other) {
		t.Fatal("another seed wrote the same history")
	}
}
