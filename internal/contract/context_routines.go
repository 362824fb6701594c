package contract

import (
	"encoding/json"
	"time"
)

// Routine collections of the agent context.
const (
	CollectionRoutineDefinitions = "routineDefinitions"
	CollectionTrials             = "trials"
	CollectionOccurrences        = "occurrences"
	CollectionRoutineMetrics     = "routineMetrics"
)

// RoutineContextView is a routine's current revision, with the revisions
// that have occurrences (whose history the agent may read).
type RoutineContextView struct {
	RoutineRevisionView
	RevisionsWithOccurrences []int64 `json:"revisionsWithOccurrences"`
}

// OccurrenceView is an occurrence with its current outcome, feedback and history.
type OccurrenceView struct {
	ID         string           `json:"id"`
	RoutineID  string           `json:"routineId"`
	Revision   int64            `json:"revision"`
	TrialID    int64            `json:"trialId"`
	Occasion   string           `json:"occasion"`
	Date       string           `json:"date"`
	Zone       string           `json:"zone"`
	ActivityID string           `json:"activityId"`
	Outcome    string           `json:"outcome"` // as recorded; "unrecorded" once the day ended without one, "open" before
	Reason     string           `json:"reason,omitempty"`
	Effort     string           `json:"effort,omitempty"`
	Helped     string           `json:"helped,omitempty"`
	History    []OutcomeHistory `json:"history"`
}

// OutcomeHistory is one recorded outcome row, kept through corrections.
type OutcomeHistory struct {
	Outcome    string    `json:"outcome"`
	Reason     string    `json:"reason,omitempty"`
	Effort     string    `json:"effort,omitempty"`
	Helped     string    `json:"helped,omitempty"`
	Late       bool      `json:"late,omitempty"`
	RecordedAt time.Time `json:"recordedAt"`
}

// TrialMetricsView is the metrics of one trial's window, without the per-day list.
type TrialMetricsView struct {
	TrialID int64 `json:"trialId"`
	RoutineMetrics
}

// RoutineRevisionView is one stored revision.
type RoutineRevisionView struct {
	RoutineID   string         `json:"routineId"`
	Revision    int64          `json:"revision"`
	Title       string         `json:"title"`
	Purpose     string         `json:"purpose"`
	Trigger     TriggerView    `json:"trigger"`
	Steps       []RoutineStep  `json:"steps"`
	Rule        CompletionRule `json:"completionRule"`
	Status      string         `json:"status"`
	EvidenceIDs []string       `json:"evidenceIds"`
	PublishedAt time.Time      `json:"publishedAt"`
}

// TriggerView is a stored trigger.
type TriggerView struct {
	Kind      string `json:"kind"`
	Days      []int  `json:"days,omitempty"`
	Event     string `json:"event,omitempty"`
	TimeOfDay string `json:"timeOfDay,omitempty"`
}

// TrialView is a trial with the counts of its window so far.
type TrialView struct {
	ID        int64          `json:"id"`
	RoutineID string         `json:"routineId"`
	Revision  int64          `json:"revision"`
	Days      []int          `json:"days"`
	StartsOn  string         `json:"startsOn"`
	EndsOn    string         `json:"endsOn"`
	EndedOn   string         `json:"endedOn,omitempty"`
	State     string         `json:"state"`
	Zone      string         `json:"zone"`
	Metrics   RoutineMetrics `json:"-"`
}

// RoutineStep is a stored step of a revision.
type RoutineStep struct {
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Kind     string          `json:"kind"`
	Required bool            `json:"required"`
	Payload  json.RawMessage `json:"payload"`
}

// RoutineMetrics are the counts of one routine revision over a window,
// computed from recorded events only (docs/contract.md, Routines:
// metrics that keep their meaning). Attainment and coverage keep their denominators; not
// applicable occasions leave the denominator with their reasons; an
// unrecorded day is not a failure, only a day with no outcome.
type RoutineMetrics struct {
	RoutineID     string         `json:"routineId"`
	Revision      int64          `json:"revision"`
	Window        WindowIn       `json:"window"`
	Applicable    int            `json:"applicable"`
	Completed     int            `json:"completed"`
	Partial       int            `json:"partial"`
	Skipped       int            `json:"skipped"`
	Deferred      int            `json:"deferred"`
	NotApplicable int            `json:"notApplicable"`
	Unrecorded    int            `json:"unrecorded"`
	Open          int            `json:"open"`
	Attainment    Ratio          `json:"attainment"`
	Coverage      CoverageRatio  `json:"coverage"`
	Reasons       []string       `json:"notApplicableReasons,omitempty"`
	Feedback      FeedbackCounts `json:"feedback"`
	Days          []DayOutcome   `json:"days,omitempty"`
	Steps         []StepMetrics  `json:"steps"`
}

// StepMetrics analyses one step on its own level, never summed with its
// routine. For a measurement, Saved counts occasions with a saved value
// (adherence), nothing about the number.
type StepMetrics struct {
	StepID    string `json:"stepId"`
	Title     string `json:"title"`
	Kind      string `json:"kind"`
	Required  bool   `json:"required"`
	Occasions int    `json:"occasions"`
	Completed int    `json:"completed"`
	Skipped   int    `json:"skipped"`
	Dismissed int    `json:"dismissed"`
	Saved     int    `json:"saved,omitempty"`
}

// Ratio is completed over applicable, kept as counts.
type Ratio struct {
	Completed  int `json:"completed"`
	Applicable int `json:"applicable"`
}

// CoverageRatio is observed outcomes over applicable.
type CoverageRatio struct {
	Observed   int `json:"observed"`
	Applicable int `json:"applicable"`
}

// FeedbackCounts tallies the optional one-tap answers.
type FeedbackCounts struct {
	Easy           int `json:"easy"`
	OK             int `json:"ok"`
	Hard           int `json:"hard"`
	EffortAnswered int `json:"effortAnswered"`
	Helped         int `json:"helped"`
	NotHelped      int `json:"notHelped"`
	Unsure         int `json:"unsure"`
	Answered       int `json:"helpedAnswered"`
}

// DayOutcome is one planned occasion and what was recorded for it.
type DayOutcome struct {
	Date         string `json:"date"`
	OccurrenceID string `json:"occurrenceId,omitempty"`
	Outcome      string `json:"outcome"` // completed, partial, skipped, deferred, not-applicable, unrecorded, open
	Reason       string `json:"reason,omitempty"`
	Late         bool   `json:"late,omitempty"`
	Effort       string `json:"effort,omitempty"`
	Helped       string `json:"helped,omitempty"`
}
