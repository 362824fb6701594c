package weight

import (
	"math"
	"testing"
	"time"
)

var day0 = time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)

func daysAt(vals map[float64]float64) []Point {
	var ps []Point
	for d := 0.0; d < 400; d += 0.5 {
		if v, ok := vals[d]; ok {
			ps = append(ps, Point{At: day0.Add(time.Duration(d * float64(24*time.Hour))), Value: v})
		}
	}
	return ps
}

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func TestTrendWeighsEntriesByTheTimeSinceThePreviousOne(t *testing.T) {
	alpha := func(days float64) float64 { return 1 - math.Exp(-days/10) }
	cases := []struct {
		name string
		in   map[float64]float64
		want float64 // the last trend value
	}{
		{"first entry starts the trend", map[float64]float64{0: 80}, 80},
		{"daily step", map[float64]float64{0: 80, 1: 79}, 80 - alpha(1)},
		{"a 30-day gap moves the trend far more than a day", map[float64]float64{0: 80, 30: 79}, 80 - alpha(30)},
		{"two entries half a day apart count less than two days apart", map[float64]float64{0: 80, 0.5: 79}, 80 - alpha(0.5)},
		{"constant weight stays put whatever the gaps", map[float64]float64{0: 75, 1: 75, 9: 75, 40: 75}, 75},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := Trend(daysAt(c.in), TrendTau)
			if got := tr[len(tr)-1].Value; !near(got, c.want, 1e-9) {
				t.Fatalf("trend = %v, want %v", got, c.want)
			}
		})
	}
	// Gaps do not distort: daily entries and entries every third day of the
	// same straight line end at nearly the same trend.
	daily, sparse := map[float64]float64{}, map[float64]float64{}
	for d := 0.0; d <= 60; d++ {
		daily[d] = 90 - 0.1*d
		if int(d)%3 == 0 {
			sparse[d] = 90 - 0.1*d
		}
	}
	a, b := Trend(daysAt(daily), TrendTau), Trend(daysAt(sparse), TrendTau)
	if got, want := b[len(b)-1].Value, a[len(a)-1].Value; !near(got, want, 0.2) {
		t.Fatalf("sparse entries end at %v, daily at %v: the gaps distort the trend", got, want)
	}
}

func TestTrendChangeNeedsHistoryAsLongAsItsWindow(t *testing.T) {
	week := 7 * 24 * time.Hour
	cases := []struct {
		name   string
		in     map[float64]float64
		window time.Duration
		ok     bool
		sign   float64
	}{
		{"empty", map[float64]float64{}, week, false, 0},
		{"one entry", map[float64]float64{0: 80}, week, false, 0},
		{"five days is not a week", map[float64]float64{0: 80, 5: 79}, week, false, 0},
		{"losing over a week", map[float64]float64{0: 80, 3: 79.5, 7: 79, 10: 78.8}, week, true, -1},
		{"gaining over a month with a gap", map[float64]float64{0: 70, 25: 72, 31: 72.5}, 30 * 24 * time.Hour, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := TrendChange(Trend(daysAt(c.in), TrendTau), c.window)
			if ok != c.ok || (ok && got*c.sign <= 0) {
				t.Fatalf("change = %v, %v; want ok=%v with sign %v", got, ok, c.ok, c.sign)
			}
		})
	}
}

func TestForecastGoalIsARangeOnlyWhenTheDataSupportIt(t *testing.T) {
	line := func(start, perDay, noise float64, every float64, days float64) map[float64]float64 {
		m := map[float64]float64{}
		for d, i := 0.0, 0; d <= days; d, i = d+every, i+1 {
			m[d] = start + perDay*d + noise*float64(i%3-1)
		}
		return m
	}
	cases := []struct {
		name string
		in   map[float64]float64
		goal float64
		ok   bool
	}{
		{"steady loss toward a lower goal", line(85, -0.07, 0.3, 1, 42), 78, true},
		{"steady gain toward a higher goal", line(60, 0.05, 0.2, 1, 42), 63, true},
		{"losing while the goal is higher", line(85, -0.07, 0.3, 1, 42), 90, false},
		{"too few entries", line(85, -0.07, 0.3, 5, 42), 78, false},
		{"too short a span", line(85, -0.07, 0.3, 1, 10), 78, false},
		{"flat and noisy", line(80, 0, 0.8, 1, 42), 75, false},
		{"goal beyond two years", line(85, -0.005, 0.05, 1, 42), 70, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := daysAt(c.in)
			f, ok := ForecastGoal(ps, Trend(ps, TrendTau), c.goal)
			if ok != c.ok {
				t.Fatalf("forecast ok = %v (%+v), want %v", ok, f, c.ok)
			}
			if ok && !(f.Earliest.Before(f.Latest) && f.Earliest.After(ps[len(ps)-1].At)) {
				t.Fatalf("forecast %+v is not a range after the last entry", f)
			}
		})
	}
	// The goal already passed by the trend is no forecast either.
	ps := daysAt(line(85, -0.07, 0.3, 1, 42))
	if f, ok := ForecastGoal(ps, Trend(ps, TrendTau), 86); ok {
		t.Fatalf("a goal above a falling trend got %+v", f)
	}
}

func TestConvertWeightRoundTripsBetweenKgAndLb(t *testing.T) {
	cases := []struct {
		v        float64
		from, to string
		want     float64
	}{
		{1, "lb", "kg", 0.45359237},
		{100, "kg", "lb", 220.46226218},
		{72.5, "kg", "kg", 72.5},
		{160, "lb", "lb", 160},
	}
	for _, c := range cases {
		if got := Convert(c.v, c.from, c.to); !near(got, c.want, 1e-6) {
			t.Errorf("%v %s in %s = %v, want %v", c.v, c.from, c.to, got, c.want)
		}
		if back := Convert(Convert(c.v, c.from, c.to), c.to, c.from); !near(back, c.v, 1e-9) {
			t.Errorf("%v %s round trip = %v", c.v, c.from, back)
		}
	}
}
