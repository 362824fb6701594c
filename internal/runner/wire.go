package runner

import (
	"fmt"
	"time"
)

// The runner's copies of the API's JSON shapes it reads and writes.
// hearth's own Go types live in models, which links the store (GORM,
// SQLite); the runner is a client of the wire format only, and
// wire_test.go pins each copy to the models type it mirrors, field by
// field, so the two cannot drift apart unnoticed.

// Run triggers, run outcomes and invocation outcomes, as the API spells them.
const (
	triggerSchedule = "schedule"
	triggerManual   = "manual"
	triggerWatch    = "watch"

	runSucceeded = "succeeded"
	runFailed    = "failed"
	runUnknown   = "unknown"

	invocationPublished = "published" // hearth accepted its publication
	invocationConflict  = "conflict"  // a revision conflict: the next invocation reads again
	invocationRefused   = "refused"   // hearth refused its publication (422): the next one repairs it
	invocationFailed    = "failed"    // the agent failed or printed no publication
	invocationUnknown   = "unknown"   // the runner stopped while the agent ran
)

// Bounds hearth applies that the runner applies first.
const (
	maxBodyBytes     = 1 << 20 // a publication's largest body
	maxReasonLen     = 500     // a run's detail, in runes
	maxRefusalErrors = 20      // errors kept per refused invocation
)

// runStartIn is POST /api/runs: what the runner asks to start.
type runStartIn struct {
	RunID      string  `json:"runId"`
	Job        string  `json:"job"`
	Trigger    string  `json:"trigger"`
	ScheduleID *string `json:"scheduleId,omitempty"`
}

// runStart answers a start: the run, or why it was held.
type runStart struct {
	Admitted       bool     `json:"admitted"`
	Hold           string   `json:"hold,omitempty"`
	Reason         string   `json:"reason,omitempty"`
	Run            *RunView `json:"run,omitempty"`
	Prompt         string   `json:"prompt"`
	DeadlineSecs   int      `json:"deadlineSeconds"`
	MaxInvocations int      `json:"maxInvocations"`
}

// RunView is a run as hearth's API answers it (and `hearth run --json`
// prints it).
type RunView struct {
	ID                  string           `json:"id"`
	Job                 string           `json:"job"`
	Trigger             string           `json:"trigger"`
	ScheduleID          string           `json:"scheduleId,omitempty"`
	OccurrenceID        string           `json:"occurrenceId,omitempty"`
	State               string           `json:"state"`
	Invocations         int              `json:"invocations"`
	PublicationRunID    string           `json:"publicationRunId,omitempty"`
	PublicationRevision int64            `json:"publicationRevision,omitempty"`
	Tokens              int64            `json:"tokens,omitempty"`
	CostUSD             float64          `json:"costUsd,omitempty"`
	DurationMS          int64            `json:"durationMs,omitempty"`
	Detail              string           `json:"detail,omitempty"`
	ResolvedAt          *time.Time       `json:"resolvedAt,omitempty"`
	StartedAt           time.Time        `json:"startedAt"`
	FinishedAt          *time.Time       `json:"finishedAt,omitempty"`
	InvocationList      []InvocationView `json:"invocationList,omitempty"`
}

// InvocationView is one reported invocation of a run, as the API answers it.
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

// invocationFinishIn is POST /api/runs/{id}/invocations/{n}/finish.
type invocationFinishIn struct {
	PublicationRunID string         `json:"publicationRunId"`
	Outcome          string         `json:"outcome"`
	Errors           []RefusalError `json:"errors,omitempty"`
	Tokens           *int64         `json:"tokens,omitempty"`
	CostUSD          *float64       `json:"costUsd,omitempty"`
	DurationMS       int64          `json:"durationMs,omitempty"`
}

// publishReceipt acknowledges an accepted publication.
type publishReceipt struct {
	RunID      string    `json:"runId"`
	Revision   int64     `json:"revision"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// dueReport is what the runner reads of GET /api/schedules/due.
type dueReport struct {
	Due []struct {
		ScheduleID string `json:"scheduleId"`
		Job        string `json:"job"`
	} `json:"due"`
}

// leasedWake is a dirty job handed to the runner under a lease.
type leasedWake struct {
	JobKey         string    `json:"jobKey"`
	Reasons        []string  `json:"reasons"`
	Marks          int       `json:"marks"`
	Since          time.Time `json:"dirtySince"`
	LeaseID        string    `json:"leaseId"`
	LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
}

// wakeAck is POST /api/agent-wake/ack.
type wakeAck struct {
	LeaseID string `json:"leaseId"`
}

// publicationRunID is the runId invocation n of run publishes under.
func publicationRunID(runID string, n int) string { return fmt.Sprintf("%s-%d", runID, n) }
