package models

import (
	"context"
	"fmt"
	"sort"
	"time"

	"hearth/internal/weight"

	"gorm.io/gorm"
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

// RoutineKeeping reads the routines the owner tried and, for routineID
// (or the first of them), each planned day that has ended with whether it
// was done. An unknown routineID reads as the first routine.
func (s *Store) RoutineKeeping(ctx context.Context, routineID string) (RoutineKeeping, error) {
	var k RoutineKeeping
	err := s.read(ctx, func(tx *gorm.DB) error {
		var rows []struct{ RoutineID, Title string }
		// A routine's newest title; only routines that ever had a trial have days.
		if err := tx.Raw(`SELECT d.routine_id, d.title FROM routine_definitions d
			WHERE d.revision = (SELECT MAX(x.revision) FROM routine_definitions x WHERE x.routine_id = d.routine_id)
			AND EXISTS (SELECT 1 FROM routine_trials t WHERE t.routine_id = d.routine_id)
			ORDER BY d.title, d.routine_id`).Scan(&rows).Error; err != nil {
			return err
		}
		for _, r := range rows {
			c := RoutineChoice{ID: r.RoutineID, Title: r.Title}
			k.Choices = append(k.Choices, c)
			if c.ID == routineID || k.Chosen.ID == "" {
				k.Chosen = c
			}
		}
		if k.Chosen.ID == "" {
			return nil
		}
		now := s.clock()
		day, err := ownerDay(tx, now, "")
		if err != nil {
			return err
		}
		yesterday := day.Start.Add(-time.Hour).In(day.Zone).Format(time.DateOnly)
		var trials []RoutineTrial
		if err := tx.Where("routine_id = ?", k.Chosen.ID).Order("id").Find(&trials).Error; err != nil {
			return err
		}
		revisions := map[int64]string{} // revision → its first trial's start
		for _, tr := range trials {
			if from, ok := revisions[tr.Revision]; !ok || tr.StartsOn < from {
				revisions[tr.Revision] = tr.StartsOn
			}
		}
		done := map[string]bool{} // planned day → done (either occasion, when a day has two)
		for rev, from := range revisions {
			if from > yesterday {
				continue
			}
			m, err := routineMetrics(tx, k.Chosen.ID, rev, from, yesterday, now)
			if err != nil {
				return err
			}
			for _, d := range m.Days {
				if d.Outcome != OutcomeNotApplicable && d.Outcome != OutcomeOpen {
					done[d.Date] = done[d.Date] || d.Outcome == OutcomeCompleted
				}
			}
		}
		for date, ok := range done {
			k.Days = append(k.Days, RoutineDay{Date: date, Done: ok})
		}
		sort.Slice(k.Days, func(i, j int) bool { return k.Days[i].Date < k.Days[j].Date })
		return nil
	})
	if err != nil {
		return RoutineKeeping{}, fmt.Errorf("models: routine keeping: %w", err)
	}
	return k, nil
}

// WeightWeek is one ended week (Monday to Sunday in the owner's zone) with
// at least one weigh-in.
type WeightWeek struct {
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
func (w WeightWeek) Kept() bool {
	return w.Planned > 0 && w.Done >= min(KeptDaysPerWeek, w.Planned)
}

// WeekGroup is one side of the split: how many weeks, and the trend's mean
// weekly change over them.
type WeekGroup struct {
	Weeks   int
	PerWeek float64
}

// WeightSplit compares the trend's weekly change in weeks the routine was
// kept with weeks it was planned and not kept. Enough is false while
// either side has fewer than SplitMinWeeks weeks.
type WeightSplit struct {
	Routine       RoutineChoice
	Kept, NotKept WeekGroup
	Enough        bool
}

// WeightWeeks lists the ended weeks of d with a weigh-in, newest first (at
// most WeeksShown), each with the routine's planned and done days, and the
// split over those weeks the trend spans whole. today is the owner's date.
func WeightWeeks(d WeightData, k RoutineKeeping, today time.Time) ([]WeightWeek, WeightSplit) {
	split := WeightSplit{Routine: k.Chosen}
	if len(d.Points) == 0 || d.Zone == nil {
		return nil, split
	}
	thisWeek := weekStart(today.In(d.Zone))
	byStart := map[time.Time]*WeightWeek{}
	var weeks []*WeightWeek
	for _, p := range d.Points {
		start := weekStart(p.At.In(d.Zone))
		if !start.Before(thisWeek) || start.Before(thisWeek.AddDate(0, 0, -7*WeeksShown)) {
			continue
		}
		w := byStart[start]
		if w == nil {
			w = &WeightWeek{Start: start}
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
		if before, ok := weight.TrendAt(d.Trend, w.Start.Add(-time.Nanosecond)); ok {
			after, _ := weight.TrendAt(d.Trend, end.Add(-time.Nanosecond))
			w.Change, w.HasChange = after-before, true
		}
	}
	for _, rd := range k.Days {
		at, err := time.ParseInLocation(time.DateOnly, rd.Date, d.Zone)
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
	out := make([]WeightWeek, len(weeks))
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
	return time.Date(y, m, d-(isoWeekday(t)-1), 0, 0, 0, 0, t.Location())
}
