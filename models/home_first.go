package models

import (
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/weight"
)

// QuickWeight is today's weigh-in as Home's first screen shows it: the
// unit and bounds of the next value, the newest weigh-in, and, once one was
// saved today, the trend after it. Planned says a routine's step asks for
// the weigh-in (Home then offers no field of its own).
type QuickWeight struct {
	Planned  bool
	Unit     string
	Min, Max float64
	Last     *WeightEntry
	// Today is the trend after today's weigh-in; nil before one.
	Today *TrendNote
}

// briefFirst is the open activity (a routine's step included, a routine
// itself not: its steps are the actions) whose title the brief's text names
// first, or nil. A title in the text is the name (see briefSettled).
func briefFirst(text string, tops []HomeRow) *HomeRow {
	lower := strings.ToLower(text)
	var first *HomeRow
	at := len(lower)
	var walk func([]HomeRow)
	walk = func(rows []HomeRow) {
		for i := range rows {
			r := &rows[i]
			walk(r.Children)
			if r.Kind == contract.KindRoutine || r.Settled() || r.UserState.State == StateDismissed || !mentions(lower, r.Title) {
				continue
			}
			if i := strings.Index(lower, strings.ToLower(strings.TrimSpace(r.Title))); i < at {
				c := *r
				first, at = &c, i
			}
		}
	}
	walk(tops)
	return first
}

// plansWeighIn reports whether a weight step is on Home today, open or done.
func plansWeighIn(rows []HomeRow) bool {
	for _, r := range rows {
		if m := r.Measurement; m != nil && m.Metric == WeightMetric {
			return true
		}
		if plansWeighIn(r.Children) {
			return true
		}
	}
	return false
}

// quickWeight is today's weigh-in for Home's first screen.
func quickWeight(tx *gorm.DB, now time.Time, day Day, planned bool) (*QuickWeight, error) {
	d, err := recentWeightTrend(tx, day.Zone, now)
	if err != nil {
		return nil, err
	}
	b := weight.Bounds[d.Unit]
	q := &QuickWeight{Planned: planned, Unit: d.Unit, Min: b[0], Max: b[1]}
	if len(d.Entries) > 0 {
		last := d.Entries[0]
		q.Last = &last
		if !last.At.Before(day.Start) {
			if n, ok := d.TrendNoteAt(now); ok {
				q.Today = &n
			}
		}
	}
	return q, nil
}

// attachTrend gives each weight row with today's value saved the trend
// after it, so the save says what it did to the trend.
func attachTrend(tx *gorm.DB, now time.Time, day Day, rows []HomeRow) error {
	var saved []*MeasurementSummary
	for i := range rows {
		if m := rows[i].Measurement; m != nil && m.Metric == WeightMetric && m.Saved != nil {
			saved = append(saved, m)
		}
	}
	if len(saved) == 0 {
		return nil
	}
	d, err := recentWeightTrend(tx, day.Zone, now)
	if err != nil {
		return err
	}
	n, ok := d.TrendNoteAt(now)
	if !ok {
		return nil
	}
	for _, m := range saved {
		m.Trend = &n
	}
	return nil
}
