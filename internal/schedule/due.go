package schedule

import (
	"time"
)

// Freshness is how long after its due instant an occurrence may still be
// admitted or kept waiting; after that it expires (Timing A).
const Freshness = 24 * time.Hour

// MaxSkips bounds Decision.Skipped: a minute-by-minute cron after a day's
// downtime would otherwise list 1439 superseded instants.
const MaxSkips = 100

// Status is a schedule's state in the ledger; only active schedules admit.
type Status string

// The ledger states of a schedule (docs/schedules-and-runner.md).
const (
	StatusActive         Status = "active"
	StatusCancelled      Status = "cancelled"
	StatusExpired        Status = "expired"
	StatusQuarantined    Status = "quarantined"
	StatusRestorePending Status = "restore_pending"
)

// State is what the ledger knows about a schedule's occurrences.
type State struct {
	Status Status
	// Since is when the schedule was created (or re-approved, if the ledger
	// chooses): instants at or before it are never due, so a new schedule
	// does not backfill. Zero looks back one freshness window.
	Since time.Time
	// LastDueAt is the due instant of the latest admitted occurrence (zero:
	// none). Instants at or before it are never admitted again.
	LastDueAt time.Time
	// Outstanding: the occurrence due at LastDueAt is admitted and not
	// finished (queued, running, or waiting on the owner). It needs LastDueAt.
	Outstanding bool
	// Running: an attempt of the outstanding occurrence has started and has
	// not reported an outcome.
	Running bool
	// LastFinishedAt is when the latest occurrence finished or expired;
	// instants due before it were due while it was outstanding (busy).
	LastFinishedAt time.Time
}

// Occurrence is one due instant of one schedule; its identity is the pair.
type Occurrence struct {
	ScheduleID string
	DueAt      time.Time
}

// ID is the occurrence identity "scheduleID/dueAt-in-UTC"; a schedule ID
// cannot contain "/", so the split is unambiguous.
func (o Occurrence) ID() string {
	return o.ScheduleID + "/" + o.DueAt.UTC().Format(time.RFC3339Nano)
}

// ExpiresAt is when the occurrence stops being admissible or worth waiting for.
func (o Occurrence) ExpiresAt() time.Time { return o.DueAt.Add(Freshness) }

// Hold says why a Decision admits nothing.
type Hold string

// The reasons nothing is admitted.
const (
	HoldNone        Hold = ""            // an occurrence is admitted
	HoldNotDue      Hold = "not_due"     // no fresh instant has passed
	HoldOutstanding Hold = "outstanding" // one occurrence is outstanding; they never overlap
	HoldInvestigate Hold = "investigate" // an expired occurrence still has a running attempt: its outcome is unknown
	HoldInactive    Hold = "inactive"    // the schedule is not active (cancelled, expired, quarantined, restore_pending)
)

// Decision is Evaluate's answer. Applying it is the ledger's job, in one
// transaction: mark Expire expired as of its ExpiresAt, insert Admit with
// LastDueAt = Admit.DueAt, store NextDueAt.
type Decision struct {
	Admit  *Occurrence // the one occurrence to admit now, if any
	Expire *Occurrence // the outstanding occurrence whose freshness has run out, if any
	Hold   Hold
	// Skipped lists, oldest first, the wall times and instants of the last
	// 24 hours that will not run; the oldest beyond MaxSkips are only counted.
	Skipped        []Skip
	SkippedOmitted int
	// StaleSince is the first missed instant older than the freshness window
	// (zero: none); it and any later ones up to the window are never run.
	StaleSince time.Time
	// NextDueAt is the first instant after now (zero: none).
	NextDueAt time.Time
	// Ended (set for active schedules): no instant remains after now (a
	// one-off that has run or gone stale, or a cron past its endAt). Once
	// nothing is outstanding, the ledger may mark the schedule expired.
	Ended bool
}

// Evaluate decides, on the given clock and without side effects, what is due
// for one schedule under Timing A: at most one outstanding occurrence; after
// downtime only the latest missed instant, and only within Freshness of its
// due instant; an outstanding occurrence expires Freshness after its due
// instant. The read-only `due` and the admission claim share it.
func Evaluate(scheduleID string, r Rule, st State, now time.Time) Decision {
	var d Decision
	busyUntil := st.LastFinishedAt
	if st.Outstanding {
		o := Occurrence{ScheduleID: scheduleID, DueAt: st.LastDueAt.In(zoneOr(r.loc))}
		switch {
		case now.Before(o.ExpiresAt()):
			d.Hold, busyUntil = HoldOutstanding, farFuture
		case st.Running:
			// Expired, but its attempt never reported: do not start another
			// beside it; the owner investigates.
			d.Expire, d.Hold, busyUntil = &o, HoldInvestigate, farFuture
		default:
			d.Expire, busyUntil = &o, o.ExpiresAt()
		}
	}
	if st.Status != StatusActive {
		if d.Hold == HoldNone {
			d.Hold = HoldInactive
		}
		return d
	}

	lo := latest(st.Since, st.LastDueAt)
	windowStart := now.Add(-Freshness)
	if lo.IsZero() {
		lo = windowStart // no known start: look back no further than the window
	}
	from := lo
	if lo.Before(windowStart) {
		// Instants older than the window are never run; report only the
		// first one that was not busy, instead of walking a long downtime.
		if !busyUntil.Equal(farFuture) {
			for c := range r.candidates(latest(lo, busyUntil.Add(-1))) {
				if c.due.IsZero() {
					continue
				}
				if !c.due.After(windowStart) {
					d.StaleSince = c.due
				}
				break
			}
		}
		from = windowStart
	}

	var admit time.Time
	for c := range r.candidates(from) {
		if c.pos.After(now) {
			if c.due.IsZero() {
				continue
			}
			d.NextDueAt = c.due
			break
		}
		switch {
		case c.due.IsZero():
			d.Skipped = append(d.Skipped, Skip{WallTime: c.wall, Reason: SkipNonexistent})
		case c.due.Before(busyUntil):
			d.Skipped = append(d.Skipped, Skip{DueAt: c.due, Reason: SkipBusy})
		default:
			if !admit.IsZero() {
				d.Skipped = append(d.Skipped, Skip{DueAt: admit, Reason: SkipSuperseded})
			}
			admit = c.due
		}
	}
	if n := len(d.Skipped) - MaxSkips; n > 0 {
		d.SkippedOmitted = n
		d.Skipped = append([]Skip(nil), d.Skipped[n:]...)
	}
	if !admit.IsZero() {
		d.Admit, d.Hold = &Occurrence{ScheduleID: scheduleID, DueAt: admit}, HoldNone
	} else if d.Hold == HoldNone {
		d.Hold = HoldNotDue
	}
	d.Ended = d.NextDueAt.IsZero()
	return d
}

// farFuture stands for "busy until further notice".
var farFuture = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func zoneOr(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}
