package handlers

import (
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/internal/strictjson"
)

// TestAPIWriteAnswersEachOutcomeOfTheService drives the API's write
// skeleton with a service that answers what the request names: the body's
// own refusals come before the service, a contract refusal is the
// envelope with the write's words, the write's own refusal is its own, and
// a result goes out with the status the service chose.
func TestAPIWriteAnswersEachOutcomeOfTheService(t *testing.T) {
	teapot := errors.New("teapot")
	spec := writeSpec{invalidCode: "invalid_thing", invalidMessage: "the thing was rejected", conflictMessage: "this key was used",
		refuse: func(c *fiber.Ctx, err error) error {
			if errors.Is(err, teapot) {
				return apiError(c, fiber.StatusTeapot, "teapot", "short and stout", nil)
			}
			return err
		}}
	called := false
	app := fiber.New(fiber.Config{ErrorHandler: func(c *fiber.Ctx, err error) error {
		return c.Status(fiber.StatusServiceUnavailable).SendString("unavailable: " + err.Error())
	}})
	app.Post("/things", func(c *fiber.Ctx) error {
		called = false
		return apiWrite(c, spec, func(body []byte) (map[string]string, int, error) {
			called = true
			switch string(body) {
			case `"new"`:
				return map[string]string{"thing": "new"}, createdOr200(true), nil
			case `"again"`:
				return map[string]string{"thing": "again"}, createdOr200(false), nil
			case `"invalid"`:
				return nil, 0, &contract.ValidationError{Errors: []strictjson.FieldError{{Path: "/name", Message: "required"}}}
			case `"conflict"`:
				return nil, 0, contract.ErrIdempotencyConflict
			case `"teapot"`:
				return nil, 0, teapot
			}
			return nil, 0, errors.New("disk on fire")
		})
	})
	cases := []struct {
		name, body, contentType string
		status                  int
		answer                  string
		serviceCalled           bool
	}{
		{name: "created", body: `"new"`, contentType: "application/json", status: 201, answer: `{"thing":"new"}`, serviceCalled: true},
		{name: "replayed", body: `"again"`, contentType: "application/json", status: 200, answer: `{"thing":"again"}`, serviceCalled: true},
		{name: "not JSON", body: `"new"`, contentType: "text/plain", status: 415, answer: `"code":"unsupported_media_type"`},
		{name: "invalid", body: `"invalid"`, contentType: "application/json", status: 422, answer: `{"code":"invalid_thing","message":"the thing was rejected","details":{"errors":[{"path":"/name","message":"required"}]}`, serviceCalled: true},
		{name: "idempotency conflict", body: `"conflict"`, contentType: "application/json", status: 409, answer: `{"code":"idempotency_conflict","message":"this key was used"`, serviceCalled: true},
		{name: "the write's own refusal", body: `"teapot"`, contentType: "application/json", status: 418, answer: `{"code":"teapot","message":"short and stout"`, serviceCalled: true},
		{name: "any other failure passes on", body: `"other"`, contentType: "application/json", status: 503, answer: "unavailable: disk on fire", serviceCalled: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/things", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.contentType)
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.answer) {
				t.Errorf("got %d %s, want %d containing %s", resp.StatusCode, body, tc.status, tc.answer)
			}
			if called != tc.serviceCalled {
				t.Errorf("service called %v, want %v", called, tc.serviceCalled)
			}
		})
	}
}
