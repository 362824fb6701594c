package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/instant"
	"hearth/internal/schedule"
)

// MaxScheduleList bounds GET /api/schedules and the Schedules page: the
// newest schedules of every state, cancelled ones included.
const MaxScheduleList = 500

// Holds the due report gives besides schedule.Hold's.
const (
	HoldQuarantined     = "quarantined"      // the file is not what was approved, or the ledger recorded so
	HoldRestorePending  = "restore_pending"  // restored from a backup; the owner reconciles it
	HoldApprovalRevoked = "approval_revoked" // the credential that approved it was revoked; the owner may approve it again
)

// FileCheck is what a schedule's definition file holds now, compared with
// the approved snapshot (internal/schedule's Store.Check).
type FileCheck = schedule.FileCheck

// checkFile reads the definition file of a schedule and compares it with
// the approved snapshot; approved is nil when the snapshot cannot be read,
// and then a changed file lists no changes.
func (s *Store) checkFile(row Schedule, approved *schedule.Definition) FileCheck {
	return s.defs.Check(row.ID, row.ApprovedFingerprint, approved)
}

// ReasonUnreadable is the ledger's reason for a schedule whose approved
// snapshot no longer reads as a definition (schedule.ReasonUnreadable).
const ReasonUnreadable = schedule.ReasonUnreadable

// UnreadableError is an approved snapshot that does not read as a
// definition; every error of Schedule.definition is one.
type UnreadableError = schedule.UnreadableError

// whatNow ends a quarantine's detail: what the owner can do about it.
const whatNow = schedule.WhatNow

// definition is the approved snapshot, checked against its fingerprint; an
// error is always an *UnreadableError.
func (row Schedule) definition() (schedule.Definition, error) {
	return schedule.ParseApproved(row.ID, row.ApprovedSnapshot, row.ApprovedFingerprint)
}

// unreadableCheck is the quarantine an unreadable snapshot records.
func unreadableCheck(err error) FileCheck { return schedule.UnreadableCheck(err) }

// evalState is what Evaluate needs from the ledger.
func evalState(row Schedule, out *ScheduleOccurrence) schedule.State {
	st := schedule.State{Status: schedule.Status(row.State), Since: row.Since}
	if row.LastDueAt != nil {
		st.LastDueAt = *row.LastDueAt
	}
	if row.LastFinishedAt != nil {
		st.LastFinishedAt = *row.LastFinishedAt
	}
	if out != nil {
		st.Outstanding, st.LastDueAt = true, out.DueAt
		st.Running = out.State == OccurrenceRunning || out.State == OccurrenceUnknown
	}
	return st
}

// ScheduleView is a schedule as GET /api/schedules and the Schedules page show it.
type ScheduleView struct {
	ID             string              `json:"id"`
	Job            string              `json:"job"`
	State          string              `json:"state"`
	StateReason    string              `json:"stateReason,omitempty"`
	StateDetail    string              `json:"stateDetail,omitempty"`
	StateChangedAt time.Time           `json:"stateChangedAt"`
	At             string              `json:"at,omitempty"`
	Cron           string              `json:"cron,omitempty"`
	EndAt          string              `json:"endAt,omitempty"`
	Zone           string              `json:"zone"`
	ZoneSource     string              `json:"zoneSource"`
	NextDueAt      *time.Time          `json:"nextDueAt"` // active schedules only, in the zone
	LastDueAt      *time.Time          `json:"lastDueAt"`
	LastFinishedAt *time.Time          `json:"lastFinishedAt"`
	Limits         contract.LimitsView `json:"limits"`
	Notify         bool                `json:"notifyOnSuccess"`
	PromptPreview  string              `json:"promptPreview"`
	Fingerprint    string              `json:"fingerprint"` // the approved one
	CreatedAt      time.Time           `json:"createdAt"`
	CreatedBy      Actor               `json:"createdBy"`
	ApprovedAt     time.Time           `json:"approvedAt"`
	ApprovedBy     string              `json:"approvedBy"`
	CancelledAt    *time.Time          `json:"cancelledAt,omitempty"`
	Counters       Counters            `json:"counters"`
	// Outstanding is the occurrence that keeps the schedule busy, if any.
	Outstanding *contract.ScheduleOccurrenceView `json:"outstanding"`
	// File is the live check of the definition file (not for cancelled or
	// expired schedules, whose files are retired or done).
	File *FileCheck `json:"file,omitempty"`
	// Hold says why an active schedule would not run now even when due.
	Hold string `json:"hold,omitempty"`
	// Unreadable says why the approved definition cannot be read (then the
	// rule, limits and prompt are unknown and the schedule is held).
	Unreadable string `json:"unreadable,omitempty"`
}

// Counters are a schedule's occurrence counts.
type Counters struct {
	Admitted  int64 `json:"admitted"`
	Succeeded int64 `json:"succeeded"`
	Failed    int64 `json:"failed"`
	Expired   int64 `json:"expired"`
}

// ScheduleList is GET /api/schedules.
type ScheduleList struct {
	Schedules []ScheduleView `json:"schedules"`
	Truncated bool           `json:"truncated"`
}

// Schedules lists the newest MaxScheduleList schedules of every state,
// cancelled ones with their state, newest first. It reads the definition
// files but writes nothing.
func (s *Store) Schedules(ctx context.Context) (ScheduleList, error) {
	var rows []Schedule
	var out []ScheduleOccurrence
	var revoked []string
	err := s.Read(ctx, func(tx *gorm.DB) error {
		if err := tx.Order("created_at DESC, id").Limit(MaxScheduleList + 1).Find(&rows).Error; err != nil {
			return err
		}
		if err := outstandingOccurrences(tx, &out); err != nil {
			return err
		}
		return revokedCredentials(tx, &revoked)
	})
	if err != nil {
		return ScheduleList{}, fmt.Errorf("models: schedules: %w", err)
	}
	list := ScheduleList{Schedules: []ScheduleView{}}
	if len(rows) > MaxScheduleList {
		rows, list.Truncated = rows[:MaxScheduleList], true
	}
	busy := byScheduleID(out)
	now := s.clock()
	for _, row := range rows {
		list.Schedules = append(list.Schedules, s.scheduleView(row, busy[row.ID], revoked, now))
	}
	return list, nil
}

// Schedule is one schedule as Schedules shows it.
func (s *Store) Schedule(ctx context.Context, id string) (ScheduleView, error) {
	var row Schedule
	var out []ScheduleOccurrence
	var revoked []string
	err := s.Read(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("id = ?", id).Take(&row).Error; err != nil {
			return notFound(err)
		}
		if err := tx.Where("schedule_id = ? AND state IN ?", id, outstandingStates).Find(&out).Error; err != nil {
			return err
		}
		return revokedCredentials(tx, &revoked)
	})
	if err != nil {
		return ScheduleView{}, Classify("schedule", err)
	}
	return s.scheduleView(row, byScheduleID(out)[id], revoked, s.clock()), nil
}

func outstandingOccurrences(tx *gorm.DB, out *[]ScheduleOccurrence) error {
	return tx.Where("state IN ?", outstandingStates).Find(out).Error
}

func revokedCredentials(tx *gorm.DB, ids *[]string) error {
	return tx.Model(&AgentCredential{}).Where("revoked_at IS NOT NULL").Pluck("id", ids).Error
}

// byScheduleID keeps the outstanding occurrence of each schedule.
func byScheduleID(occ []ScheduleOccurrence) map[string]*ScheduleOccurrence {
	m := map[string]*ScheduleOccurrence{}
	for i := range occ {
		if occ[i].outstanding() {
			m[occ[i].ScheduleID] = &occ[i]
		}
	}
	return m
}

// scheduleView builds a schedule's view. One whose approved snapshot
// cannot be read is shown with what the ledger knows, held, rather than
// failing the list: its rule, limits and prompt are unknown.
func (s *Store) scheduleView(row Schedule, out *ScheduleOccurrence, revoked []string, now time.Time) ScheduleView {
	v := ScheduleView{
		ID: row.ID, Job: row.Job, State: row.State, StateReason: row.StateReason, StateDetail: row.StateDetail, StateChangedAt: row.StateChangedAt.UTC(),
		Zone: row.Zone, ZoneSource: row.ZoneSource, LastDueAt: zoned(row.LastDueAt, row.Zone), LastFinishedAt: inRangeUTC(row.LastFinishedAt),
		Fingerprint: row.ApprovedFingerprint, CreatedAt: row.CreatedAt.UTC(), CreatedBy: Actor{Kind: row.CreatorKind, ID: row.CreatorID, Name: row.CreatorName},
		ApprovedAt: row.ApprovedAt.UTC(), ApprovedBy: row.ApprovedBy, CancelledAt: inRangeUTC(row.CancelledAt),
		Counters: Counters{Admitted: row.OccurrencesAdmitted, Succeeded: row.OccurrencesSucceeded, Failed: row.OccurrencesFailed, Expired: row.OccurrencesExpired},
	}
	if out != nil {
		v.Outstanding = ptr(out.view())
	}
	var approved *schedule.Definition
	def, err := row.definition()
	if err != nil {
		v.Unreadable = schedule.UnreadableReason(err)
	} else {
		approved = &def
		spec := def.Rule.Spec()
		// Instants read in the schedule's zone, as its owner thinks of them.
		if at := def.Rule.At(); !at.IsZero() {
			spec.At = at.In(def.Rule.Location()).Format(time.RFC3339Nano)
		}
		if end := def.Rule.EndAt(); !end.IsZero() {
			spec.EndAt = end.In(def.Rule.Location()).Format(time.RFC3339Nano)
		}
		v.At, v.Cron, v.EndAt = spec.At, spec.Cron, spec.EndAt
		v.Limits, v.Notify, v.PromptPreview = limitsView(def.Limits), def.NotifyOnSuccess, def.Summarize().Prompt
	}
	switch schedule.Status(row.State) {
	case schedule.StatusActive, schedule.StatusQuarantined, schedule.StatusRestorePending:
		fc := s.checkFile(row, approved)
		v.File = &fc
	}
	if row.State != string(schedule.StatusActive) {
		return v
	}
	if approved == nil {
		v.Hold = HoldQuarantined
		return v
	}
	d := schedule.Evaluate(row.ID, def.Rule, evalState(row, out), now)
	if !d.NextDueAt.IsZero() {
		v.NextDueAt = zoned(&d.NextDueAt, row.Zone)
	}
	switch {
	case approvalRevoked(row, revoked):
		v.Hold = HoldApprovalRevoked
	case !v.File.OK():
		v.Hold = HoldQuarantined
	}
	return v
}

// inRangeUTC is t in UTC, or nil when it is past the bound (an older
// hearth's value no answer could encode; like zoned).
func inRangeUTC(t *time.Time) *time.Time {
	if t == nil || !instant.InRange(*t) {
		return nil
	}
	return utcPtr(*t)
}

// approvalRevoked reports whether the credential that approved row was revoked.
func approvalRevoked(row Schedule, revoked []string) bool {
	for _, id := range revoked {
		if id == row.ApprovedBy {
			return true
		}
	}
	return false
}

// zoned is t in the schedule's zone, or nil when it is absent or past the
// bound (in a zone it could print a five-digit year).
func zoned(t *time.Time, zone string) *time.Time {
	if t == nil || !instant.InRange(*t) {
		return nil
	}
	return inZone(*t, zone)
}

// DueSchedules evaluates every schedule at now with schedule.Evaluate. It
// is read-only: it claims nothing, advances nothing and records nothing,
// not even a quarantine it notices (a claim records that).
func (s *Store) DueSchedules(ctx context.Context, now time.Time) (contract.DueReport, error) {
	var rows []Schedule
	var out []ScheduleOccurrence
	var revoked []string
	err := s.Read(ctx, func(tx *gorm.DB) error {
		if err := tx.Where("state IN ?", []string{string(schedule.StatusActive), string(schedule.StatusQuarantined), string(schedule.StatusRestorePending)}).
			Order("id").Find(&rows).Error; err != nil {
			return err
		}
		if err := outstandingOccurrences(tx, &out); err != nil {
			return err
		}
		return revokedCredentials(tx, &revoked)
	})
	if err != nil {
		return contract.DueReport{}, fmt.Errorf("models: due: %w", err)
	}
	rep := contract.DueReport{Now: now.UTC(), Due: []contract.DueItem{}, Held: []contract.HeldItem{}}
	busy := byScheduleID(out)
	for _, row := range rows {
		switch schedule.Status(row.State) {
		case schedule.StatusQuarantined:
			rep.Held = append(rep.Held, contract.HeldItem{ScheduleID: row.ID, Hold: HoldQuarantined, Reason: row.StateReason})
			continue
		case schedule.StatusRestorePending:
			rep.Held = append(rep.Held, contract.HeldItem{ScheduleID: row.ID, Hold: HoldRestorePending, Reason: row.StateDetail})
			continue
		}
		def, err := row.definition()
		if err != nil {
			// Held, not a failed report: serve's start records the quarantine.
			rep.Held = append(rep.Held, contract.HeldItem{ScheduleID: row.ID, Hold: HoldQuarantined, Reason: ReasonUnreadable})
			continue
		}
		if approvalRevoked(row, revoked) {
			rep.Held = append(rep.Held, contract.HeldItem{ScheduleID: row.ID, Hold: HoldApprovalRevoked, Reason: "credential " + row.ApprovedBy + " was revoked"})
			continue
		}
		if fc := s.checkFile(row, &def); !fc.OK() {
			rep.Held = append(rep.Held, contract.HeldItem{ScheduleID: row.ID, Hold: HoldQuarantined, Reason: fc.Status})
			continue
		}
		o := busy[row.ID]
		d := schedule.Evaluate(row.ID, def.Rule, evalState(row, o), now)
		switch {
		case d.Admit != nil:
			rep.Due = append(rep.Due, contract.DueItem{ScheduleID: row.ID, OccurrenceID: d.Admit.ID(), DueAt: d.Admit.DueAt.In(def.Rule.Location()),
				ExpiresAt: d.Admit.ExpiresAt().UTC(), Job: def.Job, Zone: row.Zone, Limits: limitsView(def.Limits),
				NotifyOnSuccess: def.NotifyOnSuccess, Prompt: def.Prompt, Fingerprint: row.ApprovedFingerprint, Skipped: skipViews(d.Skipped)})
		case d.Hold == schedule.HoldOutstanding || d.Hold == schedule.HoldInvestigate:
			h := contract.HeldItem{ScheduleID: row.ID, Hold: string(d.Hold)}
			if o != nil {
				h.Outstanding = ptr(o.view())
			}
			rep.Held = append(rep.Held, h)
		}
	}
	return rep, nil
}

// skipViews are a due occurrence's skipped wall times and instants on the
// wire (never null).
func skipViews(s []schedule.Skip) []contract.ScheduleSkip {
	out := make([]contract.ScheduleSkip, len(s))
	for i, k := range s {
		out[i] = contract.ScheduleSkip{DueAt: k.DueAt, WallTime: k.WallTime, Reason: string(k.Reason)}
	}
	return out
}

// MaxNextCount is the default and the bound of `next`'s count.
const (
	DefaultNextCount = 5
	MaxNextCount     = schedule.MaxNext
)

// NextSchedule lists the next due instants of a schedule's approved rule
// after from (at most MaxNextCount), with the wall times skipped in DST
// gaps: for the owner to check a rule. It reads only the ledger.
func (s *Store) NextSchedule(ctx context.Context, id string, from time.Time, count int) (schedule.NextResult, error) {
	var row Schedule
	if err := s.rdb.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return schedule.NextResult{}, Classify("next", notFound(err))
	}
	def, err := row.definition()
	if err != nil {
		return schedule.NextResult{}, err
	}
	return schedule.NextReport(id, def.Rule, schedule.ZoneSource(row.ZoneSource), from, count), nil
}
