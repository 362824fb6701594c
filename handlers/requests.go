package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/internal/strictjson"
	"hearth/models"
	"hearth/views"
)

// requestsStore keeps the owner's requests.
type requestsStore interface {
	clock
	CreateRequest(ctx context.Context, in contract.RequestIn, hash string) (contract.RequestView, bool, error)
	CancelRequest(ctx context.Context, id string) (contract.RequestView, error)
	RecentRequests(ctx context.Context, since time.Time) ([]contract.RequestView, error)
}

// requestsHandlers keep the owner's requests; a refused form is shown again
// on the page it came from (Home, People or a conversation).
type requestsHandlers struct {
	*Server
	store    requestsStore
	home     *homeHandlers
	messages *messagesHandlers
}

// createRequest is POST /api/agent-requests: the owner asks the agent for
// something. Stored before it is acknowledged; an identical replay is 200.
func (s *requestsHandlers) createRequest(c *fiber.Ctx) error {
	return apiWrite(c, writeSpec{invalidCode: "invalid_request", invalidMessage: "the request was rejected; nothing was stored",
		conflictMessage: "this requestId was already used with different content"},
		func(body []byte) (contract.RequestView, int, error) {
			req, created, err := s.create(c.UserContext(), body)
			return req, createdOr200(created), err
		})
}

// create decodes a request's body and stores it: the API and the forms
// take this one path.
func (s *requestsHandlers) create(ctx context.Context, body []byte) (contract.RequestView, bool, error) {
	in, hash, err := contract.DecodeRequest(body)
	if err != nil {
		return contract.RequestView{}, false, err
	}
	return s.store.CreateRequest(ctx, in, hash)
}

// cancelRequest is POST /api/agent-requests/:id/cancel, while pending.
func (s *requestsHandlers) cancelRequest(c *fiber.Ctx) error {
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

// requestForm is a browser form that makes an owner request.
type requestForm struct {
	RequestID      string `form:"requestId"`
	Kind           string `form:"kind"`
	EntityID       string `form:"entityId"`
	EntityName     string `form:"entityName"`
	SourceRevision string `form:"sourceRevision"`
	Text           string `form:"text"`
	Field          string `form:"field"`
	Value          string `form:"value"`
	Return         string `form:"return"`
}

// json builds the API body, so forms and the API take one path.
func (f requestForm) json() []byte {
	body := map[string]any{"requestId": f.RequestID, "kind": f.Kind, "text": strings.TrimSpace(f.Text)}
	if f.EntityID != "" {
		body["entityId"] = f.EntityID
		if name := strings.TrimSpace(f.EntityName); name != "" {
			body["entityName"] = name
		}
	}
	if f.SourceRevision != "" {
		body["sourceRevision"] = f.SourceRevision
	}
	if f.Kind == contract.RequestCRMEdit {
		body["edit"] = map[string]any{"field": strings.TrimSpace(f.Field), "value": strings.TrimSpace(f.Value)}
	}
	b, _ := json.Marshal(body)
	return b
}

// submitRequest is the browser form for POST /api/agent-requests: 303 back on
// success or replay, the errors on a page otherwise.
func (s *requestsHandlers) submitRequest(c *fiber.Ctx) error {
	var f requestForm
	if err := c.BodyParser(&f); err != nil {
		return s.unreadableForm(c)
	}
	req, _, err := s.create(c.UserContext(), f.json())
	var invalid *contract.ValidationError
	switch {
	case errors.As(err, &invalid) && safePath(f.Return) == "/" && !isHTMX(c):
		// Home's Ask form: the message goes back into it, with the text.
		return s.renderAskRefused(c, f.Text, invalid)
	case errors.As(err, &invalid) && f.Kind == contract.RequestCRMEdit && f.EntityID != "":
		// A person's correction: People again, the form open with its message.
		return s.home.renderPeople(c, fiber.StatusUnprocessableEntity, f.EntityID, askRefusal(f, invalid))
	case errors.As(err, &invalid) && f.Kind == contract.RequestReplyDraft && f.EntityID != "" && isHTMX(c):
		// The section again, in place: the same requestId (nothing was stored).
		reqs, err := s.store.RecentRequests(c.UserContext(), s.store.Now().Add(-contract.ContextHistory))
		if err != nil {
			return err
		}
		return s.render(c, fiber.StatusUnprocessableEntity, viewOf(views.DraftRequestForm(views.AskData{ChatID: f.EntityID,
			ChatTitle: cmp.Or(strings.TrimSpace(f.EntityName), f.EntityID), SourceRevision: f.SourceRevision, RequestID: f.RequestID,
			Asked: chatRequests(reqs, f.EntityID), Now: s.store.Now(), Refused: askRefusal(f, invalid)})))
	case errors.As(err, &invalid) && f.Kind == contract.RequestReplyDraft && f.EntityID != "" && s.cfg.Beeper != nil:
		// A conversation's Ask form: the conversation again, the text in it.
		return s.messages.conversationPage(c, fiber.StatusUnprocessableEntity, f.EntityID, nil, askRefusal(f, invalid))
	case errors.As(err, &invalid):
		msgs := make([]string, len(invalid.Errors))
		for i, e := range invalid.Errors {
			msgs[i] = fieldSentence(e)
		}
		return s.render(c, fiber.StatusUnprocessableEntity, formError("Your request was not sent", msgs, safePath(f.Return)))
	case errors.Is(err, contract.ErrIdempotencyConflict):
		return s.render(c, fiber.StatusConflict, formError("This form was already sent with other words", nil, safePath(f.Return)))
	case err != nil:
		return s.renderNotSaved(c, err, safePath(f.Return), f.Text, f.Value)
	}
	if isHTMX(c) && f.Kind == contract.RequestReplyDraft {
		// A conversation's Ask form is answered in place, naming the chat.
		reqs, err := s.store.RecentRequests(c.UserContext(), s.store.Now().Add(-contract.ContextHistory))
		if err != nil {
			return err
		}
		return s.render(c, fiber.StatusOK, viewOf(views.DraftRequestForm(views.AskData{ChatID: f.EntityID, ChatTitle: cmp.Or(strings.TrimSpace(f.EntityName), f.EntityID),
			SourceRevision: f.SourceRevision, RequestID: newRequestID(), Asked: chatRequests(reqs, f.EntityID), Now: s.store.Now(), Confirmed: &req})))
	}
	return c.Redirect(safePath(f.Return), fiber.StatusSeeOther)
}

// cancelRequestForm is the browser's Cancel button.
func (s *requestsHandlers) cancelRequestForm(c *fiber.Ctx) error {
	_, err := s.store.CancelRequest(c.UserContext(), c.Params("id"))
	if err != nil && !errors.Is(err, models.ErrRequestNotPending) {
		if errors.Is(err, models.ErrNotFound) {
			return s.notFound(c, "no such request")
		}
		return err
	}
	return c.Redirect(safePath(c.FormValue("return")), fiber.StatusSeeOther)
}

// renderAskRefused renders Home (422) with the Ask form holding the text
// and, beside it, why it was not sent.
func (s *requestsHandlers) renderAskRefused(c *fiber.Ctx, text string, invalid *contract.ValidationError) error {
	s.home.ensureOccurrences(c)
	d, err := s.home.homeData(c, map[string]bool{}, newRequestID())
	if err != nil {
		return err
	}
	msg := "Write what the agent should know, up to 4000 characters."
	for _, e := range invalid.Errors {
		if e.Path != "/text" {
			msg = fieldSentence(e)
		}
	}
	d.Ask = views.AskState{Text: text, Error: msg}
	return s.render(c, fiber.StatusUnprocessableEntity, viewOf(views.Home(d)))
}

// askRefusal is a refused request form as the owner reads it: one message,
// at the field it is about, with everything typed kept. A field the owner
// cannot type (a hidden one) is reported at the text.
func askRefusal(f requestForm, invalid *contract.ValidationError) views.AskState {
	a := views.AskState{Text: f.Text, EditField: f.Field, EditValue: f.Value, Field: "text"}
	e := invalid.Errors[0]
	tooLong := strings.HasPrefix(e.Message, "too long")
	switch {
	case e.Path == "/edit/field" && tooLong:
		a.Field, a.Error = "field", "Name it in at most 100 characters."
	case e.Path == "/edit/field":
		a.Field, a.Error = "field", "Name what is wrong, like city."
	case e.Path == "/edit/value":
		a.Field, a.Error = "value", "The new value is too long."
	case e.Path == "/text" && tooLong:
		a.Error = fmt.Sprintf("This is too long: at most %d characters.", contract.MaxBodyLen)
	case e.Path == "/text" && f.Kind == contract.RequestCRMEdit:
		a.Error = "Say why it should change."
	case e.Path == "/text":
		a.Error = "Say what the reply should say."
	default:
		a.Error = fieldSentence(e)
	}
	return a
}

// unreadableForm answers an owner form hearth could not parse with a page
// (400), never the API's JSON envelope.
func (s *Server) unreadableForm(c *fiber.Ctx) error {
	return s.render(c, fiber.StatusBadRequest, formError("Not sent", []string{"This form could not be read: go back and try again."}, backPath(c)))
}

// fieldSentence is a validation error of a field the owner cannot type (or
// has no words for yet) as a sentence: "Source revision: must be …".
func fieldSentence(e strictjson.FieldError) string {
	return sentence(strings.TrimPrefix(e.Path, "/") + ": " + e.Message)
}
