package handlers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/beeper"
	"hearth/models"
	"hearth/views"
)

// messagesStore is what Messages reads and the sends it records.
type messagesStore interface {
	ChatDrafts(ctx context.Context, chatID string) ([]models.ChatDraft, error)
	ChatPeople(ctx context.Context) (map[string]string, error)
	Person(ctx context.Context, id string) (models.PersonView, error)
	EvidenceChips(ctx context.Context, ids []string) ([]models.EvidenceChip, error)
	WatchStatus(ctx context.Context) (models.WatchHealth, error)
	SaveDraftEdit(ctx context.Context, draftID, body, selectedCandidateID string) (models.OwnerActionResult, error)
	LatestSend(ctx context.Context, draftID string) (models.Send, bool, error)
	ConfirmSend(ctx context.Context, m models.Messenger, cmd models.SendCommand) (models.Send, error)
	ReconcileSend(ctx context.Context, m models.Messenger, sendKey string) (models.Send, error)
	MarkSendNotSent(ctx context.Context, sendKey string) (models.Send, error)
}

// Beeper is the part of the Beeper Desktop client the Messages pages use.
type Beeper interface {
	models.Messenger
	Chats(ctx context.Context, q beeper.ChatsQuery) (beeper.ChatPage, error)
	Chat(ctx context.Context, chatID string) (beeper.Chat, error)
	Message(ctx context.Context, chatID, messageID string) (beeper.Message, error)
	BaseURL() string
}

// beeperHealth remembers Beeper's last answer for the "not answering" panel.
type beeperHealth struct {
	mu        sync.Mutex
	lastWorks time.Time
}

// state records the outcome of a call and describes it for the page.
func (s *Server) beeperState(err error) views.BeeperState {
	s.beeper.mu.Lock()
	defer s.beeper.mu.Unlock()
	st := views.BeeperState{URL: s.cfg.Beeper.BaseURL()}
	if err == nil {
		s.beeper.lastWorks = s.store.Now()
	} else {
		st.Error = beeperProblem(err)
	}
	st.LastWorks = s.beeper.lastWorks
	return st
}

// beeperProblem says what failed in the owner's words.
func beeperProblem(err error) string {
	switch {
	case errors.Is(err, beeper.ErrUnauthorized):
		return "the access token was rejected (" + err.Error() + ")"
	case errors.Is(err, beeper.ErrUnavailable):
		return "no answer (" + err.Error() + ")"
	}
	return err.Error()
}

func (s *Server) needBeeper(c *fiber.Ctx) error {
	if s.cfg.Beeper == nil {
		return apiError(c, fiber.StatusServiceUnavailable, "unavailable", "no Beeper is configured: start serve with --beeper-url", nil)
	}
	return c.Next()
}

func (s *Server) showMessages(c *fiber.Ctx) error {
	rev := s.store.LatestRevision() // before the reads, so a later commit reloads the page
	page, err := s.cfg.Beeper.Chats(c.UserContext(), beeper.ChatsQuery{})
	state := s.beeperState(err)
	people, perr := s.store.ChatPeople(c.UserContext())
	if perr != nil {
		return perr
	}
	watch, werr := s.store.WatchStatus(c.UserContext())
	if werr != nil {
		return werr
	}
	return s.render(c, fiber.StatusOK, views.Messages(views.MessagesData{Revision: rev, Now: s.store.Now(), Chats: page.Items, People: people,
		Beeper: state, Watch: watch}))
}

func (s *Server) showConversation(c *fiber.Ctx) error {
	chatID := pathParam(c, "chat")
	ctx := c.UserContext()
	rev := s.store.LatestRevision() // before the reads, so a later commit reloads the page
	chat, err := s.cfg.Beeper.Chat(ctx, chatID)
	if errors.Is(err, beeper.ErrNotFound) {
		return apiError(c, fiber.StatusNotFound, "not_found", "no such chat", nil)
	}
	d := views.ConversationData{Revision: rev, Now: s.store.Now(), Chat: chat, AskID: newRequestID()}
	if err == nil {
		var page beeper.MessagePage
		page, err = s.cfg.Beeper.Messages(ctx, chatID, beeper.MessagesQuery{Cursor: c.Query("before"), Direction: beeper.Before})
		d.Messages = page.Items
		if page.HasMore {
			d.OlderCursor = page.OldestCursor
		}
	}
	d.Beeper = s.beeperState(err)
	if d.Chat.ID == "" {
		d.Chat = beeper.Chat{ID: chatID, Title: chatID}
	}
	if d.Drafts, err = s.store.ChatDrafts(ctx, chatID); err != nil {
		return err
	}
	if d.Card, err = s.personCard(c, d.Drafts); err != nil {
		return err
	}
	return s.render(c, fiber.StatusOK, views.Conversation(d))
}

// newSendKey is rendered into a review form, so a double submit is one send.
func newSendKey() string {
	b := make([]byte, 18)
	rand.Read(b)
	return "send-" + base64.RawURLEncoding.EncodeToString(b)
}

// reviewForm is the owner's chosen wording for a draft.
type reviewForm struct {
	Draft     string `form:"draftId"`
	Candidate string `form:"candidate"`
	Body      string `form:"body"`
}

// review saves the wording as the owner's edit and shows exactly what will
// be sent. A draft already sent, or with a send in flight, shows that
// outcome instead: it is never offered a second Send.
func (s *Server) review(c *fiber.Ctx) error {
	var f reviewForm
	if err := c.BodyParser(&f); err != nil {
		return apiError(c, fiber.StatusBadRequest, "bad_request", "unreadable form", nil)
	}
	chatID := pathParam(c, "chat")
	draft, err := s.chatDraft(c, chatID, f.Draft)
	if err != nil || draft == nil {
		return err
	}
	if last := draft.LastSend; last != nil && last.Status != models.SendFailed {
		return s.renderSendResult(c, fiber.StatusConflict, chatID, views.SendResultData{Send: *last})
	}
	if _, err := s.store.SaveDraftEdit(c.UserContext(), f.Draft, f.Body, f.Candidate); err != nil {
		if errors.Is(err, models.ErrInvalidInput) {
			return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", "a reply needs 1-4000 characters", nil)
		}
		return err
	}
	return s.renderReview(c, fiber.StatusOK, chatID, *draft, f.Body, nil)
}

// chatDraft finds a live draft of the chat, or answers 404 and returns nil.
func (s *Server) chatDraft(c *fiber.Ctx, chatID, draftID string) (*models.ChatDraft, error) {
	drafts, err := s.store.ChatDrafts(c.UserContext(), chatID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(drafts, func(d models.ChatDraft) bool { return d.ID == draftID })
	if i < 0 {
		return nil, apiError(c, fiber.StatusNotFound, "not_found", "no such draft in this chat", nil)
	}
	return &drafts[i], nil
}

// renderReview shows the review screen; newer lists messages that arrived
// since the draft, whose newest becomes the revision this review confirms.
func (s *Server) renderReview(c *fiber.Ctx, status int, chatID string, draft models.ChatDraft, body string, newer []beeper.Message) error {
	ctx := c.UserContext()
	chat, err := s.cfg.Beeper.Chat(ctx, chatID)
	s.beeperState(err)
	if err != nil {
		return apiError(c, fiber.StatusServiceUnavailable, "unavailable", "Beeper is not answering: "+beeperProblem(err), nil)
	}
	d := views.ReviewData{Chat: chat, Draft: draft, Body: body, SendKey: newSendKey(), SourceRevision: draft.SourceMessageRevision, Newer: newer}
	if n := len(newer); n > 0 {
		d.SourceRevision = string(newer[n-1].SortKey)
	}
	if id := draft.ReplyToMessageID; id != "" {
		// One message by ID: the replied-to message may be older than a page.
		if m, err := s.cfg.Beeper.Message(ctx, chatID, id); err == nil {
			d.ReplyTo = &m
		}
	}
	return s.render(c, status, views.Review(d))
}

// sendForm is the confirmation rendered by the review screen (DESIGN §7).
type sendForm struct {
	Draft                 string `form:"draftId"`
	Body                  string `form:"body"`
	SendKey               string `form:"sendKey"`
	SourceMessageRevision string `form:"sourceMessageRevision"`
}

// confirmSend sends a reviewed reply once (DESIGN §7).
func (s *Server) confirmSend(c *fiber.Ctx) error {
	var f sendForm
	if err := c.BodyParser(&f); err != nil {
		return apiError(c, fiber.StatusBadRequest, "bad_request", "unreadable form", nil)
	}
	chatID := pathParam(c, "chat")
	send, err := s.store.ConfirmSend(c.UserContext(), s.cfg.Beeper, models.SendCommand{
		SendKey: f.SendKey, DraftID: f.Draft, ChatID: chatID, Body: f.Body, SourceMessageRevision: f.SourceMessageRevision})
	var stale *models.StaleDraftError
	switch {
	case errors.As(err, &stale):
		draft, derr := s.chatDraft(c, chatID, f.Draft)
		if derr != nil || draft == nil {
			return derr
		}
		return s.renderReview(c, fiber.StatusConflict, chatID, *draft, f.Body, stale.Newer)
	case errors.Is(err, models.ErrSendInFlight), errors.Is(err, models.ErrDraftAlreadySent):
		prior, _, lerr := s.store.LatestSend(c.UserContext(), f.Draft)
		if lerr != nil {
			return lerr
		}
		return s.renderSendResult(c, fiber.StatusConflict, chatID, views.SendResultData{Send: prior})
	case errors.Is(err, models.ErrDraftNotInChat):
		return apiError(c, fiber.StatusConflict, "draft_not_in_chat", "this draft belongs to another chat; nothing was sent", nil)
	case errors.Is(err, models.ErrOutcomeNotRecorded):
		// Beeper was called: never say nothing was sent.
		s.log.Error("send outcome not recorded", "err", err, "requestId", requestIDOf(c))
		return s.renderSendResult(c, fiber.StatusOK, chatID, views.SendResultData{Send: send, NotRecorded: true})
	case errors.Is(err, models.ErrNotFound):
		return apiError(c, fiber.StatusNotFound, "not_found", "no such draft", nil)
	case errors.Is(err, models.ErrInvalidInput):
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", err.Error(), nil)
	case err != nil:
		// Every other failure happens before the send is recorded as pending,
		// so Beeper was not asked to send.
		s.beeperState(err)
		return apiError(c, fiber.StatusServiceUnavailable, "unavailable", "Beeper is not answering: "+beeperProblem(err)+"; nothing was sent", nil)
	}
	return s.renderSendResult(c, fiber.StatusOK, chatID, views.SendResultData{Send: send})
}

func (s *Server) reconcileSend(c *fiber.Ctx) error {
	send, err := s.store.ReconcileSend(c.UserContext(), s.cfg.Beeper, c.FormValue("sendKey"))
	if errors.Is(err, models.ErrNotFound) {
		return apiError(c, fiber.StatusNotFound, "not_found", "no such send", nil)
	}
	if err != nil {
		s.beeperState(err)
		return apiError(c, fiber.StatusServiceUnavailable, "unavailable", "Beeper is not answering: "+beeperProblem(err), nil)
	}
	return s.renderSendResult(c, fiber.StatusOK, pathParam(c, "chat"), views.SendResultData{Send: send})
}

// markNotSent records the owner's word that an unknown send did not go out.
func (s *Server) markNotSent(c *fiber.Ctx) error {
	send, err := s.store.MarkSendNotSent(c.UserContext(), c.FormValue("sendKey"))
	if errors.Is(err, models.ErrNotFound) {
		return apiError(c, fiber.StatusNotFound, "not_found", "no such send", nil)
	}
	if err != nil {
		return err
	}
	return s.renderSendResult(c, fiber.StatusOK, pathParam(c, "chat"), views.SendResultData{Send: send})
}

func (s *Server) renderSendResult(c *fiber.Ctx, status int, chatID string, d views.SendResultData) error {
	chat, err := s.cfg.Beeper.Chat(c.UserContext(), chatID)
	if err != nil {
		chat = beeper.Chat{ID: chatID, Title: chatID}
	}
	d.Chat = chat
	return s.render(c, status, views.SendResult(d))
}

// personCard is the person the first of a chat's drafts concerns, if any.
func (s *Server) personCard(c *fiber.Ctx, drafts []models.ChatDraft) (*views.PersonCard, error) {
	if len(drafts) == 0 || drafts[0].PersonID == "" {
		return nil, nil
	}
	p, err := s.store.Person(c.UserContext(), drafts[0].PersonID)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	chips, err := s.store.EvidenceChips(c.UserContext(), p.EvidenceIDs)
	return &views.PersonCard{Person: p, Evidence: chips}, err
}
