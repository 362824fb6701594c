package models

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/zone"
)

// RoutineMetrics computes the metrics of routineID@revision over [from, to]
// at now. Planned occasions come from the revision's trials (their days and
// windows) for daily and weekly routines, and from instantiated occurrences
// for event routines, so a day nobody opened Home still counts, as unrecorded.
func RoutineMetrics(tx *gorm.DB, routineID string, revision int64, from, to string, now time.Time) (contract.RoutineMetrics, error) {
	m := contract.RoutineMetrics{RoutineID: routineID, Revision: revision, Window: contract.WindowIn{From: from, To: to}, Days: []contract.DayOutcome{}, Steps: []contract.StepMetrics{}}
	var def RoutineDefinition
	if err := tx.Where("routine_id = ? AND revision = ?", routineID, revision).Take(&def).Error; err != nil {
		return m, notFound(err)
	}
	var trials []RoutineTrial
	if err := tx.Where("routine_id = ? AND revision = ?", routineID, revision).Order("id").Find(&trials).Error; err != nil {
		return m, err
	}
	day := DayOf(now, time.UTC)
	if z, err := OwnerDay(tx, now, ""); err == nil {
		day = z
	}
	in, err := loadMetricsInput(tx, def, trials, from, to)
	if err != nil {
		return m, err
	}
	m, _ = in.compute(from, to, day, now)
	return m, nil
}

// metricsInput is what the metrics of one routine revision over a window
// are computed from: read by loadMetricsInput, counted by compute.
type metricsInput struct {
	def    RoutineDefinition
	trials []RoutineTrial // of the revision, by ID
	occs   []occurrenceRecord
	steps  []stepCount
}

// occurrenceRecord is an occurrence with its current (newest) outcome row;
// Outcome is empty when none was recorded or the newest row reopened it.
type occurrenceRecord struct {
	ID, Occasion, LocalDate, Zone   string
	Outcome, Reason, Effort, Helped string
	Late                            bool
}

// stepCount is how many of a step's activities in the window are in state
// (empty when never decided), and how many of them have a saved value.
type stepCount struct {
	Step, State string
	N, Saved    int
}

// occurrenceRecords reads the occurrences of routineID@revision dated in
// [from, to] with their newest outcome row, in one query. An occasion is
// its date, or its date and ".event", so the occasion range (from, to+"~")
// holds the same occurrences and lets the (routine_id, occasion) index
// read only them, rather than every occasion of the routine.
//
// The parameters are routineID, revision, from, to, from, to.
const occurrenceRecords = `SELECT o.id, o.occasion, o.local_date, o.zone, COALESCE(r.outcome, ''), COALESCE(r.reason, ''),
		COALESCE(r.effort, ''), COALESCE(r.helped, ''), COALESCE(r.late, 0)
	FROM routine_occurrences o
	LEFT JOIN routine_outcomes r ON r.id = (SELECT MAX(x.id) FROM routine_outcomes x WHERE x.occurrence_id = o.id)
	WHERE o.routine_id = ? AND o.revision = ? AND o.local_date >= ? AND o.local_date <= ? AND o.occasion >= ? AND o.occasion <= ? || '~'
	ORDER BY o.local_date, o.occasion`

// stepCounts counts the step activities of the same occurrences by step and
// state in SQL, so a year of steps is a few rows, not thousands.
const stepCounts = `SELECT substr(a.id, length(a.parent_id) + 2) AS step, COALESCE(s.state, '') AS state, COUNT(*) AS n,
		SUM(EXISTS (SELECT 1 FROM measurements m WHERE m.activity_id = a.id)) AS saved
	FROM routine_occurrences o
	JOIN activities a ON a.parent_id = o.activity_id
	LEFT JOIN activity_states s ON s.activity_id = a.id
	WHERE o.routine_id = ? AND o.revision = ? AND o.local_date >= ? AND o.local_date <= ? AND o.occasion >= ? AND o.occasion <= ? || '~'
	GROUP BY 1, 2`

// loadMetricsInput reads the occurrences, outcomes and step counts of
// def's revision in [from, to]: two queries, scanned by hand.
func loadMetricsInput(tx *gorm.DB, def RoutineDefinition, trials []RoutineTrial, from, to string) (metricsInput, error) {
	in := metricsInput{def: def, trials: trials}
	rows, err := tx.Raw(occurrenceRecords, def.RoutineID, def.Revision, from, to, from, to).Rows()
	if err != nil {
		return in, err
	}
	for rows.Next() {
		var o occurrenceRecord
		if err := rows.Scan(&o.ID, &o.Occasion, &o.LocalDate, &o.Zone, &o.Outcome, &o.Reason, &o.Effort, &o.Helped, &o.Late); err != nil {
			rows.Close()
			return in, err
		}
		in.occs = append(in.occs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return in, err
	}
	if len(in.occs) == 0 {
		return in, nil
	}
	rows, err = tx.Raw(stepCounts, def.RoutineID, def.Revision, from, to, from, to).Rows()
	if err != nil {
		return in, err
	}
	defer rows.Close()
	for rows.Next() {
		var c stepCount
		if err := rows.Scan(&c.Step, &c.State, &c.N, &c.Saved); err != nil {
			return in, err
		}
		in.steps = append(in.steps, c)
	}
	return in, rows.Err()
}

// compute counts the window at now on the owner's day. It also returns
// until when the result holds without a new outcome: the end of the
// earliest occasion still open, when it would turn unrecorded.
func (in metricsInput) compute(from, to string, day Day, now time.Time) (contract.RoutineMetrics, time.Time) {
	m := contract.RoutineMetrics{RoutineID: in.def.RoutineID, Revision: in.def.Revision, Window: contract.WindowIn{From: from, To: to}, Days: []contract.DayOutcome{}, Steps: []contract.StepMetrics{}}
	byOccasion := make(map[string]int, len(in.occs))
	for i, o := range in.occs {
		byOccasion[o.Occasion] = i
	}
	var planned []int // indexes into in.occs, or -1 - i for planned day i without an occurrence
	var dates []string
	if in.def.TriggerKind == contract.TriggerEvent {
		for i := range in.occs {
			planned = append(planned, i)
		}
	} else {
		seen := map[string]bool{}
		for _, tr := range in.trials {
			start, end := max(from, tr.StartsOn), min(to, tr.LastDay(), day.Date)
			days := trialWeekdays(tr)
			first, err := time.Parse(time.DateOnly, start)
			if err != nil {
				continue
			}
			for t := first; ; t = t.AddDate(0, 0, 1) {
				d := t.Format(time.DateOnly)
				if d > end {
					break
				}
				if seen[d] || !days[isoWeekday(t)] {
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
				return in.occs[p].LocalDate
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
			o := in.occs[p]
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

// trialWeekdays is the set of ISO weekdays a trial plans.
func trialWeekdays(tr RoutineTrial) [8]bool {
	var days []int
	_ = json.Unmarshal([]byte(tr.Days), &days)
	var set [8]bool
	for _, d := range days {
		if d >= 1 && d <= 7 {
			set[d] = true
		}
	}
	return set
}

// isoWeekday is 1 (Monday) to 7 (Sunday).
func isoWeekday(t time.Time) int {
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
func OccasionEnd(date, zoneName string, day Day) (time.Time, bool) {
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
	return DayOf(d, loc).End, true
}

// stepMetrics analyses each step over the window's occurrences.
func (in metricsInput) stepMetrics() []contract.StepMetrics {
	var steps []contract.RoutineStep
	_ = json.Unmarshal([]byte(in.def.Steps), &steps)
	out := make([]contract.StepMetrics, len(steps))
	index := map[string]int{}
	for i, st := range steps {
		out[i] = contract.StepMetrics{StepID: st.ID, Title: st.Title, Kind: st.Kind, Required: st.Required, Occasions: len(in.occs)}
		index[st.ID] = i
	}
	for _, c := range in.steps {
		i, ok := index[c.Step]
		if !ok {
			continue
		}
		switch c.State {
		case StateCompleted:
			out[i].Completed += c.N
		case StateSkipped:
			out[i].Skipped += c.N
		case StateDismissed:
			out[i].Dismissed += c.N
		}
		out[i].Saved += c.Saved
	}
	return out
}
