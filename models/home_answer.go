package models

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// RowAnswer is what an owner action on a Home row changed, read inside the
// action's own transaction: the row Home answers with, where the acted-on
// row now is, and whether that row is all the commit changed on Home.
type RowAnswer struct {
	// Row is the acted-on row as Home shows it; for a routine's step, its
	// routine (with all its steps), which is what the step's action changed.
	// Its ID is empty when Home cannot show the row (retracted).
	Row HomeRow
	// Acted is the acted-on row as its own fragment shows it (Row itself
	// unless the action was on a step).
	Acted HomeRow
	// Day is the owner's day Row's controls compute dates from.
	Day Day
	// Place is where the acted-on row is on Home now.
	Place Place
	// Alone is true when Row shows everything the commit changed on Home
	// (see alone); then a page that swaps Row in is up to date with that
	// commit without reading Home again.
	Alone bool
}

// MovedToLater reports whether the action took its row off Home to Later.
// A routine's step stays with its routine, which the owner is working in,
// and a routine stays in place with its outcome (and feedback).
func (a RowAnswer) MovedToLater() bool {
	return a.Place == PlaceLater && a.Acted.ParentID == "" && a.Acted.Kind != contract.KindRoutine
}

// homeWrites is what a transaction wrote that Home shows, as it wrote it:
// an answer knows what changed without reading it back.
type homeWrites struct {
	decisions []homeDecision
	metrics   []string // measured
	drafts    []string // edited
	feedback  []string // routine activities whose occurrence got feedback
}

// homeDecision is one decision of the transaction: the state it replaced
// (prior, with its until and when it was decided) and the new one.
type homeDecision struct {
	activityID        string
	prior, priorUntil string
	priorAt           *time.Time
	state, until      string
	at                time.Time
}

// answerInto sets *a to answerIn's answer when want.
func answerInto(t *txn, want bool, a *RowAnswer, id string, parent *string) error {
	if !want {
		return nil
	}
	var err error
	*a, err = answerIn(t, id, parent)
	return err
}

// answerIn reads, inside t after its writes, the answer to an owner action
// on activity id (parent: its routine, nil for a row of its own).
func answerIn(t *txn, id string, parent *string) (RowAnswer, error) {
	if err := t.readBrief(); err != nil {
		return RowAnswer{}, err
	}
	top := id
	if parent != nil {
		top = *parent
	}
	r, err := readHomeRow(t.DB, top, id, t.now, t.brief)
	if err != nil || r.row.ID == "" {
		return RowAnswer{}, err
	}
	a := RowAnswer{Row: r.row, Acted: r.acted, Day: r.day, Place: r.place}
	if t.rev == 0 || (top != id && a.Row.Kind != contract.KindRoutine) {
		return a, nil
	}
	a.Alone, err = alone(t, r.raw, top)
	return a, err
}

// alone reports whether the row top (with its steps, rows) shows
// everything t wrote that Home shows. The row is alone when every such
// write is inside it and none reaches past it:
//   - the row is on Home today and stays in its place (Place): a decision
//     never moves it between its section, Done today and Later;
//   - no step goes to or comes from Later;
//   - the brief does not name an activity whose settled word changed
//     (the brief strikes what it names once settled);
//   - no other row of Home shows the measured metric (its last value and
//     sparkline) or the edited draft.
//
// A commit with no such write inside the row is not alone: the answer
// cannot show it.
func alone(t *txn, rows []activityRow, top string) (bool, error) {
	day, w := t.today, t.home
	inRow := make(map[string]activityRow, len(rows))
	var drafts []string
	for _, r := range rows {
		inRow[r.ID] = r
		if r.DraftID != nil {
			drafts = append(drafts, *r.DraftID)
		}
	}
	head, ok := inRow[top]
	if !ok || head.ParentID != nil || !head.place(day).OnHome() {
		return false, nil
	}
	wrote := false
	for _, d := range w.decisions {
		r, ok := inRow[d.activityID]
		if !ok {
			return false, nil
		}
		before := placeOf(d.prior, d.priorUntil, d.priorAt, r.OccurrenceKey, day)
		after := placeOf(d.state, d.until, &d.at, r.OccurrenceKey, day)
		if d.activityID == top && before != after {
			return false, nil
		}
		if d.activityID != top && (before == PlaceLater || after == PlaceLater) {
			return false, nil
		}
		if b := t.brief; b != nil && briefWord(d.prior) != briefWord(d.state) && briefNames(b.Text, r.Title) {
			return false, nil
		}
		wrote = true
	}
	for _, draft := range w.drafts {
		if !slices.Contains(drafts, draft) {
			return false, nil
		}
	}
	var outside []activityRow
	if len(w.metrics) > 0 || len(w.drafts) > 0 {
		var err error
		if outside, err = homeRowsOutside(t.DB, inRow, day); err != nil {
			return false, err
		}
	}
	for _, r := range outside {
		if r.DraftID != nil && slices.Contains(w.drafts, *r.DraftID) {
			return false, nil
		}
		if r.Kind != contract.KindMeasurement || len(w.metrics) == 0 {
			continue
		}
		var p contract.MeasurementPayload
		if json.Unmarshal([]byte(r.Payload), &p) == nil && slices.Contains(w.metrics, p.Metric) {
			return false, nil
		}
	}
	if len(w.metrics) > 0 || len(w.drafts) > 0 {
		wrote = true
	}
	for _, f := range w.feedback {
		if f != top {
			return false, nil
		}
		wrote = true
	}
	return wrote, nil
}

// briefWord is how the brief marks an activity it names in state: struck
// with the state once completed, skipped or dismissed (briefSettled).
func briefWord(state string) string {
	switch state {
	case StateCompleted, StateSkipped, StateDismissed:
		return state
	}
	return ""
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
		return mine || !r.place(day).OnHome()
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
