package read

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/models"
)

// What a run's work became, so the owner can judge a job by what it
// produced. Every activity and reply draft
// records the publication that first published it (migration 00024); a
// runner publishes as <run>-<invocation>, so a run's items are those of
// its publications, found by index, never guessed from times. An item's
// fate is read from what the owner did, through the same rules the agent
// context uses (models.DraftOutcomes for drafts, the owner's state for
// activities), and the Runs page and the agent context both read it here.

// fateTally is a WorkFates being summed, with what its cost per accepted
// item divides: the cost and accepted items of the runs that reported a cost.
type fateTally struct {
	contract.WorkFates
	pricedCost     float64
	pricedAccepted int
	priced         bool
}

func (f *fateTally) add(o fateTally) {
	w, x := &f.WorkFates, o.WorkFates
	w.Runs += x.Runs
	w.Drafts += x.Drafts
	w.SentAsWritten += x.SentAsWritten
	w.SentEdited += x.SentEdited
	w.Replaced += x.Replaced
	w.HandedOff += x.HandedOff
	w.Declined += x.Declined
	w.DraftsWithdrawn += x.DraftsWithdrawn
	w.DraftsOpen += x.DraftsOpen
	w.Tasks += x.Tasks
	w.Done += x.Done
	w.Partial += x.Partial
	w.Skipped += x.Skipped
	w.Dismissed += x.Dismissed
	w.TasksWithdrawn += x.TasksWithdrawn
	w.TasksOpen += x.TasksOpen
	w.RequestsCompleted += x.RequestsCompleted
	w.Accepted += x.Accepted
	f.pricedCost += o.pricedCost
	f.pricedAccepted += o.pricedAccepted
	f.priced = f.priced || o.priced
}

// done fills the cost figures: none unless a run reported a cost, and no
// cost per accepted item unless one of those runs' items was accepted.
func (f fateTally) done() contract.WorkFates {
	w := f.WorkFates
	if f.priced {
		cost := f.pricedCost
		w.CostUSD = &cost
		if f.pricedAccepted > 0 {
			per := f.pricedCost / float64(f.pricedAccepted)
			w.CostPerAcceptedUSD = &per
		}
	}
	return w
}

// fateRun is a run as its fates need it.
type fateRun struct {
	ID               string
	Job              string
	Runner           string
	PublicationRunID string
	CostUSD          float64 `gorm:"column:cost_usd"`
	// Reported is set when the runner reported a cost for the run: an
	// invocation's (NULL when not reported), or a cost at its finish.
	Reported  bool
	StartedAt time.Time
}

// fateRunColumns reads fateRun; run_invocations is searched by its key.
// The item reads below name their indexes: an IN list of a window's
// publications is long, and on a young database's statistics SQLite would
// rather scan the table than search it once per publication.
const fateRunColumns = `runs.id, runs.job, runs.runner, runs.publication_run_id, runs.cost_usd, runs.started_at,
	(runs.cost_usd > 0 OR EXISTS (SELECT 1 FROM run_invocations i WHERE i.run_id = runs.id AND i.cost_usd IS NOT NULL)) AS reported`

// publicationsOf maps each publication runId a run may have published
// under (<run>-1 … <run>-3, and the one it finished with) to the run.
func publicationsOf(runs []fateRun) map[string]*fateRun {
	out := make(map[string]*fateRun, len(runs)*(contract.MaxRunInvocations+1))
	for i := range runs {
		r := &runs[i]
		for n := 1; n <= contract.MaxRunInvocations; n++ {
			out[fmt.Sprintf("%s-%d", r.ID, n)] = r
		}
		if r.PublicationRunID != "" {
			out[r.PublicationRunID] = r
		}
	}
	return out
}

// tallyRuns counts what each run published and what became of it, by run ID.
func tallyRuns(tx *gorm.DB, runs []fateRun) (map[string]*fateTally, error) {
	out := make(map[string]*fateTally, len(runs))
	for _, r := range runs {
		out[r.ID] = &fateTally{WorkFates: contract.WorkFates{Job: r.Job, Runs: 1}}
	}
	byPub := publicationsOf(runs)
	pubIDs := make([]string, 0, len(byPub))
	for id := range byPub {
		pubIDs = append(pubIDs, id)
	}
	slices.Sort(pubIDs)
	// owner finds the run an item belongs to: its publication's, when that
	// run's runner was the publisher.
	owner := func(pubID, publisher string) *fateTally {
		if r := byPub[pubID]; r != nil && (publisher == "" || publisher == r.Runner) {
			return out[r.ID]
		}
		return nil
	}
	for chunk := range slices.Chunk(pubIDs, 400) {
		var drafts []struct {
			ID             string
			PublishedRunID string
			Publisher      string
			Retracted      bool
			SetAside       bool // its reply row dismissed or skipped on Home
		}
		if err := tx.Raw(`SELECT d.id, d.published_run_id, d.publisher, d.retracted_at IS NOT NULL AS retracted,
				EXISTS (SELECT 1 FROM activities a JOIN activity_states s ON s.activity_id = a.id
					WHERE a.draft_id = d.id AND s.state IN ('dismissed', 'skipped')) AS set_aside
			FROM reply_drafts d INDEXED BY reply_drafts_published
			WHERE d.published_run_id IN ? AND d.published_run_id <> ''`, chunk).Scan(&drafts).Error; err != nil {
			return nil, err
		}
		views := make([]contract.DraftView, len(drafts))
		for i, d := range drafts {
			views[i].ID = d.ID
		}
		if err := models.DraftOutcomes(tx, views); err != nil {
			return nil, err
		}
		for i, d := range drafts {
			f := owner(d.PublishedRunID, d.Publisher)
			if f == nil {
				continue
			}
			f.Drafts++
			fate := ""
			if o := views[i].Outcome; o != nil {
				fate = o.Kind
			}
			switch {
			case fate == models.DraftSentAsWritten:
				f.SentAsWritten++
				f.Accepted++
			case fate == models.DraftSentEdited:
				f.SentEdited++
				f.Accepted++
			case fate == models.DraftReplaced:
				f.Replaced++
			case fate == models.DraftHandedOff:
				f.HandedOff++
			case fate == models.DraftDeclined, fate == "" && d.SetAside:
				f.Declined++
			case d.Retracted:
				f.DraftsWithdrawn++
			default:
				f.DraftsOpen++
			}
		}
		// A reply activity is its draft's twin, counted with the draft.
		var acts []struct {
			PublishedRunID string
			Publisher      string
			Retracted      bool
			State          *string
		}
		if err := tx.Raw(`SELECT a.published_run_id, a.publisher, a.retracted_at IS NOT NULL AS retracted, s.state FROM activities a INDEXED BY activities_published
			LEFT JOIN activity_states s ON s.activity_id = a.id
			WHERE a.published_run_id IN ? AND a.published_run_id <> '' AND a.kind <> 'reply'`, chunk).Scan(&acts).Error; err != nil {
			return nil, err
		}
		for _, a := range acts {
			f := owner(a.PublishedRunID, a.Publisher)
			if f == nil {
				continue
			}
			f.Tasks++
			switch state := deref(a.State); {
			case state == models.StateCompleted:
				f.Done++
				f.Accepted++
			case state == models.StatePartial:
				f.Partial++
			case state == models.StateSkipped:
				f.Skipped++
			case state == models.StateDismissed:
				f.Dismissed++
			case a.Retracted:
				f.TasksWithdrawn++
			default:
				f.TasksOpen++
			}
		}
		var reqs []struct {
			CompletedRunID string
			N              int
		}
		if err := tx.Raw(`SELECT completed_run_id, count(*) AS n FROM requests INDEXED BY requests_completed_run WHERE completed_run_id IN ? AND completed_run_id <> ''
			AND status = ? GROUP BY completed_run_id`, chunk, contract.RequestCompleted).Scan(&reqs).Error; err != nil {
			return nil, err
		}
		for _, q := range reqs {
			if f := owner(q.CompletedRunID, ""); f != nil {
				f.RequestsCompleted += q.N
			}
		}
	}
	for _, r := range runs {
		if f := out[r.ID]; r.Reported {
			f.priced, f.pricedCost, f.pricedAccepted = true, r.CostUSD, f.Accepted
		}
	}
	return out, nil
}

// fatesOf is what each of runs published and what became of it, by run
// ID; invs are their invocations (a reported cost among them prices the run).
func fatesOf(tx *gorm.DB, runs []models.Run, invs map[string][]contract.InvocationView) (map[string]contract.WorkFates, error) {
	rows := make([]fateRun, len(runs))
	for i, r := range runs {
		rows[i] = fateRun{ID: r.ID, Job: r.Job, Runner: r.Runner, PublicationRunID: r.PublicationRunID, CostUSD: r.CostUSD, StartedAt: r.StartedAt,
			Reported: r.CostUSD > 0 || slices.ContainsFunc(invs[r.ID], func(v contract.InvocationView) bool { return v.CostUSD != nil })}
	}
	tallies, err := tallyRuns(tx, rows)
	if err != nil {
		return nil, err
	}
	out := make(map[string]contract.WorkFates, len(tallies))
	for id, f := range tallies {
		out[id] = f.done()
	}
	return out, nil
}

// jobFates sums what the runs of each job published, and what became of
// it, over each of models.FateWindows before now: one entry per job and window
// with a run in it, by job then window. It reads the runs of the longest
// window (by runs_started) and their items by index.
func jobFates(tx *gorm.DB, now time.Time) ([]contract.WorkFates, error) {
	longest := slices.Max(models.FateWindows)
	var rows []fateRun
	if err := tx.Table("runs").Select(fateRunColumns).Where("runs.started_at >= ?", now.Add(-time.Duration(longest)*24*time.Hour)).
		Scan(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	tallies, err := tallyRuns(tx, rows)
	if err != nil {
		return nil, err
	}
	type key struct {
		job  string
		days int
	}
	sums := map[key]*fateTally{}
	for _, r := range rows {
		for _, days := range models.FateWindows {
			if r.StartedAt.Before(now.Add(-time.Duration(days) * 24 * time.Hour)) {
				continue
			}
			k := key{r.Job, days}
			if sums[k] == nil {
				sums[k] = &fateTally{WorkFates: contract.WorkFates{Job: r.Job, Days: days}}
			}
			sums[k].add(*tallies[r.ID])
		}
	}
	out := make([]contract.WorkFates, 0, len(sums))
	for _, f := range sums {
		out = append(out, f.done())
	}
	slices.SortFunc(out, func(a, b contract.WorkFates) int {
		return cmp.Or(strings.Compare(a.Job, b.Job), cmp.Compare(a.Days, b.Days))
	})
	return out, nil
}
