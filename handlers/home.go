package handlers

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"hearth/internal/costpolicy"
	"hearth/models"
	"hearth/views"
)

// homeStore is what Home, its rows and People read and change.
type homeStore interface {
	clock
	Home(ctx context.Context, costs costpolicy.Policy) (models.HomeView, error)
	HomeWithAllWaiting(ctx context.Context, costs costpolicy.Policy) (models.HomeView, error)
	HomeRow(ctx context.Context, id string) (models.HomeRow, models.Day, error)
	EnsureOccurrences(ctx context.Context) (int, error)
	SetActivityState(ctx context.Context, activityID, state, until, note string) (models.OwnerActionResult, error)
	UndoDecision(ctx context.Context, decisionID int64) (models.UndoResult, error)
	SetActivityStateOnce(ctx context.Context, clientKey, activityID, state, until, note string) (models.OwnerActionResult, error)
	RecordMeasurementOnce(ctx context.Context, clientKey, activityID string, value float64) (models.SavedMeasurement, error)
	SaveDraftWording(ctx context.Context, draftID string, f models.WordingForm) (models.Wording, error)
	People(ctx context.Context) (models.PeopleView, error)
	Writes() int64
	waitingStore
}

// homeHandlers serve Home, its rows, the owner's actions on them, and People.
type homeHandlers struct {
	*Server
	store homeStore
}

// isHTMX reports whether htmx made the request, so a fragment answers it.
func isHTMX(c *fiber.Ctx) bool { return c.Get("HX-Request") == "true" }

// openSet parses ?open=a,b (the rows to render expanded).
func openSet(c *fiber.Ctx) map[string]bool {
	open := map[string]bool{}
	for _, id := range strings.Split(c.Query("open"), ",") {
		if id != "" {
			open[id] = true
		}
	}
	return open
}

func (s *homeHandlers) homeData(c *fiber.Ctx, open map[string]bool, askID string) (views.HomeData, error) {
	read := s.store.Home
	if open[views.WaitingAll] {
		read = s.store.HomeWithAllWaiting
	}
	home, err := read(c.UserContext(), s.cfg.costs())
	if err != nil {
		return views.HomeData{}, err
	}
	return views.HomeData{Home: home, Now: s.store.Now(), Open: open, AskID: askID, Runs: home.Runs}, nil
}

func (s *homeHandlers) showHome(c *fiber.Ctx) error {
	return s.cachedHome(c, "page", func(d views.HomeData) templ.Component { return views.Home(d) })
}

// showLive renders the live part of Home for a refresh after a commit.
func (s *homeHandlers) showLive(c *fiber.Ctx) error {
	return s.cachedHome(c, "live", func(d views.HomeData) templ.Component { return views.Live(d) })
}

// cachedHome serves a Home render from the page cache, rendering it on a
// miss.
func (s *homeHandlers) cachedHome(c *fiber.Ctx, kind string, view func(views.HomeData) templ.Component) error {
	open := openSet(c)
	key := func() string { return cacheKey(s.store, kind+"|"+openKey(open)) }
	// A cached page was rendered from a read that found today's
	// occurrences made, at the same revision and minute (so on the same
	// day): nothing is missing.
	k := key()
	if page, ok := s.pages.get(k); ok {
		return sendCached(c, page)
	}
	// The cached render holds a placeholder where the Ask form's requestId
	// goes, and every response gets a fresh one, so two devices never share it.
	d, err := s.homeData(c, open, idPlaceholder)
	if err != nil {
		return err
	}
	if d.Home.OccurrencesMissing {
		// A routine's occurrence of today is still to make: make it, a new
		// revision, and read Home again under its key.
		s.ensureOccurrences(c)
		k = key()
		if page, ok := s.pages.get(k); ok {
			return sendCached(c, page)
		}
		if d, err = s.homeData(c, open, idPlaceholder); err != nil {
			return err
		}
	}
	return s.renderCached(c, k, view(d))
}

// ensureOccurrences instantiates today's routine occurrences when Home's
// read found one missing. A failure is logged and Home is shown without
// them: serve's ticker tries again every minute.
func (s *homeHandlers) ensureOccurrences(c *fiber.Ctx) {
	if _, err := s.store.EnsureOccurrences(c.UserContext()); err != nil {
		s.log.Error("ensure occurrences", "err", err, "requestId", requestIDOf(c))
	}
}

// showRow answers a tap on a row head: the row expanded or collapsed.
func (s *homeHandlers) showRow(c *fiber.Ctx) error {
	id := c.Params("id")
	expand := c.Query("expanded") == "true"
	if !isHTMX(c) {
		return c.Redirect(rowPageURL(id, expand), fiber.StatusSeeOther)
	}
	return s.renderRow(c, fiber.StatusOK, id, views.RowState{Expanded: expand, Open: openSet(c)})
}

func rowPageURL(id string, expand bool) string {
	if !expand {
		return "/#row-" + url.PathEscape(id)
	}
	return "/?open=" + url.QueryEscape(id) + "#row-" + url.PathEscape(id)
}

// renderRow renders one row fragment (htmx) or, for a plain form post, the
// whole Home page with that row open, both with status.
func (s *homeHandlers) renderRow(c *fiber.Ctx, status int, id string, st views.RowState) error {
	return s.render(c, status, view{page: func() (templ.Component, error) {
		open := openSet(c)
		open[id] = true
		// A step is shown inside its routine: open that too.
		if row, _, err := s.store.HomeRow(c.UserContext(), id); err == nil && row.ParentID != "" {
			open[row.ParentID] = true
		}
		d, err := s.homeData(c, open, newRequestID())
		if err != nil {
			return nil, err
		}
		// The message and the entered value go back into the row's form.
		if st.Error != "" {
			d.Failure = &views.RowFailure{ID: id, Error: st.Error, Input: st.Input, Field: st.Field}
		}
		return views.Home(d), nil
	}, fragment: func() (templ.Component, error) {
		row, day, err := s.store.HomeRow(c.UserContext(), id)
		if errors.Is(err, models.ErrNotFound) {
			return nil, s.notFound(c, "no such activity")
		}
		if err != nil {
			return nil, err
		}
		st.Now, st.Day = s.store.Now(), day
		if st.Expanded {
			// Its steps' links (without JavaScript) then keep it open.
			if st.Open == nil {
				st.Open = map[string]bool{}
			}
			st.Open[id] = true
		}
		return views.Row(row, st), nil
	}})
}

// afterAction answers a successful owner action on row id with what its
// commit changed (a, read by the service in the action's transaction; rev
// the revision it committed, 0: nothing): the row for htmx, 303 back to
// Home for a plain form.
func (s *homeHandlers) afterAction(c *fiber.Ctx, id string, a models.RowAnswer, rev int64) error {
	// An action from Home's first screen or a collapsed routine's tick
	// (answer=live) may change more than its row: the first action, the
	// routine's progress. Its answer is the live part.
	if c.FormValue("answer") == "live" && isHTMX(c) {
		return s.renderLive(c, fiber.StatusOK, liveOpen(c), "")
	}
	found := a.Row.ID != ""
	// A row dismissed or deferred past today has left its group for Later:
	// show it there, with its Undo.
	if found && a.MovedToLater() {
		if !isHTMX(c) {
			return c.Redirect("/?open="+url.QueryEscape(id)+"#later-"+url.PathEscape(id), fiber.StatusSeeOther)
		}
		c.Set("HX-Retarget", "#live")
		c.Set("HX-Reswap", "outerHTML")
		return s.renderLive(c, fiber.StatusOK, map[string]bool{id: true}, "")
	}
	// A step's tick (expanded=false) leaves it collapsed: one tap, nothing opens.
	expand := c.FormValue("expanded") != "false"
	if !isHTMX(c) {
		return redirectToRow(c, id, a.Acted.ParentID, expand)
	}
	if !found {
		return s.renderRow(c, fiber.StatusOK, id, views.RowState{Expanded: expand, Open: openSet(c)})
	}
	if rev != 0 && a.Alone {
		return s.answerRow(c, id, expand, rev, a)
	}
	st := views.RowState{Expanded: expand, Open: openSet(c), Now: s.store.Now(), Day: a.Day}
	if expand {
		st.Open[id] = true
	}
	return s.render(c, fiber.StatusOK, viewOf(views.Row(a.Acted, st)))
}

// revisionHeader names the revision an owner action committed when its
// answer is all that commit changed on Home: hearth.js then takes the
// live event for that revision as seen instead of re-reading all of Home.
const revisionHeader = "Hearth-Revision"

// answerRow answers an owner action on a Home row that committed rev and
// whose row (for a routine's step, its routine: the step and the
// routine's progress) is all that commit changed on Home (a.Alone): that
// row is the answer, rendered once, with rev in revisionHeader.
func (s *homeHandlers) answerRow(c *fiber.Ctx, id string, expand bool, rev int64, a models.RowAnswer) error {
	// The rows open on the page (hearth.js sends them) stay open; the
	// acted-on row is open exactly when its form asked (a tick leaves a
	// step collapsed), and a step's routine is open around it.
	open := liveOpen(c)
	delete(open, id)
	if expand {
		open[id] = true
	}
	if a.Row.ID != id {
		open[a.Row.ID] = true
	}
	c.Set("HX-Retarget", `li[data-row][data-id="`+a.Row.ID+`"]`)
	c.Set("HX-Reswap", "outerHTML")
	c.Set(revisionHeader, strconv.FormatInt(rev, 10))
	// A decision (the one route whose every commit is undoable) is the
	// newest Undo on Home: the bottom bar follows the row, out of band.
	dock := c.Route().Path == "/activities/:id/state"
	return s.render(c, fiber.StatusOK, viewOf(views.RowAnswer(a.Row, views.RowState{Expanded: open[a.Row.ID], Now: s.store.Now(), Day: a.Day, Open: open}, dock)))
}

// redirectToRow sends a plain form back to its row with 303. A routine's
// step (parent set) is shown inside its routine: open the routine too (and
// the step when expand), or the owner lands on a collapsed routine that
// hides what they just did.
func redirectToRow(c *fiber.Ctx, id, parent string, expand bool) error {
	if parent != "" {
		open := parent
		if expand {
			open += "," + id
		}
		return c.Redirect("/?open="+url.QueryEscape(open)+"#row-"+url.PathEscape(id), fiber.StatusSeeOther)
	}
	return c.Redirect(rowPageURL(id, expand), fiber.StatusSeeOther)
}

// actionError maps an owner action's failure to a row re-rendered with the
// message (422), 404, or a write that failed inside hearth (503: the row
// with the reason and the entered value for htmx, a page for a plain form).
func (s *homeHandlers) actionError(c *fiber.Ctx, id string, err error, input string) error {
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such activity")
	case errors.Is(err, models.ErrClientKeyConflict):
		// A queued action whose key was already spent on another: a client bug, said on the row.
		return s.renderRow(c, fiber.StatusConflict, id, views.RowState{Expanded: true, Error: "This was already sent as a different action, so it was not saved again.", Open: openSet(c)})
	case errors.Is(err, models.ErrInvalidInput):
		var fe *models.FieldError
		if errors.As(err, &fe) {
			return s.renderRow(c, fiber.StatusUnprocessableEntity, id, views.RowState{Expanded: true, Error: fe.Message, Field: fe.Field, Input: input, Open: openSet(c)})
		}
		msg := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "models: "), ": "+models.ErrInvalidInput.Error())
		return s.renderRow(c, fiber.StatusUnprocessableEntity, id, views.RowState{Expanded: true, Error: sentence(msg), Input: input, Open: openSet(c)})
	case !isHTMX(c):
		return s.renderNotSaved(c, err, rowPageURL(id, true), input)
	}
	s.log.Error("owner action not saved", "err", err, "requestId", requestIDOf(c))
	return s.renderRow(c, fiber.StatusServiceUnavailable, id, views.RowState{Expanded: true, Error: notSaved(err), Input: input, Open: openSet(c)})
}

// sentence makes a model's message a sentence: a capital first letter and
// a full stop.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// notFound answers an owner route that names nothing: the JSON envelope for
// htmx (which swaps no 404), a page for a plain form, never raw JSON.
func (s *Server) notFound(c *fiber.Ctx, message string) error {
	if isHTMX(c) {
		return apiError(c, fiber.StatusNotFound, "not_found", message, nil)
	}
	return s.render(c, fiber.StatusNotFound, formError("Not found", []string{sentence(message)}, "/"))
}

// stateForm is the owner's decision on an activity.
type stateForm struct {
	State string `form:"state"`
	Until string `form:"until"`
	Note  string `form:"note"`
	// ClientKey, optional, makes a replay of this action a no-op (offline entry).
	ClientKey string `form:"clientKey"`
}

func (s *homeHandlers) setActivityState(c *fiber.Ctx) error {
	id := c.Params("id")
	var f stateForm
	if err := c.BodyParser(&f); err != nil {
		return s.actionError(c, id, models.ErrInvalidInput, "")
	}
	note := strings.TrimSpace(f.Note)
	res, err := s.store.SetActivityStateOnce(c.UserContext(), f.ClientKey, id, f.State, f.Until, note)
	if err != nil {
		// The note goes back into its field (a routine's reason) with the message.
		return s.actionError(c, id, err, note)
	}
	return s.afterAction(c, id, res.Answer, res.Revision)
}

// plainDecimal is what the owner types: ASCII digits with at most one
// decimal point or comma between digits. strconv.ParseFloat alone also
// took 0x1p6, 1e2, +72, 1_000, Inf and NaN.
var plainDecimal = regexp.MustCompile(`^[0-9]+([.,][0-9]+)?$`)

// parseDecimal accepts "72.4", "72,4" and the spaces a phone keyboard
// leaves around them; anything else is not a number here.
func parseDecimal(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if !plainDecimal.MatchString(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Replace(s, ",", ".", 1), 64)
	return v, err == nil
}

func (s *homeHandlers) saveMeasurement(c *fiber.Ctx) error {
	id := c.Params("id")
	input := c.FormValue("value")
	value, ok := parseDecimal(input)
	if !ok {
		return s.renderRow(c, fiber.StatusUnprocessableEntity, id, views.RowState{Expanded: true, Input: input,
			Error: "Enter a number, like 72.4.", Field: "value", Open: openSet(c)})
	}
	m, err := s.store.RecordMeasurementOnce(c.UserContext(), c.FormValue("clientKey"), id, value)
	if err != nil {
		return s.actionError(c, id, err, input)
	}
	return s.afterAction(c, id, m.Answer, m.Revision)
}

// saveDraftEdit saves a Home reply row's editor as the owner's edit (the
// chosen candidate's text when the editor was left as shown). With
// next=review ("Review and send") it then opens the review of exactly that
// text, so nothing typed is lost on the way.
//
// With autosave=1 (static/keep.js, while the owner types) it saves only
// while the stored edit is still the one at revision since, answers 409
// otherwise, and names the saved edit's revision in Hearth-Edit-Revision:
// on Home the row (not swapped; its version and revision tell the page
// what it now shows), elsewhere nothing.
func (s *homeHandlers) saveDraftEdit(c *fiber.Ctx) error {
	activity := c.Query("activity")
	id := c.Params("id")
	body := c.FormValue("body")
	form := models.WordingForm{Body: body, Candidate: c.FormValue("candidate"),
		ShownBody: c.FormValue("shownBody"), ShownCandidate: c.FormValue("shownCandidate"), Activity: activity}
	if c.FormValue("autosave") == "1" {
		return s.autosaveDraftEdit(c, id, activity, form)
	}
	w, err := s.store.SaveDraftWording(c.UserContext(), id, form)
	if err != nil {
		if activity == "" || errors.Is(err, models.ErrNotFound) {
			return s.notFound(c, "no such draft")
		}
		return s.actionError(c, activity, replyFieldError(err, body), body)
	}
	if c.FormValue("next") == "review" {
		next := "/messages/" + url.PathEscape(w.ChatID) + "/review?draftId=" + url.QueryEscape(id)
		if w.Kept != nil {
			next += "&kept=" + url.QueryEscape(w.Kept.ID)
		}
		if isHTMX(c) {
			c.Set("HX-Redirect", next) // a page, not a row: htmx navigates
			return c.SendStatus(fiber.StatusOK)
		}
		return c.Redirect(next, fiber.StatusSeeOther)
	}
	if activity == "" {
		return c.Redirect("/", fiber.StatusSeeOther)
	}
	return s.afterAction(c, activity, w.Answer, w.Revision)
}

// autosaveDraftEdit is saveDraftEdit's autosave: a status and headers for
// the script, never a page or a swap.
func (s *homeHandlers) autosaveDraftEdit(c *fiber.Ctx, id, activity string, form models.WordingForm) error {
	since, err := strconv.ParseInt(c.FormValue("since"), 10, 64)
	if err != nil || since < 0 {
		return fiber.NewError(fiber.StatusBadRequest, "since must be an edit revision")
	}
	form.Since = &since
	w, err := s.store.SaveDraftWording(c.UserContext(), id, form)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return fiber.NewError(fiber.StatusNotFound, "no such draft")
	case errors.Is(err, models.ErrEditChanged):
		return fiber.NewError(fiber.StatusConflict, err.Error())
	case errors.Is(err, models.ErrInvalidInput):
		return fiber.NewError(fiber.StatusUnprocessableEntity, "not saved: the text is empty or too long")
	case err != nil:
		return err
	}
	edit := since
	if w.Revision != 0 {
		edit = w.Revision
	}
	c.Set("Hearth-Edit-Revision", strconv.FormatInt(edit, 10))
	if activity != "" && isHTMX(c) {
		return s.afterAction(c, activity, w.Answer, w.Revision)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// showPeople serves People from the page cache, reading and rendering it
// on a miss.
func (s *homeHandlers) showPeople(c *fiber.Ctx) error {
	k := cacheKey(s.store, "people")
	if page, ok := s.pages.get(k); ok {
		return sendCached(c, page)
	}
	// Each correction form's requestId is a placeholder that every response
	// replaces with a fresh one, so two devices never share one.
	d, err := s.peopleData(c, "", views.AskState{}, func() string { return idPlaceholder })
	if err != nil {
		return err
	}
	return s.renderCached(c, k, views.People(d))
}

// renderPeople is the People page with personID's refused correction
// shown again in that person's form, with status.
func (s *homeHandlers) renderPeople(c *fiber.Ctx, status int, personID string, refused views.AskState) error {
	d, err := s.peopleData(c, personID, refused, newRequestID)
	if err != nil {
		return err
	}
	return s.render(c, status, viewOf(views.People(d)))
}

// peopleData is People's view-model from the store's snapshot; askID
// makes each correction form's requestId.
func (s *homeHandlers) peopleData(c *fiber.Ctx, personID string, refused views.AskState, askID func() string) (views.PeopleData, error) {
	v, err := s.store.People(c.UserContext())
	if err != nil {
		return views.PeopleData{}, err
	}
	cards := make([]views.PersonCard, len(v.People))
	for i, p := range v.People {
		cards[i] = views.PersonCard{Person: p.Person, Corrections: p.Corrections, AskID: askID(),
			Evidence: p.Evidence, Activities: p.Activities, Drafts: p.Drafts, Replies: p.Replies, Rhythm: p.Rhythm, Voice: p.Voice}
		if p.Person.ID == personID {
			cards[i].Refused = refused
		}
	}
	return views.PeopleData{Now: s.store.Now(), Revision: v.Revision, People: cards}, nil
}

// newRequestID is rendered into a request form, so a double submit is one request.
func newRequestID() string { return "req-" + newSendKey()[len("send-"):] }
