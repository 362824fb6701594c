package handlers

import (
	"errors"
	"mime"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
	"hearth/models/strictjson"
)

// createRequest is POST /api/agent-requests: the owner asks the agent for
// something. Stored before it is acknowledged; an identical replay is 200.
func (s *Server) createRequest(c *fiber.Ctx) error {
	mediaType, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mediaType != fiber.MIMEApplicationJSON {
		return apiError(c, fiber.StatusUnsupportedMediaType, "unsupported_media_type", "send Content-Type: application/json",
			fiber.Map{"expected": fiber.MIMEApplicationJSON, "found": c.Get(fiber.HeaderContentType)})
	}
	if len(c.Request().Body()) > models.MaxBodyBytes {
		return payloadTooLarge(c)
	}
	req, created, err := s.store.CreateRequest(c.UserContext(), c.Request().Body())
	var syntax *strictjson.SyntaxError
	var invalid *models.ValidationError
	switch {
	case errors.As(err, &syntax):
		return apiError(c, fiber.StatusBadRequest, "malformed_json", syntax.Error(), fiber.Map{"path": syntax.Path, "offset": syntax.Offset})
	case errors.As(err, &invalid):
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", "the request was rejected; nothing was stored", fiber.Map{"errors": invalid.Errors})
	case errors.Is(err, models.ErrIdempotencyConflict):
		return apiError(c, fiber.StatusConflict, "idempotency_conflict", "this requestId was already used with different content", nil)
	case err != nil:
		return err
	}
	status := fiber.StatusOK
	if created {
		status = fiber.StatusCreated
	}
	return c.Status(status).JSON(req)
}

// cancelRequest is POST /api/agent-requests/:id/cancel, while pending.
func (s *Server) cancelRequest(c *fiber.Ctx) error {
	req, err := s.store.CancelRequest(c.UserContext(), c.Params("id"))
	switch {
	case errors.Is(err, models.ErrNotFound):
		return apiError(c, fiber.StatusNotFound, "not_found", "no such request", nil)
	case errors.Is(err, models.ErrRequestNotPending):
		return apiError(c, fiber.StatusConflict, "not_pending", "the request is "+req.Status+"; only a pending request can be cancelled", fiber.Map{"status": req.Status})
	case err != nil:
		return err
	}
	return c.JSON(req)
}
