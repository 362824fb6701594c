package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
)

// waitingStore is what the "waiting on you" list changes: Later on an item
// that is not an activity (an activity is deferred with its own control).
type waitingStore interface {
	Today(ctx context.Context) (models.Day, error)
	SetAside(ctx context.Context, key string, until time.Time) error
}

// setAside is Later on an item of the list: it comes back the next morning.
// Home answers it (303 to the list, post/redirect/get); a key that names
// nothing waiting is a 404 page.
func (s *homeHandlers) setAside(c *fiber.Ctx) error {
	day, err := s.store.Today(c.UserContext())
	if err != nil {
		return err
	}
	err = s.store.SetAside(c.UserContext(), c.FormValue("key"), models.LaterTime(day))
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "nothing waiting on you has that key")
	case err != nil:
		return err
	}
	return c.Redirect("/#waiting", fiber.StatusSeeOther)
}
