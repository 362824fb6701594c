package models

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// RowAnswer is the row Home answers an owner action on a row with, read
// after the action's commit, and whether that row is all the commit
// changed on Home.
type RowAnswer struct {
	// Row is the acted-on row as Home shows it; for a routine's step, its
	// routine (with all its steps), which is what the step's action changed.
	Row HomeRow
	// Day is the owner's day Row's controls compute dates from.
	Day Day
	// Alone is true when Row shows everything the commit changed on Home
	// (see answersAlone); then a page that swaps Row in is up to date with
	// that commit without reading Home again.
	Alone bool
}

// AnswerRow reads the row that answers an owner action on activity id,
// which committed revision rev (0: nothing, or not known). ErrNotFound
// when id names no activity Home can show.
func (s *Store) AnswerRow(ctx context.Context, id string, rev int64) (RowAnswer, error) {
	var out RowAnswer
	err := s.read(ctx, func(tx *gorm.DB) error {
		var acted []Activity
		if err := tx.Select("id, parent_id").Where("id = ? AND retracted_at IS NULL", id).Limit(1).Find(&acted).Error; err != nil {
			return err
		}
		if len(acted) == 0 {
			return ErrNotFound
		}
		top := id
		if acted[0].ParentID != nil {
			top = *acted[0].ParentID
		}
		now := s.clock()
		var raw []activityRow
		var err error
		if out.Row, out.Day, raw, err = homeRowAt(tx, top, now); err != nil {
			return err
		}
		if rev <= 0 || (top != id && out.Row.Kind != contract.KindRoutine) {
			return nil
		}
		out.Alone, err = answersAlone(tx, raw, top, rev, now)
		return err
	})
	if err != nil {
		return RowAnswer{}, classify("answer row", err)
	}
	return out, nil
}

// answersAlone reports whether the row top (with its steps, rows) shows
// everything commit rev changed on Home. What an owner action on a row
// writes is known: activity decisions (read back by revision, so a rule
// that settled a routine or any other decision of that commit is seen), a
// measurement, a draft's wording, a routine occurrence's feedback. The row
// is alone when every one of those writes is inside it and none reaches
// past it:
//   - the row is on Home today and stays in its place: a decision on it
//     keeps it open in its section, or settled in Done today (settled
//     earlier today), never moving it between them or to Later;
//   - no step goes to or comes from Later (dismissed, deferred);
//   - the brief does not name an activity whose settled word changed
//     (the brief strikes what it names once settled);
//   - no other row of Home shows the measured metric (its last value and
//     sparkline) or the edited draft.
//
// A commit with no such write inside the row is not alone: the answer
// cannot show it.
func answersAlone(tx *gorm.DB, rows []activityRow, top string, rev int64, now time.Time) (bool, error) {
	day, err := ownerDay(tx, now, "")
	if err != nil {
		return false, err
	}
	inRow := make(map[string]activityRow, len(rows))
	var measured, drafts []string
	for _, r := range rows {
		inRow[r.ID] = r
		if r.Kind == contract.KindMeasurement {
			measured = append(measured, r.ID)
		}
		if r.DraftID != nil {
			drafts = append(drafts, *r.DraftID)
		}
	}
	head, ok := inRow[top]
	if !ok || head.ParentID != nil || !onHomeToday(head, day) {
		return false, nil
	}
	brief, err := briefView(tx)
	if err != nil {
		return false, err
	}
	wrote := false

	var decisions []ActivityDecision
	if err := tx.Where("revision = ?", rev).Order("id").Find(&decisions).Error; err != nil {
		return false, err
	}
	for _, d := range decisions {
		r, ok := inRow[d.ActivityID]
		if !ok {
			return false, nil
		}
		prior := deref(d.PriorState)
		date, _, _ := strings.Cut(r.OccurrenceKey, "@")
		if d.ActivityID == top {
			before, after := placeOnHome(prior, d.PriorUntil, date, day), placeOnHome(d.State, d.Until, date, day)
			if before != after {
				return false, nil
			}
			if after == placeDone {
				// Shown in Done today before only when settled today.
				today, err := decidedSince(tx, d, day.Start)
				if err != nil || !today {
					return false, err
				}
			}
		} else if leavesForLater(prior) || leavesForLater(d.State) {
			return false, nil
		}
		if brief != nil && briefWord(prior) != briefWord(d.State) && briefNames(brief.Text, r.Title) {
			return false, nil
		}
		wrote = true
	}

	others := func() ([]activityRow, error) { return homeRowsOutside(tx, inRow, day) }
	if len(measured) > 0 {
		var metrics []string
		if err := tx.Model(&Measurement{}).Distinct("metric").Where("activity_id IN ? AND revision = ?", measured, rev).Pluck("metric", &metrics).Error; err != nil {
			return false, err
		}
		if len(metrics) > 0 {
			outside, err := others()
			if err != nil {
				return false, err
			}
			for _, r := range outside {
				if r.Kind != contract.KindMeasurement {
					continue
				}
				var p contract.MeasurementPayload
				if json.Unmarshal([]byte(r.Payload), &p) == nil && slices.Contains(metrics, p.Metric) {
					return false, nil
				}
			}
			wrote = true
		}
	}
	if len(drafts) > 0 {
		var edited []string
		if err := tx.Model(&DraftEdit{}).Where("draft_id IN ? AND revision = ?", drafts, rev).Pluck("draft_id", &edited).Error; err != nil {
			return false, err
		}
		if len(edited) > 0 {
			outside, err := others()
			if err != nil {
				return false, err
			}
			for _, r := range outside {
				if r.DraftID != nil && slices.Contains(edited, *r.DraftID) {
					return false, nil
				}
			}
			wrote = true
		}
	}
	if !wrote {
		var n int64
		if err := tx.Raw(`SELECT COUNT(*) FROM routine_outcomes r JOIN routine_occurrences o ON o.id = r.occurrence_id
			WHERE o.activity_id = ? AND r.revision = ?`, top, rev).Scan(&n).Error; err != nil {
			return false, err
		}
		wrote = n > 0
	}
	return wrote, nil
}

// Where a row is on Home, as Home groups it (onHomeToday, Sections, Done).
const (
	placeOff  = "off" // not on Home: dismissed, or deferred to another day (Later)
	placeOpen = "open"
	placeDone = "done"
)

// placeOnHome is where an activity of occurrence date (empty: undated)
// is on Home on day in state (with until, for deferred).
func placeOnHome(state, until, date string, day Day) string {
	switch {
	case state == StateDismissed:
		return placeOff
	case settled(state):
		return placeDone
	case state == StateDeferred && date == "" && until > day.Date:
		return placeOff
	case state == StateDeferred && date != "" && until != day.Date:
		return placeOff
	}
	return placeOpen
}

// leavesForLater reports whether a step in state is (or was) listed under
// Later, which lists dismissed and deferred activities, steps included.
func leavesForLater(state string) bool { return state == StateDismissed || state == StateDeferred }

// briefWord is how the brief marks an activity it names in state: struck
// with the state once completed, skipped or dismissed (briefSettled).
func briefWord(state string) string {
	switch state {
	case StateCompleted, StateSkipped, StateDismissed:
		return state
	}
	return ""
}

// decidedSince reports whether the decision before d on its activity was
// made at or after start: a settled row is in Done today only when it was
// settled today. No earlier decision (a state that came another way) is
// not known to be today's.
func decidedSince(tx *gorm.DB, d ActivityDecision, start time.Time) (bool, error) {
	var at []time.Time
	err := tx.Model(&ActivityDecision{}).Where("activity_id = ? AND id < ?", d.ActivityID, d.ID).
		Order("id DESC").Limit(1).Pluck("created_at", &at).Error
	return len(at) == 1 && !at[0].Before(start), err
}

// homeRowsOutside reads the activities Home shows today other than those
// of one row (inRow): who else shows a metric or a draft.
func homeRowsOutside(tx *gorm.DB, inRow map[string]activityRow, day Day) ([]activityRow, error) {
	rows, err := scanActivityRows(tx.Raw(homeWindow, map[string]any{"today": day.Date, "startOfDay": day.Start}))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(rows, func(r activityRow) bool {
		_, mine := inRow[r.ID]
		return mine || !onHomeToday(r, day)
	}), nil
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
