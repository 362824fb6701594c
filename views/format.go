package views

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/a-h/templ"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/models"
)

// outside is how every page shows text from outside hearth (the agent's
// titles, briefs, names and reasons; chat titles and messages from Beeper):
// without bidi control characters (unicode.Bidi_Control: U+061C, U+200E,
// U+200F, U+202A-U+202E, U+2066-U+2069), so an override in one title cannot
// reverse the rest of its row or make it read as another. Text the owner is
// about to send is the exception: it is shown as it will be sent, isolated
// in an element with dir="auto".
func outside(s string) string {
	if !strings.ContainsFunc(s, isBidiControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isBidiControl(r) {
			return -1
		}
		return r
	}, s)
}

// Outside is outside for handlers that make a view's words out of text
// from outside hearth (a chat's preview, the reactions to a message).
func Outside(s string) string { return outside(s) }

func isBidiControl(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }

func sectionTitle(name string) string {
	switch name {
	case "routine":
		return "Routine"
	case "focus":
		return "Focus"
	case "optional":
		return "If there is time"
	}
	return "Other"
}

// shortDate renders a calendar date, 2026-10-06, as "Tue 6 Oct" (a date
// has no zone: it is already the owner's day).
func shortDate(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.Format("Mon 2 Jan")
}

// dayDate renders a calendar date as "Fri 4 Dec", with the year when it is
// not the year of the owner's today.
func dayDate(date string, day models.Day) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	if len(day.Date) >= 4 && date[:4] != day.Date[:4] {
		return t.Format("Mon 2 Jan 2006")
	}
	return t.Format("Mon 2 Jan")
}

// isoWeekday is date's ISO weekday, Monday 1 to Sunday 7 (0 when date is
// not one).
func isoWeekday(date string) int {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return 0
	}
	if wd := int(t.Weekday()); wd != 0 {
		return wd
	}
	return 7
}

// nextDate is the calendar date after date ("" when date is not one).
func nextDate(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return ""
	}
	return t.AddDate(0, 0, 1).Format(time.DateOnly)
}

// longDate renders 2026-09-29 as "Tuesday 29 September".
func longDate(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return t.Format("Monday 2 January")
}

// ago renders a past moment relative to now, briefly.
func ago(now, then time.Time) string {
	if then.IsZero() {
		return ""
	}
	d := now.Sub(then)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	case d < 48*time.Hour:
		return "yesterday"
	}
	return fmt.Sprintf("%d days ago", int(d.Hours()/24))
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// clock renders a moment as HH:MM in the owner's zone.
func clock(t time.Time, s RowState) string { return ownerTime(t, s.Day, "15:04") }

func kindIcon(kind, state string) string {
	switch state {
	case models.StateCompleted:
		return "✓"
	case models.StateSkipped:
		return "–"
	case models.StatePartial:
		return "◐"
	}
	switch kind {
	case contract.KindMeasurement:
		return "⚖"
	case contract.KindRoutine:
		return "↻"
	case contract.KindReply:
		return "✉"
	}
	return "○"
}

func stateLabel(r models.HomeRow) string {
	switch r.UserState.State {
	case models.StateCompleted:
		return "done"
	case models.StateSkipped:
		return "skipped"
	case models.StatePartial:
		return "partly done"
	case models.StateDeferred:
		return "deferred to " + shortDate(r.UserState.Until)
	case models.StateInProgress:
		return "in progress"
	case models.StateWaiting:
		return "waiting"
	case models.StateDismissed:
		if r.Occurrence != nil {
			return "not applicable"
		}
		return "dismissed"
	}
	if r.Kind == contract.KindMeasurement && r.Measurement != nil && r.Measurement.Saved != nil {
		return "saved"
	}
	return "to do"
}

// rowHref is the no-JavaScript link: the full page with the row open or not.
func rowHref(id string, expand bool) templ.SafeURL {
	if expand {
		return templ.SafeURL("/?open=" + id + "#row-" + id)
	}
	return templ.SafeURL("/#row-" + id)
}

// rowHeadHref is a row head's no-JavaScript link: the full page with the
// rows open now, this one opened or closed, so a step's link (or a tap
// before htmx is ready) keeps its routine open.
func rowHeadHref(id string, expand bool, open map[string]bool) templ.SafeURL {
	return homeWith(open, id, expand, "row-"+id)
}

// homeWith is Home with what is open now (the ?open= names), name opened
// or closed, at anchor: a plain link, so it works without JavaScript.
func homeWith(open map[string]bool, name string, opened bool, anchor string) templ.SafeURL {
	ids := make([]string, 0, len(open)+1)
	for o := range open {
		if open[o] && o != name {
			ids = append(ids, o)
		}
	}
	if opened {
		ids = append(ids, name)
	}
	if len(ids) == 0 {
		return templ.SafeURL("/#" + anchor)
	}
	slices.Sort(ids)
	return templ.SafeURL("/?open=" + url.QueryEscape(strings.Join(ids, ",")) + "#" + anchor)
}

// rowFragment is the htmx URL of the row, expanded or compact.
func rowFragment(id string, expand bool) string {
	return "/activities/" + id + "?expanded=" + strconv.FormatBool(expand)
}

func formatValue(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

func metricLabel(metric string) string {
	if metric == "" {
		return ""
	}
	return strings.ToUpper(metric[:1]) + metric[1:]
}

func placeholderValue(m *models.MeasurementSummary) string {
	if m.Last != nil {
		return formatValue(m.Last.Value)
	}
	return ""
}

func candidateChecked(d *contract.DraftView, id string, i int) bool {
	if d.OwnerEdit != nil && d.OwnerEdit.SelectedCandidateID != "" {
		return d.OwnerEdit.SelectedCandidateID == id
	}
	return i == 0
}

// draftBody is what the editor holds: a rejected input, the owner's edit,
// or the first suggestion.
func draftBody(d *contract.DraftView, s RowState) string {
	switch {
	case s.Input != "":
		return s.Input
	case d.OwnerEdit != nil:
		return d.OwnerEdit.Body
	case len(d.Candidates) > 0:
		return d.Candidates[0].Body
	}
	return ""
}

func valuesLabel(values []float64) string {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = formatValue(v)
	}
	return strings.Join(parts, ", ")
}

// sparkPoints scales values into a w×h box with a 2-unit margin.
func sparkPoints(values []float64, w, h float64) string {
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	span := hi - lo
	if span == 0 {
		span = 1
	}
	var b strings.Builder
	for i, v := range values {
		x := 2 + float64(i)*(w-4)/float64(len(values)-1)
		y := h - 2 - (v-lo)/span*(h-4)
		fmt.Fprintf(&b, "%.1f,%.1f ", x, y)
	}
	return strings.TrimSpace(b.String())
}

// pathID escapes a chat ID for a URL path segment.
func pathID(id string) string { return url.PathEscape(id) }

// personSuffix names the person a chat's drafts concern, unless the chat's
// title already does.
func personSuffix(card *PersonCard, title string) string {
	if card == nil || card.Person.Name == title {
		return ""
	}
	return " · " + outside(card.Person.Name)
}

// ownerZone is the owner's zone (that of their day); UTC only when hearth
// knows none yet (no brief). Every instant a page shows goes through it.
func ownerZone(day models.Day) *time.Location {
	if day.Zone == nil {
		return time.UTC
	}
	return day.Zone
}

// ownerTime is the one way a view turns an instant into words: in the
// owner's zone, which the page names once (zoneNote), so no time carries
// a zone of its own.
func ownerTime(t time.Time, day models.Day, layout string) string {
	return t.In(ownerZone(day)).Format(layout)
}

// datetimeAttr is an instant for a datetime attribute (for machines, in UTC).
func datetimeAttr(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// when renders an instant in the owner's zone: the time today, else with
// the date (and the year when it is not this year's).
func when(t time.Time, day models.Day) string {
	date := ownerTime(t, day, time.DateOnly)
	switch {
	case date == day.Date:
		return ownerTime(t, day, "15:04")
	case day.Date != "" && date[:4] == day.Date[:4]:
		return ownerTime(t, day, "Mon 2 Jan 15:04")
	}
	return ownerTime(t, day, "Mon 2 Jan 2006 15:04")
}

// ownerDate renders an instant's date in the owner's zone: "Tue 29 Sep",
// with the year when it is not this year's.
func ownerDate(t time.Time, day models.Day) string {
	if t.IsZero() {
		return ""
	}
	if day.Date != "" && ownerTime(t, day, "2006") == day.Date[:4] {
		return ownerTime(t, day, "Mon 2 Jan")
	}
	return ownerTime(t, day, "Mon 2 Jan 2006")
}

// zoneWords names the owner's zone: "Berlin time (Europe/Berlin)".
func zoneWords(day models.Day) string {
	name := ownerZone(day).String()
	if name == "UTC" || name == "" {
		return "UTC"
	}
	return zoneCity(name) + " time (" + name + ")"
}

// zoneCity is a zone's city in words: "America/New_York" is "New York".
func zoneCity(name string) string {
	city := name[strings.LastIndex(name, "/")+1:]
	return strings.ReplaceAll(city, "_", " ")
}

// owedLabel counts owed replies for Home.
func owedLabel(n int) string {
	if n == 1 {
		return "1 reply owed"
	}
	return fmt.Sprintf("%d replies owed", n)
}

// waited says how long an owed reply has waited, briefly.
func waited(now, since time.Time) string {
	d := now.Sub(since)
	if d < 48*time.Hour {
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// checkedCandidate is the candidate an editor renders chosen.
func checkedCandidate(d *contract.DraftView) string {
	for i, c := range d.Candidates {
		if candidateChecked(d, c.ID, i) {
			return c.ID
		}
	}
	return ""
}

// checkedBody is the text of the candidate an editor renders chosen: the
// editor holds the owner's own words whenever it holds anything else.
func checkedBody(d *contract.DraftView) string {
	for i, c := range d.Candidates {
		if candidateChecked(d, c.ID, i) {
			return c.Body
		}
	}
	return ""
}

// editorBody is what a draft's editor holds: a refused input, else its wording.
func editorBody(d *contract.DraftView, p *EditorProblem) string {
	if p != nil {
		return p.Input
	}
	return draftBody(d, RowState{})
}

// composeText is what the own-reply composer holds.
func composeText(d ConversationData) string {
	if p := d.problemFor(""); p != nil {
		return p.Input
	}
	return d.Compose
}

// editHref goes back to the editor a review came from, with the text.
func editHref(d ReviewData) templ.SafeURL {
	if d.Draft.ID == "" {
		return templ.SafeURL("/messages/" + pathID(d.Chat.ID) + "?compose=" + url.QueryEscape(d.Body) + "#compose")
	}
	return templ.SafeURL("/messages/" + pathID(d.Chat.ID) + "#draft-" + d.Draft.ID)
}

// outcomeWords says what became of a draft that was not sent from it.
func outcomeWords(o contract.DraftOutcomeView, day models.Day) string {
	at := when(o.At, day)
	switch o.Kind {
	case models.DraftReplaced:
		return "You answered with your own reply (" + at + ")."
	case models.DraftHandedOff:
		return "Handed to Beeper with this text (" + at + "); finish it there. hearth did not send it."
	case models.DraftDeclined:
		return "You said no reply is needed (" + at + ")."
	}
	return ""
}

// replyStateLabel says where the reply activity stands on Home.
func replyStateLabel(d models.ChatDraft) string {
	switch d.State.State {
	case models.StateCompleted:
		return "done"
	case models.StateDismissed:
		return "dismissed"
	case models.StateSkipped:
		return "skipped"
	case models.StateDeferred:
		return "deferred to " + shortDate(d.State.Until)
	}
	return "to do"
}

// messagesHref is a chat in Messages, or the chat list when chatID is empty.
func messagesHref(chatID string) templ.SafeURL {
	if chatID == "" {
		return "/messages"
	}
	return templ.SafeURL("/messages/" + pathID(chatID))
}

// feedbackURL is where a routine occurrence's one-tap feedback goes.
func feedbackURL(r models.HomeRow) string {
	return "/routines/occurrences/" + pathID(r.Occurrence.ID) + "/feedback"
}

// feedbackOffered is whether an outcome invites feedback: one the owner
// did, in part or not (not one that did not apply).
func feedbackOffered(r models.HomeRow) bool {
	switch r.Occurrence.Outcome {
	case models.OutcomeCompleted, models.OutcomePartial, models.OutcomeSkipped:
		return true
	}
	return false
}

type feedbackChoice struct{ Value, Label string }

var (
	effortChoices = []feedbackChoice{{"easy", "Easy"}, {"ok", "OK"}, {"hard", "Hard"}}
	helpedChoices = []feedbackChoice{{"yes", "Yes"}, {"no", "No"}, {"unsure", "Unsure"}}
)

func choiceLabel(choices []feedbackChoice, value string) string {
	for _, c := range choices {
		if c.Value == value {
			return c.Label
		}
	}
	return value
}

func eventLabel(event string) string {
	if event == contract.EventEndWork {
		return "End work"
	}
	return "Start work"
}

func eventDoneLabel(event string) string {
	if event == contract.EventEndWork {
		return "Work ended today"
	}
	return "Work started today"
}

// activityStateWords names an activity's state for the owner.
func activityStateWords(state string) string {
	switch state {
	case models.StateAvailable:
		return "to do"
	case models.StateInProgress:
		return "in progress"
	case models.StatePartial:
		return "partly done"
	case models.StateCompleted:
		return "done"
	}
	return state
}

// megabytes is a file size as the owner reads it: "12.3 MB", "0.4 MB".
func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// healthWords says an agent's login state in a sentence.
func healthWords(h models.AgentHealthView) string {
	name := agentName(h.Agent)
	switch h.State {
	case contract.HealthOK:
		return name + " is logged in."
	case contract.HealthNeedsLogin:
		return name + " is not logged in, so scheduled agent runs are held."
	case contract.HealthRefused:
		return "The model provider refused " + name + "'s login on its last run."
	}
	return name + ": " + h.State + "."
}

// healthFix is what the operator does about a missing or refused login.
func healthFix(h models.AgentHealthView) string {
	if h.Agent == "codex" {
		return "Run `codex login` as the user hearth's runner runs as (with the runner's CODEX_HOME), or give the runner CODEX_API_KEY or the configured provider's env_key; held runs then go under the usual catch-up rule."
	}
	return "Log the agent in again as the user hearth's runner runs as; held runs then go under the usual catch-up rule."
}

// healthClass colours a login state: ok plain, anything else an error.
func healthClass(state string) string {
	if state == contract.HealthOK {
		return ""
	}
	return "error"
}

// agentName is how the owner knows an agent.
func agentName(agent string) string {
	if agent == "codex" {
		return "Codex"
	}
	return outside(agent)
}

// heldWords names the held priorities for the start of a sentence:
// "Scheduled" when all are held, else "Low-priority scheduled" or "Low- and
// normal-priority scheduled".
func heldWords(held []string) string {
	if len(held) == len(costpolicy.Priorities) {
		return "Scheduled"
	}
	words := strings.ToUpper(held[0][:1]) + held[0][1:]
	if len(held) == 2 {
		words += "- and " + held[1]
	}
	return words + "-priority scheduled"
}

// tokenTiersWords is tiersWords for the daily token cap:
// "Held: low. Waiting starts for normal at 150000 tokens, high at 200000 tokens."
func tokenTiersWords(costs costpolicy.Policy, tokens float64) string {
	return waitWords(costs.HeldByTokens(tokens), func(pr string) string { return fmt.Sprintf("%.0f tokens", costs.TokenLimit(pr)) })
}

// tiersWords says which priorities wait today and where the others will:
// "Held: low. Waiting starts for normal at $7.50, high at $10.00."
func tiersWords(costs costpolicy.Policy, spent float64) string {
	return waitWords(costs.Held(spent), func(pr string) string { return fmt.Sprintf("$%.2f", costs.Limit(pr)) })
}

// waitWords names the held priorities, then where each other one waits.
func waitWords(held []string, limit func(priority string) string) string {
	var next []string
	for _, pr := range costpolicy.Priorities[len(held):] {
		next = append(next, pr+" at "+limit(pr))
	}
	out := ""
	if len(held) > 0 {
		out = "Held: " + strings.Join(held, ", ") + ". "
	}
	if len(next) > 0 {
		out += "Waiting starts for " + strings.Join(next, ", ") + "."
	}
	return out
}
