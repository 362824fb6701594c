package handlers

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"hearth/beeper"
	"hearth/internal/beeperflow"
	"hearth/internal/contract"
	"hearth/internal/wording"
	"hearth/models"
	"hearth/views"
)

// messagesStore is what Messages reads and the sends it records.
type messagesStore interface {
	clock
	ChatDrafts(ctx context.Context, chatID string) ([]models.ChatDraft, error)
	ChatDraft(ctx context.Context, chatID, draftID string) (*models.ChatDraft, error)
	ChatPeople(ctx context.Context, chatIDs []string) (map[string]string, error)
	Person(ctx context.Context, id string) (contract.PersonView, error)
	EvidenceChips(ctx context.Context, ids []string) ([]models.EvidenceChip, error)
	WatchStatus(ctx context.Context) (models.WatchHealth, error)
	LatestSend(ctx context.Context, draftID string) (models.Send, bool, error)
	MarkSendNotSent(ctx context.Context, sendKey string) (models.Send, error)
	SaveDraftWording(ctx context.Context, draftID string, f models.WordingForm) (models.Wording, error)
	OwedReplies(ctx context.Context) ([]models.OwedReply, error)
	Today(ctx context.Context) (models.Day, error)
	RecentRequests(ctx context.Context, since time.Time) ([]contract.RequestView, error)
	DecideNoReplyNeeded(ctx context.Context, d models.ChatDecision) (models.OwnerActionResult, error)
	RemindLater(ctx context.Context, d models.ChatDecision) (models.OwnerActionResult, error)
	beeperflow.Store         // the send and hand-off run there, around Beeper calls
	beeperflow.ScheduleStore // and a send for later
	CancelScheduledSend(ctx context.Context, chatID, sendKey string) (models.ScheduledSend, error)
	ChatSchedules(ctx context.Context, chatIDs []string) (map[string][]models.ScheduledSend, error)
}

// messagesHandlers serve Messages: chats, review and the confirmed send.
type messagesHandlers struct {
	*Server
	store  messagesStore
	beeper beeperHealth
}

// Beeper is the part of the Beeper Desktop client the Messages pages use.
type Beeper interface {
	beeperflow.Messenger
	beeperflow.Composer
	Chats(ctx context.Context, q beeper.ChatsQuery) (beeper.ChatPage, error)
	Chat(ctx context.Context, chatID string) (beeper.Chat, error)
	MarkRead(ctx context.Context, chatID, messageID string) (beeper.Chat, error)
	BaseURL() string
}

// beeperHealth remembers Beeper's last answer for the "not answering" panel.
type beeperHealth struct {
	mu        sync.Mutex
	lastWorks time.Time
}

// state records the outcome of a call and describes it for the page.
func (s *messagesHandlers) beeperState(err error) views.BeeperState {
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

func (s *messagesHandlers) needBeeper(c *fiber.Ctx) error {
	if s.cfg.Beeper == nil {
		// An owner page: the owner reads a page, never the API's envelope.
		return s.render(c, fiber.StatusServiceUnavailable, formError("Messages are not connected",
			[]string{"No Beeper is configured: start hearth serve with --beeper-url (or BEEPER_BASE_URL)."}, "/"))
	}
	return c.Next()
}

// settleAccepted reads the status of sends Beeper accepted and is still
// sending (chatID's, or all), before a page reads them; a Beeper that does
// not answer leaves them for the next read.
func (s *messagesHandlers) settleAccepted(c *fiber.Ctx, chatID string) {
	if _, err := beeperflow.SettleAcceptedSends(c.UserContext(), s.store, s.cfg.Beeper, chatID); err != nil {
		s.log.Warn("settle accepted sends", "err", err, "requestId", requestIDOf(c))
	}
}

func (s *messagesHandlers) showMessages(c *fiber.Ctx) error {
	return s.renderMessages(c, fiber.StatusOK, views.ChatRefusal{})
}

// renderMessages is the Messages page; refused is shown at its chat's form.
func (s *messagesHandlers) renderMessages(c *fiber.Ctx, status int, refused views.ChatRefusal) error {
	s.settleAccepted(c, "")
	rev := s.store.LatestRevision() // before the reads, so a later commit reloads the page
	page, err := s.cfg.Beeper.Chats(c.UserContext(), beeper.ChatsQuery{})
	state := s.beeperState(err)
	chatIDs := make([]string, len(page.Items))
	chats := make([]views.ChatLine, len(page.Items))
	for i, ch := range page.Items {
		chatIDs[i], chats[i] = ch.ID, chatLineOf(ch)
	}
	people, perr := s.store.ChatPeople(c.UserContext(), chatIDs)
	if perr != nil {
		return perr
	}
	watch, werr := s.store.WatchStatus(c.UserContext())
	if werr != nil {
		return werr
	}
	owed, oerr := s.store.OwedReplies(c.UserContext())
	if oerr != nil {
		return oerr
	}
	day, derr := s.store.Today(c.UserContext())
	if derr != nil {
		return derr
	}
	later, lerr := s.store.ChatSchedules(c.UserContext(), chatIDs)
	if lerr != nil {
		return lerr
	}
	return s.render(c, status, viewOf(views.Messages(views.MessagesData{Revision: rev, Now: s.store.Now(), Chats: chats, People: people,
		Beeper: state, Watch: watch, Owed: owed, Day: day, Refused: refused, Later: later})))
}

func (s *messagesHandlers) showConversation(c *fiber.Ctx) error {
	return s.renderConversation(c, fiber.StatusOK, nil)
}

// renderConversation shows a chat with its drafts, the composer and the
// Ask form; problem, when set, is a refused review shown at its editor.
// Opening the newest page marks the chat read in Beeper.
func (s *messagesHandlers) renderConversation(c *fiber.Ctx, status int, problem *views.EditorProblem) error {
	return s.conversationPage(c, status, pathParam(c, "chat"), problem, views.AskState{})
}

// conversationPage is renderConversation of chatID; ask is a refused
// "Ask the agent for a draft", shown again in its form.
func (s *messagesHandlers) conversationPage(c *fiber.Ctx, status int, chatID string, problem *views.EditorProblem, ask views.AskState) error {
	ctx := c.UserContext()
	s.settleAccepted(c, chatID)
	rev := s.store.LatestRevision() // before the reads, so a later commit reloads the page
	chat, err := s.cfg.Beeper.Chat(ctx, chatID)
	if errors.Is(err, beeper.ErrNotFound) {
		return s.notFound(c, "no such chat")
	}
	d := views.ConversationData{Revision: rev, Now: s.store.Now(), Chat: chatHeadOf(chat), AskID: newRequestID(), Problem: problem, Compose: c.Query("compose"),
		HandedOff: views.HandedOffAs(c.Query("handedOff")), AskRefused: ask}
	before := c.Query("before")
	if err == nil {
		var page beeper.MessagePage
		page, err = s.cfg.Beeper.Messages(ctx, chatID, beeper.MessagesQuery{Cursor: before, Direction: beeper.Before})
		d.Messages, d.NewestSortKey = conversationOf(page.Items, chat.Participants.Items), newestSortKey(page.Items)
		if page.HasMore {
			d.OlderCursor = page.OldestCursor
		}
	}
	if err == nil && before == "" && (chat.UnreadCount > 0 || chat.IsMarkedUnread) {
		// The owner is reading it (the messages loaded): Beeper's unread
		// badge clears, here and on every device.
		if _, merr := s.cfg.Beeper.MarkRead(ctx, chatID, ""); merr != nil {
			s.log.Warn("mark chat read", "err", merr, "requestId", requestIDOf(c))
		}
	}
	d.Beeper = s.beeperState(err)
	if d.Chat.ID == "" {
		d.Chat = views.ChatHead{ID: chatID, Title: chatID}
	}
	if d.Drafts, err = s.store.ChatDrafts(ctx, chatID); err != nil {
		return err
	}
	if d.Card, err = s.personCard(c, d.Drafts); err != nil {
		return err
	}
	later, err := s.store.ChatSchedules(ctx, []string{chatID})
	if err != nil {
		return err
	}
	for i, sc := range later[chatID] {
		if sc.Own() {
			d.OwnLater = &later[chatID][i]
		}
	}
	if d.Day, err = s.store.Today(ctx); err != nil {
		return err
	}
	reqs, err := s.store.RecentRequests(ctx, s.store.Now().Add(-contract.ContextHistory))
	if err != nil {
		return err
	}
	d.Asked = chatRequests(reqs, chatID)
	return s.render(c, status, viewOf(views.Conversation(d)))
}

// chatRequests are the reply-draft requests about chatID.
func chatRequests(reqs []contract.RequestView, chatID string) []contract.RequestView {
	var out []contract.RequestView
	for _, r := range reqs {
		if r.Kind == contract.RequestReplyDraft && r.EntityID == chatID {
			out = append(out, r)
		}
	}
	return out
}

// newSendKey is rendered into a review form, so a double submit is one send.
func newSendKey() string {
	b := make([]byte, 18)
	rand.Read(b)
	return "send-" + base64.RawURLEncoding.EncodeToString(b)
}

// reviewForm is the owner's chosen wording: a draft's editor, or without
// draftId the composer of an own reply.
type reviewForm struct {
	Draft                 string `form:"draftId"`
	Candidate             string `form:"candidate"`
	Body                  string `form:"body"`
	ShownBody             string `form:"shownBody"`
	ShownCandidate        string `form:"shownCandidate"`
	SourceMessageRevision string `form:"sourceMessageRevision"`
}

func (f reviewForm) wording() models.WordingForm {
	return models.WordingForm{Body: f.Body, Candidate: f.Candidate, ShownBody: f.ShownBody, ShownCandidate: f.ShownCandidate}
}

// emptyReply is the inline message of a review with nothing to send.
const emptyReply = "There is nothing to send yet: write the reply first."

// ownReview is the owner's own reply under review (no draft holds it), or
// a review shown again because new messages came (newer), kept for the
// review page a POST redirects to.
//
// Its send key is made once, with it: a review shown again (Back, a
// reload) confirms with the same key, so sending it twice is one send.
type ownReview struct {
	DraftID, Body, SourceRevision, SendKey string
	Newer                                  []beeper.Message
}

// reviewURL is the review page of a draft's saved wording, or of a kept
// review (answer).
func reviewURL(chatID, draftID, kept, answer string) string {
	q := url.Values{}
	if draftID != "" {
		q.Set("draftId", draftID)
	}
	if kept != "" {
		q.Set("kept", kept)
	}
	if answer != "" {
		q.Set("answer", answer)
	}
	return "/messages/" + url.PathEscape(chatID) + "/review?" + q.Encode()
}

// sendURL is the page of one send's outcome.
func sendURL(chatID, sendKey string) string {
	return "/messages/" + url.PathEscape(chatID) + "/sends/" + url.PathEscape(sendKey)
}

// review saves the wording as the owner's edit and redirects (303) to the
// review of exactly what will be sent: the chosen candidate's text when the
// editor was left as shown, else the editor's text. An empty reply is the
// form again with the message (422). A draft already sent, or with a send
// in flight, leads to that outcome instead: it is never offered a second
// Send. Without a draft it reviews the owner's own reply, kept for its
// review page. A redirect, so Back and reload never post the review again.
func (s *messagesHandlers) review(c *fiber.Ctx) error {
	var f reviewForm
	if err := c.BodyParser(&f); err != nil {
		return s.unreadableForm(c)
	}
	chatID := pathParam(c, "chat")
	if f.Draft == "" {
		body := wording.NormalizeNewlines(f.Body)
		if msg := replyProblem(body); msg != "" {
			return s.renderConversation(c, fiber.StatusUnprocessableEntity, &views.EditorProblem{Message: msg, Input: f.Body})
		}
		// Copies: Fiber's form values live only as long as the request.
		id := s.answers.put(ownReview{Body: strings.Clone(body), SourceRevision: strings.Clone(f.SourceMessageRevision), SendKey: newSendKey()})
		return c.Redirect(reviewURL(chatID, "", "", id), fiber.StatusSeeOther)
	}
	draft, err := s.chatDraft(c, chatID, f.Draft)
	if err != nil || draft == nil {
		return err
	}
	if last := draft.LastSend; last != nil && last.Status != models.SendFailed {
		return c.Redirect(sendURL(chatID, last.SendKey), fiber.StatusSeeOther)
	}
	w, err := s.store.SaveDraftWording(c.UserContext(), f.Draft, f.wording())
	if errors.Is(err, models.ErrInvalidInput) {
		return s.renderConversation(c, fiber.StatusUnprocessableEntity, &views.EditorProblem{DraftID: f.Draft, Message: cmp.Or(replyProblem(w.Body), emptyReply), Input: f.Body})
	}
	if err != nil {
		return err
	}
	kept := ""
	if w.Kept != nil {
		kept = w.Kept.ID
	}
	return c.Redirect(reviewURL(chatID, f.Draft, kept, ""), fiber.StatusSeeOther)
}

// replyFieldError is a refused reply text as the editor's field error,
// the same words on Home and on a conversation; other errors pass.
func replyFieldError(err error, body string) error {
	var fe *models.FieldError
	if !errors.Is(err, models.ErrInvalidInput) || errors.As(err, &fe) {
		return err
	}
	return &models.FieldError{Field: "body", Message: cmp.Or(replyProblem(wording.NormalizeNewlines(body)), emptyReply)}
}

// replyProblem says why a reply cannot be sent, or "".
func replyProblem(body string) string {
	switch {
	case strings.TrimSpace(body) == "":
		return emptyReply
	case utf8.RuneCountInString(body) > contract.MaxBodyLen:
		return fmt.Sprintf("The reply is %d characters; at most %d can be sent.", utf8.RuneCountInString(body), contract.MaxBodyLen)
	}
	return ""
}

// reviewSaved is the review of a draft's saved wording (GET), where Home's
// "Review and send" lands after saving what the owner typed. kept names a
// candidate the owner chose beside an edited text.
//
// With answer it is a kept review (the owner's own reply, or one shown
// again with new messages); one no longer kept (hearth restarted) leads
// back to the chat's editor, saying so.
func (s *messagesHandlers) reviewSaved(c *fiber.Ctx) error {
	chatID := pathParam(c, "chat")
	if id := c.Query("answer"); id != "" {
		own, ok := answerOf[ownReview](s.answers, id)
		if !ok {
			return s.renderConversation(c, fiber.StatusGone, &views.EditorProblem{DraftID: c.Query("draftId"),
				Message: "This review is no longer kept (hearth restarted since); nothing was sent. Review the reply again."})
		}
		// Sent from this review already: its outcome, never a second Send.
		if _, sent, err := s.store.SendByKey(c.UserContext(), own.SendKey); err != nil || sent {
			if err != nil {
				return err
			}
			return c.Redirect(sendURL(chatID, own.SendKey), fiber.StatusSeeOther)
		}
		draft := &models.ChatDraft{}
		if own.DraftID != "" {
			var err error
			if draft, err = s.chatDraft(c, chatID, own.DraftID); err != nil || draft == nil {
				return err
			}
			if last := draft.LastSend; last != nil && last.Status != models.SendFailed {
				return s.renderSendResult(c, fiber.StatusConflict, chatID, views.SendResultData{Send: *last})
			}
		}
		return s.renderReviewKeyed(c, fiber.StatusOK, chatID, *draft, own.Body, own.Newer, own.SourceRevision, nil, own.SendKey)
	}
	draft, err := s.chatDraft(c, chatID, c.Query("draftId"))
	if err != nil || draft == nil {
		return err
	}
	if last := draft.LastSend; last != nil && last.Status != models.SendFailed {
		return s.renderSendResult(c, fiber.StatusConflict, chatID, views.SendResultData{Send: *last})
	}
	var kept *contract.CandidateIn
	for _, cand := range draft.Candidates {
		if cand.ID == c.Query("kept") && cand.Body != wording.DraftText(draft.DraftView) {
			kept = &cand
		}
	}
	return s.renderReview(c, fiber.StatusOK, chatID, *draft, wording.DraftText(draft.DraftView), nil, draft.SourceMessageRevision, kept)
}

// chatDraft finds a draft of the chat (not retracted), or answers 404 and returns nil.
func (s *messagesHandlers) chatDraft(c *fiber.Ctx, chatID, draftID string) (*models.ChatDraft, error) {
	draft, err := s.store.ChatDraft(c.UserContext(), chatID, draftID)
	if err != nil {
		return nil, err
	}
	if draft == nil {
		return nil, s.notFound(c, "no such draft in this chat")
	}
	return draft, nil
}

// renderReview shows the review screen of body, written against the chat
// at sourceRevision; newer lists messages that arrived since, whose newest
// becomes the revision this review confirms.
func (s *messagesHandlers) renderReview(c *fiber.Ctx, status int, chatID string, draft models.ChatDraft, body string, newer []beeper.Message,
	sourceRevision string, kept *contract.CandidateIn) error {
	return s.renderReviewKeyed(c, status, chatID, draft, body, newer, sourceRevision, kept, newSendKey())
}

// renderReviewKeyed is renderReview confirming with sendKey.
func (s *messagesHandlers) renderReviewKeyed(c *fiber.Ctx, status int, chatID string, draft models.ChatDraft, body string, newer []beeper.Message,
	sourceRevision string, kept *contract.CandidateIn, sendKey string) error {
	ctx := c.UserContext()
	chat, err := s.cfg.Beeper.Chat(ctx, chatID)
	s.beeperState(err)
	if err != nil {
		return s.refusedPage(c, fiber.StatusServiceUnavailable, "Not reviewed", "Beeper is not answering: "+beeperProblem(err)+". Nothing was sent; try again later.", chatID)
	}
	neverKept(c)
	d := views.ReviewData{Chat: chatHeadOf(chat), Draft: draft, Body: body, SendKey: sendKey, SourceRevision: sourceRevision, Kept: kept}
	for _, m := range newer {
		d.Newer = append(d.Newer, messageLineOf(m))
	}
	if d.Day, err = s.store.Today(ctx); err != nil {
		return err
	}
	d.Later = laterDefault(s.store.Now(), d.Day)
	if n := len(newer); n > 0 {
		d.SourceRevision = string(newer[n-1].SortKey)
	}
	if id := draft.ReplyToMessageID; id != "" {
		// One message by ID: the replied-to message may be older than a page.
		if m, err := s.cfg.Beeper.Message(ctx, chatID, id); err == nil {
			line := messageLineOf(m)
			d.ReplyTo = &line
		}
	}
	return s.render(c, status, viewOf(views.Review(d)))
}

// sendForm is the confirmation rendered by the review screen (docs/contract.md, Sends).
type sendForm struct {
	Draft                 string `form:"draftId"`
	Body                  string `form:"body"`
	SendKey               string `form:"sendKey"`
	SourceMessageRevision string `form:"sourceMessageRevision"`
}

// confirmSend sends a reviewed reply once (docs/contract.md, Sends).
func (s *messagesHandlers) confirmSend(c *fiber.Ctx) error {
	var f sendForm
	if err := c.BodyParser(&f); err != nil {
		return s.unreadableForm(c)
	}
	chatID := pathParam(c, "chat")
	body := wording.NormalizeNewlines(f.Body)
	send, err := beeperflow.ConfirmSend(c.UserContext(), s.store, s.cfg.Beeper, models.SendCommand{
		SendKey: f.SendKey, DraftID: f.Draft, ChatID: chatID, Body: body, SourceMessageRevision: f.SourceMessageRevision})
	if handled, rerr := s.reviewAgainOrShowPrior(c, chatID, f, body, err); handled {
		return rerr
	}
	switch {
	case errors.Is(err, models.ErrDraftNotInChat):
		return s.refusedPage(c, fiber.StatusConflict, "Not sent", "This draft belongs to another chat; nothing was sent.", chatID)
	case errors.Is(err, beeperflow.ErrOutcomeNotRecorded):
		// Beeper was called: never say nothing was sent.
		s.log.Error("send outcome not recorded", "err", err, "requestId", requestIDOf(c))
		return s.renderSendResult(c, fiber.StatusOK, chatID, views.SendResultData{Send: send, NotRecorded: true})
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such draft")
	case errors.Is(err, models.ErrInvalidInput):
		// Only a tampered review posts an invalid text: its editor says why.
		return s.renderConversation(c, fiber.StatusUnprocessableEntity, &views.EditorProblem{DraftID: f.Draft,
			Message: cmp.Or(replyProblem(body), "This reply cannot be sent as it is: review it again."), Input: f.Body})
	case err != nil:
		// Every other failure happens before the send is recorded as pending,
		// so Beeper was not asked to send.
		s.beeperState(err)
		return s.refusedPage(c, fiber.StatusServiceUnavailable, "Not sent", "Beeper is not answering: "+beeperProblem(err)+"; nothing was sent.", chatID)
	}
	// The outcome on its own page: Back or a reload shows it again and
	// never posts the send again (the send key would make that a no-op,
	// but the browser would first ask to resubmit).
	return c.Redirect(sendURL(chatID, send.SendKey), fiber.StatusSeeOther)
}

// reviewAgainOrShowPrior answers the two refusals a send now and a send
// later share: new messages came (the review again, with them, on its own
// page) and the draft already sent or sending (that send's page). handled
// is false for any other err.
func (s *messagesHandlers) reviewAgainOrShowPrior(c *fiber.Ctx, chatID string, f sendForm, body string, err error) (handled bool, _ error) {
	var stale *beeperflow.StaleDraftError
	switch {
	case errors.As(err, &stale):
		if f.Draft != "" {
			if draft, derr := s.chatDraft(c, chatID, f.Draft); derr != nil || draft == nil {
				return true, derr
			}
		}
		id := s.answers.put(ownReview{DraftID: strings.Clone(f.Draft), Body: strings.Clone(body), SourceRevision: strings.Clone(f.SourceMessageRevision), Newer: stale.Newer, SendKey: newSendKey()})
		return true, c.Redirect(reviewURL(chatID, f.Draft, "", id), fiber.StatusSeeOther)
	case errors.Is(err, models.ErrSendInFlight), errors.Is(err, models.ErrDraftAlreadySent):
		prior, _, lerr := s.store.LatestSend(c.UserContext(), f.Draft)
		if lerr != nil {
			return true, lerr
		}
		return true, c.Redirect(sendURL(chatID, prior.SendKey), fiber.StatusSeeOther)
	}
	return false, nil
}

// showSend is the page of one send's outcome, where a send, a check and
// "not sent" redirect.
func (s *messagesHandlers) showSend(c *fiber.Ctx) error {
	chatID := pathParam(c, "chat")
	s.settleAccepted(c, chatID)
	send, ok, err := s.store.SendByKey(c.UserContext(), pathParam(c, "key"))
	if err != nil {
		return err
	}
	if !ok || send.ChatID != chatID {
		return s.notFound(c, "no such send in this chat")
	}
	return s.renderSendResult(c, fiber.StatusOK, chatID, views.SendResultData{Send: send})
}

func (s *messagesHandlers) reconcileSend(c *fiber.Ctx) error {
	send, err := beeperflow.ReconcileSend(c.UserContext(), s.store, s.cfg.Beeper, c.FormValue("sendKey"))
	if errors.Is(err, models.ErrNotFound) {
		return s.notFound(c, "no such send")
	}
	if err != nil {
		s.beeperState(err)
		return s.refusedPage(c, fiber.StatusServiceUnavailable, "Not checked", "Beeper is not answering: "+beeperProblem(err)+". Try again later.", pathParam(c, "chat"))
	}
	return c.Redirect(sendURL(pathParam(c, "chat"), send.SendKey), fiber.StatusSeeOther)
}

// markNotSent records the owner's word that an unknown send did not go out.
func (s *messagesHandlers) markNotSent(c *fiber.Ctx) error {
	send, err := s.store.MarkSendNotSent(c.UserContext(), c.FormValue("sendKey"))
	if errors.Is(err, models.ErrNotFound) {
		return s.notFound(c, "no such send")
	}
	if err != nil {
		return err
	}
	return c.Redirect(sendURL(pathParam(c, "chat"), send.SendKey), fiber.StatusSeeOther)
}

func (s *messagesHandlers) renderSendResult(c *fiber.Ctx, status int, chatID string, d views.SendResultData) error {
	chat, err := s.cfg.Beeper.Chat(c.UserContext(), chatID)
	d.Chat = chatHeadOf(chat)
	if err != nil {
		d.Chat = views.ChatHead{ID: chatID, Title: chatID}
	}
	if d.Day, err = s.store.Today(c.UserContext()); err != nil {
		return err
	}
	return s.render(c, status, viewOf(views.SendResult(d)))
}

// handOffForm is an editor (a draft's, or the composer's) handed to Beeper.
type handOffForm struct {
	reviewForm
	AccountID string `form:"accountId"`
}

// handOff puts the editor's text in the chat's Beeper composer (or, on an
// older Beeper, opens the chat with it), to finish there, and records it
// as handed off, never as sent; then the conversation again, which says
// how it went. Text already in the composer is never overwritten: the
// refusal offers the text to copy instead.
func (s *messagesHandlers) handOff(c *fiber.Ctx) error {
	var f handOffForm
	if err := c.BodyParser(&f); err != nil {
		return s.unreadableForm(c)
	}
	chatID := pathParam(c, "chat")
	res, err := beeperflow.HandOffToBeeper(c.UserContext(), s.store, s.cfg.Beeper, models.HandOff{ChatID: chatID, AccountID: f.AccountID, DraftID: f.Draft, Form: f.wording()})
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such draft in this chat")
	case errors.Is(err, models.ErrDraftNotInChat):
		return s.refusedPage(c, fiber.StatusConflict, "Not opened", "This draft belongs to another chat; nothing was opened.", chatID)
	case errors.Is(err, models.ErrInvalidInput):
		return s.renderConversation(c, fiber.StatusUnprocessableEntity, &views.EditorProblem{DraftID: f.Draft, Message: cmp.Or(replyProblem(wording.NormalizeNewlines(f.Body)), emptyReply), Input: f.Body})
	case errors.Is(err, beeperflow.ErrComposerBusy):
		return s.renderConversation(c, fiber.StatusConflict, &views.EditorProblem{DraftID: f.Draft, Message: composerBusy, Input: f.Body, Copy: true})
	case err != nil:
		s.beeperState(err)
		return s.renderConversation(c, fiber.StatusServiceUnavailable, &views.EditorProblem{DraftID: f.Draft,
			Message: "Beeper did not take it: " + beeperProblem(err) + ". Nothing was handed off or sent.", Input: f.Body})
	}
	into := views.HandedOffComposer
	if res.Focused {
		into = views.HandedOffFocus
	}
	return c.Redirect("/messages/"+url.PathEscape(chatID)+"?handedOff="+into+"#handed-off", fiber.StatusSeeOther)
}

// composerBusy is a hand-off Beeper refused because its composer holds text.
const composerBusy = "Beeper's message field for this chat already has text in it (perhaps something you are typing there), " +
	"so hearth left it alone and put nothing in. Copy this text and paste it where you want it, or empty the field in Beeper and try again."

// decisionForm is an owner decision about an owed reply.
type decisionForm struct {
	AccountID string `form:"accountId"`
	Until     string `form:"until"`
	Return    string `form:"return"`
}

// decideNoReply records that a chat needs no reply, then back to the owed replies.
func (s *messagesHandlers) decideNoReply(c *fiber.Ctx) error {
	return s.decideReply(c, s.store.DecideNoReplyNeeded)
}

// remindLater hides an owed reply until a date, then back to the owed replies.
func (s *messagesHandlers) remindLater(c *fiber.Ctx) error {
	return s.decideReply(c, s.store.RemindLater)
}

func (s *messagesHandlers) decideReply(c *fiber.Ctx, decide func(context.Context, models.ChatDecision) (models.OwnerActionResult, error)) error {
	var f decisionForm
	if err := c.BodyParser(&f); err != nil {
		return s.unreadableForm(c)
	}
	back := "/messages#owed"
	if f.Return != "" {
		back = safePath(f.Return)
	}
	chatID := pathParam(c, "chat")
	_, err := decide(c.UserContext(), models.ChatDecision{ChatID: chatID, AccountID: f.AccountID, Until: f.Until})
	var fe *models.FieldError
	switch {
	case errors.As(err, &fe) && s.cfg.Beeper != nil:
		// The Messages page again, the date as entered and why at it.
		return s.renderMessages(c, fiber.StatusUnprocessableEntity, views.ChatRefusal{ChatID: chatID, Message: fe.Message, Input: f.Until})
	case errors.Is(err, models.ErrInvalidInput):
		msg := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "models: "), ": "+models.ErrInvalidInput.Error())
		return s.render(c, fiber.StatusUnprocessableEntity, viewOf(views.FormError("Not saved", []string{msg}, back)))
	case err != nil:
		return s.renderNotSaved(c, err, back, f.Until)
	}
	return c.Redirect(back, fiber.StatusSeeOther)
}

// personCard is the person the first of a chat's drafts concerns, if any.
func (s *messagesHandlers) personCard(c *fiber.Ctx, drafts []models.ChatDraft) (*views.PersonCard, error) {
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

// refusedPage answers an owner's form on a conversation that hearth could
// not carry out with a page saying why and leading back to the chat:
// never the API's JSON envelope.
func (s *messagesHandlers) refusedPage(c *fiber.Ctx, status int, title, message, chatID string) error {
	return s.render(c, status, formError(title, []string{message}, "/messages/"+url.PathEscape(chatID)))
}
