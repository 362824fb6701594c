package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hearth/internal/contract"
	"hearth/internal/instant"
	"hearth/internal/routinecount"
	"hearth/internal/zone"
)

// Occurrence outcomes (internal/routinecount counts them). Unrecorded is
// computed (an applicable day that ended with no outcome), never stored as
// a choice.
const (
	OutcomeCompleted     = routinecount.OutcomeCompleted
	OutcomePartial       = routinecount.OutcomePartial
	OutcomeSkipped       = routinecount.OutcomeSkipped
	OutcomeDeferred      = routinecount.OutcomeDeferred
	OutcomeNotApplicable = routinecount.OutcomeNotApplicable
	OutcomeUnrecorded    = routinecount.OutcomeUnrecorded
	// OutcomeOpen is an applicable occasion whose day has not ended yet.
	OutcomeOpen = routinecount.OutcomeOpen
)

// Trial bounds: the review window the owner chooses.
const (
	DefaultTrialDays = 14
	MaxTrialDays     = 90
)

// RoutineDefinition is one stored revision of a routine.
type RoutineDefinition struct {
	RoutineID         string `gorm:"primaryKey"`
	Revision          int64  `gorm:"primaryKey"`
	Title             string
	Purpose           string
	TriggerKind       string
	TriggerDays       string
	TriggerEvent      string
	TimeOfDay         string
	Steps             string
	CompletionRule    string
	Status            string
	EvidenceIDs       string
	ContentHash       string
	PublishedRevision int64
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// RoutineTrial is the owner's decision to try a revision.
type RoutineTrial struct {
	ID         int64 `gorm:"primaryKey"`
	RoutineID  string
	Revision   int64
	Days       string
	Zone       string
	StartsOn   string
	EndsOn     string
	EndedOn    string
	State      string
	RevisionAt int64
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// LastDay is the trial's last applicable day: the window's end, or the day
// the owner ended it.
func (t RoutineTrial) LastDay() string { return lastDay(t.EndsOn, t.EndedOn) }

// lastDay is a window's end, or the day it was ended early.
func lastDay(endsOn, endedOn string) string {
	if endedOn != "" && endedOn < endsOn {
		return endedOn
	}
	return endsOn
}

// RoutineOccurrence is one applicable occasion of a routine, frozen to the
// revision and rule it was instantiated with.
type RoutineOccurrence struct {
	ID         string `gorm:"primaryKey"`
	RoutineID  string
	Revision   int64
	TrialID    int64
	Occasion   string
	LocalDate  string
	Zone       string
	Rule       string
	ActivityID string
	CreatedAt  time.Time
}

// RoutineOutcome is one recorded outcome; the newest row of an occurrence is current.
type RoutineOutcome struct {
	ID           int64 `gorm:"primaryKey"`
	OccurrenceID string
	Outcome      string
	Reason       string
	Effort       string
	Helped       string
	Late         bool
	Revision     int64
	RecordedAt   time.Time
}

// frozenRule is an occurrence's completion rule with its required steps (activity IDs).
type frozenRule struct {
	Kind     string   `json:"kind"`
	N        int      `json:"n,omitempty"`
	Steps    []string `json:"steps"`
	Required []string `json:"required"`

	// The occurrence's routine, revision and date; not stored.
	routine  string
	revision int64
	date     string
}

// Routine errors handlers map to statuses.
var (
	ErrTrialNotActive = errors.New("the trial is not active")
	ErrNoOutcomeYet   = errors.New("record an outcome before feedback")
)

// TrialCommand is the owner's Try: which revision, on which weekdays, for how long.
type TrialCommand struct {
	RoutineID  string
	Revision   int64
	Days       []int // ISO weekdays; empty means the definition's days, or every day
	WindowDays int   // 0 means DefaultTrialDays
}

// StartTrial starts trying a routine revision from today (or tomorrow, when
// today already has an occurrence), ending the routine's active trial. Only
// the owner calls it; importing a definition never activates anything.
func (s *Store) StartTrial(ctx context.Context, cmd TrialCommand) (RoutineTrial, error) {
	if cmd.WindowDays == 0 {
		cmd.WindowDays = DefaultTrialDays
	}
	if cmd.WindowDays < 1 || cmd.WindowDays > MaxTrialDays {
		return RoutineTrial{}, &FieldError{Field: "windowDays", Message: fmt.Sprintf("A review window is 1 to %d days.", MaxTrialDays)}
	}
	for _, d := range cmd.Days {
		if d < 1 || d > 7 {
			return RoutineTrial{}, &FieldError{Field: "days", Message: "Days are weekdays, Monday to Sunday."}
		}
	}
	var trial RoutineTrial
	_, err := s.commit(ctx, func(t *txn) error {
		var def RoutineDefinition
		if err := t.Where("routine_id = ? AND revision = ?", cmd.RoutineID, cmd.Revision).Take(&def).Error; err != nil {
			return notFound(err)
		}
		if def.Status == contract.RoutineRetired {
			return &FieldError{Field: "revision", Message: fmt.Sprintf("Version %d is retired: choose another.", cmd.Revision)}
		}
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		days := slices.Clone(cmd.Days)
		if len(days) == 0 {
			_ = json.Unmarshal([]byte(def.TriggerDays), &days)
		}
		if len(days) == 0 {
			days = []int{1, 2, 3, 4, 5, 6, 7}
		}
		slices.Sort(days)
		days = slices.Compact(days)
		rev, err := t.bump()
		if err != nil {
			return err
		}
		busy, err := occurrenceOn(t.DB, cmd.RoutineID, day.Date)
		if err != nil {
			return err
		}
		start := day.Date
		if busy {
			start = day.Tomorrow
		}
		if err := endActiveTrial(t, cmd.RoutineID, day, busy); err != nil {
			return err
		}
		first, _ := time.Parse(time.DateOnly, start)
		trial = RoutineTrial{RoutineID: cmd.RoutineID, Revision: cmd.Revision, Days: jsonText(days), Zone: day.Zone.String(),
			StartsOn: start, EndsOn: first.AddDate(0, 0, cmd.WindowDays-1).Format(time.DateOnly), State: "active",
			RevisionAt: rev, CreatedAt: t.now, UpdatedAt: t.now}
		t.touchRoutine(cmd.RoutineID, 0, "")
		if err := t.Create(&trial).Error; err != nil {
			return err
		}
		_, err = ensureOccurrences(t, day)
		return err
	})
	if err != nil {
		return RoutineTrial{}, Classify("start trial", err)
	}
	return trial, nil
}

// occurrenceOn reports whether the routine has an occurrence dated date.
func occurrenceOn(tx *gorm.DB, routineID, date string) (bool, error) {
	var n int64
	err := tx.Model(&RoutineOccurrence{}).Where("routine_id = ? AND local_date = ?", routineID, date).Count(&n).Error
	return n > 0, err
}

// endActiveTrial ends the routine's active trial: through today when today
// already has its occurrence (busy), else through yesterday.
func endActiveTrial(t *txn, routineID string, day Day, busy bool) error {
	var active []RoutineTrial
	if err := t.Where("routine_id = ? AND state = 'active'", routineID).Find(&active).Error; err != nil || len(active) == 0 {
		return err
	}
	last := day.Date
	if !busy {
		today, _ := time.Parse(time.DateOnly, day.Date)
		last = today.AddDate(0, 0, -1).Format(time.DateOnly)
	}
	tr := active[0]
	tr.State, tr.UpdatedAt = "ended", t.now
	if last < tr.LastDay() {
		tr.EndedOn = last
	}
	return t.Save(&tr).Error
}

// EndTrial ends an active trial early; its history and counts stay.
func (s *Store) EndTrial(ctx context.Context, trialID int64) error {
	_, err := s.commit(ctx, func(t *txn) error {
		var tr RoutineTrial
		if err := t.Take(&tr, trialID).Error; err != nil {
			return notFound(err)
		}
		if tr.State != "active" {
			return ErrTrialNotActive
		}
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		if _, err := t.bump(); err != nil {
			return err
		}
		t.touchRoutine(tr.RoutineID, 0, "")
		busy, err := occurrenceOn(t.DB, tr.RoutineID, day.Date)
		if err != nil {
			return err
		}
		return endActiveTrial(t, tr.RoutineID, day, busy)
	})
	if err != nil && !errors.Is(err, ErrTrialNotActive) {
		return Classify("end trial", err)
	}
	return err
}

// ExtendTrial moves an active trial's window end by days.
func (s *Store) ExtendTrial(ctx context.Context, trialID int64, days int) error {
	if days < 1 || days > MaxTrialDays {
		return fmt.Errorf("models: extend by 1-%d days: %w", MaxTrialDays, ErrInvalidInput)
	}
	_, err := s.commit(ctx, func(t *txn) error {
		var tr RoutineTrial
		if err := t.Take(&tr, trialID).Error; err != nil {
			return notFound(err)
		}
		if tr.State != "active" {
			return ErrTrialNotActive
		}
		end, _ := time.Parse(time.DateOnly, tr.EndsOn)
		start, _ := time.Parse(time.DateOnly, tr.StartsOn)
		newEnd := end.AddDate(0, 0, days)
		if newEnd.Sub(start) >= 366*24*time.Hour {
			return fmt.Errorf("a trial runs at most a year: %w", ErrInvalidInput)
		}
		if _, err := t.bump(); err != nil {
			return err
		}
		t.touchRoutine(tr.RoutineID, tr.Revision, "")
		tr.EndsOn, tr.UpdatedAt = newEnd.Format(time.DateOnly), t.now
		if err := t.Save(&tr).Error; err != nil {
			return err
		}
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		_, err = ensureOccurrences(t, day)
		return err
	})
	if err != nil && !errors.Is(err, ErrTrialNotActive) {
		return Classify("extend trial", err)
	}
	return err
}

// EnsureOccurrences instantiates today's occurrences of every active
// daily or weekly trial, in the owner's zone. It is idempotent under
// concurrent callers (serve's ticker, Home) and never backfills earlier
// days: a day that passed without an occurrence is unrecorded, not a backlog.
func (s *Store) EnsureOccurrences(ctx context.Context) (created int, err error) {
	var missing bool
	err = s.Read(ctx, func(tx *gorm.DB) error {
		day, err := OwnerDay(tx, s.clock(), "")
		if err != nil {
			return err
		}
		_, missing, err = routineDay(tx, day)
		return err
	})
	if err != nil || !missing {
		return 0, err
	}
	_, err = s.commit(ctx, func(t *txn) error {
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		created, err = ensureOccurrences(t, day)
		return err
	})
	if err != nil {
		return 0, Classify("ensure occurrences", err)
	}
	return created, nil
}

// ensureOccurrences creates day's missing occurrences of active daily and
// weekly trials inside t, and says how many it created.
func ensureOccurrences(t *txn, day Day) (int, error) {
	created := 0
	err := eachTrialToday(t, day, func(def RoutineDefinition, tr RoutineTrial) error {
		if def.TriggerKind == contract.TriggerEvent {
			return nil
		}
		made, err := instantiate(t, def, tr, day, day.Date)
		if made {
			created++
		}
		return err
	})
	return created, err
}

// eachTrialToday calls fn with each active trial that plans day, and the
// revision it tries.
func eachTrialToday(t *txn, day Day, fn func(RoutineDefinition, RoutineTrial) error) error {
	var trials []RoutineTrial
	if err := t.Where("state = 'active' AND starts_on <= ? AND ends_on >= ?", day.Date, day.Date).Find(&trials).Error; err != nil {
		return err
	}
	for _, tr := range trials {
		if !trialApplies(tr, day.Date) {
			continue
		}
		var def RoutineDefinition
		if err := t.Where("routine_id = ? AND revision = ?", tr.RoutineID, tr.Revision).Take(&def).Error; err != nil {
			return err
		}
		if err := fn(def, tr); err != nil {
			return err
		}
	}
	return nil
}

// trialApplies reports whether a trial plans an occasion on date.
func trialApplies(tr RoutineTrial, date string) bool {
	if date < tr.StartsOn || date > tr.LastDay() {
		return false
	}
	d, err := time.Parse(time.DateOnly, date)
	return err == nil && routinecount.Weekdays(tr.Days)[routinecount.ISOWeekday(d)]
}

// TriggerEvent instantiates the occurrences of active event routines for
// event (start-work, end-work) today. The occasion is the day and event, so
// a double tap, or a second device, makes one occurrence.
func (s *Store) TriggerEvent(ctx context.Context, event string) (int, error) {
	if event != contract.EventStartWork && event != contract.EventEndWork {
		return 0, fmt.Errorf("models: event must be start-work or end-work: %w", ErrInvalidInput)
	}
	created := 0
	_, err := s.commit(ctx, func(t *txn) error {
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		return eachTrialToday(t, day, func(def RoutineDefinition, tr RoutineTrial) error {
			if def.TriggerKind != contract.TriggerEvent || def.TriggerEvent != event {
				return nil
			}
			made, err := instantiate(t, def, tr, day, day.Date+"."+event)
			if made {
				created++
			}
			return err
		})
	})
	if err != nil {
		return 0, Classify("trigger event", err)
	}
	return created, nil
}

// OccurrenceID is the stable identity of a routine's occasion.
func OccurrenceID(routineID, occasion string) string { return routineID + "@" + occasion }

// occurrenceActivityID is the routine activity of an occurrence on Home;
// its steps add ":<step ID>".
func occurrenceActivityID(occurrenceID string) string { return contract.HearthIDPrefix + occurrenceID }

// OccurrenceActivityID is the ID of an occurrence's routine activity on Home.
func OccurrenceActivityID(occurrenceID string) string { return occurrenceActivityID(occurrenceID) }

// instantiate creates the occurrence of def for occasion (a date, or a date
// and event) with its routine activity and one child activity per step,
// unless the routine already has that occasion, whatever its revision.
func instantiate(t *txn, def RoutineDefinition, tr RoutineTrial, day Day, occasion string) (bool, error) {
	occID := OccurrenceID(def.RoutineID, occasion)
	var n int64
	if err := t.Model(&RoutineOccurrence{}).Where("routine_id = ? AND occasion = ?", def.RoutineID, occasion).Count(&n).Error; err != nil || n > 0 {
		return false, err
	}
	rev, err := t.bump()
	if err != nil {
		return false, err
	}
	var steps []contract.RoutineStep
	if err := json.Unmarshal([]byte(def.Steps), &steps); err != nil {
		return false, fmt.Errorf("stored steps of %s@%d: %w", def.RoutineID, def.Revision, err)
	}
	var rule contract.CompletionRule
	if err := json.Unmarshal([]byte(def.CompletionRule), &rule); err != nil {
		return false, fmt.Errorf("stored rule of %s@%d: %w", def.RoutineID, def.Revision, err)
	}
	date, _, _ := strings.Cut(occasion, ".")
	key := date + "@" + day.Zone.String()
	parent := occurrenceActivityID(occID)
	frozen := frozenRule{Kind: rule.Kind, Steps: []string{}, Required: []string{}}
	if rule.N != nil {
		frozen.N = *rule.N
	}
	rank := int64(0)
	if hh, mm, ok := strings.Cut(def.TimeOfDay, ":"); ok {
		var h, m int64
		fmt.Sscan(hh, &h)
		fmt.Sscan(mm, &m)
		rank = h*60 + m
	}
	rows := [][]any{{parent, contract.KindRoutine, def.Title, def.Purpose, nil, nil, nil, key, "routine", rank, "", "{}", def.EvidenceIDs, rev, t.now, t.now}}
	for i, st := range steps {
		id := parent + ":" + st.ID
		frozen.Steps = append(frozen.Steps, id)
		if st.Required {
			frozen.Required = append(frozen.Required, id)
		}
		rows = append(rows, []any{id, st.Kind, st.Title, "", nil, parent, nil, key, "routine", int64(i), "", string(st.Payload), "[]", rev, t.now, t.now})
	}
	if err := execRows(t.DB, insertOccurrenceActivity, rows); err != nil {
		return false, err
	}
	occ := RoutineOccurrence{ID: occID, RoutineID: def.RoutineID, Revision: def.Revision, TrialID: tr.ID, Occasion: occasion,
		LocalDate: date, Zone: day.Zone.String(), Rule: jsonText(frozen), ActivityID: parent, CreatedAt: t.now}
	res := t.Clauses(clause.OnConflict{DoNothing: true}).Create(&occ)
	if res.Error != nil {
		return false, res.Error
	}
	t.touch("activity:" + parent)
	t.touchRoutine(def.RoutineID, def.Revision, date)
	// A weigh-in already recorded today counts for this routine's step too.
	if err := creditWeighIns(t, day, rev); err != nil {
		return false, err
	}
	return res.RowsAffected == 1, nil
}

// insertOccurrenceActivity never overwrites: an occurrence's activities are
// created once.
const insertOccurrenceActivity = `INSERT INTO activities (id, kind, title, detail, person_id, parent_id, draft_id, occurrence_key,
		section, rank, reason, payload, evidence_ids, revision, created_at, updated_at) VALUES VALUES_ROWS
	ON CONFLICT (id) DO NOTHING`

// stateOutcomes maps an owner state of an occurrence's routine activity to
// its outcome; a state that reopens it clears the outcome ("").
var stateOutcomes = map[string]string{
	StateCompleted: OutcomeCompleted, StatePartial: OutcomePartial, StateSkipped: OutcomeSkipped,
	StateDeferred: OutcomeDeferred, StateDismissed: OutcomeNotApplicable,
}

// recordOccurrenceOutcome appends the outcome an owner state means when
// st's activity is an occurrence's routine activity (o; nil for any other
// activity). It runs inside decide,
// so every way of settling a routine (its steps, Skip, Not applicable, a
// correction) leaves the same history.
func recordOccurrenceOutcome(t *txn, o *RoutineOccurrence, st ActivityState) error {
	if o == nil {
		return nil
	}
	day, err := t.ownerDay()
	if err != nil {
		return err
	}
	row := RoutineOutcome{OccurrenceID: o.ID, Outcome: stateOutcomes[st.State], Reason: st.Note, Late: o.LocalDate < day.Date,
		Revision: st.Revision, RecordedAt: t.now}
	t.touchRoutine(o.RoutineID, o.Revision, o.LocalDate)
	return t.Create(&row).Error
}

// met reports whether completed step activities satisfy a frozen rule.
func (r frozenRule) met(completed map[string]bool) bool {
	if r.Kind == contract.RuleMinSteps {
		return len(completed) >= r.N
	}
	for _, id := range r.Required {
		if !completed[id] {
			return false
		}
	}
	return len(r.Required) > 0 || len(completed) == len(r.Steps)
}

// RecordFeedback adds the owner's one-tap feedback (effort: easy, ok, hard;
// helped: yes, no, unsure) to an occurrence's current outcome, as a new
// row so history is kept. An empty value keeps the earlier answer.
func (s *Store) RecordFeedback(ctx context.Context, occurrenceID, effort, helped string) error {
	_, err := s.recordFeedback(ctx, occurrenceID, effort, helped, false)
	return err
}

// RecordFeedbackAt is RecordFeedback as Home's occurrence row sends it:
// answered with the revision it committed and the row (its Answer).
func (s *Store) RecordFeedbackAt(ctx context.Context, occurrenceID, effort, helped string) (OwnerActionResult, error) {
	return s.recordFeedback(ctx, occurrenceID, effort, helped, true)
}

func (s *Store) recordFeedback(ctx context.Context, occurrenceID, effort, helped string, answer bool) (OwnerActionResult, error) {
	if !slices.Contains([]string{"", "easy", "ok", "hard"}, effort) || !slices.Contains([]string{"", "yes", "no", "unsure"}, helped) {
		return OwnerActionResult{}, fmt.Errorf("models: effort is easy, ok or hard; helped is yes, no or unsure: %w", ErrInvalidInput)
	}
	var out OwnerActionResult
	rev, err := s.commit(ctx, func(t *txn) error {
		var occ RoutineOccurrence
		if err := t.Take(&occ, "id = ?", occurrenceID).Error; err != nil {
			return notFound(err)
		}
		var last []RoutineOutcome
		if err := t.Where("occurrence_id = ?", occurrenceID).Order("id DESC").Limit(1).Find(&last).Error; err != nil {
			return err
		}
		if len(last) == 0 || last[0].Outcome == "" {
			return ErrNoOutcomeYet
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		row := last[0]
		row.ID, row.Revision, row.RecordedAt = 0, rev, t.now
		if effort != "" {
			row.Effort = effort
		}
		if helped != "" {
			row.Helped = helped
		}
		t.touch("activity:" + occ.ActivityID)
		t.touchRoutine(occ.RoutineID, occ.Revision, occ.LocalDate)
		t.home.feedback = append(t.home.feedback, occ.ActivityID)
		if err := t.Create(&row).Error; err != nil {
			return err
		}
		return answerInto(t, answer, &out.Answer, occ.ActivityID, nil)
	})
	if err != nil && !errors.Is(err, ErrNoOutcomeYet) {
		return OwnerActionResult{}, Classify("record feedback", err)
	}
	out.Revision = rev
	return out, err
}

// PastOutcomeCommand records the outcome of an earlier day of the current
// review window ("I did it yesterday").
type PastOutcomeCommand struct {
	RoutineID string
	Date      string // YYYY-MM-DD, before today, inside the trial's window
	Outcome   string // completed, partial, skipped, not-applicable
	Reason    string
}

// RecordPastOutcome records an earlier day's outcome. It instantiates that
// day's occurrence when it was never created (the owner did not open Home),
// with the revision the trial tried, and keeps when it was recorded.
func (s *Store) RecordPastOutcome(ctx context.Context, cmd PastOutcomeCommand) error {
	state := map[string]string{OutcomeCompleted: StateCompleted, OutcomePartial: StatePartial, OutcomeSkipped: StateSkipped,
		OutcomeNotApplicable: StateDismissed}[cmd.Outcome]
	if state == "" {
		return &FieldError{Field: "outcome", Message: "An earlier day's outcome is completed, partial, skipped or not applicable."}
	}
	if cmd.Outcome == OutcomeNotApplicable && strings.TrimSpace(cmd.Reason) == "" {
		return &FieldError{Field: "reason", Message: "Not applicable needs a reason: say why."}
	}
	if utf8.RuneCountInString(cmd.Reason) > contract.MaxReasonLen {
		return &FieldError{Field: "reason", Message: fmt.Sprintf("The reason is longer than %d characters.", contract.MaxReasonLen)}
	}
	if _, err := instant.ParseDate(cmd.Date); err != nil {
		return &FieldError{Field: "date", Message: "Enter a date from 2000-01-01 to 2199-12-31, as YYYY-MM-DD."}
	}
	_, err := s.commit(ctx, func(t *txn) error {
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		if cmd.Date >= day.Date {
			return &FieldError{Field: "date", Message: "Record today's outcome on Home; this form is for earlier days."}
		}
		var trials []RoutineTrial
		if err := t.Where("routine_id = ?", cmd.RoutineID).Order("id DESC").Find(&trials).Error; err != nil {
			return err
		}
		i := slices.IndexFunc(trials, func(tr RoutineTrial) bool { return trialApplies(tr, cmd.Date) })
		if i < 0 || (trials[i].State != "active" && trials[i].LastDay() < day.Date && !withinReview(trials[i], day)) {
			return &FieldError{Field: "date", Message: "That day is not a planned day of a current review window."}
		}
		tr := trials[i]
		var def RoutineDefinition
		if err := t.Where("routine_id = ? AND revision = ?", tr.RoutineID, tr.Revision).Take(&def).Error; err != nil {
			return err
		}
		if def.TriggerKind == contract.TriggerEvent {
			return &FieldError{Field: "date", Message: "An event routine's days come from its event, not from a date."}
		}
		loc, err := zone.Load(tr.Zone)
		if err != nil {
			loc = day.Zone
		}
		if _, err := instantiate(t, def, tr, Day{Date: cmd.Date, Zone: loc}, cmd.Date); err != nil {
			return err
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		act := occurrenceActivityID(OccurrenceID(cmd.RoutineID, cmd.Date))
		return decide(t, ActivityState{ActivityID: act, State: state, Note: strings.TrimSpace(cmd.Reason), Revision: rev, UpdatedAt: t.now})
	})
	if err != nil {
		return Classify("record past outcome", err)
	}
	return nil
}

// withinReview keeps an ended trial's window open for late records for the
// 14 days after its last day, so the owner can complete the record before
// the review.
func withinReview(tr RoutineTrial, day Day) bool {
	last, err := time.Parse(time.DateOnly, tr.LastDay())
	return err == nil && last.AddDate(0, 0, 14).Format(time.DateOnly) >= day.Date
}
