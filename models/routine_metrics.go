package models

import (
	"encoding/json"
	"slices"
	"time"

	"gorm.io/gorm"
)

// RoutineMetrics are the counts of one routine revision over a window,
// computed from recorded events only (seed 000, "Metrics that preserve
// meaning"). Attainment and coverage keep their denominators; not
// applicable occasions leave the denominator with their reasons; an
// unrecorded day is not a failure, only a day with no outcome.
type RoutineMetrics struct {
	RoutineID     string         `json:"routineId"`
	Revision      int64          `json:"revision"`
	Window        WindowIn       `json:"window"`
	Applicable    int            `json:"applicable"`
	Completed     int            `json:"completed"`
	Partial       int            `json:"partial"`
	Skipped       int            `json:"skipped"`
	Deferred      int            `json:"deferred"`
	NotApplicable int            `json:"notApplicable"`
	Unrecorded    int            `json:"unrecorded"`
	Open          int            `json:"open"`
	Attainment    Ratio          `json:"attainment"`
	Coverage      CoverageRatio  `json:"coverage"`
	Reasons       []string       `json:"notApplicableReasons,omitempty"`
	Feedback      FeedbackCounts `json:"feedback"`
	Days          []DayOutcome   `json:"days,omitempty"`
	Steps         []StepMetrics  `json:"steps"`
}

// Ratio is completed over applicable, kept as counts.
type Ratio struct {
	Completed  int `json:"completed"`
	Applicable int `json:"applicable"`
}

// CoverageRatio is observed outcomes over applicable.
type CoverageRatio struct {
	Observed   int `json:"observed"`
	Applicable int `json:"applicable"`
}

// FeedbackCounts tallies the optional one-tap answers.
type FeedbackCounts struct {
	Easy           int `json:"easy"`
	OK             int `json:"ok"`
	Hard           int `json:"hard"`
	EffortAnswered int `json:"effortAnswered"`
	Helped         int `json:"helped"`
	NotHelped      int `json:"notHelped"`
	Unsure         int `json:"unsure"`
	Answered       int `json:"helpedAnswered"`
}

// DayOutcome is one planned occasion and what was recorded for it.
type DayOutcome struct {
	Date         string `json:"date"`
	OccurrenceID string `json:"occurrenceId,omitempty"`
	Outcome      string `json:"outcome"` // completed, partial, skipped, deferred, not-applicable, unrecorded, open
	Reason       string `json:"reason,omitempty"`
	Late         bool   `json:"late,omitempty"`
	Effort       string `json:"effort,omitempty"`
	Helped       string `json:"helped,omitempty"`
}

// StepMetrics analyses one step on its own level, never summed with its
// routine. For a measurement, Saved counts occasions with a saved value
// (adherence), nothing about the number.
type StepMetrics struct {
	StepID    string `json:"stepId"`
	Title     string `json:"title"`
	Kind      string `json:"kind"`
	Required  bool   `json:"required"`
	Occasions int    `json:"occasions"`
	Completed int    `json:"completed"`
	Skipped   int    `json:"skipped"`
	Dismissed int    `json:"dismissed"`
	Saved     int    `json:"saved,omitempty"`
}

// routineMetrics computes the metrics of routineID@revision over [from, to]
// at now. Planned occasions come from the revision's trials (their days and
// windows) for daily and weekly routines, and from instantiated occurrences
// for event routines, so a day nobody opened Home still counts, as unrecorded.
func routineMetrics(tx *gorm.DB, routineID string, revision int64, from, to string, now time.Time) (RoutineMetrics, error) {
	m := RoutineMetrics{RoutineID: routineID, Revision: revision, Window: WindowIn{From: from, To: to}, Days: []DayOutcome{}, Steps: []StepMetrics{}}
	var def RoutineDefinition
	if err := tx.Where("routine_id = ? AND revision = ?", routineID, revision).Take(&def).Error; err != nil {
		return m, notFound(err)
	}
	var trials []RoutineTrial
	if err := tx.Where("routine_id = ? AND revision = ?", routineID, revision).Order("id").Find(&trials).Error; err != nil {
		return m, err
	}
	var occs []RoutineOccurrence
	if err := tx.Where("routine_id = ? AND revision = ? AND local_date >= ? AND local_date <= ?", routineID, revision, from, to).
		Order("local_date, occasion").Find(&occs).Error; err != nil {
		return m, err
	}
	outcomes, err := latestOutcomes(tx, occs)
	if err != nil {
		return m, err
	}
	byOccasion := map[string]RoutineOccurrence{}
	for _, o := range occs {
		byOccasion[o.Occasion] = o
	}
	day := DayOf(now, time.UTC)
	if z, err := ownerDay(tx, now, ""); err == nil {
		day = z
	}
	var planned []DayOutcome
	if def.TriggerKind == TriggerEvent {
		for _, o := range occs {
			planned = append(planned, DayOutcome{Date: o.LocalDate, OccurrenceID: o.ID})
		}
	} else {
		seen := map[string]bool{}
		for _, tr := range trials {
			start, end := max(from, tr.StartsOn), min(to, tr.LastDay(), day.Date)
			for d := start; d <= end; d = nextDate(d) {
				if seen[d] || !trialApplies(tr, d) {
					continue
				}
				seen[d] = true
				do := DayOutcome{Date: d}
				if o, ok := byOccasion[d]; ok {
					do.OccurrenceID = o.ID
				}
				planned = append(planned, do)
			}
		}
		slices.SortFunc(planned, func(a, b DayOutcome) int { return compareStrings(a.Date, b.Date) })
	}
	for _, do := range planned {
		out, recorded := outcomes[do.OccurrenceID]
		if recorded && out.Outcome != "" {
			do.Outcome, do.Reason, do.Late, do.Effort, do.Helped = out.Outcome, out.Reason, out.Late, out.Effort, out.Helped
		} else if occasionEnded(do, byOccasion, day, now) {
			do.Outcome = OutcomeUnrecorded
		} else {
			do.Outcome = OutcomeOpen
		}
		m.count(do)
		m.Days = append(m.Days, do)
	}
	m.Attainment = Ratio{Completed: m.Completed, Applicable: m.Applicable}
	m.Coverage = CoverageRatio{Observed: m.Completed + m.Partial + m.Skipped + m.Deferred, Applicable: m.Applicable}
	m.Steps, err = stepMetrics(tx, def, occs)
	return m, err
}

// count adds one occasion: not applicable leaves the denominator, an open
// occasion (its day has not ended) is not counted yet.
func (m *RoutineMetrics) count(do DayOutcome) {
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

// occasionEnded reports whether an occasion's day is over in its zone (the
// occurrence's, else the owner's), so no outcome means unrecorded.
func occasionEnded(do DayOutcome, occs map[string]RoutineOccurrence, day Day, now time.Time) bool {
	loc := day.Zone
	for _, o := range occs {
		if o.ID == do.OccurrenceID {
			if l, err := loadLocation(o.Zone); err == nil {
				loc = l
			}
		}
	}
	d, err := time.ParseInLocation(time.DateOnly, do.Date, loc)
	if err != nil {
		return false
	}
	return !now.Before(DayOf(d, loc).End)
}

// latestOutcomes reads the current outcome row of each occurrence.
func latestOutcomes(tx *gorm.DB, occs []RoutineOccurrence) (map[string]RoutineOutcome, error) {
	out := map[string]RoutineOutcome{}
	if len(occs) == 0 {
		return out, nil
	}
	ids := make([]string, len(occs))
	for i, o := range occs {
		ids[i] = o.ID
	}
	var rows []RoutineOutcome
	for chunk := range slices.Chunk(ids, 500) {
		var part []RoutineOutcome
		if err := tx.Raw(`SELECT * FROM routine_outcomes WHERE id IN (SELECT MAX(id) FROM routine_outcomes WHERE occurrence_id IN ? GROUP BY occurrence_id)`, chunk).
			Scan(&part).Error; err != nil {
			return nil, err
		}
		rows = append(rows, part...)
	}
	for _, r := range rows {
		out[r.OccurrenceID] = r
	}
	return out, nil
}

// stepMetrics counts each step over the window's occurrences.
func stepMetrics(tx *gorm.DB, def RoutineDefinition, occs []RoutineOccurrence) ([]StepMetrics, error) {
	var steps []RoutineStep
	if err := json.Unmarshal([]byte(def.Steps), &steps); err != nil {
		return nil, err
	}
	out := make([]StepMetrics, len(steps))
	index := map[string]int{}
	for i, st := range steps {
		out[i] = StepMetrics{StepID: st.ID, Title: st.Title, Kind: st.Kind, Required: st.Required, Occasions: len(occs)}
		index[st.ID] = i
	}
	if len(occs) == 0 {
		return out, nil
	}
	parents := make([]string, len(occs))
	for i, o := range occs {
		parents[i] = o.ActivityID
	}
	var rows []struct {
		ID, ParentID, State string
		Saved               int
	}
	for chunk := range slices.Chunk(parents, 500) {
		var part []struct {
			ID, ParentID, State string
			Saved               int
		}
		if err := tx.Raw(`SELECT a.id, a.parent_id, COALESCE(s.state, '') AS state,
				(SELECT COUNT(*) FROM measurements m WHERE m.activity_id = a.id) > 0 AS saved
			FROM activities a LEFT JOIN activity_states s ON s.activity_id = a.id WHERE a.parent_id IN ?`, chunk).Scan(&part).Error; err != nil {
			return nil, err
		}
		rows = append(rows, part...)
	}
	for _, r := range rows {
		i, ok := index[r.ID[len(r.ParentID)+1:]]
		if !ok {
			continue
		}
		switch r.State {
		case StateCompleted:
			out[i].Completed++
		case StateSkipped:
			out[i].Skipped++
		case StateDismissed:
			out[i].Dismissed++
		}
		if r.Saved > 0 {
			out[i].Saved++
		}
	}
	return out, nil
}

func nextDate(d string) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return "9999-12-31"
	}
	return t.AddDate(0, 0, 1).Format(time.DateOnly)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
