package read

import (
	"context"
	"hearth/internal/contract"
	"hearth/models"
	"slices"
	"time"
)

// CompactContext is AgentContext without what the agent can re-read by
// cursor: history (settled and lapsed activities, retracted drafts, settled
// requests, ended trials) and the execution logs (measurements, sends,
// observations, occurrences, routine metrics; reply decisions older than a
// day, but for reminders still ahead; decisions on activities but for the
// last day's undos and what they undid). A collection that lost items
// says so with "truncated": true and a nextCursor that reads it in full from
// its start, at the same revision. Of the items it keeps, it leaves out
// values that say nothing: people's updatedAt and an activity's default
// userState (available, never decided).
func (s Store) CompactContext(ctx context.Context) (contract.AgentContext, error) {
	ac, err := s.AgentContext(ctx)
	if err != nil {
		return ac, err
	}
	rev := ac.Revision
	keep(&ac.Activities, contract.CollectionActivities, rev, func(a contract.ActivityView) bool {
		return a.Retracted == nil && !slices.Contains(models.SettledStates, a.UserState.State)
	})
	keep(&ac.ReplyDrafts, contract.CollectionReplyDrafts, rev, func(d contract.DraftView) bool { return d.Retracted == nil })
	keep(&ac.Requests, contract.CollectionRequests, rev, func(r contract.RequestView) bool { return r.Status == contract.RequestPending })
	keep(&ac.Trials, contract.CollectionTrials, rev, func(t contract.TrialView) bool { return t.State == "active" })
	keep(&ac.Measurements, contract.CollectionMeasurements, rev, func(contract.MeasurementView) bool { return false })
	keep(&ac.Sends, contract.CollectionSends, rev, func(v contract.SendView) bool {
		return v.Status == models.SendPending || v.Status == models.SendUnknown
	})
	keep(&ac.Observations, contract.CollectionObservations, rev, func(contract.ObservationView) bool { return false })
	keep(&ac.Occurrences, contract.CollectionOccurrences, rev, func(o contract.OccurrenceView) bool { return o.Outcome == models.OutcomeOpen })
	keep(&ac.RoutineMetrics, contract.CollectionRoutineMetrics, rev, func(contract.TrialMetricsView) bool { return false })
	// The owner's recent reply decisions, and reminders still ahead, stay:
	// they change what the agent should draft next.
	recent := ac.GeneratedAt.Add(-24 * time.Hour)
	keep(&ac.ReplyDecisions, contract.CollectionReplyDecisions, rev, func(d contract.ReplyDecisionView) bool {
		return !d.At.Before(recent) || (d.Decision == models.ActionRemindLater && d.Until >= ac.Today.Date)
	})
	// Of the decisions on activities (whose outcome the activities already
	// show), the last day's undos stay with what they undid: a decision
	// taken back is news the current state alone does not tell.
	undone := map[int64]bool{}
	for _, d := range ac.ActivityDecisions.Items {
		if d.Undoes != 0 && !d.At.Before(recent) {
			undone[d.Undoes], undone[d.ID] = true, true
		}
	}
	keep(&ac.ActivityDecisions, contract.CollectionActivityDecisions, rev, func(d contract.ActivityDecisionView) bool { return undone[d.ID] })
	// The owner's items stay but for those done before the last day.
	ac.OwnerItems = slices.DeleteFunc(ac.OwnerItems, func(o contract.OwnerItemView) bool { return o.DoneAt != nil && o.DoneAt.Before(recent) })
	for i := range ac.People.Items {
		ac.People.Items[i].UpdatedAt = time.Time{}
	}
	for i, a := range ac.Activities.Items {
		if a.UserState == (contract.UserStateView{State: models.StateAvailable}) {
			ac.Activities.Items[i].UserState = contract.UserStateView{}
		}
	}
	return ac, nil
}

// keep drops the items of p that fail want; when it drops any, the page
// points at the collection's start so the agent can read all of it.
func keep[T any](p *contract.Page[T], collection string, revision int64, want func(T) bool) {
	kept := p.Items[:0:0]
	for _, it := range p.Items {
		if want(it) {
			kept = append(kept, it)
		}
	}
	if len(kept) == len(p.Items) {
		return
	}
	p.Items, p.Truncated, p.NextCursor = kept, true, encodeCursor(collection, revision, "")
}
