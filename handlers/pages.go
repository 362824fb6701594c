package handlers

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"hearth/models"
	"hearth/views"
)

// pagesStore logs the owner in and out.
type pagesStore interface {
	HasOwner(ctx context.Context) (bool, error)
	Login(ctx context.Context, passphrase string) (string, error)
	Logout(ctx context.Context, token string) error
}

// render writes a templ component as the HTML response with status.
func (s *Server) render(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Status(status).Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	if err := comp.Render(c.UserContext(), c.Response().BodyWriter()); err != nil {
		s.log.Error("render", "err", err, "requestId", requestIDOf(c))
		return err
	}
	return nil
}

// renderGzip renders comp like render, but gzips it itself at BestSpeed
// when the client takes gzip (the middleware leaves an encoded response
// alone): for a page of hundreds of KB, like Routines with a year of twenty
// routines, the middleware's default level cost more than the render (make bench).
func (s *Server) renderGzip(c *fiber.Ctx, status int, comp templ.Component) error {
	buf := takeRenderBuffer()
	defer returnRenderBuffer(buf)
	if err := comp.Render(c.UserContext(), buf); err != nil {
		s.log.Error("render", "err", err, "requestId", requestIDOf(c))
		return err
	}
	c.Status(status).Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	if strings.Contains(c.Get(fiber.HeaderAcceptEncoding), "gzip") {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		return c.Send(compressPage(buf.Bytes()))
	}
	return c.Send(bytes.Clone(buf.Bytes())) // the buffer goes back to the pool
}

// renderBuffers are reused: a page of hundreds of KB grown from nothing
// was most of a render's garbage. A channel rather than a sync.Pool, which
// every garbage collection empties.
var renderBuffers = make(chan *bytes.Buffer, 4)

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
	// The service worker's copy of Home and the offline queue belong to
	// this session: the browser drops them (and the worker) with the cookie.
	c.Set("Clear-Site-Data", `"cache", "storage"`)
	return c.Redirect("/login", fiber.StatusSeeOther)
}

func takeRenderBuffer() *bytes.Buffer {
	select {
	case buf := <-renderBuffers:
		buf.Reset()
		return buf
	default:
		return new(bytes.Buffer)
	}
}

func returnRenderBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 4<<20 { // a freak page is not kept
		select {
		case renderBuffers <- buf:
		default:
		}
	}
}

// showMore is the More tab: the pages that are not tabs, and signing out.
func (s *Server) showMore(c *fiber.Ctx) error {
	return s.render(c, fiber.StatusOK, views.More(s.store.LatestRevision()))
}
