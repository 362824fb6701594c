// Package routinecount counts a routine revision's occasions over a
// window (the metrics the Routines page, the agent context and the review
// show) and keeps those counts between reads (Memo). It is pure: the store
// reads the occurrences, outcomes and step counts (models'
// routine_metrics.go) and names what each commit changes.
package routinecount

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"hearth/internal/calendar"
	"hearth/internal/contract"
	"hearth/internal/zone"
)

// Occurrence outcomes. Unrecorded is computed (an applicable day that ended
// with no outcome), never stored as a choice.
const (
	OutcomeCompleted     = "completed"
	OutcomePartial       = "partial"
	OutcomeSkipped       = "skipped"
	OutcomeDeferred      = "deferred"
	OutcomeNotApplicable = "not-applicable"
	OutcomeUnrecorded    = "unrecorded"
	// OutcomeOpen is an applicable occasion whose day has not ended yet.
	OutcomeOpen = "open"
)

// Definition is what the counts need of a routine revision.
type Definition struct {
	RoutineID   string
	Revision    int64
	TriggerKind string
	Steps       string // the revision's steps, JSON
}

// Trial is what the counts need of one of the revision's trials.
type Trial struct {
	StartsOn string
	LastDay  string // the trial's last planned date
	Days     string // the ISO weekdays it plans, JSON
}

// Input is what the metrics of one routine revision over a window are
// computed from: read by the store, counted by Compute.
type Input struct {
	Def         Definition
	Trials      []Trial // of the revision, by ID
	Occurrences []Occurrence
	Steps       []StepCount
}

// Occurrence is an occurrence with its current (newest) outcome row;
// Outcome is empty when none was recorded or the newest row reopened it.
type Occurrence struct {
	ID, Occasion, LocalDate, Zone   string
	Outcome, Reason, Effort, Helped string
	Late                            bool
}

// StepCount is how many of a step's activities in the window the owner
// completed, skipped or dismissed, and how many of them have a saved value.
type StepCount struct {
	Step                          string
	Completed, Skipped, Dismissed int
	Saved                         int
}

// Compute counts the window at now on the owner's day. It also returns
// until when the result holds without a new outcome: the end of the
// earliest occasion still open, when it would turn unrecorded.
func (in Input) Compute(from, to string, day calendar.Day, now time.Time) (contract.RoutineMetrics, time.Time) {
	m := contract.RoutineMetrics{RoutineID: in.Def.RoutineID, Revision: in.Def.Revision, Window: contract.WindowIn{From: from, To: to}, Days: []contract.DayOutcome{}, Steps: []contract.StepMetrics{}}
	byOccasion := make(map[string]int, len(in.Occurrences))
	for i, o := range in.Occurrences {
		byOccasion[o.Occasion] = i
	}
	var planned []int // indexes into in.Occurrences, or -1 - i for planned day i without an occurrence
	var dates []string
	if in.Def.TriggerKind == contract.TriggerEvent {
		for i := range in.Occurrences {
			planned = append(planned, i)
		}
	} else {
		seen := map[string]bool{}
		for _, tr := range in.Trials {
			start, end := max(from, tr.StartsOn), min(to, tr.LastDay, day.Date)
			days := Weekdays(tr.Days)
			first, err := time.Parse(time.DateOnly, start)
			if err != nil {
				continue
			}
			for t := first; ; t = t.AddDate(0, 0, 1) {
				d := t.Format(time.DateOnly)
				if d > end {
					break
				}
				if seen[d] || !days[ISOWeekday(t)] {
					continue
				}
				seen[d] = true
				if i, ok := byOccasion[d]; ok {
					planned = append(planned, i)
				} else {
					dates = append(dates, d)
					planned = append(planned, -len(dates))
				}
			}
		}
		date := func(p int) string {
			if p >= 0 {
				return in.Occurrences[p].LocalDate
			}
			return dates[-p-1]
		}
		slices.SortStableFunc(planned, func(a, b int) int { return strings.Compare(date(a), date(b)) })
	}
	var until time.Time
	for _, p := range planned {
		var do contract.DayOutcome
		zone := ""
		if p >= 0 {
			o := in.Occurrences[p]
			do = contract.DayOutcome{Date: o.LocalDate, OccurrenceID: o.ID}
			if o.Outcome != "" {
				do.Outcome, do.Reason, do.Late, do.Effort, do.Helped = o.Outcome, o.Reason, o.Late, o.Effort, o.Helped
			}
			zone = o.Zone
		} else {
			do = contract.DayOutcome{Date: dates[-p-1]}
		}
		if do.Outcome == "" {
			end, ok := OccasionEnd(do.Date, zone, day)
			switch {
			case ok && !now.Before(end):
				do.Outcome = OutcomeUnrecorded
			default:
				do.Outcome = OutcomeOpen
				if ok && (until.IsZero() || end.Before(until)) {
					until = end
				}
			}
		}
		countOutcome(&m, do)
		m.Days = append(m.Days, do)
	}
	m.Attainment = contract.Ratio{Completed: m.Completed, Applicable: m.Applicable}
	m.Coverage = contract.CoverageRatio{Observed: m.Completed + m.Partial + m.Skipped + m.Deferred, Applicable: m.Applicable}
	m.Steps = in.stepMetrics()
	return m, until
}

// Weekdays is the set of ISO weekdays a trial plans, from its days (JSON).
func Weekdays(daysJSON string) [8]bool {
	var days []int
	_ = json.Unmarshal([]byte(daysJSON), &days)
	var set [8]bool
	for _, d := range days {
		if d >= 1 && d <= 7 {
			set[d] = true
		}
	}
	return set
}

// ISOWeekday is 1 (Monday) to 7 (Sunday).
func ISOWeekday(t time.Time) int {
	if wd := int(t.Weekday()); wd != 0 {
		return wd
	}
	return 7
}

// countOutcome adds one occasion: not applicable leaves the denominator, an open
// occasion (its day has not ended) is not counted yet.
func countOutcome(m *contract.RoutineMetrics, do contract.DayOutcome) {
	switch do.Outcome {
	case OutcomeNotApplicable:
		m.NotApplicable++
		if do.Reason != "" {
			m.Reasons = append(m.Reasons, do.Date+": "+do.Reason)
		}
		return
	case OutcomeOpen:
		m.Open++
		return
	case OutcomeCompleted:
		m.Completed++
	case OutcomePartial:
		m.Partial++
	case OutcomeSkipped:
		m.Skipped++
	case OutcomeDeferred:
		m.Deferred++
	case OutcomeUnrecorded:
		m.Unrecorded++
	}
	m.Applicable++
	f := &m.Feedback
	switch do.Effort {
	case "easy":
		f.Easy++
	case "ok":
		f.OK++
	case "hard":
		f.Hard++
	}
	if do.Effort != "" {
		f.EffortAnswered++
	}
	switch do.Helped {
	case "yes":
		f.Helped++
	case "no":
		f.NotHelped++
	case "unsure":
		f.Unsure++
	}
	if do.Helped != "" {
		f.Answered++
	}
}

// OccasionEnd is when an occasion's day ends in its zone (the
// occurrence's, else the owner's): from then on no outcome means unrecorded.
func OccasionEnd(date, zoneName string, day calendar.Day) (time.Time, bool) {
	loc := day.Zone
	if zoneName != "" {
		if l, err := zone.Load(zoneName); err == nil {
			loc = l
		}
	}
	d, err := time.ParseInLocation(time.DateOnly, date, loc)
	if err != nil {
		return time.Time{}, false
	}
	return calendar.DayOf(d, loc).End, true
}

// stepMetrics analyses each step over the window's occurrences.
func (in Input) stepMetrics() []contract.StepMetrics {
	var steps []contract.RoutineStep
	_ = json.Unmarshal([]byte(in.Def.Steps), &steps)
	out := make([]contract.StepMetrics, len(steps))
	index := map[string]int{}
	for i, st := range steps {
		out[i] = contract.StepMetrics{StepID: st.ID, Title: st.Title, Kind: st.Kind, Required: st.Required, Occasions: len(in.Occurrences)}
		index[st.ID] = i
	}
	for _, c := range in.Steps {
		i, ok := index[c.Step]
		if !ok {
			continue
		}
		out[i].Completed += c.Completed
		out[i].Skipped += c.Skipped
		out[i].Dismissed += c.Dismissed
		out[i].Saved += c.Saved
	}
	return out
}
