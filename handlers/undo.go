package handlers

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
	"hearth/views"
)

// undoDecision reverts a decision made on Home (within models.UndoWindow).
// htmx gets Home's live part with the row open wherever it now belongs; a
// plain form is sent back to the row. A refusal (window passed, changed
// since) is said on Home, 409.
func (s *homeHandlers) undoDecision(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil || id <= 0 {
		return s.notFound(c, "no such decision")
	}
	res, err := s.store.UndoDecision(c.UserContext(), id)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such decision")
	case err != nil:
		msg := models.UndoRefusal(err)
		if msg == "" {
			s.log.Error("undo not saved", "err", err, "requestId", requestIDOf(c))
			msg = notSaved(err)
		}
		return s.renderLive(c, fiber.StatusConflict, map[string]bool{}, msg)
	}
	return s.afterLiveAction(c, res.ActivityID)
}

// bringBack returns a deferred or dismissed activity from Later to Home.
func (s *homeHandlers) bringBack(c *fiber.Ctx) error {
	id := c.Params("id")
	if _, err := s.store.SetActivityState(c.UserContext(), id, models.StateAvailable, "", ""); err != nil {
		if errors.Is(err, models.ErrNotFound) {
			return s.notFound(c, "no such activity")
		}
		s.log.Error("bring back not saved", "err", err, "requestId", requestIDOf(c))
		return s.renderLive(c, fiber.StatusServiceUnavailable, map[string]bool{}, notSaved(err))
	}
	return s.afterLiveAction(c, id)
}

// afterLiveAction answers an action that may move a row between Home's
// groups: htmx gets the live part with the row open, a plain form 303 to it.
func (s *homeHandlers) afterLiveAction(c *fiber.Ctx, id string) error {
	if !isHTMX(c) {
		parent := ""
		if row, _, err := s.store.HomeRow(c.UserContext(), id); err == nil {
			parent = row.ParentID
		}
		return redirectToRow(c, id, parent, true)
	}
	return s.renderLive(c, fiber.StatusOK, map[string]bool{id: true}, "")
}

// renderLive renders Home's live part (htmx) or the whole Home page with
// open rows and a notice.
func (s *homeHandlers) renderLive(c *fiber.Ctx, status int, open map[string]bool, notice string) error {
	return s.renderLiveWith(c, status, open, notice, views.WeighState{}, false)
}

// renderLiveWith is renderLive with a weigh-in typed in Home's field: a
// refusal (weigh), or one just saved (weighed).
func (s *homeHandlers) renderLiveWith(c *fiber.Ctx, status int, open map[string]bool, notice string, weigh views.WeighState, weighed bool) error {
	s.ensureOccurrences(c)
	d, err := s.homeData(c, open, newRequestID())
	if err != nil {
		return err
	}
	d.Notice, d.Weigh, d.JustWeighed = notice, weigh, weighed
	return s.render(c, status, pageOrFragment(views.Home(d), views.Live(d)))
}

// liveOpen are the rows open on the page that sent an action (hearth.js
// sends them as open, in the query or the form), kept open in the answer.
func liveOpen(c *fiber.Ctx) map[string]bool {
	open := openSet(c)
	for _, o := range strings.Split(c.FormValue("open"), ",") {
		if o != "" {
			open[o] = true
		}
	}
	return open
}
