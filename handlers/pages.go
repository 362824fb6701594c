package handlers

import (
	"errors"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"hearth/models"
	"hearth/views"
)

// render writes a templ component as the HTML response with status.
func (s *Server) render(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Status(status).Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	if err := comp.Render(c.UserContext(), c.Response().BodyWriter()); err != nil {
		s.log.Error("render", "err", err, "requestId", requestIDOf(c))
		return err
	}
	return nil
}

func (s *Server) showLogin(c *fiber.Ctx) error {
	if identityOf(c).owner {
		return c.Redirect("/", fiber.StatusSeeOther)
	}
	has, err := s.store.HasOwner(c.UserContext())
	if err != nil {
		return err
	}
	return s.render(c, fiber.StatusOK, views.Login(views.LoginData{NoOwner: !has}))
}

func (s *Server) login(c *fiber.Ctx) error {
	token, err := s.store.Login(c.UserContext(), c.FormValue("password"))
	switch {
	case errors.Is(err, models.ErrNoOwner):
		return s.render(c, fiber.StatusUnauthorized, views.Login(views.LoginData{NoOwner: true}))
	case errors.Is(err, models.ErrUnauthorized):
		return s.render(c, fiber.StatusUnauthorized, views.Login(views.LoginData{Error: "That passphrase is not right."}))
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

func (s *Server) logout(c *fiber.Ctx) error {
	if token := identityOf(c).sessionToken; token != "" {
		if err := s.store.Logout(c.UserContext(), token); err != nil {
			return err
		}
	}
	c.ClearCookie(SessionCookie)
	return c.Redirect("/login", fiber.StatusSeeOther)
}
