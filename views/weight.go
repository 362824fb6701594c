package views

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"hearth/internal/weight"
	"hearth/models"
)

// WeightPage is the weight page's view-model.
type WeightPage struct {
	Data models.WeightData
	Now  time.Time
	Form WeightForm
	// Weeks are the ended weeks, newest first, compared by Split's routine, one of Routines.
	Weeks    []weight.Week
	Split    weight.Split
	Routines []weight.RoutineChoice
}

// WeightForm is the state of the page's forms after a POST.
type WeightForm struct {
	Goal, GoalError string
	// CSV is the import text, kept for the confirm form or after an error.
	CSV          string
	ImportErrors []string
	Import       *models.WeightImport
	// Weigh is a refused weigh-in; Saved says one was just saved (its
	// trend change is shown).
	Weigh WeighState
	Saved bool
	// ImportGone is an import's answer page whose answer is no longer kept.
	ImportGone bool
}

// Num formats a number without trailing zeros (72.4, 70).
func Num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// w1 formats a weight to one decimal.
func w1(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', 1, 64) }

// signed formats a change with a true minus sign, "±0.0" for none.
func signed(v float64, unit string) string {
	r := math.Round(v*10) / 10
	switch {
	case r < 0:
		return "−" + w1(-r) + " " + unit
	case r > 0:
		return "+" + w1(r) + " " + unit
	}
	return "±0.0 " + unit
}

// wDate is "Mon 30 Nov" in loc.
func wDate(t time.Time, loc *time.Location) string {
	return ownerTime(t, models.Day{Zone: loc}, "Mon 2 Jan")
}

// dayTime is "Mon 30 Nov 07:05" in loc.
func dayTime(t time.Time, loc *time.Location) string {
	return ownerTime(t, models.Day{Zone: loc}, "Mon 2 Jan 2006, 15:04")
}

// ChartTick is one labelled position on an axis.
type ChartTick struct {
	Pos   float64
	Label string
}

// ChartDot is one entry on the chart.
type ChartDot struct{ X, Y float64 }

// WeightChart is the chart's geometry in a 360×200 viewBox.
type WeightChart struct {
	Dots                     []ChartDot
	TrendPath                string
	XTicks, YTicks           []ChartTick
	GoalY                    float64
	HasGoal                  bool
	Left, Right, Top, Bottom float64
	Title, Desc              string
}

// chartDays is how far back the chart reaches from the newest entry.
const chartDays = 91

// chartDay is one day of the chart: the mean of its weigh-ins, and the trend
// after its last one.
type chartDay struct {
	at, trendAt   time.Time
	mean, trendTo float64
}

// chartDaysOf groups the points (oldest first) by the owner's day. A dot a
// day is what 312 units of width over 91 days can show, so the chart stays
// the same size however often the owner (or an import) weighs.
func chartDaysOf(pts, tr []weight.Point, loc *time.Location) []chartDay {
	var days []chartDay
	var key string
	var sum, n float64
	var first time.Time
	for i, p := range pts {
		k := ownerTime(p.At, models.Day{Zone: loc}, time.DateOnly)
		if k != key || len(days) == 0 {
			key, sum, n, first = k, 0, 0, p.At
			days = append(days, chartDay{})
		}
		sum, n = sum+p.Value, n+1
		// A day's dot sits midway between its first and last weigh-in.
		days[len(days)-1] = chartDay{at: first.Add(p.At.Sub(first) / 2), mean: sum / n, trendAt: tr[i].At, trendTo: tr[i].Value}
	}
	return days
}

// chartOf lays out the daily means and trend of the last chartDays days.
func chartOf(d models.WeightData) WeightChart {
	c := WeightChart{Left: 40, Right: 352, Top: 8, Bottom: 176}
	if len(d.Points) == 0 {
		return c
	}
	last := d.Points[len(d.Points)-1].At
	from := 0
	for from < len(d.Points) && d.Points[from].At.Before(last.AddDate(0, 0, -chartDays)) {
		from++
	}
	days := chartDaysOf(d.Points[from:], d.Trend[from:], d.Zone)
	t0, t1 := d.Points[from].At, last
	if !t1.After(t0) {
		t0, t1 = t0.Add(-24*time.Hour), t1.Add(24*time.Hour)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, day := range days {
		lo, hi = math.Min(lo, math.Min(day.mean, day.trendTo)), math.Max(hi, math.Max(day.mean, day.trendTo))
	}
	if d.Goal != nil && d.GoalInUnit > lo-3 && d.GoalInUnit < hi+3 {
		lo, hi = math.Min(lo, d.GoalInUnit), math.Max(hi, d.GoalInUnit)
		c.HasGoal = true
	}
	step := niceStep(hi - lo)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	if hi-lo < step {
		hi = lo + step
	}
	x := func(t time.Time) float64 {
		return c.Left + (c.Right-c.Left)*float64(t.Sub(t0))/float64(t1.Sub(t0))
	}
	y := func(v float64) float64 { return c.Bottom - (c.Bottom-c.Top)*(v-lo)/(hi-lo) }
	var path strings.Builder
	for i, day := range days {
		c.Dots = append(c.Dots, ChartDot{X: x(day.at), Y: y(day.mean)})
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&path, "%s%.1f %.1f ", cmd, x(day.trendAt), y(day.trendTo))
	}
	c.TrendPath = strings.TrimSpace(path.String())
	for v := lo; v <= hi+step/2; v += step {
		c.YTicks = append(c.YTicks, ChartTick{Pos: y(v), Label: Num(math.Round(v*10) / 10)})
	}
	for i := 0; i <= 3; i++ {
		t := t0.Add(time.Duration(float64(t1.Sub(t0)) * float64(i) / 3))
		c.XTicks = append(c.XTicks, ChartTick{Pos: x(t), Label: ownerTime(t, models.Day{Zone: d.Zone}, "2 Jan")})
	}
	if c.HasGoal {
		c.GoalY = y(d.GoalInUnit)
	}
	c.Title = fmt.Sprintf("Weight in %s, %s to %s", d.Unit, wDate(t0, d.Zone), wDate(last, d.Zone))
	c.Desc = fmt.Sprintf("%d weigh-ins on %d %s, each day's mean a dot, between %s and %s %s; the trend line runs from %s to %s %s.",
		len(d.Points)-from, len(days), wPlural(len(days), "day"), w1(lo), w1(hi), d.Unit, w1(d.Trend[from].Value), w1(trendNow(d)), d.Unit)
	return c
}

// niceStep is a round tick step giving about four ticks over span.
func niceStep(span float64) float64 {
	for _, s := range []float64{0.5, 1, 2, 5, 10, 20, 50} {
		if span/s <= 5 {
			return s
		}
	}
	return 100
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// trendNow is the newest trend value.
func trendNow(d models.WeightData) float64 { return d.Trend[len(d.Trend)-1].Value }

// tauDays states τ in days.
func tauDays(d models.WeightData) string { return Num(d.Tau.Hours() / 24) }

// perWeek is a forecast's rate, "−0.5 kg a week".
func perWeek(f *weight.GoalForecast, unit string) string { return signed(f.PerWeek, unit) + " a week" }

// entryValue is an entry's value in its own unit.
func entryValue(e models.WeightEntry) string { return Num(e.Value) + " " + e.Unit }

// importSummary says what an import added or would add.
func importSummary(r *models.WeightImport) string {
	if r.DryRun {
		return fmt.Sprintf("%s file: %d new %s, %d already saved or repeated.", r.Format, len(r.Added), wPlural(len(r.Added), "reading"), r.Skipped)
	}
	return fmt.Sprintf("Added %d %s from the %s file; %d already saved or repeated.", len(r.Added), wPlural(len(r.Added), "reading"), r.Format, r.Skipped)
}

func wPlural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// weightListMax is how many weigh-ins the page lists: about three months of
// daily weigh-ins; the rest are in the measurements export, so the page stays
// small however many readings an import brought.
const weightListMax = 90

// recentEntries is the newest weigh-ins the page lists.
func recentEntries(d models.WeightData) []models.WeightEntry {
	if len(d.Entries) > weightListMax {
		return d.Entries[:weightListMax]
	}
	return d.Entries
}

// olderEntries is how many weigh-ins the list leaves to the export.
func olderEntries(d models.WeightData) int { return len(d.Entries) - len(recentEntries(d)) }

// importPreview is the first rows a dry run shows.
func importPreview(r *models.WeightImport) []weight.Reading {
	if len(r.Added) > 50 {
		return r.Added[:50]
	}
	return r.Added
}

// xAnchor keeps the first and last date labels inside the chart.
func xAnchor(i, n int) string {
	switch i {
	case 0:
		return "start"
	case n - 1:
		return "end"
	}
	return "middle"
}

// goalValue is the saved goal in the page's unit, for the field.
func goalValue(d models.WeightData) string {
	if d.Goal == nil {
		return ""
	}
	return Num(math.Round(d.GoalInUnit*10) / 10)
}

// goalInput is the goal field's value: what was typed when it was refused,
// else the saved goal.
func goalInput(p WeightPage) string {
	if p.Form.GoalError != "" {
		return p.Form.Goal
	}
	return goalValue(p.Data)
}

// weeksWord is "1 week", "3 weeks".
func weeksWord(n int) string { return fmt.Sprint(n) + " " + wPlural(n, "week") }

// weekDone is a week's routine days, "5 of 7 days" ("not planned" for none).
func weekDone(w weight.Week) string {
	if w.Planned == 0 {
		return "not planned"
	}
	return fmt.Sprintf("%d of %d %s", w.Done, w.Planned, wPlural(w.Planned, "day"))
}
