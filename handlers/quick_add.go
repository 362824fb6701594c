package handlers

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
)

// mineStore is what Home's quick add and the owner's own items change.
type mineStore interface {
	AddOwnerItemOnce(ctx context.Context, clientKey, text string) (models.OwnerItem, error)
	SetOwnerItemDone(ctx context.Context, id string, done bool) (models.OwnerItem, error)
	EditOwnerItem(ctx context.Context, id, text, day string) (models.OwnerItem, error)
	RemoveOwnerItem(ctx context.Context, id string) error
}

// mineHandlers serve the quick add on Home and the owner's items it adds.
// Every answer is Home's live part (htmx) or Home (a plain form, 303).
type mineHandlers struct {
	home  *homeHandlers
	store mineStore
}

// addOwnerItem stores what the owner typed into the quick add. The
// optional clientKey makes a replay of it (the phone's offline queue
// sending again after a lost answer) add nothing.
func (s *mineHandlers) addOwnerItem(c *fiber.Ctx) error {
	_, err := s.store.AddOwnerItemOnce(c.UserContext(), c.FormValue("clientKey"), c.FormValue("text"))
	return s.answer(c, err)
}

// tickOwnerItem ticks an item done (done=true) or opens it again.
func (s *mineHandlers) tickOwnerItem(c *fiber.Ctx) error {
	_, err := s.store.SetOwnerItemDone(c.UserContext(), c.Params("id"), c.FormValue("done") == "true")
	return s.answer(c, err)
}

// editOwnerItem saves an item's words and day.
func (s *mineHandlers) editOwnerItem(c *fiber.Ctx) error {
	_, err := s.store.EditOwnerItem(c.UserContext(), c.Params("id"), c.FormValue("text"), c.FormValue("day"))
	return s.answer(c, err)
}

// removeOwnerItem takes an item off Home.
func (s *mineHandlers) removeOwnerItem(c *fiber.Ctx) error {
	return s.answer(c, s.store.RemoveOwnerItem(c.UserContext(), c.Params("id")))
}

// answer is Home after the action: the refusal said at the top of the
// live part (422), an unknown item 404, a failed write 503.
func (s *mineHandlers) answer(c *fiber.Ctx, err error) error {
	var field *models.FieldError
	switch {
	case err == nil:
		if !isHTMX(c) {
			return c.Redirect("/#mine", fiber.StatusSeeOther)
		}
		return s.home.renderLive(c, fiber.StatusOK, liveOpen(c), "")
	case errors.As(err, &field):
		return s.home.renderLive(c, fiber.StatusUnprocessableEntity, liveOpen(c), field.Message)
	case errors.Is(err, models.ErrNotFound):
		return s.home.notFound(c, "no such item of yours")
	case errors.Is(err, models.ErrClientKeyConflict):
		// A queued add whose key was already spent on other words: a client bug.
		return s.home.renderLive(c, fiber.StatusConflict, liveOpen(c), "This was already sent with other words, so it was not added again.")
	case errors.Is(err, models.ErrInvalidInput):
		// A malformed client key: a client bug too, never stored.
		return s.home.renderLive(c, fiber.StatusUnprocessableEntity, liveOpen(c), "This phone sent the add in a form hearth does not take, so it was not added.")
	}
	s.home.log.Error("owner item not saved", "err", err, "requestId", requestIDOf(c))
	return s.home.renderLive(c, fiber.StatusServiceUnavailable, liveOpen(c), notSaved(err))
}
