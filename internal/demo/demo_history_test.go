package demo

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"hearth/internal/storetest"
	"hearth/models"
	"hearth/models/read"
)

// demoHistory seeds a fresh store as `serve --demo` would at now and
// returns its weight history and exports. It seeds afresh each time, not
// from a template: TestDemoHistoryIsEightWeeksBeforeTodayAndTheSameEachTime
// compares two seeds.
func demoHistory(t *testing.T, now time.Time) (models.WeightData, read.ExportTable, read.ExportTable) {
	t.Helper()
	ctx := context.Background()
	store, err := seedDemo(ctx, t.TempDir(), now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	w, err := store.WeightHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	occ, err := read.Of(store).ExportCSV(ctx, read.ExportOccurrences)
	if err != nil {
		t.Fatal(err)
	}
	sends, err := read.Of(store).ExportCSV(ctx, read.ExportSends)
	if err != nil {
		t.Fatal(err)
	}
	return w, occ, sends
}

func TestMain(m *testing.M) { storetest.Main(m) }

// demoTemplates holds, per moment, the demo seeded at it once per test
// binary, copied for each test that reads the demo at that moment: the
// seed's eight weeks were most of each test's time under -race.
var demoTemplates sync.Map // time.Time → *storetest.Template

// demoStore opens a copy of the store `serve --demo` seeds at now, with a
// clock at now, and returns its weight history and the store.
func demoStore(t *testing.T, now time.Time) (models.WeightData, *models.Store) {
	t.Helper()
	ctx := context.Background()
	v, _ := demoTemplates.LoadOrStore(now, &storetest.Template{Name: "demo-" + now.Format("20060102T150405Z0700"),
		Build: func(ctx context.Context, dir string, _ *storetest.Clock) (string, error) {
			store, err := seedDemo(ctx, dir, now)
			if err != nil {
				return "", err
			}
			return store.Path(), store.Close()
		}})
	dir := t.TempDir()
	v.(*storetest.Template).CopyTo(t, models.DatabasePath(dir))
	clock := &Clock{}
	clock.set(now)
	store, err := models.Open(ctx, dir, models.Options{Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	w, err := store.WeightHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return w, store
}

// seedDemo opens a store in dir and seeds it as `serve --demo` would at
// now, leaving its clock at now.
func seedDemo(ctx context.Context, dir string, now time.Time) (*models.Store, error) {
	clock := &Clock{}
	clock.set(now)
	store, err := models.Open(ctx, dir, models.Options{Clock: clock.Now})
	if err != nil {
		return nil, err
	}
	body, err := demoResult(now, demoZone)
	if err == nil {
		_, _, err = publish(ctx, store, "demo", body)
	}
	if err == nil {
		err = seedDemoHistory(ctx, store, clock, now)
	}
	if err != nil {
		store.Close()
		return nil, err
	}
	clock.set(now)
	return store, nil
}

func TestDemoHistoryIsEightWeeksBeforeTodayAndTheSameEachTime(t *testing.T) {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	w, occ, sends := demoHistory(t, now)
	loc, _ := time.LoadLocation(demoZone)
	today := models.DayOf(now, loc)
	if len(w.Entries) < 15 || w.Change7 == nil || w.Change30 == nil {
		t.Fatalf("%d weigh-ins, 7-day %v, 30-day %v: the weight page would be bare", len(w.Entries), w.Change7, w.Change30)
	}
	oldest, newest := w.Entries[len(w.Entries)-1].At, w.Entries[0].At
	if !newest.Before(today.Start) || today.Start.Sub(oldest) < 49*24*time.Hour {
		t.Fatalf("weigh-ins from %v to %v; want about eight weeks ending before today (%v)", oldest, newest, today.Start)
	}
	if *w.Change30 >= 0 {
		t.Fatalf("30-day change %+.1f: the demo's trend is a slow loss", *w.Change30)
	}
	outcomes := map[string]int{}
	for _, r := range occ.Rows {
		outcomes[r[6]]++
	}
	if outcomes["completed"] < 20 || outcomes["partial"] == 0 || outcomes["skipped"] == 0 {
		t.Fatalf("outcomes %v: the strips need completed, partial and skipped days", outcomes)
	}
	if len(sends.Rows) < 8 {
		t.Fatalf("%d sends in eight weeks", len(sends.Rows))
	}
	// A fixed seed: a second demo at the same moment is the same history.
	w2, occ2, _ := demoHistory(t, now)
	if !reflect.DeepEqual(w.Points, w2.Points) || !reflect.DeepEqual(occ.Rows, occ2.Rows) {
		t.Fatal("two demos seeded at the same moment differ")
	}
}
