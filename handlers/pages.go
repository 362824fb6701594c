package handlers

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
	"hearth/views"
)

// pagesStore logs the owner in and out.
type pagesStore interface {
	clock
	HasOwner(ctx context.Context) (bool, error)
	Login(ctx context.Context, passphrase string) (string, error)
	Logout(ctx context.Context, token string) error
}

// pagesHandlers log the owner in and out.
type pagesHandlers struct {
	*Server
	store pagesStore
}

func (s *pagesHandlers) showLogin(c *fiber.Ctx) error {
	if identityOf(c).owner {
		return c.Redirect("/", fiber.StatusSeeOther)
	}
	has, err := s.store.HasOwner(c.UserContext())
	if err != nil {
		return err
	}
	return s.render(c, fiber.StatusOK, viewOf(views.Login(views.LoginData{NoOwner: !has})))
}

func (s *pagesHandlers) login(c *fiber.Ctx) error {
	token, err := s.store.Login(c.UserContext(), c.FormValue("password"))
	switch {
	case errors.Is(err, models.ErrNoOwner):
		return s.render(c, fiber.StatusUnauthorized, viewOf(views.Login(views.LoginData{NoOwner: true})))
	case errors.Is(err, models.ErrUnauthorized):
		return s.render(c, fiber.StatusUnauthorized, viewOf(views.Login(views.LoginData{Error: "That passphrase is not right."})))
	case err != nil:
		return err
	}
	c.Cookie(&fiber.Cookie{
		Name:     SessionCookie,
		Value:    token,
		Path:     "/",
		MaxAge:   int(models.SessionLifetime.Seconds()),
		HTTPOnly: true,
		SameSite: fiber.CookieSameSiteLaxMode,
		Secure:   c.Protocol() == "https",
	})
	return c.Redirect("/", fiber.StatusSeeOther)
}

func (s *pagesHandlers) logout(c *fiber.Ctx) error {
	if token := identityOf(c).sessionToken; token != "" {
		if err := s.store.Logout(c.UserContext(), token); err != nil {
			return err
		}
	}
	c.ClearCookie(SessionCookie)
	// The service worker's copy of Home and the offline queue belong to
	// this session: the browser drops them (and the worker) with the cookie.
	c.Set("Clear-Site-Data", `"cache", "storage"`)
	return c.Redirect("/login", fiber.StatusSeeOther)
}
