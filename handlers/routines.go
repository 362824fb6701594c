package handlers

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/internal/ids"
	"hearth/models"
	"hearth/views"
)

// routinesStore is the Routines page and the owner's routine decisions.
type routinesStore interface {
	clock
	Writes() int64
	Routines(ctx context.Context) (models.RoutinesView, error)
	StartTrial(ctx context.Context, cmd models.TrialCommand) (models.RoutineTrial, error)
	EndTrial(ctx context.Context, trialID int64) error
	ExtendTrial(ctx context.Context, trialID int64, days int) error
	TriggerEvent(ctx context.Context, event string) (int, error)
	RecordFeedbackAt(ctx context.Context, occurrenceID, effort, helped string) (models.OwnerActionResult, error)
	RecordPastOutcome(ctx context.Context, cmd models.PastOutcomeCommand) error
	DecideProposal(ctx context.Context, d models.ProposalDecision) (contract.RequestView, error)
}

// routinesHandlers serve the Routines page and the routine actions on Home,
// which answer with Home's rows.
type routinesHandlers struct {
	*Server
	store routinesStore
	home  *homeHandlers
}

// The Routines page: plain forms answered by 303 (post/redirect/get, so a
// reload never posts twice), a refused form by the page again with its
// message beside that form.

// showRoutines serves the Routines page from the page cache: a page of
// twenty routines with a year of counts is hundreds of KB, so it is read
// and rendered once per commit.
func (s *routinesHandlers) showRoutines(c *fiber.Ctx) error {
	key := cacheKey(s.store, "routines")
	if page, ok := s.pages.get(key); ok {
		return sendCached(c, page)
	}
	v, err := s.store.Routines(c.UserContext())
	if err != nil {
		return err
	}
	// Each proposal form's requestId is a placeholder in the cached render,
	// filled per response, so two devices never share one.
	d := views.RoutinesData{View: v, RequestIDs: proposalIDs(v, func() string { return idPlaceholder })}
	return s.renderCached(c, key, views.Routines(d))
}

// proposalIDs gives each undecided proposal's form a requestId.
func proposalIDs(v models.RoutinesView, id func() string) map[string]string {
	ids := map[string]string{}
	for _, card := range v.Routines {
		for _, rv := range card.Reviews {
			for _, p := range rv.Proposals {
				if p.Decision == "" {
					ids[views.ProposalKey(rv.ID, p.ID)] = id()
				}
			}
		}
	}
	return ids
}

// renderRoutines renders the page with status, and problem beside the form it concerns.
func (s *routinesHandlers) renderRoutines(c *fiber.Ctx, status int, problem *views.FormProblem) error {
	v, err := s.store.Routines(c.UserContext())
	if err != nil {
		return err
	}
	// A refused form's page is rendered for this response alone.
	return s.render(c, status, viewOf(views.Routines(views.RoutinesData{View: v, RequestIDs: proposalIDs(v, newRequestID), Problem: problem})))
}

// pathParam is a path parameter, unescaped (chat and routine IDs may arrive escaped).
func pathParam(c *fiber.Ctx, name string) string {
	v, err := url.PathUnescape(c.Params(name))
	if err != nil {
		return c.Params(name)
	}
	return v
}

// formValues are the posted form fields, kept to show a refused form again as sent.
func formValues(c *fiber.Ctx) map[string][]string {
	out := map[string][]string{}
	c.Request().PostArgs().VisitAll(func(k, v []byte) {
		out[string(k)] = append(out[string(k)], string(v))
	})
	return out
}

// inputField is the form field a models.ErrInvalidInput error is about
// (a models.FieldError's), or "".
func inputField(err error) string {
	var fe *models.FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}

// inputMessage is a models.ErrInvalidInput error as a sentence for the owner.
func inputMessage(err error) string {
	var fe *models.FieldError
	if errors.As(err, &fe) {
		return fe.Message
	}
	msg := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "models: "), ": "+models.ErrInvalidInput.Error())
	r, n := utf8.DecodeRuneInString(msg)
	return string(unicode.ToUpper(r)) + msg[n:] + "."
}

// routineAnchor is the Routines page at a routine's card.
func routineAnchor(routineID string) string {
	if !ids.Valid(routineID) {
		return "/routines"
	}
	return "/routines#routine-" + routineID
}

// startTrial is the owner's Try: a revision, weekdays and a review window.
func (s *routinesHandlers) startTrial(c *fiber.Ctx) error {
	id := pathParam(c, "id")
	values := formValues(c)
	refuse := func(field, msg string) error {
		return s.renderRoutines(c, fiber.StatusUnprocessableEntity, &views.FormProblem{Form: views.TryForm(id), Field: field, Message: msg, Values: values})
	}
	rev, err := strconv.ParseInt(c.FormValue("revision"), 10, 64)
	if err != nil {
		return refuse("revision", "Choose a version to try.")
	}
	window := models.DefaultTrialDays
	if w := strings.TrimSpace(c.FormValue("windowDays")); w != "" {
		if window, err = strconv.Atoi(w); err != nil || window < 1 || window > models.MaxTrialDays {
			return refuse("windowDays", "A review window is 1 to 90 days.")
		}
	}
	var days []int
	for _, v := range values["days"] {
		d, err := strconv.Atoi(v)
		if err != nil || d < 1 || d > 7 {
			return refuse("days", "Days are weekdays, Monday to Sunday.")
		}
		days = append(days, d)
	}
	if len(days) == 0 {
		return refuse("days", "Choose at least one day.")
	}
	_, err = s.store.StartTrial(c.UserContext(), models.TrialCommand{RoutineID: id, Revision: rev, Days: days, WindowDays: window})
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such routine version")
	case errors.Is(err, models.ErrInvalidInput):
		return refuse(inputField(err), inputMessage(err))
	case err != nil:
		return err
	}
	return c.Redirect(routineAnchor(id), fiber.StatusSeeOther)
}

// trialParam is the trial ID from the path, or 0.
func trialParam(c *fiber.Ctx) int64 {
	id, err := strconv.ParseInt(c.Params("trial"), 10, 64)
	if err != nil || id < 1 {
		return 0
	}
	return id
}

// endTrial ends an active trial; ending one that already ended is what
// the owner asked for, so it answers the same 303.
func (s *routinesHandlers) endTrial(c *fiber.Ctx) error {
	id := trialParam(c)
	err := s.store.EndTrial(c.UserContext(), id)
	switch {
	case id == 0, errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such trial")
	case err != nil && !errors.Is(err, models.ErrTrialNotActive):
		return err
	}
	return c.Redirect(routineAnchor(c.FormValue("routine")), fiber.StatusSeeOther)
}

// extendTrial moves an active trial's window end by the posted days (7).
func (s *routinesHandlers) extendTrial(c *fiber.Ctx) error {
	id := trialParam(c)
	if id == 0 {
		return s.notFound(c, "no such trial")
	}
	days, err := strconv.Atoi(c.FormValue("days"))
	if err == nil {
		err = s.store.ExtendTrial(c.UserContext(), id, days)
	} else {
		err = models.ErrInvalidInput
	}
	problem := func(status int, msg string) error {
		return s.renderRoutines(c, status, &views.FormProblem{Form: views.TrialForm(id), Message: msg, Values: formValues(c)})
	}
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such trial")
	case errors.Is(err, models.ErrTrialNotActive):
		return problem(fiber.StatusConflict, "This trial has ended; try the routine again instead.")
	case errors.Is(err, models.ErrInvalidInput):
		return problem(fiber.StatusUnprocessableEntity, "A trial is extended by 1 to 90 days, and runs at most a year.")
	case err != nil:
		return err
	}
	return c.Redirect(routineAnchor(c.FormValue("routine")), fiber.StatusSeeOther)
}

// recordPastOutcome is "I did it yesterday" for an earlier day of the window.
func (s *routinesHandlers) recordPastOutcome(c *fiber.Ctx) error {
	id := pathParam(c, "id")
	cmd := models.PastOutcomeCommand{RoutineID: id, Date: c.FormValue("date"), Outcome: c.FormValue("outcome"), Reason: c.FormValue("reason")}
	err := s.store.RecordPastOutcome(c.UserContext(), cmd)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such routine")
	case errors.Is(err, models.ErrInvalidInput):
		form := views.OutcomeForm(id, cmd.Date)
		if c.FormValue("form") == views.EarlierDays {
			form = views.OutcomeForm(id, views.EarlierDays)
		}
		return s.renderRoutines(c, fiber.StatusUnprocessableEntity, &views.FormProblem{Form: form, Field: inputField(err), Message: inputMessage(err), Values: formValues(c)})
	case err != nil:
		return err
	}
	return c.Redirect(routineAnchor(id), fiber.StatusSeeOther)
}

// decideProposal adopts, modifies or rejects a review proposal: an owner
// request (routine-change) for the agent. The same requestId again is the
// same decision (a double submit), so it answers the same 303.
func (s *routinesHandlers) decideProposal(c *fiber.Ctx) error {
	d := models.ProposalDecision{RequestID: c.FormValue("requestId"), ReviewID: pathParam(c, "review"), ProposalID: pathParam(c, "proposal"),
		Decision: c.FormValue("decision"), Words: c.FormValue("words")}
	_, err := s.store.DecideProposal(c.UserContext(), d)
	problem := func(status int, msg string) error {
		return s.renderRoutines(c, status, &views.FormProblem{Form: views.ProposalKey(d.ReviewID, d.ProposalID), Field: inputField(err), Message: msg, Values: formValues(c)})
	}
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such review proposal")
	case errors.Is(err, models.ErrAlreadyDecided):
		return problem(fiber.StatusConflict, "This proposal was already decided; that decision stands.")
	case errors.Is(err, models.ErrInvalidInput):
		return problem(fiber.StatusUnprocessableEntity, inputMessage(err))
	case err != nil:
		return err
	}
	return c.Redirect("/routines#review-"+url.PathEscape(d.ReviewID), fiber.StatusSeeOther)
}

// triggerEvent is Start work / End work on Home: today's occurrences of the
// routines tried on that event, once however often it is tapped. htmx gets
// Home's live part back, a plain form a 303 to Home.
func (s *routinesHandlers) triggerEvent(c *fiber.Ctx) error {
	event := c.Params("event")
	if event != contract.EventStartWork && event != contract.EventEndWork {
		return s.notFound(c, "no such event: start-work or end-work")
	}
	if _, err := s.store.TriggerEvent(c.UserContext(), event); err != nil {
		return err
	}
	if isHTMX(c) {
		return s.home.showLive(c)
	}
	return c.Redirect("/", fiber.StatusSeeOther)
}

// recordFeedback is the one-tap feedback on a routine occurrence's outcome;
// it answers with the occurrence's row.
func (s *routinesHandlers) recordFeedback(c *fiber.Ctx) error {
	occ := pathParam(c, "occurrence")
	row := models.OccurrenceActivityID(occ)
	res, err := s.store.RecordFeedbackAt(c.UserContext(), occ, c.FormValue("effort"), c.FormValue("helped"))
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such occurrence")
	case errors.Is(err, models.ErrNoOutcomeYet):
		return s.home.renderRow(c, fiber.StatusConflict, row, views.RowState{Expanded: true, Error: "Record an outcome first; feedback is about what happened.", Open: openSet(c)})
	case errors.Is(err, models.ErrInvalidInput):
		return s.home.actionError(c, row, err, "")
	case err != nil:
		return err
	}
	return s.home.afterAction(c, row, res.Answer, res.Revision)
}
