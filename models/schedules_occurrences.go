package models

import (
	"context"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/schedule"
	"hearth/internal/strictjson"
)

// Admission is the answer to a claim: the occurrence admitted, if any, and
// the definition to run it with, from the approved snapshot.
type Admission struct {
	ScheduleID string `json:"scheduleId"`
	// Admitted is the new occurrence; nil when nothing was admitted.
	Admitted *contract.ScheduleOccurrenceView `json:"admitted"`
	// Expired is an outstanding occurrence this claim expired (or, with a
	// running attempt, marked unknown).
	Expired *contract.ScheduleOccurrenceView `json:"expired"`
	// Hold says why nothing was admitted: a schedule.Hold, or quarantined,
	// approval_revoked.
	Hold   string `json:"hold,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Job, Prompt, Limits and NotifyOnSuccess come from the approved snapshot.
	Job             string              `json:"job,omitempty"`
	Prompt          string              `json:"prompt,omitempty"`
	Limits          contract.LimitsView `json:"limits"`
	NotifyOnSuccess bool                `json:"notifyOnSuccess"`
}

// ClaimSchedule is the admission of Timing A, for the runner: in one write
// transaction it checks the approval and the definition file (a failed
// check is recorded as a quarantine, which bumps the revision and admits
// nothing), evaluates the schedule on the store's clock and applies the
// decision: the outstanding occurrence expires (or turns unknown when an
// attempt is still running), the admitted one is inserted with LastDueAt,
// NextDueAt is stored, and a schedule with nothing left is marked expired.
// The partial unique index of migration 00009 keeps a second outstanding
// occurrence out even against another process, so concurrent claims admit
// exactly once. Occurrence bookkeeping does not bump the revision.
func (s *Store) ClaimSchedule(ctx context.Context, id, claimant string) (Admission, error) {
	adm := Admission{ScheduleID: id}
	_, err := s.commit(ctx, func(t *txn) error { return s.claim(t, &adm, claimant, "") })
	if err != nil {
		return Admission{}, classifySchedule("claim schedule", err)
	}
	return adm, nil
}

// claim is ClaimSchedule of adm.ScheduleID inside t, filling adm, so a
// caller can write more in the same commit (StartRun: the run row). A
// non-empty job must be the approved one; that is checked before anything
// is written (a *ValidationError at /job).
func (s *Store) claim(t *txn, adm *Admission, claimant, job string) error {
	id := adm.ScheduleID
	var row Schedule
	if err := t.Where("id = ?", id).Take(&row).Error; err != nil {
		return notFound(err)
	}
	def, err := row.definition()
	if err != nil {
		// Nothing to run from; held, and recorded like a failed file check.
		adm.Hold, adm.Reason = HoldQuarantined, ReasonUnreadable
		if row.State == string(schedule.StatusActive) {
			return quarantine(t, &row, unreadableCheck(err))
		}
		return nil
	}
	if job != "" && job != def.Job {
		return &contract.ValidationError{Errors: []strictjson.FieldError{{Path: "/job", Message: "schedule " + id + " runs another job",
			Expected: contract.QuoteFound(def.Job), Found: contract.QuoteFound(job)}}}
	}
	adm.Job, adm.Prompt, adm.Limits, adm.NotifyOnSuccess = def.Job, def.Prompt, limitsView(def.Limits), def.NotifyOnSuccess
	if row.State == string(schedule.StatusActive) {
		var revoked []string
		if err := revokedCredentials(t.DB, &revoked); err != nil {
			return err
		}
		if approvalRevoked(row, revoked) {
			adm.Hold, adm.Reason = HoldApprovalRevoked, "credential "+row.ApprovedBy+" was revoked"
			return nil
		}
		if fc := s.checkFile(row, &def); !fc.OK() {
			adm.Hold, adm.Reason = HoldQuarantined, fc.Status
			return quarantine(t, &row, fc)
		}
	}
	var occ []ScheduleOccurrence
	if err := t.Where("schedule_id = ? AND state IN ?", id, outstandingStates).Find(&occ).Error; err != nil {
		return err
	}
	out := byScheduleID(occ)[id]
	d := schedule.Evaluate(id, def.Rule, evalState(row, out), t.now)
	adm.Hold = string(d.Hold)
	updates := map[string]any{}
	if d.Expire != nil && out != nil {
		if d.Hold == schedule.HoldInvestigate {
			if out.State == OccurrenceRunning {
				out.State, out.Detail = OccurrenceUnknown, "expired while an attempt was running: its outcome is unknown; investigate before anything reruns"
			}
		} else {
			fin := d.Expire.ExpiresAt().UTC()
			out.State, out.FinishedAt, out.Detail = OccurrenceExpired, &fin, "not finished within 24 h of its due time"
			updates["last_finished_at"], updates["occurrences_expired"] = fin, row.OccurrencesExpired+1
			row.LastFinishedAt = &fin
		}
		out.UpdatedAt = t.now
		if err := t.Save(out).Error; err != nil {
			return err
		}
		adm.Expired = ptr(out.view())
		if !out.outstanding() {
			out = nil
		}
	}
	if d.Admit != nil {
		o := ScheduleOccurrence{ID: d.Admit.ID(), ScheduleID: id, DueAt: d.Admit.DueAt.UTC(), State: OccurrenceAdmitted,
			MaxAttempts: def.Limits.MaxInvocations, ExpiresAt: d.Admit.ExpiresAt().UTC(), ClaimedBy: claimant, ClaimedAt: t.now, UpdatedAt: t.now}
		if err := t.Create(&o).Error; err != nil {
			return err
		}
		adm.Admitted, out = ptr(o.view()), &o
		updates["last_due_at"], updates["occurrences_admitted"] = o.DueAt, row.OccurrencesAdmitted+1
	}
	if d.NextDueAt.IsZero() {
		updates["next_due_at"] = nil
	} else {
		updates["next_due_at"] = d.NextDueAt.UTC()
	}
	if row.State == string(schedule.StatusActive) && d.Ended && out == nil {
		if err := endSchedule(t, row, d); err != nil {
			return err
		}
	}
	updates["updated_at"] = t.now
	return t.Model(&Schedule{}).Where("id = ?", id).Updates(updates).Error
}

// quarantine records a failed file check; it changes what the owner sees,
// so it bumps the revision.
func quarantine(t *txn, row *Schedule, fc FileCheck) error {
	rev, err := t.bump()
	if err != nil {
		return err
	}
	t.touch("schedule:" + row.ID)
	row.State, row.StateReason, row.StateDetail = string(schedule.StatusQuarantined), fc.Status, fc.Detail
	return t.Model(&Schedule{}).Where("id = ?", row.ID).Updates(map[string]any{
		"state": row.State, "state_reason": fc.Status, "state_detail": fc.Detail, "state_changed_at": t.now, "revision": rev, "updated_at": t.now,
	}).Error
}

// endSchedule marks a schedule with no instant left, and nothing
// outstanding, expired.
func endSchedule(t *txn, row Schedule, d schedule.Decision) error {
	detail := "no due instant remains"
	switch {
	case !d.StaleSince.IsZero():
		detail = "its last instant, " + d.StaleSince.UTC().Format(time.RFC3339) + ", was missed by more than 24 h"
	case row.LastDueAt != nil:
		detail = "its last instant was " + row.LastDueAt.UTC().Format(time.RFC3339)
	}
	rev, err := t.bump()
	if err != nil {
		return err
	}
	t.touch("schedule:" + row.ID)
	return t.Model(&Schedule{}).Where("id = ?", row.ID).Updates(map[string]any{
		"state": string(schedule.StatusExpired), "state_reason": "ended", "state_detail": detail, "state_changed_at": t.now, "revision": rev,
	}).Error
}

// StartAttempt records that the runner invokes the agent for an admitted or
// running occurrence: one more attempt, at most the occurrence's
// maxInvocations across retries (Budget A, ErrAttemptsExhausted beyond),
// with a deadline from the approved limits. A cancelled, quarantined or
// otherwise inactive schedule starts nothing, nor does an occurrence past
// its freshness (ErrOccurrenceClosed). It does not bump the revision.
func (s *Store) StartAttempt(ctx context.Context, occurrenceID string) (contract.ScheduleOccurrenceView, error) {
	var o ScheduleOccurrence
	_, err := s.commit(ctx, func(t *txn) error {
		now := s.clock()
		if err := t.Where("id = ?", occurrenceID).Take(&o).Error; err != nil {
			return notFound(err)
		}
		var row Schedule
		if err := t.Where("id = ?", o.ScheduleID).Take(&row).Error; err != nil {
			return err
		}
		def, err := row.definition()
		if err != nil {
			return ErrOccurrenceClosed // unreadable: quarantined at serve's start, so nothing of it starts
		}
		switch {
		case o.State != OccurrenceAdmitted && o.State != OccurrenceRunning,
			row.State != string(schedule.StatusActive), !now.Before(o.ExpiresAt):
			return ErrOccurrenceClosed
		case o.Attempts >= o.MaxAttempts:
			return ErrAttemptsExhausted
		}
		deadline := now.Add(def.Limits.Deadline)
		o.Attempts++
		o.State, o.DeadlineAt, o.UpdatedAt = OccurrenceRunning, &deadline, now
		if o.StartedAt == nil {
			o.StartedAt = &now
		}
		return t.Save(&o).Error
	})
	if err != nil {
		return contract.ScheduleOccurrenceView{}, classifySchedule("start attempt", err)
	}
	return o.view(), nil
}

// FinishOccurrence records a running occurrence's outcome. A one-off (or a
// cron past its end) with nothing left is then marked expired, which bumps
// the revision; the outcome itself does not.
func (s *Store) FinishOccurrence(ctx context.Context, occurrenceID string, succeeded bool, detail string) (contract.ScheduleOccurrenceView, error) {
	var o ScheduleOccurrence
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Where("id = ?", occurrenceID).Take(&o).Error; err != nil {
			return notFound(err)
		}
		if o.State != OccurrenceRunning {
			return ErrOccurrenceClosed
		}
		var row Schedule
		if err := t.Where("id = ?", o.ScheduleID).Take(&row).Error; err != nil {
			return err
		}
		o.State, o.FinishedAt, o.Detail, o.UpdatedAt = OccurrenceFailed, &t.now, detail, t.now
		counter := "occurrences_failed"
		if succeeded {
			o.State, counter = OccurrenceSucceeded, "occurrences_succeeded"
		}
		if err := t.Save(&o).Error; err != nil {
			return err
		}
		if err := t.Model(&Schedule{}).Where("id = ?", row.ID).Updates(map[string]any{
			"last_finished_at": t.now, counter: gorm.Expr(counter + " + 1"), "updated_at": t.now,
		}).Error; err != nil {
			return err
		}
		row.LastFinishedAt = &t.now
		if row.State != string(schedule.StatusActive) {
			return nil
		}
		def, err := row.definition()
		if err != nil {
			return nil // the outcome is recorded; an unreadable rule cannot say whether it ended
		}
		if d := schedule.Evaluate(row.ID, def.Rule, evalState(row, nil), t.now); d.Ended && d.Admit == nil {
			return endSchedule(t, row, d)
		}
		return nil
	})
	if err != nil {
		return contract.ScheduleOccurrenceView{}, classifySchedule("finish occurrence", err)
	}
	return o.view(), nil
}
