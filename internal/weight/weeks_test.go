package weight

import (
	"math"
	"testing"
	"time"
)

// history is the part of the weight page's history the weeks are read from.
type history struct {
	Zone          *time.Location
	Points, Trend []Point
}

func (h history) weeks(k RoutineKeeping, today time.Time) ([]Week, Split) {
	return Weeks(h.Points, h.Trend, h.Zone, k, today)
}

// sixWeeks is a weigh-in every morning at 07:00 Berlin from Monday
// 2026-10-12 to Sunday 2026-11-22 (the clocks change on 2026-10-25): the
// weight falls 0.1 kg a day in weeks 2, 4 and 6 and rises 0.3 kg a day in
// weeks 1, 3 and 5; the routine is done on 6 days of the falling weeks and
// on 2 of the rising ones.
func sixWeeks(t *testing.T) (history, RoutineKeeping, time.Time) {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	d := history{Zone: loc}
	k := RoutineKeeping{Chosen: RoutineChoice{ID: "walk", Title: "Evening walk"}}
	v := 80.0
	for i := range 42 {
		day := time.Date(2026, 10, 12+i, 7, 0, 0, 0, loc)
		week := i / 7
		if week%2 == 1 {
			v -= 0.1
		} else {
			v += 0.3
		}
		d.Points = append(d.Points, Point{At: day, Value: v})
		done := 2
		if week%2 == 1 {
			done = 6
		}
		k.Days = append(k.Days, RoutineDay{Date: day.Format(time.DateOnly), Done: i%7 < done})
	}
	d.Trend = Trend(d.Points, TrendTau)
	return d, k, time.Date(2026, 11, 25, 12, 0, 0, 0, loc)
}

func TestWeightWeeksSplitsTheTrendsWeeklyChangeByKeptWeeks(t *testing.T) {
	d, k, today := sixWeeks(t)
	weeks, split := d.weeks(k, today)
	if len(weeks) != 6 {
		t.Fatalf("%d weeks, want the 6 ended ones", len(weeks))
	}
	for i, w := range weeks {
		start := time.Date(2026, 11, 16-7*i, 0, 0, 0, 0, d.Zone) // newest first
		var sum float64
		for _, p := range d.Points[(5-i)*7 : (6-i)*7] {
			sum += p.Value
		}
		if !w.Start.Equal(start) || w.N != 7 || math.Abs(w.Mean-sum/7) > 1e-9 || w.Planned != 7 {
			t.Fatalf("week %d = %+v, want start %v, 7 weigh-ins averaging %.3f, 7 planned days", i, w, start, sum/7)
		}
		if want := (5-i)%2 == 1; w.Kept() != want {
			t.Fatalf("week of %v kept = %v with %d of %d days done", w.Start, w.Kept(), w.Done, w.Planned)
		}
	}
	// The first week has no trend before it: it is listed, not compared.
	if weeks[5].HasChange || !weeks[4].HasChange {
		t.Fatalf("the first week has a change (%v) or the second none (%v)", weeks[5].HasChange, weeks[4].HasChange)
	}
	if split.Kept.Weeks != 3 || split.NotKept.Weeks != 2 || split.Enough {
		t.Fatalf("split %+v: want 3 kept weeks against 2 not kept, too few to tell", split)
	}
	// A week's change is the trend after its last weigh-in (Sunday's, the
	// week's 7th) less the trend after the last one before it.
	change := func(week int) float64 { return d.Trend[7*week+6].Value - d.Trend[7*week-1].Value }
	kept, notKept := (change(1)+change(3)+change(5))/3, (change(2)+change(4))/2
	if math.Abs(split.Kept.PerWeek-kept) > 1e-9 || math.Abs(split.NotKept.PerWeek-notKept) > 1e-9 || kept >= notKept {
		t.Fatalf("split %+v: want %.4f kg a week kept against %.4f not", split, kept, notKept)
	}
}

func TestWeightWeeksSplitIsShownFromThreeWeeksOnEachSide(t *testing.T) {
	d, k, _ := sixWeeks(t)
	// Two weeks later, with two more rising weeks of few walks.
	for i := range 14 {
		day := time.Date(2026, 11, 23+i, 7, 0, 0, 0, d.Zone)
		d.Points = append(d.Points, Point{At: day, Value: d.Points[len(d.Points)-1].Value + 0.05})
		k.Days = append(k.Days, RoutineDay{Date: day.Format(time.DateOnly), Done: i%7 < 1})
	}
	d.Trend = Trend(d.Points, TrendTau)
	_, split := d.weeks(k, time.Date(2026, 12, 9, 12, 0, 0, 0, d.Zone))
	if split.Kept.Weeks != 3 || split.NotKept.Weeks != 4 || !split.Enough {
		t.Fatalf("split %+v: want 3 kept against 4 not kept, enough to show", split)
	}
}

func TestWeightWeeksLeaveOutWeeksTheRoutineWasNotPlanned(t *testing.T) {
	d, k, today := sixWeeks(t)
	k.Days = k.Days[14:] // the routine began in the third week
	weeks, split := d.weeks(k, today)
	if weeks[5].Planned != 0 || weeks[4].Planned != 0 || weeks[3].Planned != 7 {
		t.Fatalf("planned days by week: %d %d %d", weeks[5].Planned, weeks[4].Planned, weeks[3].Planned)
	}
	if split.Kept.Weeks != 2 || split.NotKept.Weeks != 2 {
		t.Fatalf("split %+v: weeks before the routine are in it", split)
	}
}
