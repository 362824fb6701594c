package contract

import (
	"time"
)

// ScheduleIn is the body of POST /api/schedules.
type ScheduleIn struct {
	RequestKey      string    `json:"requestKey"`
	ID              *string   `json:"id"`
	Job             string    `json:"job"`
	At              *string   `json:"at"`
	Cron            *string   `json:"cron"`
	EndAt           *string   `json:"endAt"`
	Zone            *string   `json:"zone"`
	ClientZone      *string   `json:"clientZone"`
	Prompt          string    `json:"prompt"`
	Limits          *LimitsIn `json:"limits"`
	NotifyOnSuccess *bool     `json:"notifyOnSuccess"`
}

// LimitsIn are a create's optional Budget A limits, each optional alone.
// Unset ones are left out when encoded: the decoder refuses null.
type LimitsIn struct {
	MaxInvocations  *int `json:"maxInvocations,omitempty"`
	DeadlineSeconds *int `json:"deadlineSeconds,omitempty"`
}

// DueReport is GET /api/schedules/due: what Evaluate would admit at Now.
type DueReport struct {
	Now  time.Time  `json:"now"`
	Due  []DueItem  `json:"due"`
	Held []HeldItem `json:"held"`
}

// DueItem is one occurrence that a claim at Now would admit, with what the
// runner needs from the approved snapshot (never from the file).
type DueItem struct {
	ScheduleID      string         `json:"scheduleId"`
	OccurrenceID    string         `json:"occurrenceId"`
	DueAt           time.Time      `json:"dueAt"`
	ExpiresAt       time.Time      `json:"expiresAt"`
	Job             string         `json:"job"`
	Zone            string         `json:"zone"`
	Limits          LimitsView     `json:"limits"`
	NotifyOnSuccess bool           `json:"notifyOnSuccess"`
	Prompt          string         `json:"prompt"`
	Fingerprint     string         `json:"fingerprint"`
	Skipped         []ScheduleSkip `json:"skipped"`
}

// ScheduleSkip is a wall time (in a DST gap) or a due instant that will
// not run, as the due answer says it (the schedules' own Skip, on the wire).
type ScheduleSkip struct {
	DueAt    time.Time `json:"dueAt,omitzero"`
	WallTime string    `json:"wallTime,omitempty"` // "2026-03-08T02:30", for a gap
	Reason   string    `json:"reason"`             // nonexistent, superseded or busy
}

// HeldItem is a schedule that would admit nothing now for a reason the
// owner or the runner should know: one occurrence outstanding, an unknown
// outcome to investigate, a quarantine, a restore, a revoked approval.
type HeldItem struct {
	ScheduleID  string                  `json:"scheduleId"`
	Hold        string                  `json:"hold"`
	Reason      string                  `json:"reason,omitempty"`
	Outstanding *ScheduleOccurrenceView `json:"outstanding,omitempty"`
}

// LimitsView are a schedule's limits on the wire.
type LimitsView struct {
	MaxInvocations  int   `json:"maxInvocations"`
	DeadlineSeconds int64 `json:"deadlineSeconds"`
}

// ScheduleOccurrenceView is an occurrence on the wire.
type ScheduleOccurrenceView struct {
	ID          string     `json:"id"`
	ScheduleID  string     `json:"scheduleId"`
	DueAt       time.Time  `json:"dueAt"`
	State       string     `json:"state"`
	Attempts    int        `json:"attempts"`
	MaxAttempts int        `json:"maxAttempts"`
	ClaimedBy   string     `json:"claimedBy"`
	ClaimedAt   time.Time  `json:"claimedAt"`
	StartedAt   *time.Time `json:"startedAt"`
	DeadlineAt  *time.Time `json:"deadlineAt"`
	ExpiresAt   time.Time  `json:"expiresAt"`
	FinishedAt  *time.Time `json:"finishedAt"`
	Detail      string     `json:"detail,omitempty"`
	ResolvedAt  *time.Time `json:"resolvedAt,omitempty"`
}
