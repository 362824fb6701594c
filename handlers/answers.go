package handlers

import (
	"crypto/rand"
	"encoding/base64"
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
