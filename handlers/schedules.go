package handlers

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/internal/instant"
	"hearth/internal/schedule"
	"hearth/models"
	"hearth/views"
)

// schedulesStore is the schedules ledger.
type schedulesStore interface {
	Today(ctx context.Context) (models.Day, error)
	clock
	CreateSchedule(ctx context.Context, actor models.Actor, in contract.ScheduleIn, hash string) (models.ScheduleReceipt, bool, error)
	CancelSchedule(ctx context.Context, actor models.Actor, id string) (models.CancelResult, error)
	Schedules(ctx context.Context) (models.ScheduleList, error)
	DueSchedules(ctx context.Context, now time.Time) (contract.DueReport, error)
	NextSchedule(ctx context.Context, id string, from time.Time, count int) (schedule.NextResult, error)
	ApproveSchedule(ctx context.Context, id, fingerprint string) (models.ScheduleView, error)
}

// schedulesHandlers serve the schedules API and page.
type schedulesHandlers struct {
	*Server
	store schedulesStore
}

// listSchedules is GET /api/schedules: every schedule, cancelled ones with their state.
func (s *schedulesHandlers) listSchedules(c *fiber.Ctx) error {
	list, err := s.store.Schedules(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(list)
}

// createSchedule is POST /api/schedules: 201 with the receipt, 200 with the
// original receipt for a replay of the same requestKey and body.
func (s *schedulesHandlers) createSchedule(c *fiber.Ctx) error {
	return apiWrite(c, createScheduleSpec, func(body []byte) (models.ScheduleReceipt, int, error) {
		in, hash, err := contract.DecodeSchedule(body)
		if err != nil {
			return models.ScheduleReceipt{}, 0, err
		}
		receipt, created, err := s.store.CreateSchedule(c.UserContext(), actorOf(c), in, hash)
		return receipt, createdOr200(created), err
	})
}

// createScheduleSpec answers a new schedule's refusals.
var createScheduleSpec = writeSpec{invalidCode: "invalid_request", invalidMessage: "the schedule was refused; nothing was stored",
	conflictMessage: "this requestKey was already used with a different body; use a new requestKey for a new schedule",
	refuse: func(c *fiber.Ctx, err error) error {
		var exists *models.ScheduleExistsError
		if errors.As(err, &exists) {
			return apiError(c, fiber.StatusConflict, "schedule_exists", exists.Error(), fiber.Map{"scheduleId": exists.ID, "state": exists.State})
		}
		return err
	}}

// cancelSchedule is POST /api/schedules/:id/cancel: idempotent; it reports
// a running attempt rather than claim to stop it.
func (s *schedulesHandlers) cancelSchedule(c *fiber.Ctx) error {
	res, err := s.store.CancelSchedule(c.UserContext(), actorOf(c), c.Params("id"))
	switch {
	case errors.Is(err, models.ErrNotFound):
		return apiError(c, fiber.StatusNotFound, "not_found", "no such schedule", nil)
	case err != nil:
		return err
	}
	return c.JSON(res)
}

// dueSchedules is GET /api/schedules/due?now=: read-only evaluation.
func (s *schedulesHandlers) dueSchedules(c *fiber.Ctx) error {
	now, ok, err := instantParam(c, "now", s.store.Now())
	if !ok {
		return err
	}
	rep, err := s.store.DueSchedules(c.UserContext(), now)
	if err != nil {
		return err
	}
	return c.JSON(rep)
}

// nextSchedule is GET /api/schedules/:id/next?from=&count=.
func (s *schedulesHandlers) nextSchedule(c *fiber.Ctx) error {
	from, ok, err := instantParam(c, "from", s.store.Now())
	if !ok {
		return err
	}
	count := models.DefaultNextCount
	if raw := c.Query("count"); raw != "" {
		n, perr := strconv.Atoi(raw)
		if perr != nil || n < 1 || n > models.MaxNextCount {
			return invalidParam(c, "count", "invalid query parameter", "an integer from 1 to "+strconv.Itoa(models.MaxNextCount), raw)
		}
		count = n
	}
	res, err := s.store.NextSchedule(c.UserContext(), c.Params("id"), from, count)
	var unreadable *models.UnreadableError
	switch {
	case errors.Is(err, models.ErrNotFound):
		return apiError(c, fiber.StatusNotFound, "not_found", "no such schedule", nil)
	case errors.As(err, &unreadable):
		return apiError(c, fiber.StatusConflict, "schedule_unreadable", unreadable.Reason(), fiber.Map{"scheduleId": unreadable.ID})
	case err != nil:
		return err
	}
	return c.JSON(res)
}

// instantParam reads an optional RFC 3339 query parameter (fallback when
// absent) inside hearth's bound: an instant past it once made due and next
// answers no JSON encoder could write. ok false means the 422 was written.
func instantParam(c *fiber.Ctx, name string, fallback time.Time) (time.Time, bool, error) {
	raw := c.Query(name)
	if raw == "" {
		return fallback, true, nil
	}
	t, err := instant.Parse(raw)
	if err != nil {
		return time.Time{}, false, invalidParam(c, name, "invalid query parameter: "+err.Error(), instant.Expected, raw)
	}
	return t, true, nil
}

// invalidParam writes the 422 of a query parameter, as a field error at name.
func invalidParam(c *fiber.Ctx, name, message, expected, found string) error {
	return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", "invalid query parameter "+name,
		fiber.Map{"errors": []fiber.Map{{"path": name, "message": message, "expected": expected, "found": found}}})
}

// showSchedules is the owner's Schedules page.
func (s *schedulesHandlers) showSchedules(c *fiber.Ctx) error {
	return s.renderSchedules(c, fiber.StatusOK, views.ScheduleRefusal{})
}

// renderSchedules is the Schedules page; refused is shown in its schedule's row.
func (s *schedulesHandlers) renderSchedules(c *fiber.Ctx, status int, refused views.ScheduleRefusal) error {
	rev := s.store.LatestRevision() // before the read, so a later commit reloads the page
	list, err := s.store.Schedules(c.UserContext())
	if err != nil {
		return err
	}
	day, err := s.store.Today(c.UserContext())
	if err != nil {
		return err
	}
	return s.render(c, status, viewOf(views.Schedules(views.SchedulesData{Now: s.store.Now(), Revision: rev, List: list, Day: day, Refused: refused})))
}

// scheduleAnchor is the page address of one schedule.
func scheduleAnchor(id string) string { return "/schedules#schedule-" + url.PathEscape(id) }

// cancelScheduleForm is the page's Cancel button.
func (s *schedulesHandlers) cancelScheduleForm(c *fiber.Ctx) error {
	_, err := s.store.CancelSchedule(c.UserContext(), models.OwnerActor(), c.Params("id"))
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such schedule")
	case err != nil:
		return err
	}
	return c.Redirect(scheduleAnchor(c.Params("id")), fiber.StatusSeeOther)
}

// approveScheduleForm is the page's Approve again: the owner approves the
// definition file whose fingerprint the page showed.
func (s *schedulesHandlers) approveScheduleForm(c *fiber.Ctx) error {
	id := c.Params("id")
	_, err := s.store.ApproveSchedule(c.UserContext(), id, c.FormValue("fingerprint"))
	var notApprovable *models.NotApprovableError
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such schedule")
	case errors.Is(err, models.ErrFileChanged):
		return s.renderSchedules(c, fiber.StatusConflict, views.ScheduleRefusal{ScheduleID: id,
			Message: "Not approved: the definition file is not the one the page showed you. Look at it again before approving."})
	case errors.As(err, &notApprovable):
		return s.renderSchedules(c, fiber.StatusConflict, views.ScheduleRefusal{ScheduleID: id, Message: sentence("Not approved: " + notApprovable.Error())})
	case errors.Is(err, models.ErrScheduleClosed):
		return s.renderSchedules(c, fiber.StatusConflict, views.ScheduleRefusal{ScheduleID: id,
			Message: "Not approved: a cancelled or expired schedule never runs again."})
	case err != nil:
		return err
	}
	return c.Redirect(scheduleAnchor(id), fiber.StatusSeeOther)
}
