package routinecount

import (
	"slices"
	"sync"
	"time"

	"hearth/internal/calendar"
	"hearth/internal/contract"
)

// Memo keeps routine counts computed for the Routines page between
// reads, by routine revision and calendar month, so a page after a commit
// recounts only the months that commit changed (make bench: a year of 20
// routines is ~6,000 occurrences, tens of milliseconds to count in full).
//
// Every write that changes what counts are computed from (trials,
// occurrences, outcomes, feedback, the steps' states and values) names it
// (models' touchRoutine), and the store's commit records those changes
// here, at their revision, before the transaction commits. An entry computed in a
// snapshot at revision R is reused by a read at revision >= R only while no
// change after R concerns it, so a read that sees a commit never reuses
// counts from before it; a commit that rolls back only costs a recount.
// Publications change no counted input: a revision's steps, trigger and
// rule never change, reviews are not counted, and hearth's occurrences are
// not the agent's to publish. The owner's zone and date are in the key.
// It pays about 40x on Routines (BenchmarkRoutinesRender: first-render,
// every month counted, 140-195 ms; after-commit 3.4-4.3 ms; 2026-12-03).
type Memo struct {
	mu      sync.Mutex
	changes map[string]*routineChanges // by routine ID
	entries map[Key]entry
	// merged are whole windows added up from their months, kept while
	// every month is the same computation (so a read copies no days).
	merged map[Key]mergedEntry
	seq    uint64 // numbers computations
	// views are definitions parsed for the page, by routine@revision and
	// the publication that last wrote the row.
	views map[string]contract.RoutineRevisionView
}

type mergedEntry struct {
	parts []uint64 // the computation of each month
	m     contract.RoutineMetrics
}

// Change names what a transaction changed of a routine's counted inputs:
// Revision's occasions on Date, every date when Date is empty, every
// revision when Revision is 0.
type Change struct {
	Routine  string
	Revision int64
	Date     string
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

// Key is one computation: a routine revision over a window (a
// month, or part of one), in the owner's zone, on the owner's date when
// the window reaches it (a window that ended before today does not move).
type Key struct {
	routine    string
	revision   int64
	from, to   string
	zone, date string
}

type entry struct {
	seq   uint64    // which computation it is
	at    int64     // the snapshot revision it was computed at
	until time.Time // when an open occasion turns unrecorded; zero: never
	m     contract.RoutineMetrics
}

// maxMemoEntries bounds the memo: twenty routines with a year of two
// trials each are about 500 entries.
const maxMemoEntries = 8192

// NewMemo is an empty memo.
func NewMemo() *Memo {
	return &Memo{changes: map[string]*routineChanges{}, entries: map[Key]entry{}, merged: map[Key]mergedEntry{},
		views: map[string]contract.RoutineRevisionView{}}
}

// NewKey is the computation of routine@revision over [from, to] on day.
func NewKey(routine string, revision int64, from, to string, day calendar.Day) Key {
	k := Key{routine: routine, revision: revision, from: from, to: to, zone: day.Zone.String()}
	if to >= day.Date {
		k.date = day.Date
	}
	return k
}

// Changing records, inside the committing transaction, what revision rev
// changes of the routines' counted inputs.
func (m *Memo) Changing(rev int64, recounts []Change) {
	if len(recounts) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range recounts {
		c := m.changes[r.Routine]
		if c == nil {
			c = &routineChanges{}
			m.changes[r.Routine] = c
		}
		if r.Revision == 0 {
			c.whole = max(c.whole, rev)
			continue
		}
		c.exact = append(c.exact, exactChange{at: rev, revision: r.Revision, date: r.Date})
		if len(c.exact) > maxExactChanges {
			c.whole = max(c.whole, c.exact[0].at)
			c.exact = c.exact[1:]
		}
	}
}

// stale reports whether a change after revision at concerns k.
func (m *Memo) stale(k Key, at int64) bool {
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

// Get returns the counts of k for a read whose snapshot is at revision
// at, and which computation they are. The result is shared: callers must
// not modify it.
func (m *Memo) Get(k Key, at int64, now time.Time) (contract.RoutineMetrics, uint64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok || e.at > at || m.stale(k, e.at) || (!e.until.IsZero() && !now.Before(e.until)) {
		return contract.RoutineMetrics{}, 0, false
	}
	return e.m, e.seq, true
}

// Put keeps a computation and returns its number.
func (m *Memo) Put(k Key, at int64, until time.Time, metrics contract.RoutineMetrics) uint64 {
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
	m.entries[k] = entry{seq: m.seq, at: at, until: until, m: metrics}
	return m.seq
}

// Window adds up a window's months (parts, computations seqs), reusing
// the sum while the months are the same computations.
func (m *Memo) Window(k Key, seqs []uint64, parts []contract.RoutineMetrics) contract.RoutineMetrics {
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

// MonthWindows splits [from, to] at calendar months: the memo's unit.
func MonthWindows(from, to string) [][2]string {
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

// View is a revision's definition parsed for the page (by parse), parsed
// once per publication of its row: key names the row and the publication
// that last wrote it, publishedAt is when. The result is shared: callers
// must not modify its slices.
func (m *Memo) View(key string, publishedAt time.Time, parse func() contract.RoutineRevisionView) contract.RoutineRevisionView {
	m.mu.Lock()
	v, ok := m.views[key]
	m.mu.Unlock()
	if ok && v.PublishedAt.Equal(publishedAt) {
		return v
	}
	v = parse()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.views) >= maxMemoEntries {
		clear(m.views)
	}
	m.views[key] = v
	return v
}
