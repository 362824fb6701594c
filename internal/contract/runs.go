package contract

import (
	"fmt"
	"time"
)

// Run triggers and states.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
	TriggerWatch    = "watch"

	RunRunning   = "running"
	RunSucceeded = "succeeded"
	RunFailed    = "failed"
	RunUnknown   = "unknown"

	// MaxRunInvocations is Budget A's bound on agent invocations per run.
	MaxRunInvocations = 3
	// MaxReportedTokens, MaxReportedDurationMS and MaxReportedCostUSD bound
	// each usage report (an invocation's end, a run's finish). They are far
	// above what one run can spend (its invocations have a deadline of
	// minutes) and far enough below 2^63 that a run's sums of its reports
	// stay exact.
	MaxReportedTokens     = 1_000_000_000
	MaxReportedDurationMS = 24 * 60 * 60 * 1000 // a day
	MaxReportedCostUSD    = 1_000_000
	// HoldCostCap holds an autonomous run once the day's reported cost reached the cap.
	HoldCostCap = "cost_cap"
	// HoldTokenCap holds an autonomous run once the day's reported tokens reached the token cap.
	HoldTokenCap = "token_cap"
)

// Invocation outcomes: how one agent invocation of a run ended.
const (
	InvocationPublished = "published" // hearth accepted its publication
	InvocationConflict  = "conflict"  // a revision conflict: the next invocation reads again
	InvocationRefused   = "refused"   // hearth refused its publication (422): the next one repairs it
	InvocationFailed    = "failed"    // the agent failed or printed no publication
	InvocationUnknown   = "unknown"   // the runner stopped while the agent ran
)

// RunStartIn is POST /api/runs: what the runner asks to start.
type RunStartIn struct {
	RunID      string  `json:"runId"`
	Job        string  `json:"job"`
	Trigger    string  `json:"trigger"`
	ScheduleID *string `json:"scheduleId,omitempty"`
}

// RunStart answers a start: the run, or why it was held.
type RunStart struct {
	Admitted bool     `json:"admitted"`
	Hold     string   `json:"hold,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Run      *RunView `json:"run,omitempty"`
	// Prompt, Deadline and MaxInvocations come from the schedule's approved
	// snapshot (or the defaults for a manual run).
	Prompt         string `json:"prompt"`
	DeadlineSecs   int    `json:"deadlineSeconds"`
	MaxInvocations int    `json:"maxInvocations"`
}

// RunView is a run as the API and the Runs page show it.
type RunView struct {
	ID                  string     `json:"id"`
	Job                 string     `json:"job"`
	Trigger             string     `json:"trigger"`
	ScheduleID          string     `json:"scheduleId,omitempty"`
	OccurrenceID        string     `json:"occurrenceId,omitempty"`
	State               string     `json:"state"`
	Invocations         int        `json:"invocations"`
	PublicationRunID    string     `json:"publicationRunId,omitempty"`
	PublicationRevision int64      `json:"publicationRevision,omitempty"`
	Tokens              int64      `json:"tokens,omitempty"`
	CostUSD             float64    `json:"costUsd,omitempty"`
	DurationMS          int64      `json:"durationMs,omitempty"`
	Detail              string     `json:"detail,omitempty"`
	ResolvedAt          *time.Time `json:"resolvedAt,omitempty"`
	StartedAt           time.Time  `json:"startedAt"`
	FinishedAt          *time.Time `json:"finishedAt,omitempty"`
	// InvocationList is each reported invocation, in order (the Runs page's
	// reads fill it; other answers leave it out).
	InvocationList []InvocationView `json:"invocationList,omitempty"`
}

// InvocationView is an invocation as the API and the Runs page show it.
type InvocationView struct {
	N                int            `json:"n"`
	PublicationRunID string         `json:"publicationRunId"`
	Outcome          string         `json:"outcome"`
	Errors           []RefusalError `json:"errors,omitempty"`
	Tokens           *int64         `json:"tokens,omitempty"`
	CostUSD          *float64       `json:"costUsd,omitempty"`
	DurationMS       int64          `json:"durationMs,omitempty"`
	FinishedAt       time.Time      `json:"finishedAt"`
}

// InvocationFinishIn is POST /api/runs/{id}/invocations/{n}/finish: how
// invocation n ended and what it spent.
type InvocationFinishIn struct {
	PublicationRunID string         `json:"publicationRunId"`
	Outcome          string         `json:"outcome"`
	Errors           []RefusalError `json:"errors,omitempty"`
	Tokens           *int64         `json:"tokens,omitempty"`
	CostUSD          *float64       `json:"costUsd,omitempty"`
	DurationMS       int64          `json:"durationMs,omitempty"`
}

// RunFinishIn is POST /api/runs/{id}/finish. A runner that reports each
// invocation's end (POST /api/runs/{id}/invocations/{n}/finish) sends no
// usage here: the run's usage is the sum of its invocations'. Usage given
// here is added to it (a runner that does not report invocations).
type RunFinishIn struct {
	Outcome             string   `json:"outcome"` // succeeded, failed, unknown
	Detail              string   `json:"detail,omitempty"`
	PublicationRunID    *string  `json:"publicationRunId"`
	PublicationRevision *int64   `json:"publicationRevision"`
	DurationMS          int64    `json:"durationMs,omitempty"`
	Tokens              *int64   `json:"tokens"`
	CostUSD             *float64 `json:"costUsd"`
}

// PublishReceipt acknowledges an accepted publication.
type PublishReceipt struct {
	RunID      string    `json:"runId"`
	Revision   int64     `json:"revision"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// DryRunReport is the answer of POST /api/agent-results?dryRun=true: what a
// publication would change, without writing it or storing a receipt: per collection how many items would be created and
// updated, and the conflicts a real publish would meet.
type DryRunReport struct {
	RunID            string                    `json:"runId"`
	DryRun           bool                      `json:"dryRun"`
	Valid            bool                      `json:"valid"`
	ExpectedRevision int64                     `json:"expectedRevision"`
	CurrentRevision  int64                     `json:"currentRevision"`
	Replay           bool                      `json:"replay"`
	Changes          map[string]CollectionDiff `json:"changes"`
	Conflicts        []DryRunConflict          `json:"conflicts"`
}

// CollectionDiff counts the items of one collection a publication touches.
type CollectionDiff struct {
	Created int `json:"created"`
	Updated int `json:"updated"`
}

// DryRunConflict is a conflict a real publish would answer with 409.
type DryRunConflict struct {
	Code    string `json:"code"` // idempotency_conflict, revision_conflict
	Message string `json:"message"`
}

// PublicationRunID is the runId invocation n of run publishes under.
func PublicationRunID(runID string, n int) string { return fmt.Sprintf("%s-%d", runID, n) }
