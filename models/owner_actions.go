package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hearth/internal/contract"
	"hearth/internal/instant"
	"hearth/internal/weight"
)

// OwnerActionResult reports the revision an owner action committed.
type OwnerActionResult struct {
	Revision int64
	// Unchanged is set when the action changed nothing (the same wording
	// saved again): Revision is then the current one, not the action's.
	Unchanged bool
	// Answer is the action's row as Home shows it after the commit, read
	// in its transaction, from the services Home's rows call.
	Answer RowAnswer
}

// ErrCompletedElsewhere means the owner asked to mark complete a kind whose
// completion is recorded by its own control: a saved value (measurement) or
// a confirmed send (reply).
var ErrCompletedElsewhere = fmt.Errorf("this kind is completed by its own control: %w", ErrInvalidInput)

// FieldError is invalid input in one field of an owner form (until, note,
// value), said as a sentence, so the form shows it beside that field.
type FieldError struct{ Field, Message string }

func (e *FieldError) Error() string { return e.Message }

// Unwrap makes a FieldError an ErrInvalidInput.
func (e *FieldError) Unwrap() error { return ErrInvalidInput }

// SetActivityState records the owner's decision on an activity. until is a
// YYYY-MM-DD date, required for deferred and refused otherwise. A
// measurement completes by saving a value and a reply by a confirmed send,
// so completed is refused for both; partial applies to routines only.
func (s *Store) SetActivityState(ctx context.Context, activityID, state, until, note string) (OwnerActionResult, error) {
	return s.setActivityState(ctx, "", activityID, state, until, note, false)
}

// setActivityState is SetActivityState with the owner's client key; with
// answer, its result carries Home's answer (a Home row's action).
func (s *Store) setActivityState(ctx context.Context, clientKey, activityID, state, until, note string, answer bool) (OwnerActionResult, error) {
	if !slices.Contains(States, state) {
		return OwnerActionResult{}, fmt.Errorf("models: state must be one of %s: %w", strings.Join(States, ", "), ErrInvalidInput)
	}
	if state == StateDeferred && until == "" {
		return OwnerActionResult{}, &FieldError{Field: "until", Message: "A date is needed to defer: choose one."}
	}
	if state != StateDeferred && until != "" {
		return OwnerActionResult{}, fmt.Errorf("models: a date is needed exactly when deferring: %w", ErrInvalidInput)
	}
	if until != "" {
		if _, err := instant.ParseDate(until); err != nil {
			return OwnerActionResult{}, &FieldError{Field: "until", Message: "Enter a defer date from 2000-01-01 to 2199-12-31, as YYYY-MM-DD."}
		}
	}
	if utf8.RuneCountInString(note) > contract.MaxReasonLen {
		return OwnerActionResult{}, &FieldError{Field: "note", Message: fmt.Sprintf("The reason is longer than %d characters.", contract.MaxReasonLen)}
	}
	action := stateAction(activityID, state, until, note)
	var out OwnerActionResult
	_, err := s.commit(ctx, func(t *txn) error {
		replay, err := replayed(t, clientKey, action)
		if err != nil {
			return err
		}
		f, err := readDecisionFacts(t.DB, activityID)
		if err != nil {
			return err
		}
		if replay != 0 {
			// The answer the first send had: its revision, the row as it is now.
			out.Revision = replay
			return answerInto(t, answer, &out.Answer, activityID, f.ParentID)
		}
		switch {
		case state == StateCompleted && f.Kind == contract.KindMeasurement:
			return fmt.Errorf("a measurement is completed by saving its value, not by marking it complete: %w", ErrCompletedElsewhere)
		case state == StateCompleted && f.Kind == contract.KindReply:
			return fmt.Errorf("a reply is completed by a confirmed send, not by marking it complete: %w", ErrCompletedElsewhere)
		case state == StatePartial && f.Kind != contract.KindRoutine:
			return fmt.Errorf("only a routine can be partly done; a %s is completed, skipped or dismissed: %w", f.Kind, ErrInvalidInput)
		case state == StateDismissed && note == "" && f.Occurrence != nil:
			// For a routine occurrence, dismissed means not applicable, which leaves the denominator: say why.
			return &FieldError{Field: "note", Message: "Not applicable needs a reason: say why."}
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		if err := spendClientKey(t, clientKey, action, rev); err != nil {
			return err
		}
		st := ActivityState{ActivityID: activityID, State: state, Until: until, Note: note, Revision: rev, UpdatedAt: t.now}
		if err := decideWith(t, f, st, CauseHome, nil); err != nil {
			return err
		}
		out.Revision = rev
		return answerInto(t, answer, &out.Answer, activityID, f.ParentID)
	})
	if err != nil {
		return OwnerActionResult{}, Classify("set activity state", err)
	}
	return out, nil
}

// SaveDraftEdit stores the owner's wording of a reply draft. Saving the
// wording already stored changes nothing and keeps the revision, so opening
// the review screen again does not make the agent's next publish stale.
func (s *Store) SaveDraftEdit(ctx context.Context, draftID, body, selectedCandidateID string) (OwnerActionResult, error) {
	return s.saveDraftEdit(ctx, draftID, body, selectedCandidateID, nil, "")
}

// ErrEditChanged means the owner's edit of a draft is no longer the one an
// autosave started from: another tab or device saved a newer one.
var ErrEditChanged = errors.New("this reply was edited elsewhere since it was opened")

// saveDraftEdit is SaveDraftEdit; with since set, only while the stored
// edit is still the one at that revision (0: none yet), so an autosave
// never overwrites a newer edit made elsewhere. With activity (a Home
// row), the result carries that row's answer.
func (s *Store) saveDraftEdit(ctx context.Context, draftID, body, selectedCandidateID string, since *int64, activity string) (OwnerActionResult, error) {
	if err := checkReplyBody(body); err != nil {
		return OwnerActionResult{}, err
	}
	var answer RowAnswer
	rev, err := s.commit(ctx, func(t *txn) error {
		if err := saveDraftEditIn(t, draftID, body, selectedCandidateID, since); err != nil || activity == "" {
			return err
		}
		var a []Activity
		if err := t.Select("parent_id").Where("id = ?", activity).Limit(1).Find(&a).Error; err != nil || len(a) == 0 {
			return err
		}
		var err error
		answer, err = answerIn(t, activity, a[0].ParentID)
		return err
	})
	if err != nil {
		return OwnerActionResult{}, Classify("save draft edit", err)
	}
	if rev == 0 {
		return OwnerActionResult{Revision: s.LatestRevision(), Unchanged: true, Answer: answer}, nil
	}
	return OwnerActionResult{Revision: rev, Answer: answer}, nil
}

// saveDraftEditIn is saveDraftEdit's write inside t.
func saveDraftEditIn(t *txn, draftID, body, selectedCandidateID string, since *int64) error {
	if err := mustExist(t.DB, &ReplyDraft{}, draftID); err != nil {
		return err
	}
	var prior []DraftEdit
	if err := t.Where("draft_id = ?", draftID).Limit(1).Find(&prior).Error; err != nil {
		return err
	}
	if since != nil {
		var at int64
		if len(prior) == 1 {
			at = prior[0].Revision
		}
		if at != *since {
			return ErrEditChanged
		}
	}
	if len(prior) == 1 && prior[0].Body == body && prior[0].SelectedCandidateID == selectedCandidateID {
		return nil
	}
	rev, err := t.bump()
	if err != nil {
		return err
	}
	t.touch("draft:" + draftID)
	t.home.drafts = append(t.home.drafts, draftID)
	return t.Save(&DraftEdit{DraftID: draftID, Body: body, SelectedCandidateID: selectedCandidateID, Revision: rev, UpdatedAt: t.now}).Error
}

// RecordMeasurement saves a value for a measurement activity's occurrence.
// Saving again for the same occurrence adds a correction that supersedes the
// earlier row; history is kept.
func (s *Store) RecordMeasurement(ctx context.Context, activityID string, value float64) (Measurement, error) {
	m, err := s.recordMeasurement(ctx, "", activityID, value, false)
	return m.Measurement, err
}

// SavedMeasurement is a value saved on Home, with Home's answer (the
// row, read in the same transaction).
type SavedMeasurement struct {
	Measurement
	Answer RowAnswer
}

func (s *Store) recordMeasurement(ctx context.Context, clientKey, activityID string, value float64, answer bool) (SavedMeasurement, error) {
	var out SavedMeasurement
	m := &out.Measurement
	action := measurementAction(activityID, value)
	_, err := s.commit(ctx, func(t *txn) error {
		var a Activity
		if replay, err := replayed(t, clientKey, action); err != nil {
			return err
		} else if replay != 0 {
			// The answer the first send had: the row saved at that revision.
			if err := t.Where("activity_id = ? AND revision = ?", activityID, replay).Take(m).Error; err != nil {
				return err
			}
			if err := t.Select("parent_id").Where("id = ?", activityID).Take(&a).Error; err != nil {
				return notFound(err)
			}
			return answerInto(t, answer, &out.Answer, activityID, a.ParentID)
		}
		if err := t.Where("id = ?", activityID).Take(&a).Error; err != nil {
			return notFound(err)
		}
		if a.Kind != contract.KindMeasurement {
			return fmt.Errorf("activity %q is a %s, not a measurement: %w", activityID, a.Kind, ErrInvalidInput)
		}
		var p contract.MeasurementPayload
		if err := decodeJSON(a.Payload, &p); err != nil {
			return err
		}
		bounds := weight.Bounds[p.Unit]
		if math.IsNaN(value) || value < bounds[0] || value > bounds[1] {
			return &FieldError{Field: "value", Message: fmt.Sprintf("%s must be between %g and %g %s.", metricName(p.Metric), bounds[0], bounds[1], p.Unit)}
		}
		var prior Measurement
		if err := t.Where("activity_id = ? AND occurrence_key = ?", activityID, a.OccurrenceKey).
			Order("id DESC").Limit(1).Find(&prior).Error; err != nil {
			return err
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		*m = Measurement{ActivityID: activityID, OccurrenceKey: a.OccurrenceKey, Metric: p.Metric, Unit: p.Unit, Value: value, Revision: rev, RecordedAt: t.now}
		if prior.ID != 0 {
			m.SupersedesID = &prior.ID
		}
		if err := t.Create(m).Error; err != nil {
			return err
		}
		t.home.metrics = append(t.home.metrics, p.Metric)
		if err := spendClientKey(t, clientKey, action, rev); err != nil {
			return err
		}
		if err := decideBy(t, ActivityState{ActivityID: activityID, State: StateCompleted, Revision: rev, UpdatedAt: t.now}, CauseValue, nil); err != nil {
			return err
		}
		if p.Metric == WeightMetric {
			day, err := t.ownerDay()
			if err != nil {
				return err
			}
			if err := creditWeighIns(t, day, rev); err != nil {
				return err
			}
		}
		return answerInto(t, answer, &out.Answer, activityID, a.ParentID)
	})
	if err != nil {
		return SavedMeasurement{}, Classify("record measurement", err)
	}
	return out, nil
}

// metricName is a metric as a sentence starts with it.
func metricName(metric string) string {
	if metric == "" {
		return "The value"
	}
	return strings.ToUpper(metric[:1]) + metric[1:]
}

// notFound maps GORM's missing-row error to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return ErrNotFound
	}
	return err
}

func mustExist(tx *gorm.DB, model any, id string) error {
	var n int64
	if err := tx.Model(model).Where("id = ?", id).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// decide records an owner decision made outside Home (cause owner): see decideBy.
func decide(t *txn, st ActivityState) error { return decideBy(t, st, CauseOwner, nil) }

// applyDecision stores the owner's state for an activity (f, its facts)
// inside t, keeps closed_at in step with it (unless the agent retracted the
// row), settles the routine the activity is a step of when this was its
// last open step, and names what changed.
func applyDecision(t *txn, f decisionFacts, st ActivityState) error {
	// One upsert: Save's UPDATE then INSERT was two statements for a first decision.
	if err := t.Clauses(clause.OnConflict{UpdateAll: true}).Create(&st).Error; err != nil {
		return err
	}
	t.touch("activity:" + st.ActivityID)
	if err := recordOccurrenceOutcome(t, f.Occurrence, st); err != nil {
		return err
	}
	closed := gorm.Expr("retracted_at")
	if settled(st.State) {
		closed = gorm.Expr("COALESCE(retracted_at, ?)", st.UpdatedAt)
	}
	if err := t.Model(&Activity{}).Where("id = ?", st.ActivityID).Update("closed_at", closed).Error; err != nil {
		return err
	}
	return settleRoutineIfDone(t, f, st.Revision)
}

// settleRoutineIfDone settles the routine that a step (f, its facts) is a
// step of once none of its steps is open, with the outcome its steps earned
// (docs/contract.md, Routines: partial completion is recorded honestly,
// never as full completion). Dismissed steps have left the routine; of the
// rest, completed means every one was completed, partial that some were
// and others were skipped, and skipped that none was. A routine the owner
// already settled keeps the owner's word.
func settleRoutineIfDone(t *txn, f decisionFacts, rev int64) error {
	if f.ParentID == nil {
		return nil
	}
	parent := *f.ParentID
	// An occurrence settles by its frozen rule, reading its own steps.
	if rule := f.ParentRule; rule != nil {
		// A step's state or value changes its routine's step counts.
		t.touchRoutine(rule.routine, rule.revision, rule.date)
		return settleOccurrence(t, parent, *rule, f.ParentState, rev)
	}
	if settled(f.ParentState) {
		return nil
	}
	var steps []struct {
		State string
		N     int
	}
	err := t.Raw(`SELECT COALESCE(s.state, 'available') AS state, COUNT(*) AS n FROM activities a
		LEFT JOIN activity_states s ON s.activity_id = a.id
		WHERE a.parent_id = ? AND a.retracted_at IS NULL GROUP BY 1`, parent).Scan(&steps).Error
	if err != nil {
		return err
	}
	var completed, notDone int
	for _, st := range steps {
		switch st.State {
		case StateCompleted:
			completed += st.N
		case StateSkipped, StatePartial:
			notDone += st.N
		case StateDismissed:
		default:
			return nil // a step is still open
		}
	}
	outcome, note := StateCompleted, "every step completed"
	switch {
	case completed == 0:
		outcome, note = StateSkipped, "no step completed"
	case notDone > 0:
		outcome, note = StatePartial, fmt.Sprintf("%d of %d steps completed", completed, completed+notDone)
	}
	return decideBy(t, ActivityState{ActivityID: parent, State: outcome, Note: note, Revision: rev, UpdatedAt: t.now}, CauseRule, nil)
}

// settleOccurrence settles a routine occurrence by its frozen rule: as soon
// as the rule is met it is completed (optional steps may stay open); once no
// step is open and the rule is not met it is partial when some step was
// completed, skipped when none was. An outcome the owner recorded (current,
// the routine's state) stands.
func settleOccurrence(t *txn, routineID string, rule frozenRule, current string, rev int64) error {
	if settled(current) || current == StateDeferred {
		return nil
	}
	var rows []struct {
		ID    string
		State string
	}
	if err := t.Raw(`SELECT a.id, COALESCE(s.state, 'available') AS state FROM activities a
		LEFT JOIN activity_states s ON s.activity_id = a.id WHERE a.parent_id = ? AND a.retracted_at IS NULL`, routineID).Scan(&rows).Error; err != nil {
		return err
	}
	completed, open := map[string]bool{}, 0
	for _, r := range rows {
		switch {
		case r.State == StateCompleted:
			completed[r.ID] = true
		case !settled(r.State):
			open++
		}
	}
	outcome, note := "", ""
	switch {
	case rule.met(completed):
		outcome, note = StateCompleted, fmt.Sprintf("%d of %d steps completed", len(completed), len(rule.Steps))
	case open > 0:
		return nil
	case len(completed) > 0:
		outcome, note = StatePartial, fmt.Sprintf("%d of %d steps completed; the rule was not met", len(completed), len(rule.Steps))
	default:
		outcome, note = StateSkipped, "no step completed"
	}
	return decideBy(t, ActivityState{ActivityID: routineID, State: outcome, Note: note, Revision: rev, UpdatedAt: t.now}, CauseRule, nil)
}
