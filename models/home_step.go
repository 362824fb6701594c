package models

import (
	"context"
	"slices"
	"strings"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// StepRoutine is a routine step's routine as Home shows it (with all its
// steps), read after an owner action on the step, and whether re-rendering
// that routine's row alone brings Home up to date with the action.
type StepRoutine struct {
	Routine HomeRow
	Day     Day
	// Alone is true when nothing outside the routine's row changed on
	// Home: the routine is still open and shown (a settled one moves to
	// Done today, a deferred or dismissed one is not in its section), the
	// step is not a measurement (its value is in every row of its metric)
	// and the brief does not name the step (the brief strikes a settled
	// step it names).
	Alone bool
}

// StepRoutine reads the routine of step stepID; ErrNotFound when stepID is
// not a step of a routine Home shows.
func (s *Store) StepRoutine(ctx context.Context, stepID string) (StepRoutine, error) {
	var out StepRoutine
	err := s.read(ctx, func(tx *gorm.DB) error {
		var step []Activity
		if err := tx.Select("id, kind, title, parent_id").Where("id = ? AND retracted_at IS NULL", stepID).Limit(1).Find(&step).Error; err != nil {
			return err
		}
		if len(step) == 0 || step[0].ParentID == nil {
			return ErrNotFound
		}
		parent := *step[0].ParentID
		rows, err := scanActivityRows(tx.Raw(homeRowQuery, map[string]any{"id": parent}))
		if err != nil {
			return err
		}
		// As HomeRow: dismissed steps have left their routine.
		rows = slices.DeleteFunc(rows, func(r activityRow) bool {
			return r.State != nil && *r.State == StateDismissed && r.ID != parent
		})
		now := s.clock()
		tops, err := decorate(tx, rows, now)
		if err != nil {
			return err
		}
		offers, err := undoOffers(tx, now)
		if err != nil {
			return err
		}
		attachUndo(tops, offers)
		i := slices.IndexFunc(tops, func(r HomeRow) bool { return r.ID == parent })
		if i < 0 {
			return ErrNotFound
		}
		out.Routine = tops[i]
		if out.Day, err = ownerDay(tx, now, out.Routine.OccurrenceKey); err != nil {
			return err
		}
		brief, err := briefView(tx)
		if err != nil {
			return err
		}
		switch {
		case out.Routine.Kind != contract.KindRoutine, out.Routine.Settled(), step[0].Kind == contract.KindMeasurement:
		case out.Routine.UserState.State == StateDeferred, out.Routine.UserState.State == StateDismissed:
		case brief != nil && briefNames(brief.Text, step[0].Title):
		default:
			out.Alone = true
		}
		return nil
	})
	if err != nil {
		return StepRoutine{}, classify("step routine", err)
	}
	return out, nil
}

// briefNames reports whether the brief's text names an activity by its
// title, as briefSettled reads a mention.
func briefNames(text, title string) bool { return mentions(strings.ToLower(text), title) }

// mentions is briefNames on text already lower-cased (Home checks every
// row against one brief).
func mentions(lower, title string) bool {
	t := strings.TrimSpace(title)
	return len(t) >= minMentionLen && strings.Contains(lower, strings.ToLower(t))
}
