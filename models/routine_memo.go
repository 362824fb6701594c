package models

import (
	"strings"
	"sync"
	"time"
)

// metricsMemo keeps routine metrics computed for the Routines page between
// reads, so a page after a commit recounts only the routines that commit
// touched (make bench: a year of 20 routines is ~6,000 occurrences, tens of
// milliseconds to recount, while one routine is a few).
//
// Every write that can change a routine's counts (definitions, trials,
// occurrences, outcomes, feedback, its steps' states and values) touches
// "routine:<id>", and commit records the revision of that change here
// before the transaction commits. An entry computed in a snapshot at
// revision R is reused by a read at revision >= R only while its routine's
// last change is at or before R: a read that sees a commit therefore never
// reuses counts from before it. A commit that rolls back only costs a recount.
type metricsMemo struct {
	mu      sync.Mutex
	changed map[string]int64 // routine ID → revision of its last change
	entries map[metricsKey]metricsEntry
}

// metricsKey is one computation: a routine revision over a window, in the
// owner's zone, on the owner's date when the window reaches it (a window
// that ended before today does not move with the date).
type metricsKey struct {
	routine    string
	revision   int64
	from, to   string
	zone, date string
}

type metricsEntry struct {
	at    int64     // the snapshot revision it was computed at
	until time.Time // when an open occasion turns unrecorded; zero: never
	m     RoutineMetrics
}

// maxMemoEntries bounds the memo; a page needs one entry per trial and review.
const maxMemoEntries = 4096

func newMetricsMemo() *metricsMemo {
	return &metricsMemo{changed: map[string]int64{}, entries: map[metricsKey]metricsEntry{}}
}

func newMetricsKey(routine string, revision int64, from, to string, day Day) metricsKey {
	k := metricsKey{routine: routine, revision: revision, from: from, to: to, zone: day.Zone.String()}
	if to >= day.Date {
		k.date = day.Date
	}
	return k
}

// changing records, inside the committing transaction, which routines
// revision rev changes.
func (m *metricsMemo) changing(rev int64, changed []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, key := range changed {
		if id, ok := strings.CutPrefix(key, "routine:"); ok && m.changed[id] < rev {
			m.changed[id] = rev
		}
	}
}

// get returns the metrics of k for a read whose snapshot is at revision at.
// The result is shared: callers must not modify it.
func (m *metricsMemo) get(k metricsKey, at int64, now time.Time) (RoutineMetrics, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok || e.at > at || m.changed[k.routine] > e.at || (!e.until.IsZero() && !now.Before(e.until)) {
		return RoutineMetrics{}, false
	}
	return e.m, true
}

func (m *metricsMemo) put(k metricsKey, at int64, until time.Time, metrics RoutineMetrics) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.entries[k]; ok && e.at > at {
		return
	}
	if len(m.entries) >= maxMemoEntries {
		clear(m.entries)
	}
	m.entries[k] = metricsEntry{at: at, until: until, m: metrics}
}
