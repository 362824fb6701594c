// Package weight is the weight page's pure work: units and their bounds,
// the smoothed trend and the goal forecast, weeks compared by a routine
// kept or not, and the import files' formats. No store, no I/O.
package weight

import (
	"math"
	"sort"
	"time"
)

// TrendTau is the time constant of the weight trend: an entry's pull on the
// trend fades by e after 10 days, close to the Hacker's Diet's 10% a day
// (τ ≈ 9.5 days) while staying round.
const TrendTau = 10 * 24 * time.Hour

// KgPerLb is the international avoirdupois pound in kilograms (exact).
const KgPerLb = 0.45359237

// Convert converts v from one unit (kg or lb) to another; an unknown
// pair is returned unchanged.
func Convert(v float64, from, to string) float64 {
	switch {
	case from == "kg" && to == "lb":
		return v / KgPerLb
	case from == "lb" && to == "kg":
		return v * KgPerLb
	}
	return v
}

// Bounds are the accepted values per unit; anything outside is a typo.
var Bounds = map[string][2]float64{"kg": {20, 400}, "lb": {44, 880}}

// Point is one value at one instant, in one unit.
type Point struct {
	At    time.Time
	Value float64
}

// Trend smooths points (sorted by time) by time-weighted exponential
// smoothing: each entry moves the trend by alpha = 1 − exp(−Δt/τ) of its
// distance to it, Δt being the time since the previous entry. A gap of many
// days lets the next entry move the trend more, and two entries minutes apart
// barely more than one, so the trend does not depend on how often the owner
// weighs. The first entry starts the trend.
func Trend(points []Point, tau time.Duration) []Point {
	out := make([]Point, len(points))
	for i, p := range points {
		if i == 0 {
			out[i] = p
			continue
		}
		dt := p.At.Sub(points[i-1].At)
		if dt < 0 {
			dt = 0
		}
		alpha := 1 - math.Exp(-float64(dt)/float64(tau))
		prev := out[i-1].Value
		out[i] = Point{At: p.At, Value: prev + alpha*(p.Value-prev)}
	}
	return out
}

// TrendAt is the trend's value at t: the value after the last entry at or
// before t. ok is false when the trend starts after t.
func TrendAt(trend []Point, t time.Time) (float64, bool) {
	i := sort.Search(len(trend), func(i int) bool { return trend[i].At.After(t) })
	if i == 0 {
		return 0, false
	}
	return trend[i-1].Value, true
}

// TrendChange is the trend's change over the window before its last entry
// (newest trend minus the trend window earlier). ok is false when the
// history is shorter than the window, so a change is never made up.
func TrendChange(trend []Point, window time.Duration) (float64, bool) {
	if len(trend) < 2 {
		return 0, false
	}
	last := trend[len(trend)-1]
	then, ok := TrendAt(trend, last.At.Add(-window))
	if !ok {
		return 0, false
	}
	return last.Value - then, true
}

// Forecast rule: the rate is a least-squares line through the raw entries of
// the last ForecastWindow; a forecast needs ForecastMinPoints entries
// spanning ForecastMinSpan, a rate whose whole band (slope ± one standard
// error) heads toward the goal, and an end within ForecastHorizon.
const (
	ForecastWindow    = 28 * 24 * time.Hour
	ForecastMinPoints = 8
	ForecastMinSpan   = 14 * 24 * time.Hour
	ForecastHorizon   = 2 * 365 * 24 * time.Hour
)

// GoalForecast is when the trend may reach the goal: between Earliest and
// Latest at the recent rate.
type GoalForecast struct {
	Earliest, Latest time.Time
	// PerWeek is the fitted rate, in the points' unit per week.
	PerWeek float64
}

// ForecastGoal estimates when the trend reaches goal, or ok false when the
// data do not support a forecast: too few or too recent entries, a rate
// that is flat, uncertain or heading away from the goal, the goal already
// reached, or a date beyond the horizon. points are raw entries sorted by
// time; trend is Trend(points).
func ForecastGoal(points, trend []Point, goal float64) (GoalForecast, bool) {
	if len(points) == 0 || len(trend) != len(points) {
		return GoalForecast{}, false
	}
	last := points[len(points)-1].At
	var recent []Point
	for _, p := range points {
		if !p.At.Before(last.Add(-ForecastWindow)) {
			recent = append(recent, p)
		}
	}
	if len(recent) < ForecastMinPoints || last.Sub(recent[0].At) < ForecastMinSpan {
		return GoalForecast{}, false
	}
	slope, se := fitLine(recent) // per day
	now := trend[len(trend)-1]
	gap := goal - now.Value
	if gap == 0 || (gap > 0) != (slope > 0) {
		return GoalForecast{}, false
	}
	fast, slow := math.Abs(slope)+se, math.Abs(slope)-se
	if slow <= 0 {
		return GoalForecast{}, false // the band includes flat or the wrong way
	}
	early := time.Duration(math.Abs(gap) / fast * float64(24*time.Hour))
	late := math.Abs(gap) / slow * float64(24*time.Hour)
	if late > float64(ForecastHorizon) {
		return GoalForecast{}, false
	}
	return GoalForecast{Earliest: now.At.Add(early), Latest: now.At.Add(time.Duration(late)), PerWeek: slope * 7}, true
}

// fitLine is the least-squares slope of value against time in days, and its
// standard error.
func fitLine(ps []Point) (slope, se float64) {
	n := float64(len(ps))
	t0 := ps[0].At
	var sx, sy float64
	xs := make([]float64, len(ps))
	for i, p := range ps {
		xs[i] = p.At.Sub(t0).Hours() / 24
		sx += xs[i]
		sy += p.Value
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for i, p := range ps {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (p.Value - my)
	}
	if sxx == 0 {
		return 0, math.Inf(1)
	}
	slope = sxy / sxx
	var rss float64
	for i, p := range ps {
		r := p.Value - (my + slope*(xs[i]-mx))
		rss += r * r
	}
	if n > 2 {
		se = math.Sqrt(rss / (n - 2) / sxx)
	}
	return slope, se
}
