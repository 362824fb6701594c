package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// UndoWindow is how long after a decision on Home its Undo is offered and
// accepted: long enough to notice a wrong tap, short enough that the agent
// rarely plans on a decision that is then taken back.
const UndoWindow = 10 * time.Minute

// Causes of an ActivityDecision.
const (
	// CauseHome is a decision of Home's controls: the only undoable one.
	CauseHome = "home"
	// CauseRule is a routine settled by its steps in the same transaction.
	CauseRule = "rule"
	// CauseValue is a saved measurement value.
	CauseValue = "value"
	// CauseOwner is any other owner decision (Messages, a confirmed send, a past outcome).
	CauseOwner = "owner"
	// CauseUndo is an undo: it restores the state its decision replaced.
	CauseUndo = "undo"
)

var (
	// ErrUndoExpired refuses an undo after UndoWindow.
	ErrUndoExpired = errors.New("undo is only possible for 10 minutes after a decision")
	// ErrUndoSuperseded refuses an undo of a decision that a later one replaced.
	ErrUndoSuperseded = errors.New("this changed again since; decide it anew instead")
	// ErrNotUndoable refuses an undo of a decision not made with Home's controls.
	ErrNotUndoable = errors.New("only a decision made on Home can be undone")
)

// ActivityDecision is one change of an owner state, kept forever: the
// current state is in ActivityState, how it came to be is here.
type ActivityDecision struct {
	ID         int64 `gorm:"primaryKey"`
	ActivityID string
	State      string
	Until      string
	Note       string
	PriorState *string
	PriorUntil string
	PriorNote  string
	Cause      string
	UndoesID   *int64
	Revision   int64
	CreatedAt  time.Time
}

// decideBy is decide with the decision recorded under cause (undoes: the
// decision an undo reverts). The row names the state it replaced, which is
// what an undo restores.
func decideBy(t *txn, st ActivityState, cause string, undoes *int64) error {
	f, err := readDecisionFacts(t.DB, st.ActivityID)
	if err != nil {
		return err
	}
	return decideWith(t, f, st, cause, undoes)
}

// decisionFacts is what a decision on an activity needs to know of it,
// read in one statement: its kind and parent, its current state, its own
// routine occurrence (a routine occurrence's activity), and its parent's
// occurrence rule and state (the routine a step's decision may settle).
type decisionFacts struct {
	Kind     string
	ParentID *string
	// Prior is the current state; nil before any.
	Prior *ActivityState
	// Occurrence is set on a routine occurrence's activity.
	Occurrence *RoutineOccurrence
	// ParentRule is the parent's frozen rule when the parent is a routine
	// occurrence; ParentState the parent's current state ("" before any).
	ParentRule  *frozenRule
	ParentState string
}

// decisionFactsQuery reads decisionFacts; a missing activity has no row.
const decisionFactsQuery = `SELECT a.kind, a.parent_id, s.state, s.until, s.note, s.updated_at,
		o.id, o.routine_id, o.revision, o.local_date,
		po.rule, po.routine_id, po.revision, po.local_date, ps.state
	FROM activities a
	LEFT JOIN activity_states s ON s.activity_id = a.id
	LEFT JOIN routine_occurrences o ON o.activity_id = a.id
	LEFT JOIN routine_occurrences po ON a.parent_id IS NOT NULL AND po.activity_id = a.parent_id
	LEFT JOIN activity_states ps ON a.parent_id IS NOT NULL AND ps.activity_id = a.parent_id
	WHERE a.id = ? LIMIT 1`

// readDecisionFacts reads activity id's decisionFacts: ErrNotFound when
// there is no such activity.
func readDecisionFacts(tx *gorm.DB, id string) (decisionFacts, error) {
	rows, err := tx.Raw(decisionFactsQuery, id).Rows()
	if err != nil {
		return decisionFacts{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return decisionFacts{}, err
		}
		return decisionFacts{}, ErrNotFound
	}
	var f decisionFacts
	var state, until, note, occID, occRoutine, occDate, rule, ruleRoutine, ruleDate, parentState sql.NullString
	var stateAt sql.NullTime
	var occRev, ruleRev sql.NullInt64
	if err := rows.Scan(&f.Kind, &f.ParentID, &state, &until, &note, &stateAt, &occID, &occRoutine, &occRev, &occDate,
		&rule, &ruleRoutine, &ruleRev, &ruleDate, &parentState); err != nil {
		return decisionFacts{}, err
	}
	if state.Valid {
		f.Prior = &ActivityState{ActivityID: id, State: state.String, Until: until.String, Note: note.String, UpdatedAt: stateAt.Time}
	}
	if occID.Valid {
		f.Occurrence = &RoutineOccurrence{ID: occID.String, RoutineID: occRoutine.String, Revision: occRev.Int64, LocalDate: occDate.String, ActivityID: id}
	}
	if rule.Valid {
		var r frozenRule
		if err := json.Unmarshal([]byte(rule.String), &r); err != nil {
			return decisionFacts{}, err
		}
		r.routine, r.revision, r.date = ruleRoutine.String, ruleRev.Int64, ruleDate.String
		f.ParentRule = &r
	}
	f.ParentState = parentState.String
	return f, rows.Err()
}

// decideWith is decideBy with the activity's facts already read (f).
func decideWith(t *txn, f decisionFacts, st ActivityState, cause string, undoes *int64) error {
	row := ActivityDecision{ActivityID: st.ActivityID, State: st.State, Until: st.Until, Note: st.Note, Cause: cause,
		UndoesID: undoes, Revision: st.Revision, CreatedAt: t.now.UTC()}
	d := homeDecision{activityID: st.ActivityID, state: st.State, until: st.Until, at: t.now}
	if p := f.Prior; p != nil {
		row.PriorState, row.PriorUntil, row.PriorNote = &p.State, p.Until, p.Note
		d.prior, d.priorUntil, d.priorAt = p.State, p.Until, &p.UpdatedAt
	}
	if err := t.Create(&row).Error; err != nil {
		return err
	}
	t.home.decisions = append(t.home.decisions, d)
	return applyDecision(t, f, st)
}

// UndoResult is what an undo reverted.
type UndoResult struct {
	ActivityID string
	Revision   int64
}

// UndoDecision reverts a decision made on Home within UndoWindow: the
// activity (and a routine its decision settled) returns to the state it had
// before, recorded as new decisions with cause undo, so the agent sees both
// the decision and its undo. Undoing the same decision again changes
// nothing and reports the first undo (a double tap, a resubmitted form).
func (s *Store) UndoDecision(ctx context.Context, decisionID int64) (UndoResult, error) {
	var out UndoResult
	_, err := s.commit(ctx, func(t *txn) error {
		var d ActivityDecision
		if err := t.Where("id = ?", decisionID).Take(&d).Error; err != nil {
			return notFound(err)
		}
		out.ActivityID = d.ActivityID
		var done []ActivityDecision
		if err := t.Where("undoes_id = ?", d.ID).Limit(1).Find(&done).Error; err != nil {
			return err
		}
		if len(done) == 1 {
			out.Revision = done[0].Revision
			return nil
		}
		if d.Cause != CauseHome {
			return ErrNotUndoable
		}
		if t.now.Sub(d.CreatedAt) > UndoWindow {
			return ErrUndoExpired
		}
		// The decision and the routine it settled, newest first, each still
		// the newest word on its activity.
		var chain []ActivityDecision
		if err := t.Where("revision = ? AND id >= ? AND (id = ? OR cause = ?)", d.Revision, d.ID, d.ID, CauseRule).
			Order("id DESC").Find(&chain).Error; err != nil {
			return err
		}
		// A routine a later step settled by rule is reopened too: the step
		// undone is open again, so the routine is not done.
		var parent *string
		if err := t.Model(&Activity{}).Select("parent_id").Where("id = ?", d.ActivityID).Scan(&parent).Error; err != nil {
			return err
		}
		if parent != nil && !slices.ContainsFunc(chain, func(c ActivityDecision) bool { return c.ActivityID == *parent }) {
			var last []ActivityDecision
			if err := t.Where("activity_id = ?", *parent).Order("id DESC").Limit(1).Find(&last).Error; err != nil {
				return err
			}
			if len(last) == 1 && last[0].Cause == CauseRule {
				chain = append([]ActivityDecision{last[0]}, chain...)
			}
		}
		for _, c := range chain {
			var newest int64
			if err := t.Model(&ActivityDecision{}).Select("MAX(id)").Where("activity_id = ?", c.ActivityID).Scan(&newest).Error; err != nil {
				return err
			}
			if newest != c.ID {
				return ErrUndoSuperseded
			}
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		out.Revision = rev
		for _, c := range chain {
			st := ActivityState{ActivityID: c.ActivityID, State: StateAvailable, Revision: rev, UpdatedAt: t.now}
			if c.PriorState != nil {
				st.State, st.Until, st.Note = *c.PriorState, c.PriorUntil, c.PriorNote
			}
			if err := decideBy(t, st, CauseUndo, &d.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return UndoResult{}, Classify("undo", err)
	}
	return out, nil
}

// UndoRefusal returns the owner-facing reason an undo was refused (the
// window passed, a later decision, not a Home decision), or "".
func UndoRefusal(err error) string {
	for _, e := range []error{ErrUndoExpired, ErrUndoSuperseded, ErrNotUndoable} {
		if errors.Is(err, e) {
			return strings.ToUpper(e.Error()[:1]) + e.Error()[1:] + "."
		}
	}
	return ""
}

// UndoOffer is a recent decision on Home that can still be undone.
type UndoOffer struct {
	DecisionID int64
	State      string
	Until      string
	At         time.Time
}

// undoOffers reads the decisions made on Home within UndoWindow that are
// still the newest word on their activity and not undone, by activity.
func undoOffers(tx *gorm.DB, now time.Time) (map[string]*UndoOffer, error) {
	// The columns an offer shows, scanned by hand: GORM's reflective scan
	// of whole decision rows cost more than the query (make bench).
	rows, err := tx.Raw(`SELECT d.activity_id, d.id, d.state, d.until, d.created_at FROM activity_decisions d WHERE d.created_at >= ? AND d.cause = ?
		AND NOT EXISTS (SELECT 1 FROM activity_decisions x WHERE x.activity_id = d.activity_id AND x.id > d.id)`,
		now.Add(-UndoWindow).UTC(), CauseHome).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*UndoOffer{}
	for rows.Next() {
		var activityID string
		var o UndoOffer
		if err := rows.Scan(&activityID, &o.DecisionID, &o.State, &o.Until, &o.At); err != nil {
			return nil, err
		}
		out[activityID] = &o
	}
	return out, rows.Err()
}

// attachUndo sets Undo on rows (and their steps) with an offer.
func attachUndo(rows []HomeRow, offers map[string]*UndoOffer) {
	for i := range rows {
		rows[i].Undo = offers[rows[i].ID]
		attachUndo(rows[i].Children, offers)
	}
}

// LaterItem is an activity the owner moved off Home: deferred to a later
// date, or dismissed recently. Bring back returns it.
type LaterItem struct {
	ID, Title, PersonName string
	State                 string // deferred or dismissed
	Until                 string // the date a deferred item returns
	At                    time.Time
	Undo                  *UndoOffer
}

// LaterLimit bounds the Later list.
const LaterLimit = 50

// laterItems lists what was deferred past today and what was dismissed in
// the last ContextHistory, newest decision first; a dated occurrence of an
// earlier day is left out (bringing it back would not put it on Home).
func laterItems(tx *gorm.DB, day Day, now time.Time) ([]LaterItem, error) {
	// The limit is a literal: SQLite plans around a bound LIMIT's value, so
	// "LIMIT ?" recompiled the statement on every read (make bench). The
	// rows are scanned by hand, not by GORM's reflection.
	rows, err := tx.Raw(`SELECT a.id, a.title, COALESCE(p.name, '') AS person_name, s.state, s.until, s.updated_at AS at
		FROM activity_states s JOIN activities a ON a.id = s.activity_id LEFT JOIN people p ON p.id = a.person_id
		WHERE a.retracted_at IS NULL AND (a.occurrence_date = '' OR a.occurrence_date >= ?)
		  AND ((s.state = 'deferred' AND s.until > ?) OR (s.state = 'dismissed' AND s.updated_at >= ?))
		ORDER BY s.updated_at DESC, a.id LIMIT `+strconv.Itoa(LaterLimit), day.Date, day.Date, now.Add(-contract.ContextHistory).UTC()).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []LaterItem{}
	for rows.Next() {
		var l LaterItem
		if err := rows.Scan(&l.ID, &l.Title, &l.PersonName, &l.State, &l.Until, &l.At); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
