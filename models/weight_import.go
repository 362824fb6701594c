package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"hearth/internal/weight"
)

// WeightImport is what an import added (or, in a dry run, would add).
type WeightImport struct {
	Format  string
	Added   []weight.Reading
	Skipped int // duplicates of a saved entry (same day and value) or of an earlier row
	DryRun  bool
}

// ImportWeights records readings as imported weight measurements, one
// owner action; a reading whose day (in the owner's zone) and value match a
// saved entry or an earlier row is skipped, so a re-import adds nothing. A
// dry run only reads.
func (s *Store) ImportWeights(ctx context.Context, format string, readings []weight.Reading, dryRun bool) (WeightImport, error) {
	res := WeightImport{Format: format, DryRun: dryRun}
	plan := func(tx *gorm.DB) error {
		day, err := OwnerDay(tx, s.clock(), "")
		if err != nil {
			return err
		}
		entries, err := weightEntries(tx, time.Time{})
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, e := range entries {
			for _, u := range []string{"kg", "lb"} {
				seen[dupKey(e.At, weight.Convert(e.Value, e.Unit, u), u, day.Zone)] = true
			}
		}
		for _, r := range readings {
			k := dupKey(r.At, r.Value, r.Unit, day.Zone)
			if seen[k] {
				res.Skipped++
				continue
			}
			seen[k] = true
			res.Added = append(res.Added, r)
		}
		return nil
	}
	if dryRun {
		if err := s.Read(ctx, plan); err != nil {
			return WeightImport{}, fmt.Errorf("models: import weights: %w", err)
		}
		return res, nil
	}
	_, err := s.commit(ctx, func(t *txn) error {
		if err := plan(t.DB); err != nil {
			return err
		}
		if len(res.Added) == 0 {
			return nil
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("weight")
		rows := make([]map[string]any, len(res.Added))
		for i, r := range res.Added {
			rows[i] = map[string]any{"activity_id": nil, "occurrence_key": "", "metric": WeightMetric, "unit": r.Unit,
				"value": r.Value, "revision": rev, "recorded_at": r.At.UTC(), "source": "imported"}
		}
		return t.Table("measurements").CreateInBatches(rows, 500).Error
	})
	if err != nil {
		return WeightImport{}, Classify("import weights", err)
	}
	return res, nil
}

// dupKey is a reading's day in the owner's zone and its value to 0.01.
func dupKey(at time.Time, v float64, unit string, loc *time.Location) string {
	return fmt.Sprintf("%s|%.2f|%s", at.In(loc).Format(time.DateOnly), v, unit)
}
