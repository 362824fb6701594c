package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"strings"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/internal/contract/schema"
	"hearth/internal/strictjson"
	"hearth/models"
	"hearth/models/read"
)

// agentStore is the agent's read and publish.
type agentStore interface {
	clock
	Writes() int64
	AgentContext(ctx context.Context) (contract.AgentContext, error)
	CompactContext(ctx context.Context) (contract.AgentContext, error)
	ContextPage(ctx context.Context, collection, cursor string) (any, error)
	Publish(ctx context.Context, publisher string, pub contract.Publication) (contract.PublishReceipt, bool, error)
	PublishDryRun(ctx context.Context, publisher string, pub contract.Publication) (contract.DryRunReport, error)
}

// agentHandlers answer the agent's context reads and publications.
type agentHandlers struct {
	*Server
	store agentStore
	// contexts keeps the newest context of each variant (full, compact) as
	// JSON, by cacheKey: a cached context is at most a minute old and its
	// generatedAt says when it was read. Between commits it answers 26-105x
	// faster than a read (BenchmarkCaches/context/steady, load ~35).
	contexts *fifoCache[[]byte]
}

// envelope is every API error body (docs/contract.md, The error envelope).
type envelope struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Details   any    `json:"details,omitempty"`
	RequestID string `json:"requestId"`
}

func apiError(c *fiber.Ctx, status int, code, message string, details any) error {
	return c.Status(status).JSON(envelope{Code: code, Message: message, Details: details, RequestID: requestIDOf(c)})
}

func (s *agentHandlers) agentContext(c *fiber.Ctx) error {
	readContext, variant := s.store.AgentContext, "full"
	switch c.Query("compact") {
	case "", "false":
	case "true":
		readContext, variant = s.store.CompactContext, "compact"
	default:
		return apiError(c, fiber.StatusBadRequest, "bad_request", "compact is true or false", fiber.Map{"found": c.Query("compact")})
	}
	key := cacheKey(s.store, variant)
	body, ok := s.contexts.get(key)
	if !ok {
		out, err := readContext(c.UserContext())
		if err != nil {
			return err
		}
		if body, err = json.Marshal(out); err != nil {
			return err
		}
		s.contexts.put(key, body)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}

func (s *agentHandlers) agentContextPage(c *fiber.Ctx) error {
	page, err := s.store.ContextPage(c.UserContext(), c.Params("collection"), c.Query("cursor"))
	var stale *read.StaleCursorError
	switch {
	case errors.As(err, &stale):
		return apiError(c, fiber.StatusConflict, "revision_conflict",
			"the workspace changed since this cursor was issued; read GET /api/agent-context again",
			fiber.Map{"cursorRevision": stale.CursorRevision, "currentRevision": stale.Current})
	case errors.Is(err, models.ErrNotFound):
		return apiError(c, fiber.StatusNotFound, "not_found", "unknown collection", fiber.Map{"allowed": contract.ContextCollections})
	case errors.Is(err, read.ErrBadCursor):
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", "cursor is not one this server issued", nil)
	case err != nil:
		return err
	}
	return c.JSON(page)
}

// payloadTooLarge is the 413 envelope, from publishResult or from fasthttp's hard ceiling.
func payloadTooLarge(c *fiber.Ctx) error {
	return apiError(c, fiber.StatusRequestEntityTooLarge, "payload_too_large", "body over 1 MiB (1048576 bytes)",
		fiber.Map{"limit": contract.MaxBodyBytes})
}

// jsonBody is the raw body of a JSON API request, or the envelope that
// refuses it: over 1 MiB (413), not application/json or content-encoded (415).
// The raw body, because Fiber's c.Body() would inflate a Content-Encoding
// without any limit, so a small gzip body could expand far past 1 MiB.
func jsonBody(c *fiber.Ctx) (body []byte, ok bool, err error) {
	body = c.Request().Body()
	if len(body) > contract.MaxBodyBytes {
		return nil, false, payloadTooLarge(c)
	}
	mediaType, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mediaType != fiber.MIMEApplicationJSON {
		return nil, false, apiError(c, fiber.StatusUnsupportedMediaType, "unsupported_media_type", "send Content-Type: application/json",
			fiber.Map{"expected": fiber.MIMEApplicationJSON, "found": c.Get(fiber.HeaderContentType)})
	}
	if enc := c.Get(fiber.HeaderContentEncoding); enc != "" && !strings.EqualFold(enc, "identity") {
		return nil, false, apiError(c, fiber.StatusUnsupportedMediaType, "unsupported_media_type", "send the body without Content-Encoding",
			fiber.Map{"expected": "identity", "found": enc})
	}
	return body, true, nil
}

// refusal answers a contract error from decoding or validation (400, 422 with
// invalidCode, 409 idempotency_conflict) and reports whether it did.
func refusal(c *fiber.Ctx, err error, invalidCode, invalidMessage, conflictMessage string) (bool, error) {
	var syntax *strictjson.SyntaxError
	var invalid *contract.ValidationError
	switch {
	case errors.As(err, &syntax):
		return true, apiError(c, fiber.StatusBadRequest, "malformed_json", syntax.Error(), fiber.Map{"path": syntax.Path, "offset": syntax.Offset})
	case errors.As(err, &invalid):
		return true, apiError(c, fiber.StatusUnprocessableEntity, invalidCode, invalidMessage, fiber.Map{"errors": invalid.Errors})
	case errors.Is(err, contract.ErrIdempotencyConflict):
		return true, apiError(c, fiber.StatusConflict, "idempotency_conflict", conflictMessage, nil)
	}
	return false, nil
}

// writeSpec is what differs between the API's JSON writes: the words of
// their contract refusals, and how the service's other refusals answer.
type writeSpec struct {
	invalidCode, invalidMessage, conflictMessage string
	// refuse answers the service's other errors; nil passes them on (503).
	refuse func(c *fiber.Ctx, err error) error
}

// apiWrite is the skeleton of every JSON write of the API: read the body
// (413, 415), call the write (the contract decodes the body, the store
// takes the value), answer a contract refusal (400, 422, 409
// idempotency_conflict), then spec.refuse, else send what the write
// returned with the status it chose (201 created, 200 a replay).
func apiWrite[T any](c *fiber.Ctx, spec writeSpec, call func(body []byte) (T, int, error)) error {
	body, ok, err := jsonBody(c)
	if !ok {
		return err
	}
	out, status, err := call(body)
	if done, rerr := refusal(c, err, spec.invalidCode, spec.invalidMessage, spec.conflictMessage); done {
		return rerr
	}
	if err != nil {
		if spec.refuse != nil {
			return spec.refuse(c, err)
		}
		return err
	}
	return c.Status(status).JSON(out)
}

// createdOr200 is 201 for a write that created something, 200 for its replay.
func createdOr200(created bool) int {
	if created {
		return fiber.StatusCreated
	}
	return fiber.StatusOK
}

// publishSpec answers a publication's refusals.
var publishSpec = writeSpec{invalidCode: "invalid_result",
	invalidMessage:  "the result was rejected; nothing was stored. Fix every error listed and publish again",
	conflictMessage: "this runId was already published with different content; use a new runId for a new result",
	refuse: func(c *fiber.Ctx, err error) error {
		var conflict *contract.RevisionConflictError
		if errors.As(err, &conflict) {
			return apiError(c, fiber.StatusConflict, "revision_conflict",
				"the workspace changed since your context read; read the context again and rebuild the result with a new runId",
				fiber.Map{"expectedRevision": conflict.Expected, "currentRevision": conflict.Current})
		}
		return err
	}}

// dryRunSpec answers a dry run's refusals.
var dryRunSpec = writeSpec{invalidCode: "invalid_result",
	invalidMessage: "the result would be rejected; nothing was stored. Fix every error listed"}

// publishResult is POST /api/agent-results: 201 with the receipt, 200 with
// the original receipt for a replay. With ?dryRun=true it validates the
// publication fully and answers what it would change, writing nothing and
// storing no receipt, so the same runId can publish it afterwards.
func (s *agentHandlers) publishResult(c *fiber.Ctx) error {
	switch c.Query("dryRun") {
	case "", "false":
		return apiWrite(c, publishSpec, func(body []byte) (contract.PublishReceipt, int, error) {
			pub, err := contract.DecodePublication(body)
			if err != nil {
				return contract.PublishReceipt{}, 0, err
			}
			receipt, replayed, err := s.store.Publish(c.UserContext(), identityOf(c).agent.ID, pub)
			return receipt, createdOr200(!replayed), err
		})
	case "true":
		return apiWrite(c, dryRunSpec, func(body []byte) (contract.DryRunReport, int, error) {
			pub, err := contract.DecodePublication(body)
			if err != nil {
				return contract.DryRunReport{}, 0, err
			}
			report, err := s.store.PublishDryRun(c.UserContext(), identityOf(c).agent.ID, pub)
			return report, fiber.StatusOK, err
		})
	}
	// The switch is answered after the body's checks, as a valid one is.
	if _, ok, err := jsonBody(c); !ok {
		return err
	}
	return apiError(c, fiber.StatusBadRequest, "bad_request", "dryRun is true or false", fiber.Map{"found": c.Query("dryRun")})
}

// serveSchema answers a committed JSON Schema of the agent contract.
func serveSchema(c *fiber.Ctx) error {
	b, ok := schema.Committed(c.Params("name"))
	if !ok {
		return apiError(c, fiber.StatusNotFound, "not_found", "no such schema", fiber.Map{"allowed": schema.Names()})
	}
	c.Set(fiber.HeaderContentType, "application/schema+json")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return c.Send(b)
}
