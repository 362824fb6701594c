package models

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/internal/weight"
)

// weighInStore has two routines that plan a weigh-in on 2026-10-01: the
// daily morning routine (instantiated) and a start-work routine (on trial,
// instantiated by Start work).
func weighInStore(t *testing.T) *Store {
	t.Helper()
	s, _ := routineStore(t)
	ctx := context.Background()
	def := routineDef("startup", 1)
	def["title"] = "Start of work"
	def["trigger"] = map[string]any{"kind": "event", "event": "start-work"}
	mustPublish(t, s, newPub("run-ev", mustRevision(t, s)).Add("routineDefinitions", def))
	for _, r := range []string{"morning", "startup"} {
		if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: r, Revision: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.EnsureOccurrences(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// homeOpenWeighIns are the weigh-in steps Home still asks for.
func homeOpenWeighIns(t *testing.T, s *Store) []string {
	t.Helper()
	var open []string
	var walk func(rows []HomeRow)
	walk = func(rows []HomeRow) {
		for _, r := range rows {
			if r.Kind == contract.KindMeasurement && !r.Settled() {
				open = append(open, r.ID)
			}
			walk(r.Children)
		}
	}
	for _, sec := range mustHome(t, s).Sections {
		walk(sec.Rows)
	}
	return open
}

func TestStartWorkAfterAWeighInAddsNoSecondWeighIn(t *testing.T) {
	s := weighInStore(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurement(ctx, "hearth:morning@2026-10-01:weigh", 82.4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TriggerEvent(ctx, contract.EventStartWork); err != nil {
		t.Fatal(err)
	}
	if open := homeOpenWeighIns(t, s); len(open) != 0 {
		t.Fatalf("after a weigh-in, Start work asks again: %v", open)
	}
	row, _, err := s.HomeRow(ctx, "hearth:startup@2026-10-01.start-work")
	if err != nil {
		t.Fatal(err)
	}
	if row.Done != 1 || row.Children[0].UserState.State != StateCompleted {
		t.Fatalf("the start-work weigh-in is not counted: %d/%d, step %q", row.Done, row.Total, row.Children[0].UserState.State)
	}
	if d := storeWeighIns(t, s); d != 1 {
		t.Fatalf("%d weight rows, want the one weigh-in", d)
	}
}

func TestAWeighInCountsForEveryRoutineThatPlansOneThatDay(t *testing.T) {
	s := weighInStore(t)
	ctx := context.Background()
	if _, err := s.TriggerEvent(ctx, contract.EventStartWork); err != nil {
		t.Fatal(err)
	}
	if open := homeOpenWeighIns(t, s); len(open) != 2 {
		t.Fatalf("before the weigh-in: %v, want both routines' steps", open)
	}
	if _, err := s.RecordMeasurement(ctx, "hearth:startup@2026-10-01.start-work:weigh", 82.4); err != nil {
		t.Fatal(err)
	}
	if open := homeOpenWeighIns(t, s); len(open) != 0 {
		t.Fatalf("after one weigh-in, still asked: %v", open)
	}
	if d := storeWeighIns(t, s); d != 1 {
		t.Fatalf("%d weight rows, want the one weigh-in", d)
	}
}

// storeWeighIns counts stored weight rows.
func storeWeighIns(t *testing.T, s *Store) int64 {
	t.Helper()
	var n int64
	if err := s.rdb.Model(&Measurement{}).Where("metric = ?", WeightMetric).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAWeighInWithoutAStepSaysTheTrendAndItsChangeSinceYesterday(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	first, err := s.RecordWeighIn(ctx, "", 82)
	if err != nil {
		t.Fatal(err)
	}
	if first.Trend.Value != 82 || first.Trend.Unit != "kg" || first.Trend.Change != nil {
		t.Fatalf("first weigh-in: %+v", first.Trend)
	}
	if first.Measurement.ActivityID != "" || first.Measurement.Source != "entered" {
		t.Fatalf("stored as %+v", first.Measurement)
	}
	now.Advance(24 * time.Hour)
	next, err := s.RecordWeighIn(ctx, "key-1-0123456789ab", 81)
	if err != nil {
		t.Fatal(err)
	}
	// One day after the first, the trend moves 1 − e^(−1/10) of the way to 81.
	want := 82 - (1 - math.Exp(-0.1))
	if math.Abs(next.Trend.Value-want) > 1e-9 || next.Trend.Change == nil || math.Abs(*next.Trend.Change-(want-82)) > 1e-9 {
		t.Fatalf("second weigh-in: %+v, want trend %.4f, change %.4f", next.Trend, want, want-82)
	}
	// The same key again is the same weigh-in, not a second one.
	if again, err := s.RecordWeighIn(ctx, "key-1-0123456789ab", 81); err != nil || again.Measurement.ID != next.Measurement.ID {
		t.Fatalf("replay: %+v, %v", again.Measurement, err)
	}
	if n := storeWeighIns(t, s); n != 2 {
		t.Fatalf("%d weight rows, want 2", n)
	}
	if _, err := s.RecordWeighIn(ctx, "", 7000); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("7000 kg: %v", err)
	}
}

func TestAWeighInWithoutAStepIsTheOpenStepsValueOnADayThatPlansOne(t *testing.T) {
	s := weighInStore(t)
	ctx := context.Background()
	if q := mustHome(t, s).Weight; q == nil || !q.Planned {
		t.Fatal("Home offers its own weight field on a day with a planned weigh-in")
	}
	w, err := s.RecordWeighIn(ctx, "", 82.4)
	if err != nil {
		t.Fatal(err)
	}
	if w.Measurement.ActivityID != "hearth:morning@2026-10-01:weigh" {
		t.Fatalf("saved for %q, want the morning's step", w.Measurement.ActivityID)
	}
	if open := homeOpenWeighIns(t, s); len(open) != 0 {
		t.Fatalf("still asked: %v", open)
	}
	row, _, err := s.HomeRow(ctx, "hearth:morning@2026-10-01:weigh")
	if err != nil || row.Measurement.Trend == nil || row.Measurement.Trend.Value != 82.4 {
		t.Fatalf("the step's row says no trend: %+v, %v", row.Measurement, err)
	}
}

func TestHomeOffersItsOwnWeightFieldOnADayWithoutAPlannedWeighIn(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	mustPublish(t, s, newPub("run-1", 0).Add("activities", task("call-mum")))
	q := mustHome(t, s).Weight
	if q == nil || q.Planned || q.Unit != "kg" || q.Last != nil || q.Today != nil {
		t.Fatalf("quick weight %+v", q)
	}
	if _, err := s.RecordWeighIn(ctx, "", 80.5); err != nil {
		t.Fatal(err)
	}
	q = mustHome(t, s).Weight
	if q == nil || q.Last == nil || q.Last.Value != 80.5 || q.Today == nil || q.Today.Value != 80.5 {
		t.Fatalf("after a weigh-in: %+v", q)
	}
}

func TestTheBriefsFirstNamedOpenActivityIsHomesFirstAction(t *testing.T) {
	s, _ := newTestStore(t)
	p := newPub("run-1", 0).Add("activities", storetest.Task("book-bike", "life-1"), storetest.Task("call-mum", "life-1"))
	p.Set(t, "/activities/0/title", "Book the bike service")
	p.Set(t, "/activities/1/title", "Call Mum back")
	p["brief"] = map[string]any{"date": "2026-09-29", "timeZone": "UTC", "text": "First call mum back, then book the bike service.", "evidenceIds": []any{}}
	mustPublish(t, s, p)
	if f := mustHome(t, s).First; f == nil || f.ID != "call-mum" {
		t.Fatalf("first action %+v, want call-mum", f)
	}
	if _, err := s.SetActivityState(context.Background(), "call-mum", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if f := mustHome(t, s).First; f == nil || f.ID != "book-bike" {
		t.Fatalf("after call-mum is done: %+v, want book-bike", f)
	}
}

// A weigh-in queued on the phone is sent again when its first send's
// answer was lost: by then the step it filled is done, and the replay must
// still be the same weigh-in, not a conflict or a second one.
func TestAWeighInReplayedAfterItFilledTheDaysStepIsTheSameWeighIn(t *testing.T) {
	s := weighInStore(t)
	ctx := context.Background()
	key := "ck-0123456789abcdef"
	first, err := s.RecordWeighIn(ctx, key, 82.4)
	if err != nil {
		t.Fatal(err)
	}
	if first.Measurement.ActivityID != "hearth:morning@2026-10-01:weigh" {
		t.Fatalf("saved for %q, want the morning's step", first.Measurement.ActivityID)
	}
	again, err := s.RecordWeighIn(ctx, key, 82.4)
	if err != nil || again.Measurement.ID != first.Measurement.ID {
		t.Fatalf("replay: %+v, %v; want measurement %d again", again.Measurement, err, first.Measurement.ID)
	}
	if n := storeWeighIns(t, s); n != 1 {
		t.Fatalf("%d weight rows after the replay, want 1", n)
	}
	if _, err := s.RecordWeighIn(ctx, key, 80); !errors.Is(err, ErrClientKeyConflict) {
		t.Fatalf("the key with another value: %v, want a conflict", err)
	}
	if _, err := s.RecordWeighIn(ctx, "not a key", 80); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("a malformed key: %v, want invalid input", err)
	}
}

// TestTodaysTrendReadsOnlyTheRecentWindowAndMatchesTheWholeHistory: after
// two years of daily readings, a weigh-in's trend and Home's are read from
// the last TrendWindow alone and agree with the whole history's to a
// ten-thousandth; a correction of a reading older than the window stays
// with its reading.
func TestTodaysTrendReadsOnlyTheRecentWindowAndMatchesTheWholeHistory(t *testing.T) {
	s, clock := newTestStore(t)
	ctx := context.Background()
	now := clock.Now()
	var rs []weight.Reading
	for day := 730; day >= 1; day-- {
		v := 95 - 15*float64(730-day)/730 + 0.6*math.Sin(float64(day))
		rs = append(rs, weight.Reading{Line: len(rs) + 2, At: now.Add(-time.Duration(day) * 24 * time.Hour), Value: math.Round(v*10) / 10, Unit: "kg"})
	}
	if _, err := s.ImportWeights(ctx, "generic", rs, false); err != nil {
		t.Fatal(err)
	}
	old := Measurement{}
	if err := s.rdb.Where("metric = ?", WeightMetric).Order("recorded_at").Offset(400).Take(&old).Error; err != nil {
		t.Fatal(err)
	}
	correction := Measurement{Metric: WeightMetric, Unit: "kg", Value: old.Value + 1, RecordedAt: now.Add(-time.Hour), Source: "entered"}
	if err := s.db.Exec("INSERT INTO measurements (metric, unit, value, supersedes_id, revision, recorded_at, source) VALUES (?, ?, ?, ?, ?, ?, ?)",
		correction.Metric, correction.Unit, correction.Value, old.ID, old.Revision, correction.RecordedAt, correction.Source).Error; err != nil {
		t.Fatal(err)
	}
	w, err := s.RecordWeighIn(ctx, "", 80.2)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := s.WeightHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := whole.TrendNoteAt(now)
	if math.Abs(w.Trend.Value-full.Value) > 1e-4 || w.Trend.Change == nil || math.Abs(*w.Trend.Change-*full.Change) > 1e-4 {
		t.Fatalf("windowed trend %+v (change %v), whole history %+v (change %v)", w.Trend, *w.Trend.Change, full, *full.Change)
	}
	if q := mustHome(t, s).Weight; q == nil || q.Today == nil || math.Abs(q.Today.Value-full.Value) > 1e-4 {
		t.Fatalf("Home's trend %+v, want %.4f", q, full.Value)
	}
	var recent WeightData
	s.Read(ctx, func(tx *gorm.DB) error {
		recent, err = recentWeightTrend(tx, time.UTC, now)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(recent.Entries); n > int(TrendWindow/(24*time.Hour))+1 {
		t.Fatalf("read %d weigh-ins for today's trend, want at most the window's %d days", n, TrendWindow/(24*time.Hour))
	}
	for _, e := range recent.Entries {
		if e.Value == correction.Value && e.At.Equal(correction.RecordedAt) {
			t.Fatalf("the correction of a reading from %s shows as today's weigh-in", old.RecordedAt.Format(time.DateOnly))
		}
	}
}

// TestHomeKnowsTheLastWeighInAfterAPauseLongerThanTheTrendWindow: a
// weigh-in older than TrendWindow is still Home's last one.
func TestHomeKnowsTheLastWeighInAfterAPauseLongerThanTheTrendWindow(t *testing.T) {
	s, clock := newTestStore(t)
	ctx := context.Background()
	long := clock.Now().Add(-TrendWindow - 30*24*time.Hour)
	if _, err := s.ImportWeights(ctx, "generic", []weight.Reading{{Line: 2, At: long, Value: 84.3, Unit: "kg"}}, false); err != nil {
		t.Fatal(err)
	}
	mustPublish(t, s, newPub("run-1", 1).Add("activities", task("call-mum")))
	if q := mustHome(t, s).Weight; q == nil || q.Last == nil || q.Last.Value != 84.3 || q.Today != nil {
		t.Fatalf("quick weight after a pause: %+v", q)
	}
}
