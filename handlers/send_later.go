package handlers

import (
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/beeperflow"
	"hearth/internal/wording"
	"hearth/models"
	"hearth/views"
)

// laterHour is the "Send later" picker's usual time: the next 08:00.
const laterHour = 8

// laterDefault is the picker's first choice: the next 08:00 in the owner's zone.
func laterDefault(now time.Time, day models.Day) views.LaterChoice {
	zone := day.Zone
	if zone == nil {
		zone = time.UTC
	}
	if now.In(zone).Hour() < laterHour {
		return views.LaterChoice{Day: "today", Time: "08:00"}
	}
	return views.LaterChoice{Day: "tomorrow", Time: "08:00"}
}

// laterForm is the review's confirmation to send later: sendForm and when.
type laterForm struct {
	sendForm
	Day string `form:"day"` // today or tomorrow, in the owner's zone
	At  string `form:"at"`  // HH:MM (or HH:MM:SS)
}

// dueAt is the instant the owner chose, in their zone; ok is false for a
// day other than today or tomorrow, or an unreadable time.
func (f laterForm) dueAt(day models.Day) (time.Time, bool) {
	date := day.Date
	switch f.Day {
	case "today":
	case "tomorrow":
		date = day.Tomorrow
	default:
		return time.Time{}, false
	}
	zone := day.Zone
	if zone == nil {
		zone = time.UTC
	}
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, date+" "+strings.TrimSpace(f.At), zone); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// notLater is a refused time, in the owner's words.
const notLater = "Choose a time later today or tomorrow; nothing was scheduled or sent."

// scheduleSend confirms a reviewed reply (a draft's, or the owner's own
// words) to send at the chosen time (beeperflow.ScheduleSend), then shows
// the conversation, where the reply says when it sends and offers Cancel.
// It is refused as a send now is.
func (s *messagesHandlers) scheduleSend(c *fiber.Ctx) error {
	var f laterForm
	if err := c.BodyParser(&f); err != nil {
		return s.unreadableForm(c)
	}
	chatID := pathParam(c, "chat")
	day, err := s.store.Today(c.UserContext())
	if err != nil {
		return err
	}
	due, ok := f.dueAt(day)
	if !ok {
		return s.refusedPage(c, fiber.StatusUnprocessableEntity, "Not scheduled", notLater, chatID)
	}
	body := wording.NormalizeNewlines(f.Body)
	cmd := models.SendCommand{SendKey: f.SendKey, DraftID: f.Draft, ChatID: chatID, Body: body, SourceMessageRevision: f.SourceMessageRevision}
	_, err = beeperflow.ScheduleSend(c.UserContext(), s.store, s.cfg.Beeper, cmd, due)
	if handled, rerr := s.reviewAgainOrShowPrior(c, chatID, f.sendForm, body, err); handled {
		return rerr
	}
	switch {
	case errors.Is(err, models.ErrAlreadyScheduled):
		return s.refusedPage(c, fiber.StatusConflict, "Not scheduled", "A reply here already waits for its time: cancel it first to choose another.", chatID)
	case errors.Is(err, models.ErrDraftNotInChat):
		return s.refusedPage(c, fiber.StatusConflict, "Not scheduled", "This draft belongs to another chat; nothing was scheduled.", chatID)
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such draft")
	case errors.Is(err, models.ErrInvalidInput):
		return s.refusedPage(c, fiber.StatusUnprocessableEntity, "Not scheduled", notLater, chatID)
	case err != nil:
		s.beeperState(err)
		return s.refusedPage(c, fiber.StatusServiceUnavailable, "Not scheduled", "Beeper is not answering: "+beeperProblem(err)+"; nothing was scheduled or sent.", chatID)
	}
	if f.Draft == "" {
		return c.Redirect("/messages/"+url.PathEscape(chatID)+"#compose", fiber.StatusSeeOther)
	}
	return c.Redirect("/messages/"+url.PathEscape(chatID)+"#draft-"+url.PathEscape(f.Draft), fiber.StatusSeeOther)
}

// cancelScheduledSend is the owner's Cancel of a send still waiting for its
// time; then back where it was asked. One already going or gone is not
// cancelled, and the page says so.
func (s *messagesHandlers) cancelScheduledSend(c *fiber.Ctx) error {
	chatID := pathParam(c, "chat")
	back := "/messages/" + url.PathEscape(chatID)
	if r := c.FormValue("return"); r != "" {
		back = safePath(r)
	}
	_, err := s.store.CancelScheduledSend(c.UserContext(), chatID, c.FormValue("sendKey"))
	switch {
	case errors.Is(err, models.ErrNotFound):
		return s.notFound(c, "no such scheduled send in this chat")
	case errors.Is(err, models.ErrNotCancellable):
		return s.render(c, fiber.StatusConflict, formError("Not cancelled", []string{"It is no longer waiting: it is being sent, was sent, or was held. Look at the conversation."}, back))
	case err != nil:
		return err
	}
	return c.Redirect(back, fiber.StatusSeeOther)
}
