package views

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"hearth/internal/contract"
	"hearth/models"
)

// RoutinesData is the Routines page's view-model.
type RoutinesData struct {
	View models.RoutinesView
	// RequestIDs are the requestIds rendered into the proposal forms, by
	// ProposalKey: the placeholder in a cached page (filled per response),
	// fresh IDs in a page rendered for one response.
	RequestIDs map[string]string
	// Problem is a refused form, shown beside that form with what was sent.
	Problem *FormProblem
}

// FormProblem is why a form on the Routines page was refused, and the
// values it carried so the owner need not type them again.
type FormProblem struct {
	Form string // TryForm, OutcomeForm, ProposalKey or TrialForm of the refused form
	// Field is the form field the message is about ("" the form as a whole).
	Field   string
	Message string
	Values  map[string][]string
}

// value is the first submitted value of name, or "".
func (p *FormProblem) value(name string) string {
	if p == nil || len(p.Values[name]) == 0 {
		return ""
	}
	return p.Values[name][0]
}

// Form names for FormProblem.
func TryForm(routineID string) string { return "try:" + routineID }
func TrialForm(trialID int64) string  { return fmt.Sprintf("trial:%d", trialID) }
func OutcomeForm(routineID, date string) string {
	return "outcome:" + routineID + ":" + date
}

// ProposalKey names a proposal of a review.
func ProposalKey(reviewID, proposalID string) string { return reviewID + "/" + proposalID }

// EarlierDays names the one form for the earlier recordable days (a select picks the day).
const EarlierDays = "earlier"

// pageProblem is a problem whose form is not on the page (a trial that
// ended meanwhile, an unknown routine): it is shown at the top instead.
func (d RoutinesData) pageProblem() *FormProblem {
	if d.Problem == nil {
		return nil
	}
	for _, c := range d.View.Routines {
		if c.Standing != contract.RoutineRetired && len(tryRevisions(c)) > 0 && d.Problem.Form == TryForm(c.ID) {
			return nil
		}
		if c.ActiveTrial != nil && d.Problem.Form == TrialForm(c.ActiveTrial.ID) {
			return nil
		}
		recent, earlier := recentRecordable(c)
		for _, date := range recent {
			if d.Problem.Form == OutcomeForm(c.ID, date) {
				return nil
			}
		}
		if len(earlier) > 0 && d.Problem.Form == OutcomeForm(c.ID, EarlierDays) {
			return nil
		}
		for _, rv := range c.Reviews {
			for _, p := range rv.Proposals {
				if d.Problem.Form == ProposalKey(rv.ID, p.ID) {
					return nil
				}
			}
		}
	}
	return d.Problem
}

// at is the message when it is about field of the form, else "" (for
// invalidAttrs: the field is marked and described by its message).
func (p *FormProblem) at(field string) string {
	if p == nil || p.Field != field {
		return ""
	}
	return p.Message
}

// problemAt returns the problem when it belongs to form.
func (d RoutinesData) problemAt(form string) *FormProblem {
	if d.Problem != nil && d.Problem.Form == form {
		return d.Problem
	}
	return nil
}

// RoutineGroup is one standing's routines.
type RoutineGroup struct {
	Standing string
	Title    string
	Cards    []models.RoutineCard
}

// Groups orders the catalog by standing: active first, then candidate,
// ideal and retired.
func (d RoutinesData) Groups() []RoutineGroup {
	var out []RoutineGroup
	for _, g := range []RoutineGroup{{Standing: "active", Title: "Trying now"}, {Standing: contract.RoutineCandidate, Title: "Suggested"},
		{Standing: contract.RoutineIdeal, Title: "Ideal"}, {Standing: contract.RoutineRetired, Title: "Retired"}} {
		for _, c := range d.View.Routines {
			if c.Standing == g.Standing {
				g.Cards = append(g.Cards, c)
			}
		}
		if len(g.Cards) > 0 {
			out = append(out, g)
		}
	}
	return out
}

var weekdayShort = [8]string{"", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// weekdayWords names ISO weekdays: "Mon Wed Fri", or "every day".
func weekdayWords(days []int) string {
	if len(days) == 0 || len(days) == 7 {
		return "every day"
	}
	names := make([]string, 0, len(days))
	for _, d := range days {
		if d >= 1 && d <= 7 {
			names = append(names, weekdayShort[d])
		}
	}
	return strings.Join(names, " ")
}

// triggerWords says when a routine applies: "Daily at 07:30", "Weekly Mon
// Wed Fri", "When you start work".
func triggerWords(t contract.TriggerView) string {
	var s string
	switch t.Kind {
	case contract.TriggerEvent:
		if t.Event == contract.EventEndWork {
			s = "When you end work"
		} else {
			s = "When you start work"
		}
	case contract.TriggerWeekly:
		s = "Weekly " + weekdayWords(t.Days)
	default:
		s = "Daily"
		if len(t.Days) > 0 && len(t.Days) < 7 {
			s += " on " + weekdayWords(t.Days)
		}
	}
	if t.TimeOfDay != "" {
		s += " at " + t.TimeOfDay
	}
	return s
}

// ruleWords says when an occurrence counts as completed.
func ruleWords(r contract.RoutineRevisionView) string {
	if r.Rule.Kind == contract.RuleMinSteps && r.Rule.N != nil {
		return fmt.Sprintf("Completed when at least %d of its %d steps are done.", *r.Rule.N, len(r.Steps))
	}
	for _, s := range r.Steps {
		if s.Required {
			return "Completed when every required step is done."
		}
	}
	return "Completed when every step is done."
}

func stepKindLabel(kind string) string {
	switch kind {
	case contract.KindMeasurement:
		return "measurement"
	case contract.KindReply:
		return "reply in Messages"
	}
	return "task"
}

func standingLabel(s string) string {
	if s == "active" {
		return "trying"
	}
	return statusWords(s)
}

// ratioWords is "5 of 7 (71%)": the count and its denominator beside any
// percentage, and no percentage of nothing.
func ratioWords(n, d int) string {
	if d == 0 {
		return fmt.Sprintf("%d of 0", n)
	}
	return fmt.Sprintf("%d of %d (%d%%)", n, d, int(math.Round(100*float64(n)/float64(d))))
}

// outcomeLabel never calls a day without a record, or a skipped one, a failure.
func outcomeLabel(outcome string) string {
	switch outcome {
	case models.OutcomePartial:
		return "partly done"
	case models.OutcomeNotApplicable:
		return "not applicable"
	case models.OutcomeUnrecorded:
		return "no record"
	case models.OutcomeOpen:
		return "open, not counted yet"
	}
	return outcome
}

// outcomeGlyph marks a day in the strip so that no outcome is told by colour alone.
func outcomeGlyph(outcome string) string {
	switch outcome {
	case models.OutcomeCompleted:
		return "✓"
	case models.OutcomePartial:
		return "½"
	case models.OutcomeSkipped:
		return "–"
	case models.OutcomeDeferred:
		return "→"
	case models.OutcomeNotApplicable:
		return "/"
	case models.OutcomeUnrecorded:
		return "·"
	}
	return ""
}

// stripOutcomes is the legend's order.
var stripOutcomes = []string{models.OutcomeCompleted, models.OutcomePartial, models.OutcomeSkipped, models.OutcomeDeferred,
	models.OutcomeNotApplicable, models.OutcomeUnrecorded, models.OutcomeOpen}

// Strip geometry: squares of stripCell px, stripPerRow a row, the last stripMax planned days.
const (
	stripCell   = 18
	stripGap    = 4
	stripPerRow = 14
	stripMax    = 42
)

// stripTrial is the trial the strip shows: the active one, else the newest.
func stripTrial(c models.RoutineCard) *contract.TrialView {
	if c.ActiveTrial != nil {
		return c.ActiveTrial
	}
	if len(c.Trials) > 0 {
		return &c.Trials[0]
	}
	return nil
}

// stripDays are the planned days the strip draws: the last stripMax.
func stripDays(t contract.TrialView) []contract.DayOutcome {
	days := t.Metrics.Days
	if len(days) > stripMax {
		days = days[len(days)-stripMax:]
	}
	return days
}

// stripSquares draws the strip's days: one square a day with its glyph.
// A page of twenty routines draws hundreds of them, so they are written
// here in one pass rather than attribute by attribute (make bench); every
// value is escaped.
func stripSquares(t contract.TrialView) templ.Component {
	days := stripDays(t)
	var b strings.Builder
	b.Grow(len(days) * 140)
	for i, d := range days {
		x, y := (i%stripPerRow)*(stripCell+stripGap), (i/stripPerRow)*(stripCell+stripGap)
		b.WriteString(`<g transform="translate(`)
		b.WriteString(strconv.Itoa(x))
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(y))
		b.WriteString(`)" data-date="`)
		b.WriteString(html.EscapeString(d.Date))
		b.WriteString(`" data-outcome="`)
		b.WriteString(html.EscapeString(d.Outcome))
		b.WriteString(`"><rect width="18" height="18" rx="3"></rect><text x="9" y="13">`)
		b.WriteString(outcomeGlyph(d.Outcome))
		b.WriteString(`</text></g>`)
	}
	return templ.Raw(b.String())
}

func stripViewBox(t contract.TrialView) string {
	n := len(stripDays(t))
	rows := max(1, (n+stripPerRow-1)/stripPerRow)
	return fmt.Sprintf("0 0 %d %d", stripPerRow*(stripCell+stripGap)-stripGap, rows*(stripCell+stripGap)-stripGap)
}

func stripHeight(t contract.TrialView) string {
	n := len(stripDays(t))
	rows := max(1, (n+stripPerRow-1)/stripPerRow)
	return fmt.Sprint(rows*(stripCell+stripGap) - stripGap)
}

// stripLabel lists what the strip draws, in words, for a screen reader.
func stripLabel(t contract.TrialView) string {
	days := stripDays(t)
	counts := map[string]int{}
	for _, d := range days {
		counts[d.Outcome]++
	}
	var parts []string
	for _, o := range stripOutcomes {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], outcomeLabel(o)))
		}
	}
	scope := fmt.Sprintf("%d planned days", len(days))
	if len(days) < len(t.Metrics.Days) {
		scope = fmt.Sprintf("the last %d of %d planned days", len(days), len(t.Metrics.Days))
	}
	if len(parts) == 0 {
		return "Per-day outcomes of " + trialPeriod(t) + ": no planned day yet"
	}
	return fmt.Sprintf("Per-day outcomes of %s, %s: %s", trialPeriod(t), scope, strings.Join(parts, ", "))
}

func stripCaption(t contract.TrialView) string {
	days := stripDays(t)
	if len(days) < len(t.Metrics.Days) {
		return fmt.Sprintf("Each planned day of %s, the last %d of %d; the counts below cover them all.", trialPeriod(t), len(days), len(t.Metrics.Days))
	}
	return "Each planned day of " + trialPeriod(t) + "."
}

// Bar geometry of the attainment chart.
const (
	barWidth = 320
	barRow   = 38
)

type attainmentBar struct {
	LabelY, BarY, Fill, Label, Ratio string
}

// attainmentBars are one bar per trial, oldest first, each with n/d.
func attainmentBars(c models.RoutineCard) []attainmentBar {
	out := make([]attainmentBar, 0, len(c.Trials))
	for i := len(c.Trials) - 1; i >= 0; i-- {
		t := c.Trials[i]
		a := t.Metrics.Attainment
		w := 0
		if a.Applicable > 0 {
			w = int(math.Round(barWidth * float64(a.Completed) / float64(a.Applicable)))
		}
		y := len(out) * barRow
		out = append(out, attainmentBar{LabelY: fmt.Sprint(y + 12), BarY: fmt.Sprint(y + 18), Fill: fmt.Sprint(w),
			Label: trialPeriod(t), Ratio: fmt.Sprintf("%d/%d", a.Completed, a.Applicable)})
	}
	return out
}

func barsViewBox(c models.RoutineCard) string {
	return fmt.Sprintf("0 0 %d %d", barWidth, len(c.Trials)*barRow)
}

func barsHeight(c models.RoutineCard) string { return fmt.Sprint(len(c.Trials) * barRow) }

func barsLabel(c models.RoutineCard) string {
	parts := make([]string, 0, len(c.Trials))
	for _, b := range attainmentBars(c) {
		parts = append(parts, b.Label+": "+strings.Replace(b.Ratio, "/", " of ", 1)+" applicable days completed")
	}
	return "Planned days done per trial: " + strings.Join(parts, "; ")
}

// trialDays says where an active trial stands: "day 3 of 14".
func trialDays(t contract.TrialView, today string) string {
	start, err1 := time.Parse(time.DateOnly, t.StartsOn)
	end, err2 := time.Parse(time.DateOnly, t.EndsOn)
	now, err3 := time.Parse(time.DateOnly, today)
	if err1 != nil || err2 != nil || err3 != nil {
		return ""
	}
	total := int(end.Sub(start).Hours()/24) + 1
	if now.Before(start) {
		return fmt.Sprintf("starts %s, %d days", shortDate(t.StartsOn), total)
	}
	return fmt.Sprintf("day %d of %d", min(int(now.Sub(start).Hours()/24)+1, total), total)
}

// tryRevisions are the revisions the owner may try (not retired), newest first.
func tryRevisions(c models.RoutineCard) []contract.RoutineRevisionView {
	var out []contract.RoutineRevisionView
	for _, r := range c.Revisions {
		if r.Status != contract.RoutineRetired {
			out = append(out, r)
		}
	}
	return out
}

// tryDefaultRevision is the revision the Try form selects: as sent, else the newest.
func tryDefaultRevision(revs []contract.RoutineRevisionView, p *FormProblem) string {
	if v := p.value("revision"); v != "" {
		return v
	}
	if len(revs) > 0 {
		return strconv.FormatInt(revs[0].Revision, 10)
	}
	return ""
}

// tryDayChecked is whether weekday d starts checked: as sent, else the
// current definition's days (every day when it names none).
func tryDayChecked(c models.RoutineCard, p *FormProblem, d int) bool {
	if p != nil {
		return slices.Contains(p.Values["days"], fmt.Sprint(d))
	}
	days := c.Current.Trigger.Days
	return len(days) == 0 || slices.Contains(days, d)
}

func tryWindow(p *FormProblem) string {
	if v := p.value("windowDays"); v != "" {
		return v
	}
	return fmt.Sprint(models.DefaultTrialDays)
}

// recentRecordable are the newest recordable days (at most 3), newest
// first, each with its own form; earlier ones share one form with a select.
func recentRecordable(c models.RoutineCard) (recent, earlier []string) {
	days := slices.Clone(c.RecordableDays)
	slices.Reverse(days)
	if len(days) > 3 {
		return days[:3], days[3:]
	}
	return days, nil
}

// pastOutcomes are the outcomes "I did it yesterday" may record.
var pastOutcomes = []struct{ Value, Label string }{
	{models.OutcomeCompleted, "Done"},
	{models.OutcomePartial, "Partly done"},
	{models.OutcomeSkipped, "Skipped"},
	{models.OutcomeNotApplicable, "Not applicable"},
}

// decisionWords says what the owner decided on a proposal.
func decisionWords(p models.ProposalView) string {
	switch p.Decision {
	case models.DecisionAdopt:
		return "You adopted it"
	case models.DecisionModify:
		return "You changed it"
	case models.DecisionReject:
		return "You rejected it"
	}
	return ""
}

// requestStatusWords says whether the agent has acted on a decision.
func requestStatusWords(status string) string {
	switch status {
	case contract.RequestCompleted:
		return "sent to the agent (completed)"
	case contract.RequestCancelled:
		return "sent to the agent (cancelled)"
	}
	return "sent to the agent (pending)"
}

// countsWords summarises metrics in one line with their denominators.
func countsWords(m contract.RoutineMetrics) string {
	return fmt.Sprintf("%s completed, %s observed; %d applicable, %d not applicable, %d no record",
		ratioWords(m.Attainment.Completed, m.Attainment.Applicable), ratioWords(m.Coverage.Observed, m.Coverage.Applicable),
		m.Applicable, m.NotApplicable, m.Unrecorded)
}

// countsDiffer reports whether a review's window counts changed since it was written.
func countsDiffer(a, b contract.RoutineMetrics) bool {
	return a.Applicable != b.Applicable || a.Completed != b.Completed || a.Partial != b.Partial || a.Skipped != b.Skipped ||
		a.Deferred != b.Deferred || a.NotApplicable != b.NotApplicable || a.Unrecorded != b.Unrecorded
}

// stepDone is a step's completions; a measurement's is a saved value, never its number.
func stepDone(s contract.StepMetrics) string {
	if s.Kind == contract.KindMeasurement {
		return fmt.Sprintf("value saved %d of %d", s.Saved, s.Occasions)
	}
	return fmt.Sprintf("%d of %d", s.Completed, s.Occasions)
}

// feedbackWords summarises the optional one-tap answers with their sample sizes.
func feedbackWords(f contract.FeedbackCounts) string {
	var parts []string
	if f.EffortAnswered > 0 {
		parts = append(parts, fmt.Sprintf("effort easy %d, ok %d, hard %d (%d answered)", f.Easy, f.OK, f.Hard, f.EffortAnswered))
	}
	if f.Answered > 0 {
		parts = append(parts, fmt.Sprintf("helped yes %d, no %d, unsure %d (%d answered)", f.Helped, f.NotHelped, f.Unsure, f.Answered))
	}
	return strings.Join(parts, "; ")
}

// trialStateWords names a trial's state.
func trialStateWords(t contract.TrialView) string {
	if t.State == "active" {
		return "trying now"
	}
	return "ended"
}

// coveragePercent is coverage's percentage, beside its counts, when there is a denominator.
func coveragePercent(m contract.RoutineMetrics) string {
	if m.Coverage.Applicable == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d%%)", int(math.Round(100*float64(m.Coverage.Observed)/float64(m.Coverage.Applicable))))
}

// proposalRequestID is the requestId of a proposal's form: the one sent
// with a refused form (so its retry is the same request), else a fresh one.
func proposalRequestID(d RoutinesData, key string) string {
	if p := d.problemAt(key); p != nil && p.value("requestId") != "" {
		return p.value("requestId")
	}
	return d.RequestIDs[key]
}

// plural is "1 day" or "2 days".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// activeCards are the routines being tried now, in catalog order.
func activeCards(d RoutinesData) []models.RoutineCard {
	var out []models.RoutineCard
	for _, c := range d.View.Routines {
		if c.ActiveTrial != nil {
			out = append(out, c)
		}
	}
	return out
}

// trialPeriod names a trial by its days: "Tue 29 Sep to Mon 12 Oct".
func trialPeriod(t contract.TrialView) string {
	last := t.EndsOn
	if t.EndedOn != "" && t.EndedOn < t.EndsOn {
		last = t.EndedOn
	}
	return shortDate(t.StartsOn) + " to " + shortDate(last)
}

// versionWords names a revision of a routine without its number: the
// current one, or an earlier one.
func versionWords(c models.RoutineCard, revision int64) string {
	if revision == c.Current.Revision {
		return "the current version"
	}
	return "an earlier version"
}

// revisionOption names a revision in the Try form: which it is, its
// standing and when it was published.
func revisionOption(c models.RoutineCard, r contract.RoutineRevisionView, day models.Day) string {
	s := "Current"
	if r.Revision != c.Current.Revision {
		s = "Earlier"
	}
	s += " (" + statusWords(r.Status)
	if p := ownerDate(r.PublishedAt, day); p != "" {
		s += ", " + p
	}
	return s + ")"
}

// reviewVersionWords says when a review is of an earlier version than the current one.
func reviewVersionWords(c models.RoutineCard, rv models.ReviewView) string {
	if rv.Revision == c.Current.Revision {
		return ""
	}
	return " (an earlier version)"
}

// todayLine is one routine under trial as it stands today, in words.
type todayLine struct {
	ID, Title string
	// Outcome is today's outcome ("open" while it can still be done), ""
	// when today is not one of its planned days.
	Outcome string
	Words   string
}

// todayLines answer "what about today" first: for each routine under
// trial, whether today is one of its days and how far it got, from the
// trial's own days (the view-model holds them; nothing is read here).
func todayLines(d RoutinesData) []todayLine {
	var out []todayLine
	for _, c := range activeCards(d) {
		t := *c.ActiveTrial
		trigger := revisionOf(c, t.Revision).Trigger
		line := todayLine{ID: c.ID, Title: c.Current.Title}
		for _, day := range t.Metrics.Days {
			if day.Date == d.View.Day.Date {
				line.Outcome = day.Outcome
			}
		}
		switch line.Outcome {
		case "":
			if trigger.Kind == contract.TriggerEvent {
				line.Words = strings.ToLower(triggerWords(trigger)[:1]) + triggerWords(trigger)[1:]
			} else {
				line.Words = "not today" + nextPlanned(t, d.View.Day.Date)
			}
		case models.OutcomeOpen:
			line.Words = "to do"
			if trigger.TimeOfDay != "" {
				line.Words = "at " + trigger.TimeOfDay + ", to do"
			}
		default:
			line.Words = outcomeLabel(line.Outcome)
		}
		out = append(out, line)
	}
	return out
}

// revisionOf is the routine's revision n, else its current one.
func revisionOf(c models.RoutineCard, n int64) contract.RoutineRevisionView {
	for _, r := range c.Revisions {
		if r.Revision == n {
			return r
		}
	}
	return c.Current
}

// nextPlanned is "; next on Mon" when the trial plans a later day within
// its window, else "".
func nextPlanned(t contract.TrialView, today string) string {
	date := today
	for k := 1; k <= 7; k++ {
		date = nextDate(date)
		if date == "" || date > trialLastDay(t) {
			return ""
		}
		wd := isoWeekday(date)
		if len(t.Days) == 0 || slices.Contains(t.Days, wd) {
			if k == 1 {
				return ", next tomorrow"
			}
			return ", next " + weekdayShort[wd]
		}
	}
	return ""
}

// trialLastDay is the trial's window end, or the day it was ended early.
func trialLastDay(t contract.TrialView) string {
	if t.EndedOn != "" {
		return t.EndedOn
	}
	return t.EndsOn
}

// statusWords names a revision's status for the owner: the agent's
// "candidate" is a suggestion to try.
func statusWords(status string) string {
	if status == contract.RoutineCandidate {
		return "suggested"
	}
	return status
}

// pastProblem says whether the refused form is one of routine id's
// earlier-day forms, so their disclosure opens on it.
func (d RoutinesData) pastProblem(id string) bool {
	return d.Problem != nil && strings.HasPrefix(d.Problem.Form, "outcome:"+id+":")
}
