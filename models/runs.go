package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/internal/schedule"
)

// Run is one run of a job by the runner.
type Run struct {
	ID                  string `gorm:"primaryKey"`
	Job                 string
	TriggerKind         string
	ScheduleID          string
	OccurrenceID        *string
	Runner              string
	State               string
	Invocations         int
	PublicationRunID    string
	PublicationRevision int64
	Tokens              usageSum
	CostUSD             float64  `gorm:"column:cost_usd"`
	DurationMS          usageSum `gorm:"column:duration_ms"`
	Detail              string
	ResolvedAt          *time.Time
	StartedAt           time.Time
	FinishedAt          *time.Time
	UpdatedAt           time.Time
}

func (r Run) View() contract.RunView {
	return contract.RunView{ID: r.ID, Job: r.Job, Trigger: r.TriggerKind, ScheduleID: r.ScheduleID, OccurrenceID: deref(r.OccurrenceID), State: r.State,
		Invocations: r.Invocations, PublicationRunID: r.PublicationRunID, PublicationRevision: r.PublicationRevision, Tokens: int64(r.Tokens),
		CostUSD: r.CostUSD, DurationMS: int64(r.DurationMS), Detail: r.Detail, ResolvedAt: r.ResolvedAt, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
}

// usageSum is a run's sum of reported counts (tokens, milliseconds). Each
// report is bounded, so a sum stays exact; plus saturates anyway, and Scan
// reads the REAL an overflowing SQL sum left in a row before reports were
// bounded as the largest count, so such a row still reads.
type usageSum int64

// plus adds a count that is not negative, stopping at the largest int64.
func (u usageSum) plus(n int64) usageSum {
	if n > math.MaxInt64-int64(u) {
		return math.MaxInt64
	}
	return u + usageSum(n)
}

// Scan implements sql.Scanner.
func (u *usageSum) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*u = 0
	case int64:
		*u = usageSum(v)
	case float64:
		switch {
		case v >= math.MaxInt64:
			*u = math.MaxInt64
		case v <= 0 || math.IsNaN(v):
			*u = 0
		default:
			*u = usageSum(v)
		}
	default:
		return fmt.Errorf("models: a usage sum of type %T", src)
	}
	return nil
}

// Value implements driver.Valuer.
func (u usageSum) Value() (driver.Value, error) { return int64(u), nil }

// PauseRunClaimed is the Options.Pause point of a schedule run's start
// between its claim and its run row (test-only; see HEARTH_TEST_PAUSE_AT).
const PauseRunClaimed = "run-claimed"

// Run errors handlers map to 409.
var (
	ErrRunExists   = errors.New("a run with this ID exists")
	ErrRunFinished = errors.New("the run is finished")
)

// StartRun records a run the runner starts. A schedule run claims its
// schedule (exactly one admission under concurrent callers); a schedule or
// watch run is held once the day's reported cost reached its job's
// priority limit under costs (no cap: never), while a manual run, the owner's, always goes. The same runId again
// returns that run (a retried start), never a second claim. Everything is
// validated first, and the claim and the run row are one commit: a refused
// or failed start (or a crash in between) leaves the occurrence due.
func (s *Store) StartRun(ctx context.Context, runner string, in contract.RunStartIn, costs costpolicy.Policy) (contract.RunStart, error) {
	v := &contract.Validator{}
	v.ID("/runId", in.RunID)
	v.ID("/job", in.Job)
	v.Enum("/trigger", in.Trigger, []string{contract.TriggerSchedule, contract.TriggerManual, contract.TriggerWatch})
	if in.ScheduleID != nil {
		v.ID("/scheduleId", *in.ScheduleID)
	}
	if (in.Trigger == contract.TriggerSchedule) != (in.ScheduleID != nil) {
		v.Add("/scheduleId", "a schedule run names its schedule, and only it", "a schedule ID exactly when trigger is schedule", fmt.Sprint(in.ScheduleID != nil))
	}
	if len(v.Errs) > 0 {
		return contract.RunStart{}, &contract.ValidationError{Errors: v.Errs}
	}
	out := contract.RunStart{DeadlineSecs: int(schedule.DefaultLimits().Deadline / time.Second), MaxInvocations: contract.MaxRunInvocations}
	// Run bookkeeping does not bump the revision, so a run never makes its
	// own publication a revision_conflict (as schedule claims do not).
	_, err := s.commit(ctx, func(t *txn) error {
		var prior []Run
		if err := t.Where("id = ?", in.RunID).Limit(1).Find(&prior).Error; err != nil {
			return err
		}
		if len(prior) == 1 {
			return retriedStart(t, &out, prior[0], runner, in)
		}
		if in.Trigger != contract.TriggerManual && (costs.Cap > 0 || costs.TokenCap > 0) {
			day, err := t.ownerDay()
			if err != nil {
				return err
			}
			priority := costs.Priority(in.Job)
			if costs.Cap > 0 {
				spent, err := CostSince(t.DB, day.Start)
				if err != nil {
					return err
				}
				if limit := costs.Limit(priority); spent >= limit {
					out.Hold, out.Reason = contract.HoldCostCap, fmt.Sprintf("today's reported agent cost $%.2f reached $%.2f, where %s-priority runs wait (the cap is $%.2f); they wait until tomorrow, runs you start still go",
						spent, limit, priority, costs.Cap)
					return nil
				}
			}
			if costs.TokenCap > 0 {
				tokens, err := TokensSince(t.DB, day.Start)
				if err != nil {
					return err
				}
				if limit := costs.TokenLimit(priority); tokens >= limit {
					out.Hold, out.Reason = contract.HoldTokenCap, fmt.Sprintf("today's reported agent tokens %.0f reached %.0f, where %s-priority runs wait (the token cap is %d); they wait until tomorrow, runs you start still go",
						tokens, limit, priority, costs.TokenCap)
					return nil
				}
			}
		}
		run := Run{ID: in.RunID, Job: in.Job, TriggerKind: in.Trigger, Runner: runner, State: contract.RunRunning, StartedAt: t.now, UpdatedAt: t.now}
		if in.Trigger == contract.TriggerSchedule {
			adm := Admission{ScheduleID: *in.ScheduleID}
			if err := s.claim(t, &adm, runner, in.Job); err != nil {
				return err
			}
			if adm.Admitted == nil {
				// What the claim recorded (an expiry, a quarantine, the next due time) commits; no run.
				out.Hold, out.Reason = adm.Hold, adm.Reason
				return nil
			}
			run.ScheduleID, run.OccurrenceID = *in.ScheduleID, &adm.Admitted.ID
			out.Prompt, out.DeadlineSecs, out.MaxInvocations = adm.Prompt, int(adm.Limits.DeadlineSeconds), adm.Limits.MaxInvocations
			s.pauseAt(PauseRunClaimed)
		}
		if err := t.Create(&run).Error; err != nil {
			return err
		}
		rv := run.View()
		out.Admitted, out.Run = true, &rv
		return nil
	})
	if err != nil {
		return contract.RunStart{}, classifySchedule("start run", err)
	}
	return out, nil
}

// retriedStart answers a start whose runId is taken: the same run again
// (a runner restarted around its start) gets that run, with its schedule's
// approved prompt and limits, as the first start did; any other run's ID
// is ErrRunExists.
func retriedStart(t *txn, out *contract.RunStart, prior Run, runner string, in contract.RunStartIn) error {
	if prior.Job != in.Job || prior.TriggerKind != in.Trigger || prior.Runner != runner || prior.ScheduleID != deref(in.ScheduleID) {
		return ErrRunExists
	}
	if prior.ScheduleID != "" {
		var row Schedule
		if err := t.Where("id = ?", prior.ScheduleID).Take(&row).Error; err != nil {
			return err
		}
		def, err := row.definition()
		if err != nil {
			return err
		}
		l := limitsView(def.Limits)
		out.Prompt, out.DeadlineSecs, out.MaxInvocations = def.Prompt, int(l.DeadlineSeconds), l.MaxInvocations
	}
	rv := prior.View()
	out.Admitted, out.Run = true, &rv
	return nil
}

// StartInvocation records one more agent invocation of a run: at most
// MaxRunInvocations, and for a schedule run an attempt of its occurrence
// (with the occurrence's own bound and deadline). It refuses a finished run.
func (s *Store) StartInvocation(ctx context.Context, runner, runID string) (contract.RunView, error) {
	if err := s.ownRun(ctx, runner, runID); err != nil {
		return contract.RunView{}, err
	}
	var run Run
	if err := s.rdb.WithContext(ctx).Take(&run, "id = ?", runID).Error; err != nil {
		return contract.RunView{}, Classify("start invocation", notFound(err))
	}
	if run.State != contract.RunRunning {
		return contract.RunView{}, ErrRunFinished
	}
	if run.Invocations >= contract.MaxRunInvocations {
		return contract.RunView{}, ErrAttemptsExhausted
	}
	if run.OccurrenceID != nil {
		if _, err := s.StartAttempt(ctx, *run.OccurrenceID); err != nil {
			return contract.RunView{}, err
		}
	}
	_, err := s.commit(ctx, func(t *txn) error {
		res := t.Model(&Run{}).Where("id = ? AND state = ? AND invocations < ?", runID, contract.RunRunning, contract.MaxRunInvocations).
			Updates(map[string]any{"invocations": gorm.Expr("invocations + 1"), "updated_at": s.clock()})
		if res.Error == nil && res.RowsAffected == 0 {
			return ErrAttemptsExhausted
		}
		if res.Error != nil {
			return res.Error
		}
		return t.Take(&run, "id = ?", runID).Error
	})
	if err != nil {
		return contract.RunView{}, Classify("start invocation", err)
	}
	return run.View(), nil
}

// FinishRun records a run's outcome, its schedule occurrence's outcome with
// it. An unknown run (its runner stopped mid-invocation) keeps its
// occurrence unknown, which holds the schedule until the owner looks. A
// run already finished may only go from unknown to succeeded, when a kept
// publication was acknowledged later.
func (s *Store) FinishRun(ctx context.Context, runner, runID string, in contract.RunFinishIn) (contract.RunView, error) {
	if err := s.ownRun(ctx, runner, runID); err != nil {
		return contract.RunView{}, err
	}
	v := &contract.Validator{}
	v.Enum("/outcome", in.Outcome, []string{contract.RunSucceeded, contract.RunFailed, contract.RunUnknown})
	v.Text("/detail", in.Detail, contract.MaxReasonLen, false)
	usageErrors(v, in.DurationMS, in.Tokens, in.CostUSD)
	if len(v.Errs) > 0 {
		return contract.RunView{}, &contract.ValidationError{Errors: v.Errs}
	}
	var run Run
	if err := s.rdb.WithContext(ctx).Take(&run, "id = ?", runID).Error; err != nil {
		return contract.RunView{}, Classify("finish run", notFound(err))
	}
	if run.State != contract.RunRunning && !(run.State == contract.RunUnknown && in.Outcome == contract.RunSucceeded) {
		return run.View(), ErrRunFinished
	}
	if run.OccurrenceID != nil && run.State == contract.RunRunning && in.Outcome != contract.RunUnknown && run.Invocations > 0 {
		if _, err := s.FinishOccurrence(ctx, *run.OccurrenceID, in.Outcome == contract.RunSucceeded, in.Detail); err != nil && !errors.Is(err, ErrOccurrenceClosed) {
			return contract.RunView{}, err
		}
	}
	_, err := s.commit(ctx, func(t *txn) error {
		now := s.clock()
		run.State, run.Detail, run.UpdatedAt = in.Outcome, strings.TrimSpace(in.Detail), now
		run.FinishedAt = &now
		run.DurationMS = run.DurationMS.plus(in.DurationMS)
		if in.PublicationRunID != nil {
			run.PublicationRunID = *in.PublicationRunID
		}
		if in.PublicationRevision != nil {
			run.PublicationRevision = *in.PublicationRevision
		}
		if in.Tokens != nil {
			run.Tokens = run.Tokens.plus(*in.Tokens)
		}
		if in.CostUSD != nil {
			run.CostUSD += *in.CostUSD
		}
		if in.Outcome == contract.RunUnknown && run.OccurrenceID != nil {
			// The occurrence's outcome is unknown: hold the schedule for investigation.
			if err := t.Model(&ScheduleOccurrence{}).Where("id = ? AND state = ?", *run.OccurrenceID, OccurrenceRunning).
				Updates(map[string]any{"state": OccurrenceUnknown, "detail": "the runner stopped during an agent invocation: " + run.Detail, "updated_at": now}).Error; err != nil {
				return err
			}
		}
		return t.Save(&run).Error
	})
	if err != nil {
		return contract.RunView{}, Classify("finish run", err)
	}
	return run.View(), nil
}

// ResolveRun is the owner's word that an unknown run was looked at: the
// run stays unknown (nobody knows what it did) but no longer holds its
// schedule, which may admit its next occurrence.
func (s *Store) ResolveRun(ctx context.Context, runID string) (contract.RunView, error) {
	var run Run
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Take(&run, "id = ?", runID).Error; err != nil {
			return notFound(err)
		}
		if run.State != contract.RunUnknown || run.ResolvedAt != nil {
			return nil
		}
		if _, err := t.bump(); err != nil {
			return err
		}
		t.touch("run:" + runID)
		run.ResolvedAt, run.UpdatedAt = &t.now, t.now
		if run.OccurrenceID != nil {
			if err := t.Model(&ScheduleOccurrence{}).Where("id = ? AND state = ? AND resolved_at IS NULL", *run.OccurrenceID, OccurrenceUnknown).
				Updates(map[string]any{"resolved_at": t.now, "updated_at": t.now}).Error; err != nil {
				return err
			}
		}
		return t.Save(&run).Error
	})
	if err != nil {
		return contract.RunView{}, Classify("resolve run", err)
	}
	return run.View(), nil
}

// CostSince sums the cost runs started since start reported: every
// reported invocation's, whatever the run's outcome, and any reported at finish.
func CostSince(tx *gorm.DB, start time.Time) (float64, error) {
	var sum float64
	err := tx.Model(&Run{}).Where("started_at >= ?", start).Select("COALESCE(SUM(cost_usd), 0)").Scan(&sum).Error
	return sum, err
}

// TokensSince sums the tokens runs started since start reported, as
// CostSince sums their cost (TOTAL: a float, never an integer overflow).
func TokensSince(tx *gorm.DB, start time.Time) (float64, error) {
	var sum float64
	err := tx.Model(&Run{}).Where("started_at >= ?", start).Select("TOTAL(tokens)").Scan(&sum).Error
	return sum, err
}

// FateWindows are the windows a job's fates are summed over, in days: the
// runs started in the last 7 and the last 30 days (models/read sums them).
var FateWindows = []int{7, 30}

// RunsView is the Runs page: recent runs, the outstanding and recent
// schedule occurrences, the last accepted publication and how fresh its
// sources were.
type RunsView struct {
	Revision        int64
	Day             Day
	Runs            []contract.RunView
	Schedules       []ScheduleView
	LastPublication *contract.PublicationView
	// SourcesObservedAt is the newest observedAt among the last publication's
	// source refs: how fresh what the agent read was.
	SourcesObservedAt *time.Time
	LastFailure       *contract.RunView // the newest failed or unknown run after the last success
	CostToday         float64
	TokensToday       float64
	Backups           BackupHealth
	// Agents is each agent's login health, as its runner last reported it.
	Agents []AgentHealthView
	// Fates is what each run shown published and what became of it, by run ID.
	Fates map[string]contract.WorkFates
	// JobFates sums them per job over each of FateWindows (the agent
	// context carries the same).
	JobFates []contract.WorkFates
	// Coverage are the spans of the last CoverageDays when hearth could
	// not see Beeper, oldest first (the agent context carries the same).
	Coverage []contract.CoverageGapView
}

// LastFailure is the newest failed or unknown run newer than every success.
func LastFailure(runs []contract.RunView) *contract.RunView {
	for i, r := range runs {
		switch r.State {
		case contract.RunSucceeded:
			return nil
		case contract.RunFailed, contract.RunUnknown:
			return &runs[i]
		}
	}
	return nil
}

// RunNotice is what Home says about autonomous runs: the last run failed
// (so the brief shown is an older one), or scheduled runs are paused by
// the cost cap.
type RunNotice struct {
	Failed  *contract.RunView
	CapHeld bool
	Spent   float64
	Cap     float64
	// Held are the priorities whose scheduled and watch runs wait today.
	Held []string
	// TokensHeld are the priorities the daily token cap holds today, at
	// Tokens reported of TokenCap.
	TokensHeld []string
	Tokens     float64
	TokenCap   int64
	// BackupFailed is the newest backup drill when it failed.
	BackupFailed *BackupDrillView
	// AuthHeld is an agent whose login is missing or refused: its
	// scheduled work waits.
	AuthHeld *AgentHealthView
	// WatchFailing is the Beeper watch's health when its last
	// WatchFailingAfter passes all failed: new messages are not being seen.
	WatchFailing *WatchHealth
	// Coverage are today's spans when hearth could not see Beeper (one
	// still open included): replies from then may be missing.
	Coverage []contract.CoverageGapView
}

// homeRunNotice reads the run notice of the owner's day in tx.
func homeRunNotice(tx *gorm.DB, day Day, costs costpolicy.Policy) (RunNotice, error) {
	var n RunNotice
	var rows []Run
	if err := tx.Where("state != ?", contract.RunRunning).Order("started_at DESC, id").Limit(10).Find(&rows).Error; err != nil {
		return n, err
	}
	views := make([]contract.RunView, len(rows))
	for i, r := range rows {
		views[i] = r.View()
	}
	n.Failed = LastFailure(views)
	backups, err := BackupHealthOf(tx)
	if err != nil {
		return n, err
	}
	n.BackupFailed = backups.Failed
	agents, err := AgentHealthViews(tx)
	if err != nil {
		return n, err
	}
	n.AuthHeld = heldForAuth(agents)
	if n.WatchFailing, err = watchFailing(tx); err != nil {
		return n, err
	}
	if n.Coverage, err = CoverageSince(tx, day.Start); err != nil {
		return n, err
	}
	if costs.Cap <= 0 && costs.TokenCap <= 0 {
		return n, nil
	}
	if costs.TokenCap > 0 {
		if n.Tokens, err = TokensSince(tx, day.Start); err != nil {
			return n, err
		}
		n.TokenCap, n.TokensHeld = costs.TokenCap, costs.HeldByTokens(n.Tokens)
	}
	if costs.Cap <= 0 {
		return n, nil
	}
	if n.Spent, err = CostSince(tx, day.Start); err != nil {
		return n, err
	}
	n.Cap, n.Held = costs.Cap, costs.Held(n.Spent)
	n.CapHeld = len(n.Held) > 0
	return n, nil
}

// ownRun checks that runner started runID (a runner claims only its own runs).
func (s *Store) ownRun(ctx context.Context, runner, runID string) error {
	var n int64
	if err := s.rdb.WithContext(ctx).Model(&Run{}).Where("id = ? AND runner = ?", runID, runner).Count(&n).Error; err != nil {
		return fmt.Errorf("models: run: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
