package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/weight"
)

// WeightMetric is the metric the weight page charts.
const WeightMetric = "weight"

// settingWeightGoal is the owner_settings key of the weight goal.
const settingWeightGoal = "weight_goal"

// OwnerSetting is one owner-owned setting, never written by a publication.
type OwnerSetting struct {
	Key       string `gorm:"primaryKey"`
	Value     string
	Revision  int64
	UpdatedAt time.Time
}

// WeightCorrection is an earlier value a later one superseded.
type WeightCorrection struct {
	Value      float64
	Unit       string
	RecordedAt time.Time
}

// WeightEntry is one weigh-in: its current value (as measured, in its unit)
// and the values it corrected, oldest first.
type WeightEntry struct {
	ID int64 // the current row
	// At is when the owner weighed (the chain's first row); RecordedAt when
	// the current value was saved.
	At          time.Time
	RecordedAt  time.Time
	Value       float64
	Unit        string
	Source      string
	Corrections []WeightCorrection
}

// WeightData is the weight page's view-model, in the owner's zone and unit.
type WeightData struct {
	Zone *time.Location
	// Unit is the display unit: the unit of the newest entry (kg without any).
	Unit string
	// Entries are newest first.
	Entries []WeightEntry
	// Points are the current values in Unit, oldest first; Trend smooths them.
	Points, Trend      []weight.Point
	Change7, Change30  *float64
	Goal               *contract.WeightGoal
	GoalInUnit         float64
	Forecast           *weight.GoalForecast
	Revision           int64
	Tau                time.Duration
	ForecastMinPoints  int
	ForecastWindowDays int
}

// smooth sets Unit (the newest entry's), Points and Trend from Entries.
func (d *WeightData) smooth() {
	if len(d.Entries) > 0 {
		d.Unit = d.Entries[0].Unit
	}
	for i := len(d.Entries) - 1; i >= 0; i-- {
		e := d.Entries[i]
		d.Points = append(d.Points, weight.Point{At: e.At, Value: weight.Convert(e.Value, e.Unit, d.Unit)})
	}
	d.Trend = weight.Trend(d.Points, weight.TrendTau)
}

// TrendNote is what a weigh-in says about the trend right after it is
// saved: the trend now and its change since yesterday.
type TrendNote struct {
	Value float64
	Unit  string
	// Change is the trend now minus the trend when today began; nil on
	// the first day with any weigh-in.
	Change *float64
}

// TrendNoteAt is the trend after the newest weigh-in and its change since
// the owner's day of now began; ok is false without any weigh-in.
func (d WeightData) TrendNoteAt(now time.Time) (TrendNote, bool) {
	if len(d.Trend) == 0 {
		return TrendNote{}, false
	}
	n := TrendNote{Value: d.Trend[len(d.Trend)-1].Value, Unit: d.Unit}
	zone := d.Zone
	if zone == nil {
		zone = time.UTC
	}
	if before, ok := weight.TrendAt(d.Trend, DayOf(now, zone).Start.Add(-time.Nanosecond)); ok {
		c := n.Value - before
		n.Change = &c
	}
	return n, true
}

// TrendWindow is how far back Home reads the weight history for today's
// trend: an entry older than 12 τ moves the trend by under e⁻¹² (six
// millionths) of its distance from it, far below the 0.1 shown, so Home's
// read stays the same size after years of daily or imported readings.
const TrendWindow = 12 * weight.TrendTau

// recentWeightTrend is the trend (no goal, no forecast) in zone over the
// weigh-ins of the TrendWindow before now; the whole history when none
// falls in it, so the newest weigh-in is still known after a long pause.
func recentWeightTrend(tx *gorm.DB, zone *time.Location, now time.Time) (WeightData, error) {
	d := WeightData{Unit: "kg", Zone: zone}
	var err error
	if d.Entries, err = weightEntries(tx, now.Add(-TrendWindow)); err != nil {
		return WeightData{}, err
	}
	if len(d.Entries) == 0 {
		if d.Entries, err = weightEntries(tx, time.Time{}); err != nil {
			return WeightData{}, err
		}
	}
	d.smooth()
	return d, nil
}

// weightEntries groups the weight rows recorded since (all when zero) into
// weigh-ins: a correction chain's current value at the time of its first
// row, newest first. A correction whose chain began before since is left
// out with its chain.
func weightEntries(tx *gorm.DB, since time.Time) ([]WeightEntry, error) {
	query, args := `SELECT `+measurementColumns+` FROM measurements m WHERE m.metric = ?`, []any{WeightMetric}
	if !since.IsZero() {
		query, args = query+` AND m.recorded_at >= ?`, append(args, since)
	}
	rows, err := scanMeasurements(tx.Raw(query+` ORDER BY m.id`, args...))
	if err != nil {
		return nil, err
	}
	root := map[int64]int{} // row ID → index of its chain's entry
	var entries []WeightEntry
	for _, m := range rows {
		if m.SupersedesID != nil {
			if i, ok := root[*m.SupersedesID]; ok {
				e := &entries[i]
				e.Corrections = append(e.Corrections, WeightCorrection{Value: e.Value, Unit: e.Unit, RecordedAt: e.RecordedAt})
				e.ID, e.Value, e.Unit, e.RecordedAt = m.ID, m.Value, m.Unit, m.RecordedAt
				root[m.ID] = i
				continue
			}
			if !since.IsZero() {
				continue // its chain began before since
			}
		}
		root[m.ID] = len(entries)
		entries = append(entries, WeightEntry{ID: m.ID, At: m.RecordedAt, RecordedAt: m.RecordedAt, Value: m.Value, Unit: m.Unit, Source: m.Source})
	}
	// Sorted by the weigh-in's time, newest first: an import may add old readings after new ones.
	sort.SliceStable(entries, func(i, j int) bool {
		if !entries[i].At.Equal(entries[j].At) {
			return entries[i].At.After(entries[j].At)
		}
		return entries[i].ID > entries[j].ID
	})
	return entries, nil
}

func WeightGoal(tx *gorm.DB) (*contract.WeightGoal, error) {
	var st OwnerSetting
	err := tx.Where("key = ?", settingWeightGoal).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var g contract.WeightGoal
	if err := json.Unmarshal([]byte(st.Value), &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// SetWeightGoal records the owner's goal (an owner decision, bumping the
// revision); a nil goal clears it.
func (s *Store) SetWeightGoal(ctx context.Context, goal *contract.WeightGoal) error {
	if goal != nil {
		bounds, ok := weight.Bounds[goal.Unit]
		if !ok {
			return fmt.Errorf("unit %q is not kg or lb: %w", goal.Unit, ErrInvalidInput)
		}
		if math.IsNaN(goal.Value) || goal.Value < bounds[0] || goal.Value > bounds[1] {
			return fmt.Errorf("a goal must be between %g and %g %s: %w", bounds[0], bounds[1], goal.Unit, ErrInvalidInput)
		}
	}
	_, err := s.commit(ctx, func(t *txn) error {
		current, err := WeightGoal(t.DB)
		if err != nil {
			return err
		}
		if (current == nil && goal == nil) || (current != nil && goal != nil && *current == *goal) {
			return nil // nothing changes, so the revision stays
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("weight")
		if goal == nil {
			return t.Where("key = ?", settingWeightGoal).Delete(&OwnerSetting{}).Error
		}
		b, _ := json.Marshal(goal)
		return t.Save(&OwnerSetting{Key: settingWeightGoal, Value: string(b), Revision: rev, UpdatedAt: t.now}).Error
	})
	if err != nil {
		return Classify("set weight goal", err)
	}
	return nil
}

// WeightHistory reads every weight measurement with its corrections and
// derives the trend, the 7- and 30-day change and the goal forecast.
func (s *Store) WeightHistory(ctx context.Context) (WeightData, error) {
	d := WeightData{Unit: "kg", Tau: weight.TrendTau, ForecastMinPoints: weight.ForecastMinPoints, ForecastWindowDays: int(weight.ForecastWindow / (24 * time.Hour))}
	err := s.Read(ctx, func(tx *gorm.DB) error {
		day, err := OwnerDay(tx, s.clock(), "")
		if err != nil {
			return err
		}
		d.Zone = day.Zone
		if d.Entries, err = weightEntries(tx, time.Time{}); err != nil {
			return err
		}
		if d.Goal, err = WeightGoal(tx); err != nil {
			return err
		}
		return tx.Model(&Workspace{}).Where("id = 1").Pluck("revision", &d.Revision).Error
	})
	if err != nil {
		return WeightData{}, fmt.Errorf("models: weight history: %w", err)
	}
	d.smooth()
	if c, ok := weight.TrendChange(d.Trend, 7*24*time.Hour); ok {
		d.Change7 = &c
	}
	if c, ok := weight.TrendChange(d.Trend, 30*24*time.Hour); ok {
		d.Change30 = &c
	}
	if d.Goal != nil {
		d.GoalInUnit = weight.Convert(d.Goal.Value, d.Goal.Unit, d.Unit)
		if f, ok := weight.ForecastGoal(d.Points, d.Trend, d.GoalInUnit); ok {
			d.Forecast = &f
		}
	}
	return d, nil
}
