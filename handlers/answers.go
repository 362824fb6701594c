package handlers

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/gofiber/fiber/v2"

	"hearth/views"
)

// answerCacheSize bounds the form answers kept for post/redirect/get. One
// owner acts on one page at a time: a few dozen answers cover every Back
// and reload that still makes sense; an older one says it is gone.
const answerCacheSize = 32

// An answer is what a page-level POST did (an import's dry run or result,
// a reviewed text), kept under a random ID for the GET its 303 leads to:
// so a reload or Back shows the answer again and never repeats the action,
// and the browser never asks to resubmit a form. Kept in memory, not in the
// database: an answer is a view of one moment; after a restart its page
// says it is gone and shows what is saved.
type answers struct {
	cache *fifoCache[any]
}

func newAnswers() *answers {
	return &answers{cache: newFIFOCache[any](answerCacheSize)}
}

// put keeps v and returns its ID, unguessable so it names only this answer.
func (a *answers) put(v any) string {
	b := make([]byte, 16)
	rand.Read(b)
	id := base64.RawURLEncoding.EncodeToString(b)
	a.cache.put(id, v)
	return id
}

// answerOf is the answer kept under id, if it is a T.
func answerOf[T any](a *answers, id string) (T, bool) {
	v, ok := a.cache.get(id)
	t, isT := v.(T)
	return t, ok && isT
}

// maxAnswerPage bounds a page kept as a form's answer; a larger one (a
// refused import quoting a big file) is sent as the POST's answer.
const maxAnswerPage = 512 << 10

// pageAnswer is a page that answered an owner's plain form (a refusal
// with what was typed and why, or an outcome), kept for GET /answers/ID.
type pageAnswer struct {
	status int
	html   []byte
}

// showAnswer shows a kept form answer with the status it was answered
// with; one no longer kept is gone for good (410), and says where to look.
func (s *Server) showAnswer(c *fiber.Ctx) error {
	a, ok := answerOf[pageAnswer](s.answers, c.Params("answer"))
	if !ok {
		return s.render(c, fiber.StatusGone, viewOf(views.Gone("This answer is gone",
			"This answer is no longer kept: hearth restarted since, or many forms were sent after it.",
			"Nothing was done again. What was saved is on its own page: Home, Messages, Routines or Weight.")))
	}
	return sendHTML(c, a.status, a.html)
}
