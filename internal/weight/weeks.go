package weight

import (
	"sort"
	"time"
)

// The weekly split: a week is kept when the chosen routine was done on
// KeptDaysPerWeek of its planned days (all of them when it plans fewer);
// each side of the split needs SplitMinWeeks weeks before it is shown.
const (
	KeptDaysPerWeek = 5
	SplitMinWeeks   = 3
	// WeeksShown bounds the weekly list and the split to half a year.
	WeeksShown = 26
)

// RoutineChoice is a routine the weight page can compare weeks by.
type RoutineChoice struct {
	ID, Title string
}

// RoutineDay is one planned day of a routine and whether it was done.
type RoutineDay struct {
	Date string // YYYY-MM-DD in the owner's zone
	Done bool   // completed (a partial day is not)
}

// RoutineKeeping is what the weight page compares weeks by: the routines
// with a trial, the chosen one (the first when none is chosen) and its
// planned days up to yesterday.
type RoutineKeeping struct {
	Choices []RoutineChoice
	Chosen  RoutineChoice
	Days    []RoutineDay
}

// Week is one ended week (Monday to Sunday in the owner's zone) with
// at least one weigh-in.
type Week struct {
	Start time.Time // Monday 00:00 in the owner's zone
	// Mean is the week's weigh-ins' mean, in the page's unit; N how many.
	Mean float64
	N    int
	// Change is the trend's change over the week; HasChange is false for a
	// week the trend had not started before.
	Change    float64
	HasChange bool
	// Planned and Done count the chosen routine's days in the week.
	Planned, Done int
}

// Kept says whether the chosen routine was kept this week: done on
// KeptDaysPerWeek of its planned days, or on all of them when it plans fewer.
func (w Week) Kept() bool {
	return w.Planned > 0 && w.Done >= min(KeptDaysPerWeek, w.Planned)
}

// WeekGroup is one side of the split: how many weeks, and the trend's mean
// weekly change over them.
type WeekGroup struct {
	Weeks   int
	PerWeek float64
}

// Split compares the trend's weekly change in weeks the routine was
// kept with weeks it was planned and not kept. Enough is false while
// either side has fewer than SplitMinWeeks weeks.
type Split struct {
	Routine       RoutineChoice
	Kept, NotKept WeekGroup
	Enough        bool
}

// Weeks lists the ended weeks of points (in zone) with a weigh-in, newest
// first (at most WeeksShown), each with the routine's planned and done
// days, and the split over those weeks trend spans whole. today is the
// owner's date.
func Weeks(points, trend []Point, zone *time.Location, k RoutineKeeping, today time.Time) ([]Week, Split) {
	split := Split{Routine: k.Chosen}
	if len(points) == 0 || zone == nil {
		return nil, split
	}
	thisWeek := weekStart(today.In(zone))
	byStart := map[time.Time]*Week{}
	var weeks []*Week
	for _, p := range points {
		start := weekStart(p.At.In(zone))
		if !start.Before(thisWeek) || start.Before(thisWeek.AddDate(0, 0, -7*WeeksShown)) {
			continue
		}
		w := byStart[start]
		if w == nil {
			w = &Week{Start: start}
			byStart[start] = w
			weeks = append(weeks, w)
		}
		w.Mean += p.Value
		w.N++
	}
	for _, w := range weeks {
		w.Mean /= float64(w.N)
		end := w.Start.AddDate(0, 0, 7)
		// The trend at the week's start is the trend after the last entry before it.
		if before, ok := TrendAt(trend, w.Start.Add(-time.Nanosecond)); ok {
			after, _ := TrendAt(trend, end.Add(-time.Nanosecond))
			w.Change, w.HasChange = after-before, true
		}
	}
	for _, rd := range k.Days {
		at, err := time.ParseInLocation(time.DateOnly, rd.Date, zone)
		if err != nil {
			continue
		}
		if w := byStart[weekStart(at)]; w != nil {
			w.Planned++
			if rd.Done {
				w.Done++
			}
		}
	}
	sort.Slice(weeks, func(i, j int) bool { return weeks[i].Start.After(weeks[j].Start) })
	out := make([]Week, len(weeks))
	for i, w := range weeks {
		out[i] = *w
		if !w.HasChange || w.Planned == 0 {
			continue
		}
		g := &split.NotKept
		if w.Kept() {
			g = &split.Kept
		}
		g.PerWeek += w.Change
		g.Weeks++
	}
	for _, g := range []*WeekGroup{&split.Kept, &split.NotKept} {
		if g.Weeks > 0 {
			g.PerWeek /= float64(g.Weeks)
		}
	}
	split.Enough = split.Kept.Weeks >= SplitMinWeeks && split.NotKept.Weeks >= SplitMinWeeks
	return out, split
}

// weekStart is the Monday 00:00 of t's week, in t's location.
func weekStart(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d-(int(t.Weekday())+6)%7, 0, 0, 0, 0, t.Location())
}
