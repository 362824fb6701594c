package handlers

import (
	"errors"
	"mime"
	"strings"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
	"hearth/models/strictjson"
)

// envelope is every API error body (DESIGN §4).
type envelope struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Details   any    `json:"details,omitempty"`
	RequestID string `json:"requestId"`
}

func apiError(c *fiber.Ctx, status int, code, message string, details any) error {
	return c.Status(status).JSON(envelope{Code: code, Message: message, Details: details, RequestID: requestIDOf(c)})
}

func (s *Server) agentContext(c *fiber.Ctx) error {
	out, err := s.store.AgentContext(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (s *Server) agentContextPage(c *fiber.Ctx) error {
	page, err := s.store.ContextPage(c.UserContext(), c.Params("collection"), c.Query("cursor"))
	switch {
	case errors.Is(err, models.ErrNotFound):
		return apiError(c, fiber.StatusNotFound, "not_found", "unknown collection", fiber.Map{"allowed": models.ContextCollections})
	case errors.Is(err, models.ErrBadCursor):
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", "cursor is not one this server issued", nil)
	case err != nil:
		return err
	}
	return c.JSON(page)
}

// payloadTooLarge is the 413 envelope, from publishResult or from fasthttp's hard ceiling.
func payloadTooLarge(c *fiber.Ctx) error {
	return apiError(c, fiber.StatusRequestEntityTooLarge, "payload_too_large", "body over 1 MiB (1048576 bytes)",
		fiber.Map{"limit": models.MaxBodyBytes})
}

func (s *Server) publishResult(c *fiber.Ctx) error {
	// The raw body: Fiber's c.Body() would inflate a Content-Encoding without
	// any limit, so a small gzip body could expand far past 1 MiB.
	body := c.Request().Body()
	if len(body) > models.MaxBodyBytes {
		return payloadTooLarge(c)
	}
	mediaType, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mediaType != fiber.MIMEApplicationJSON {
		return apiError(c, fiber.StatusUnsupportedMediaType, "unsupported_media_type", "send Content-Type: application/json",
			fiber.Map{"expected": fiber.MIMEApplicationJSON, "found": c.Get(fiber.HeaderContentType)})
	}
	if enc := c.Get(fiber.HeaderContentEncoding); enc != "" && !strings.EqualFold(enc, "identity") {
		return apiError(c, fiber.StatusUnsupportedMediaType, "unsupported_media_type", "send the body without Content-Encoding",
			fiber.Map{"expected": "identity", "found": enc})
	}
	receipt, replayed, err := s.store.Publish(c.UserContext(), identityOf(c).agent.ID, body)
	var syntax *strictjson.SyntaxError
	var invalid *models.ValidationError
	var conflict *models.RevisionConflictError
	switch {
	case errors.As(err, &syntax):
		return apiError(c, fiber.StatusBadRequest, "malformed_json", syntax.Error(), fiber.Map{"path": syntax.Path, "offset": syntax.Offset})
	case errors.As(err, &invalid):
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_result",
			"the result was rejected; nothing was stored. Fix every error listed and publish again", fiber.Map{"errors": invalid.Errors})
	case errors.Is(err, models.ErrIdempotencyConflict):
		return apiError(c, fiber.StatusConflict, "idempotency_conflict",
			"this runId was already published with different content; use a new runId for a new result", nil)
	case errors.As(err, &conflict):
		return apiError(c, fiber.StatusConflict, "revision_conflict",
			"the workspace changed since your context read; read the context again and rebuild the result with a new runId",
			fiber.Map{"expectedRevision": conflict.Expected, "currentRevision": conflict.Current})
	case err != nil:
		return err
	}
	status := fiber.StatusCreated
	if replayed {
		status = fiber.StatusOK
	}
	return c.Status(status).JSON(receipt)
}
