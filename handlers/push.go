package handlers

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
	"hearth/views"
)

// pushStore is what More's notifications ask of the store.
type pushStore interface {
	clock
	Push(ctx context.Context) (models.PushView, error)
	SavePushSubscription(ctx context.Context, endpoint, p256dh, auth string) error
	RemovePushSubscription(ctx context.Context, endpoint string) error
	SetQuietHours(ctx context.Context, q models.QuietHours) error
}

// pushHandlers serve More (its notifications section) and the phone's
// subscription calls of static/push.js.
type pushHandlers struct {
	*Server
	store pushStore
}

// showMore is the More tab: the pages that are not tabs, this phone's
// notifications, and signing out.
func (s *pushHandlers) showMore(c *fiber.Ctx) error {
	return s.renderMore(c, fiber.StatusOK, nil, "")
}

// renderMore renders More; quiet and quietError are a refused quiet-hours
// input to show back (nil: the stored hours).
func (s *pushHandlers) renderMore(c *fiber.Ctx, status int, quiet *models.QuietHours, quietError string) error {
	rev := s.store.LatestRevision()
	v, err := s.store.Push(c.UserContext())
	if err != nil {
		return err
	}
	p := views.PushPanel{PublicKey: s.cfg.PushPublicKey, Data: v, Quiet: v.Quiet, QuietError: quietError}
	if quiet != nil {
		p.Quiet = *quiet
	}
	return s.render(c, status, viewOf(views.More(rev, p)))
}

// saveQuietHours is the quiet-hours form on More (303 back to More).
func (s *pushHandlers) saveQuietHours(c *fiber.Ctx) error {
	q := models.QuietHours{Start: c.FormValue("start"), End: c.FormValue("end")}
	err := s.store.SetQuietHours(c.UserContext(), q)
	var field *models.FieldError
	if errors.As(err, &field) {
		return s.renderMore(c, fiber.StatusUnprocessableEntity, &q, field.Message)
	}
	if err != nil {
		return err
	}
	return c.Redirect("/more#push-heading", fiber.StatusSeeOther)
}

// subscription is PushSubscription.toJSON() as the browser gives it.
type subscription struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}

// readSubscription parses a subscription body, or answers why not.
func readSubscription(c *fiber.Ctx) (subscription, bool, error) {
	var sub subscription
	body, ok, err := jsonBody(c)
	if !ok {
		return sub, false, err
	}
	if err := json.Unmarshal(body, &sub); err != nil {
		return sub, false, apiError(c, fiber.StatusBadRequest, "malformed_json", "the body is not a push subscription", nil)
	}
	return sub, true, nil
}

// subscribe is POST /api/push-subscriptions: this phone's subscription
// (201), made with the public key More served.
func (s *pushHandlers) subscribe(c *fiber.Ctx) error {
	if s.cfg.PushPublicKey == "" {
		return apiError(c, fiber.StatusServiceUnavailable, "push_off", "notifications are off on this server", nil)
	}
	sub, ok, err := readSubscription(c)
	if !ok {
		return err
	}
	err = s.store.SavePushSubscription(c.UserContext(), sub.Endpoint, sub.Keys.P256dh, sub.Keys.Auth)
	if errors.Is(err, models.ErrInvalidInput) {
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_subscription", err.Error(), nil)
	}
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"endpoint": sub.Endpoint})
}

// unsubscribe is POST /api/push-subscriptions/remove: forget this phone's
// subscription (200, also when it was not stored).
func (s *pushHandlers) unsubscribe(c *fiber.Ctx) error {
	sub, ok, err := readSubscription(c)
	if !ok {
		return err
	}
	if err := s.store.RemovePushSubscription(c.UserContext(), sub.Endpoint); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"endpoint": sub.Endpoint})
}
