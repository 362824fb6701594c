package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"hearth/internal/contract"
	"hearth/internal/schedule"
	"hearth/internal/strictjson"
)

// The schedules ledger (Store B of docs/schedules-and-runner.md): definition
// files under DATA/schedules hold the prompt and the rule (package
// schedule); the tables of migration 00009 hold what a file never grants.
// Services here own their transactions. Adding, cancelling, approving and
// quarantining a schedule change what the owner and the agent see, so they
// go through commit and bump the workspace revision; occurrence
// bookkeeping (claims, attempts, outcomes) and the add's journalled intent
// do not, so a runner's own records never turn the agent's publication
// into a revision_conflict.

// Schedule states are schedule.Status values; occurrence states are these.
const (
	OccurrenceAdmitted  = "admitted"  // claimed, no attempt started
	OccurrenceRunning   = "running"   // an attempt started and has not reported
	OccurrenceSucceeded = "succeeded" // finished well
	OccurrenceFailed    = "failed"    // finished badly, or out of attempts
	OccurrenceExpired   = "expired"   // 24 h after its due time, unfinished and not running
	OccurrenceCancelled = "cancelled" // admitted but never started when its schedule was cancelled
	OccurrenceUnknown   = "unknown"   // an attempt never reported; blocks the schedule until the owner looked
)

// Actor kinds: who may create and cancel schedules (Authority A).
const (
	ActorOwner    = "owner"    // the owner in the browser (or with a session on the API)
	ActorOperator = "operator" // a credential with schedules:admin
)

// Actor is who creates, cancels or approves a schedule. It is taken from
// the authenticated request, never from a body or a file.
type Actor struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`   // "owner", or the credential ID
	Name string `json:"name"` // "owner", or the credential name
}

// OwnerActor is the owner.
func OwnerActor() Actor { return Actor{Kind: ActorOwner, ID: ActorOwner, Name: ActorOwner} }

// OperatorActor is a credential acting with schedules:admin.
func OperatorActor(c AgentCredential) Actor {
	return Actor{Kind: ActorOperator, ID: c.ID, Name: c.Name}
}

// Schedule is a row of the schedules ledger.
type Schedule struct {
	ID                   string `gorm:"primaryKey"`
	Job                  string
	CreatorKind          string
	CreatorID            string
	CreatorName          string
	ApprovedBy           string // "owner" or the approving credential's ID
	ApprovedAt           time.Time
	ApprovedFingerprint  string
	ApprovedSnapshot     string // the canonical JSON that was approved; file data never replaces it
	State                string
	StateReason          string // a quarantine reason, "ended", "restored", …
	StateDetail          string
	StateChangedAt       time.Time
	Zone                 string
	ZoneSource           string
	RequestKey           string
	RequestHash          string
	Receipt              string
	Since                time.Time // instants at or before it are never due (creation or re-approval)
	NextDueAt            *time.Time
	LastDueAt            *time.Time
	LastFinishedAt       *time.Time
	OccurrencesAdmitted  int64
	OccurrencesSucceeded int64
	OccurrencesFailed    int64
	OccurrencesExpired   int64
	CancelledAt          *time.Time
	CancelledBy          string // the cancelling Actor as JSON
	Revision             int64
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

// ScheduleOccurrence is one admitted due instant of a schedule.
type ScheduleOccurrence struct {
	ID          string `gorm:"primaryKey"` // schedule.Occurrence.ID(): "scheduleId/dueAt-in-UTC"
	ScheduleID  string
	DueAt       time.Time
	State       string
	Attempts    int // agent invocations so far, at most MaxAttempts (Budget A)
	MaxAttempts int
	DeadlineAt  *time.Time // the current attempt's deadline
	ExpiresAt   time.Time
	ClaimedBy   string
	ClaimedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
	Detail      string
	ResolvedAt  *time.Time // for unknown: when the owner looked at it
	UpdatedAt   time.Time
}

// outstandingStates are the occurrence states that keep a schedule busy;
// an unknown one only until it is resolved.
var outstandingStates = []string{OccurrenceAdmitted, OccurrenceRunning, OccurrenceUnknown}

// outstanding reports whether o keeps its schedule busy (the partial unique
// index of migration 00009 says the same).
func (o ScheduleOccurrence) outstanding() bool {
	switch o.State {
	case OccurrenceAdmitted, OccurrenceRunning:
		return true
	case OccurrenceUnknown:
		return o.ResolvedAt == nil
	}
	return false
}

// Errors of the schedule services.
var (
	// ErrScheduleClosed means the schedule is cancelled or expired, so the
	// action (approve) does not apply.
	ErrScheduleClosed = errors.New("the schedule is cancelled or expired")
	// ErrFileChanged means the definition file is not the one the owner reviewed.
	ErrFileChanged = errors.New("the definition file changed since it was shown; review it again")
	// ErrOccurrenceClosed means an occurrence cannot take this step (not
	// admitted or running, past its freshness, or its schedule stopped).
	ErrOccurrenceClosed = errors.New("the occurrence is not open for this step")
	// ErrAttemptsExhausted means an occurrence used all its agent invocations (Budget A).
	ErrAttemptsExhausted = errors.New("the occurrence has used all its agent invocations")
)

// ScheduleExistsError refuses a create whose schedule ID is taken, by a
// schedule in any state or by a file: IDs never revive.
type ScheduleExistsError struct {
	ID    string
	State string // the ledger state, or "file" when only a definition file holds the ID
}

func (e *ScheduleExistsError) Error() string {
	return fmt.Sprintf("schedule ID %q is taken (%s); IDs never revive: choose another", e.ID, e.State)
}

// NotApprovableError refuses an approval: the definition file cannot be read
// as a definition (a link, an escape, missing, invalid).
type NotApprovableError struct {
	Reason schedule.QuarantineReason
	Detail string
}

func (e *NotApprovableError) Error() string {
	return fmt.Sprintf("the definition file cannot be approved (%s): %s", e.Reason, e.Detail)
}

func limitsView(l schedule.Limits) contract.LimitsView {
	return contract.LimitsView{MaxInvocations: l.MaxInvocations, DeadlineSeconds: int64(l.Deadline / time.Second)}
}

// ScheduleReceipt is the answer to a create, stored with the schedule and
// returned as it was to every replay of the same request.
type ScheduleReceipt struct {
	ScheduleID  string     `json:"scheduleId"`
	RequestKey  string     `json:"requestKey"`
	Job         string     `json:"job"`
	State       string     `json:"state"`
	Fingerprint string     `json:"fingerprint"`
	Zone        string     `json:"zone"`
	ZoneSource  string     `json:"zoneSource"`
	NextDueAt   *time.Time `json:"nextDueAt"`
	CreatedAt   time.Time  `json:"createdAt"`
	CreatedBy   Actor      `json:"createdBy"`
	Revision    int64      `json:"revision"`
}

// defaultScheduleID derives an ID when a create names none: the job and a
// hash of the creator and request key, so a retry names the same schedule.
func defaultScheduleID(job, creatorID, requestKey string) string {
	sum := sha256.Sum256([]byte(creatorID + "\n" + requestKey))
	if len(job) > 119 {
		job = job[:119]
	}
	return job + "-" + hex.EncodeToString(sum[:4])
}

// scheduleInvalid turns a schedule.ValidationError into the API's
// ValidationError, its field as a JSON Pointer of the create body.
func scheduleInvalid(err error) error {
	var ve *schedule.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	path := "/" + strings.ReplaceAll(ve.Field, ".", "/")
	switch ve.Field {
	case "limits.deadline":
		path = "/limits/deadlineSeconds"
	case "file":
		path = "/prompt"
	}
	return &contract.ValidationError{Errors: []strictjson.FieldError{{Path: path, Message: ve.Message, Expected: ve.Expected, Found: ve.Found}}}
}

// buildDefinition validates a decoded create into a definition, without
// the clock: everything here is as true on a replay as it was the first time.
func buildDefinition(in *contract.ScheduleIn, actor Actor) (schedule.Definition, schedule.ZoneSource, error) {
	loc, source, err := schedule.ResolveZone(deref(in.Zone), deref(in.ClientZone))
	if err != nil {
		return schedule.Definition{}, "", scheduleInvalid(err)
	}
	rule, err := schedule.ParseRule(schedule.RuleSpec{At: deref(in.At), Cron: deref(in.Cron), EndAt: deref(in.EndAt)}, loc)
	if err != nil {
		return schedule.Definition{}, "", scheduleInvalid(err)
	}
	id := defaultScheduleID(in.Job, actor.ID, in.RequestKey)
	if in.ID != nil {
		id = *in.ID
	}
	d := schedule.Definition{ID: id, Job: in.Job, Rule: rule, Limits: schedule.DefaultLimits(), Prompt: strings.TrimSpace(in.Prompt)}
	if in.Limits != nil {
		if in.Limits.MaxInvocations != nil {
			d.Limits.MaxInvocations = *in.Limits.MaxInvocations
		}
		if in.Limits.DeadlineSeconds != nil {
			d.Limits.Deadline = time.Duration(*in.Limits.DeadlineSeconds) * time.Second
		}
	}
	if in.NotifyOnSuccess != nil {
		d.NotifyOnSuccess = *in.NotifyOnSuccess
	}
	if err := d.Validate(); err != nil {
		return schedule.Definition{}, "", scheduleInvalid(err)
	}
	if _, err := d.Render(); err != nil {
		return schedule.Definition{}, "", scheduleInvalid(err)
	}
	return d, source, nil
}

// CreateSchedule creates a schedule on behalf of actor, who thereby
// approves it, from a POST /api/schedules body that contract.DecodeSchedule
// decoded and hashed. In order: the checks that do not depend on the clock
// (422); the receipt of (creator, requestKey): the same hash is a replay
// that returns the original receipt (created false) even after its one-off
// time has passed, another hash ErrIdempotencyConflict; then the
// create-time timing checks (422) and the ID (*ScheduleExistsError, also
// for a cancelled ID); then the journalled write: the intent is committed,
// the definition file written, and the ledger row inserted with the
// receipt in one transaction that also removes the intent (see
// RecoverSchedules).
func (s *Store) CreateSchedule(ctx context.Context, actor Actor, in contract.ScheduleIn, hash string) (ScheduleReceipt, bool, error) {
	def, zoneSource, err := buildDefinition(&in, actor)
	if err != nil {
		return ScheduleReceipt{}, false, err
	}

	s.schedMu.Lock()
	defer s.schedMu.Unlock()
	if err := s.recoverJournal(ctx); err != nil {
		return ScheduleReceipt{}, false, err
	}
	var (
		receipt  ScheduleReceipt
		replayed bool
		entry    scheduleJournal
	)
	// The intent: checked and journalled in one transaction, no revision
	// bump (nothing is visible yet).
	_, err = s.commit(ctx, func(t *txn) error {
		var prior []Schedule
		if err := t.Where("creator_id = ? AND request_key = ?", actor.ID, in.RequestKey).Limit(1).Find(&prior).Error; err != nil {
			return err
		}
		if len(prior) == 1 {
			if prior[0].RequestHash != hash {
				return contract.ErrIdempotencyConflict
			}
			replayed = true
			return json.Unmarshal([]byte(prior[0].Receipt), &receipt)
		}
		now := s.clock()
		if err := def.Rule.CheckNew(now); err != nil {
			return scheduleInvalid(err)
		}
		var taken []Schedule
		if err := t.Select("id", "state").Where("id = ?", def.ID).Limit(1).Find(&taken).Error; err != nil {
			return err
		}
		if len(taken) == 1 {
			return &ScheduleExistsError{ID: def.ID, State: taken[0].State}
		}
		row := Schedule{
			ID: def.ID, Job: def.Job, CreatorKind: actor.Kind, CreatorID: actor.ID, CreatorName: actor.Name,
			ApprovedBy: actor.ID, ApprovedAt: now, ApprovedFingerprint: def.Fingerprint(), ApprovedSnapshot: string(def.Canonical()),
			State: string(schedule.StatusActive), StateChangedAt: now, Zone: def.Rule.Location().String(), ZoneSource: string(zoneSource),
			RequestKey: in.RequestKey, RequestHash: hash, Since: now, CreatedAt: now, UpdatedAt: now,
		}
		if next, _ := def.Rule.Next(now, 1); len(next) == 1 {
			row.NextDueAt = utcPtr(next[0])
		}
		payload, err := json.Marshal(row)
		if err != nil {
			return err
		}
		entry = scheduleJournal{ScheduleID: def.ID, Op: journalAdd, Payload: string(payload), Fingerprint: row.ApprovedFingerprint, CreatedAt: now}
		return t.Create(&entry).Error
	})
	if err != nil {
		return ScheduleReceipt{}, false, classifySchedule("create schedule", err)
	}
	if replayed {
		return receipt, false, nil
	}
	s.pauseAt(PauseJournalWritten)

	if _, err := s.defs.Create(def); err != nil {
		// Nothing was written (Create links a complete file or nothing): drop the intent.
		if rerr := s.dropJournal(ctx, def.ID); rerr != nil {
			return ScheduleReceipt{}, false, errors.Join(err, rerr)
		}
		switch {
		case errors.Is(err, schedule.ErrRetired):
			return ScheduleReceipt{}, false, &ScheduleExistsError{ID: def.ID, State: "retired file"}
		case errors.Is(err, schedule.ErrExists):
			return ScheduleReceipt{}, false, &ScheduleExistsError{ID: def.ID, State: "file"}
		}
		return ScheduleReceipt{}, false, fmt.Errorf("models: create schedule: %w", err)
	}
	s.pauseAt(PauseFileWritten)

	row, err := s.completeAdd(ctx, entry)
	if err != nil {
		// The intent stays: the next schedule write or serve start completes it.
		return ScheduleReceipt{}, false, fmt.Errorf("models: create schedule: %w", err)
	}
	if err := json.Unmarshal([]byte(row.Receipt), &receipt); err != nil {
		return ScheduleReceipt{}, false, fmt.Errorf("models: create schedule: %w", err)
	}
	return receipt, true, nil
}

// completeAdd inserts the journalled row with its receipt, removes the
// intent and bumps the revision, in one transaction.
func (s *Store) completeAdd(ctx context.Context, entry scheduleJournal) (Schedule, error) {
	var row Schedule
	if err := json.Unmarshal([]byte(entry.Payload), &row); err != nil {
		return Schedule{}, fmt.Errorf("journal entry %s: %w", entry.ScheduleID, err)
	}
	_, err := s.commit(ctx, func(t *txn) error { return insertJournalled(t, &row) })
	return row, err
}

// insertJournalled inserts an add's ledger row with its receipt, removes
// the add's intent and bumps the revision.
func insertJournalled(t *txn, row *Schedule) error {
	rev, err := t.bump()
	if err != nil {
		return err
	}
	t.touch("schedule:" + row.ID)
	receipt := ScheduleReceipt{
		ScheduleID: row.ID, RequestKey: row.RequestKey, Job: row.Job, State: row.State, Fingerprint: row.ApprovedFingerprint,
		Zone: row.Zone, ZoneSource: row.ZoneSource, CreatedAt: row.CreatedAt,
		CreatedBy: Actor{Kind: row.CreatorKind, ID: row.CreatorID, Name: row.CreatorName}, Revision: rev,
	}
	if row.NextDueAt != nil {
		receipt.NextDueAt = inZone(*row.NextDueAt, row.Zone)
	}
	b, err := json.Marshal(receipt)
	if err != nil {
		return err
	}
	row.Receipt, row.Revision = string(b), rev
	if err := t.Create(row).Error; err != nil {
		return err
	}
	return t.Where("schedule_id = ? AND op = ?", row.ID, journalAdd).Delete(&scheduleJournal{}).Error
}

// CancelResult is the answer to a cancel.
type CancelResult struct {
	ScheduleID  string    `json:"scheduleId"`
	State       string    `json:"state"`
	CancelledAt time.Time `json:"cancelledAt"`
	CancelledBy Actor     `json:"cancelledBy"`
	// AlreadyCancelled: an earlier cancel did it; this one changed nothing.
	AlreadyCancelled bool `json:"alreadyCancelled"`
	// RunningOccurrence is an attempt that had started: cancel does not
	// stop or undo it, and says so rather than pretend.
	RunningOccurrence *contract.ScheduleOccurrenceView `json:"runningOccurrence"`
	// StoppedOccurrence is an admitted occurrence that had not started: it
	// never will (state cancelled).
	StoppedOccurrence *contract.ScheduleOccurrenceView `json:"stoppedOccurrence"`
	// FileNotRetired says why the definition file could not be moved to
	// retired/ (the cancel holds; the file stays where it was).
	FileNotRetired string `json:"fileNotRetired,omitempty"`
}

// CancelSchedule cancels a schedule for actor: future and unstarted
// occurrences only. It is idempotent, and a cancelled ID never revives. In
// one transaction the row becomes cancelled, an admitted unstarted
// occurrence cancelled, and the intent to retire the file is journalled;
// then the file moves to retired/ and the intent is removed. A running
// attempt is reported, not stopped.
func (s *Store) CancelSchedule(ctx context.Context, actor Actor, id string) (CancelResult, error) {
	s.schedMu.Lock()
	defer s.schedMu.Unlock()
	if err := s.recoverJournal(ctx); err != nil {
		return CancelResult{}, err
	}
	var res CancelResult
	_, err := s.commit(ctx, func(t *txn) error {
		var row Schedule
		if err := t.Where("id = ?", id).Take(&row).Error; err != nil {
			return notFound(err)
		}
		var occ []ScheduleOccurrence
		if err := t.Where("schedule_id = ? AND state IN ?", id, outstandingStates).Find(&occ).Error; err != nil {
			return err
		}
		res.ScheduleID, res.State = id, string(schedule.StatusCancelled)
		if row.State == string(schedule.StatusCancelled) {
			res.AlreadyCancelled = true
			res.CancelledAt = deref0(row.CancelledAt)
			if err := json.Unmarshal([]byte(row.CancelledBy), &res.CancelledBy); err != nil {
				return fmt.Errorf("schedule %s: cancelled_by: %w", id, err)
			}
			for _, o := range occ {
				if o.State == OccurrenceRunning || o.State == OccurrenceUnknown {
					res.RunningOccurrence = ptr(o.view())
				}
			}
			return nil
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("schedule:" + id)
		for _, o := range occ {
			switch o.State {
			case OccurrenceAdmitted:
				o.State, o.FinishedAt, o.Detail, o.UpdatedAt = OccurrenceCancelled, &t.now, "its schedule was cancelled before it started", t.now
				if err := t.Save(&o).Error; err != nil {
					return err
				}
				res.StoppedOccurrence = ptr(o.view())
			case OccurrenceRunning, OccurrenceUnknown:
				res.RunningOccurrence = ptr(o.view())
			}
		}
		res.CancelledAt, res.CancelledBy = t.now, actor
		by, err := json.Marshal(actor)
		if err != nil {
			return err
		}
		if err := t.Model(&Schedule{}).Where("id = ?", id).Updates(map[string]any{
			"state": string(schedule.StatusCancelled), "state_reason": "cancelled", "state_detail": "cancelled by " + actor.Name,
			"state_changed_at": t.now, "cancelled_at": t.now, "cancelled_by": string(by), "next_due_at": nil, "revision": rev, "updated_at": t.now,
		}).Error; err != nil {
			return err
		}
		return t.Create(&scheduleJournal{ScheduleID: id, Op: journalRetire, Payload: "{}", CreatedAt: t.now}).Error
	})
	if err != nil {
		return CancelResult{}, classifySchedule("cancel schedule", err)
	}
	if res.AlreadyCancelled {
		return res, nil
	}
	s.pauseAt(PauseCancelCommitted)
	problem, err := s.retire(ctx, id)
	if err != nil {
		// The cancel holds (the row is cancelled); the intent stays and the
		// next schedule write or serve start retires the file.
		return CancelResult{}, fmt.Errorf("models: cancel schedule %s: retire its file: %w", id, err)
	}
	res.FileNotRetired = problem
	return res, nil
}

func (o ScheduleOccurrence) view() contract.ScheduleOccurrenceView {
	return contract.ScheduleOccurrenceView{ID: o.ID, ScheduleID: o.ScheduleID, DueAt: o.DueAt.UTC(), State: o.State, Attempts: o.Attempts, MaxAttempts: o.MaxAttempts,
		ClaimedBy: o.ClaimedBy, ClaimedAt: o.ClaimedAt.UTC(), StartedAt: utcOrNil(o.StartedAt), DeadlineAt: utcOrNil(o.DeadlineAt),
		ExpiresAt: o.ExpiresAt.UTC(), FinishedAt: utcOrNil(o.FinishedAt), Detail: o.Detail, ResolvedAt: utcOrNil(o.ResolvedAt)}
}

// classifySchedule keeps the errors handlers map and wraps the rest.
func classifySchedule(op string, err error) error {
	var exists *ScheduleExistsError
	var notApprovable *NotApprovableError
	switch {
	case errors.As(err, &exists), errors.As(err, &notApprovable),
		errors.Is(err, ErrScheduleClosed), errors.Is(err, ErrFileChanged),
		errors.Is(err, ErrOccurrenceClosed), errors.Is(err, ErrAttemptsExhausted):
		return err
	}
	return Classify(op, err)
}

func ptr[T any](v T) *T { return &v }

func utcPtr(t time.Time) *time.Time {
	u := t.UTC()
	return &u
}

func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	return utcPtr(*t)
}

func deref0(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// inZone shows an instant in a schedule's zone, so it prints with that offset.
func inZone(t time.Time, zone string) *time.Time {
	loc, err := schedule.LoadZone(zone)
	if err != nil {
		loc = time.UTC
	}
	z := t.In(loc)
	return &z
}
