package models

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"hearth/internal/contract"

	"gorm.io/gorm"
)

// metricsMemo keeps routine counts computed for the Routines page between
// reads, by routine revision and calendar month, so a page after a commit
// recounts only the months that commit changed (make bench: a year of 20
// routines is ~6,000 occurrences, tens of milliseconds to count in full).
//
// Every write that changes what counts are computed from (trials,
// occurrences, outcomes, feedback, the steps' states and values) names it
// with touchRoutine, and commit records those changes here, at their
// revision, before the transaction commits. An entry computed in a
// snapshot at revision R is reused by a read at revision >= R only while no
// change after R concerns it, so a read that sees a commit never reuses
// counts from before it; a commit that rolls back only costs a recount.
// Publications change no counted input: a revision's steps, trigger and
// rule never change, reviews are not counted, and hearth's occurrences are
// not the agent's to publish. The owner's zone and date are in the key.
// It pays about 40x on Routines (BenchmarkRoutinesRender: first-render,
// every month counted, 140-195 ms; after-commit 3.4-4.3 ms; 2026-12-03).
type metricsMemo struct {
	mu      sync.Mutex
	changes map[string]*routineChanges // by routine ID
	entries map[metricsKey]metricsEntry
	// merged are whole windows added up from their months, kept while
	// every month is the same computation (so a read copies no days).
	merged map[metricsKey]mergedEntry
	seq    uint64 // numbers computations
	// views are definitions parsed for the page, by routine@revision and
	// the publication that last wrote the row.
	views map[string]contract.RoutineRevisionView
}

type mergedEntry struct {
	parts []uint64 // the computation of each month
	m     contract.RoutineMetrics
}

// recount names what a transaction changed of a routine's counted inputs:
// revision's occasions on date, every date when date is empty, every
// revision when revision is 0.
type recount struct {
	routine  string
	revision int64
	date     string
}

// routineChanges are a routine's recorded changes: all counts at whole,
// and the newest precise ones (older ones are folded into whole).
type routineChanges struct {
	whole int64
	exact []exactChange
}

type exactChange struct {
	at       int64 // the revision of the commit
	revision int64
	date     string
}

// maxExactChanges bounds a routine's precise changes; folding older ones
// into whole only costs recounts.
const maxExactChanges = 64

// metricsKey is one computation: a routine revision over a window (a
// month, or part of one), in the owner's zone, on the owner's date when
// the window reaches it (a window that ended before today does not move).
type metricsKey struct {
	routine    string
	revision   int64
	from, to   string
	zone, date string
}

type metricsEntry struct {
	seq   uint64    // which computation it is
	at    int64     // the snapshot revision it was computed at
	until time.Time // when an open occasion turns unrecorded; zero: never
	m     contract.RoutineMetrics
}

// maxMemoEntries bounds the memo: twenty routines with a year of two
// trials each are about 500 entries.
const maxMemoEntries = 8192

func newMetricsMemo() *metricsMemo {
	return &metricsMemo{changes: map[string]*routineChanges{}, entries: map[metricsKey]metricsEntry{}, merged: map[metricsKey]mergedEntry{},
		views: map[string]contract.RoutineRevisionView{}}
}

func newMetricsKey(routine string, revision int64, from, to string, day Day) metricsKey {
	k := metricsKey{routine: routine, revision: revision, from: from, to: to, zone: day.Zone.String()}
	if to >= day.Date {
		k.date = day.Date
	}
	return k
}

// changing records, inside the committing transaction, what revision rev
// changes of the routines' counted inputs.
func (m *metricsMemo) changing(rev int64, recounts []recount) {
	if len(recounts) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range recounts {
		c := m.changes[r.routine]
		if c == nil {
			c = &routineChanges{}
			m.changes[r.routine] = c
		}
		if r.revision == 0 {
			c.whole = max(c.whole, rev)
			continue
		}
		c.exact = append(c.exact, exactChange{at: rev, revision: r.revision, date: r.date})
		if len(c.exact) > maxExactChanges {
			c.whole = max(c.whole, c.exact[0].at)
			c.exact = c.exact[1:]
		}
	}
}

// stale reports whether a change after revision at concerns k.
func (m *metricsMemo) stale(k metricsKey, at int64) bool {
	c := m.changes[k.routine]
	if c == nil {
		return false
	}
	if c.whole > at {
		return true
	}
	for _, e := range c.exact {
		if e.at > at && e.revision == k.revision && (e.date == "" || k.from <= e.date && e.date <= k.to) {
			return true
		}
	}
	return false
}

// get returns the counts of k for a read whose snapshot is at revision
// at, and which computation they are. The result is shared: callers must
// not modify it.
func (m *metricsMemo) get(k metricsKey, at int64, now time.Time) (contract.RoutineMetrics, uint64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok || e.at > at || m.stale(k, e.at) || (!e.until.IsZero() && !now.Before(e.until)) {
		return contract.RoutineMetrics{}, 0, false
	}
	return e.m, e.seq, true
}

// put keeps a computation and returns its number.
func (m *metricsMemo) put(k metricsKey, at int64, until time.Time, metrics contract.RoutineMetrics) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seq++
	if e, ok := m.entries[k]; ok && e.at > at {
		return m.seq
	}
	if len(m.entries) >= maxMemoEntries {
		clear(m.entries)
		clear(m.merged)
	}
	m.entries[k] = metricsEntry{seq: m.seq, at: at, until: until, m: metrics}
	return m.seq
}

// window adds up a window's months (parts, computations seqs), reusing
// the sum while the months are the same computations.
func (m *metricsMemo) window(k metricsKey, seqs []uint64, parts []contract.RoutineMetrics) contract.RoutineMetrics {
	m.mu.Lock()
	e, ok := m.merged[k]
	m.mu.Unlock()
	if ok && slices.Equal(e.parts, seqs) {
		return e.m
	}
	sum := mergeMetrics(k.routine, k.revision, k.from, k.to, parts)
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.merged) >= maxMemoEntries {
		clear(m.merged)
	}
	m.merged[k] = mergedEntry{parts: seqs, m: sum}
	return sum
}

// monthWindows splits [from, to] at calendar months: the memo's unit.
func monthWindows(from, to string) [][2]string {
	start, err1 := time.Parse(time.DateOnly, from)
	end, err2 := time.Parse(time.DateOnly, to)
	if err1 != nil || err2 != nil || end.Before(start) {
		return [][2]string{{from, to}}
	}
	var out [][2]string
	for cur := start; !cur.After(end); {
		next := time.Date(cur.Year(), cur.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		last := next.AddDate(0, 0, -1)
		if last.After(end) {
			last = end
		}
		out = append(out, [2]string{cur.Format(time.DateOnly), last.Format(time.DateOnly)})
		cur = next
	}
	return out
}

// mergeMetrics adds the counts of consecutive windows of one routine
// revision into those of [from, to]: every count is a sum over occasions,
// and the days follow in order.
func mergeMetrics(routineID string, revision int64, from, to string, parts []contract.RoutineMetrics) contract.RoutineMetrics {
	if len(parts) == 1 {
		m := parts[0]
		m.Window = contract.WindowIn{From: from, To: to}
		return m
	}
	m := contract.RoutineMetrics{RoutineID: routineID, Revision: revision, Window: contract.WindowIn{From: from, To: to}, Days: []contract.DayOutcome{}, Steps: []contract.StepMetrics{}}
	days := 0
	for _, p := range parts {
		days += len(p.Days)
	}
	m.Days = make([]contract.DayOutcome, 0, days)
	if len(parts) > 0 {
		m.Steps = make([]contract.StepMetrics, len(parts[0].Steps))
		for i, s := range parts[0].Steps {
			m.Steps[i] = contract.StepMetrics{StepID: s.StepID, Title: s.Title, Kind: s.Kind, Required: s.Required}
		}
	}
	for _, p := range parts {
		m.Applicable += p.Applicable
		m.Completed += p.Completed
		m.Partial += p.Partial
		m.Skipped += p.Skipped
		m.Deferred += p.Deferred
		m.NotApplicable += p.NotApplicable
		m.Unrecorded += p.Unrecorded
		m.Open += p.Open
		m.Reasons = append(m.Reasons, p.Reasons...)
		m.Days = append(m.Days, p.Days...)
		f, g := &m.Feedback, p.Feedback
		f.Easy, f.OK, f.Hard, f.EffortAnswered = f.Easy+g.Easy, f.OK+g.OK, f.Hard+g.Hard, f.EffortAnswered+g.EffortAnswered
		f.Helped, f.NotHelped, f.Unsure, f.Answered = f.Helped+g.Helped, f.NotHelped+g.NotHelped, f.Unsure+g.Unsure, f.Answered+g.Answered
		for i, s := range p.Steps {
			if i < len(m.Steps) {
				t := &m.Steps[i]
				t.Occasions, t.Completed, t.Skipped, t.Dismissed, t.Saved = t.Occasions+s.Occasions, t.Completed+s.Completed,
					t.Skipped+s.Skipped, t.Dismissed+s.Dismissed, t.Saved+s.Saved
			}
		}
	}
	m.Attainment = contract.Ratio{Completed: m.Completed, Applicable: m.Applicable}
	m.Coverage = contract.CoverageRatio{Observed: m.Completed + m.Partial + m.Skipped + m.Deferred, Applicable: m.Applicable}
	return m
}

// view is d parsed for the page, parsed once per publication of the row.
// The result is shared: callers must not modify its slices.
func (m *metricsMemo) view(d RoutineDefinition) contract.RoutineRevisionView {
	key := fmt.Sprintf("%s@%d@%d", d.RoutineID, d.Revision, d.PublishedRevision)
	m.mu.Lock()
	v, ok := m.views[key]
	m.mu.Unlock()
	if ok && v.PublishedAt.Equal(d.UpdatedAt) {
		return v
	}
	v = d.View()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.views) >= maxMemoEntries {
		clear(m.views)
	}
	m.views[key] = v
	return v
}

// DefinitionView is d parsed for the Routines page, parsed once per
// publication of the row (the memo's views).
func (s *Store) DefinitionView(d RoutineDefinition) contract.RoutineRevisionView {
	return s.metrics.view(d)
}

// KeptMetrics is RoutineMetrics of def over [from, to] from its trials
// already read (by ID), month by month, reusing the months no commit has
// changed since: the memo keys on rev, the revision read in tx.
func (s *Store) KeptMetrics(tx *gorm.DB, def RoutineDefinition, trials []RoutineTrial, from, to string, rev int64, day Day, now time.Time) (contract.RoutineMetrics, error) {
	windows := monthWindows(from, to)
	parts, seqs := make([]contract.RoutineMetrics, 0, len(windows)), make([]uint64, 0, len(windows))
	for _, w := range windows {
		key := newMetricsKey(def.RoutineID, def.Revision, w[0], w[1], day)
		m, seq, ok := s.metrics.get(key, rev, now)
		if !ok {
			in, err := loadMetricsInput(tx, def, trials, w[0], w[1])
			if err != nil {
				return contract.RoutineMetrics{}, err
			}
			var until time.Time
			m, until = in.compute(w[0], w[1], day, now)
			seq = s.metrics.put(key, rev, until, m)
		}
		parts, seqs = append(parts, m), append(seqs, seq)
	}
	return s.metrics.window(newMetricsKey(def.RoutineID, def.Revision, from, to, day), seqs, parts), nil
}
