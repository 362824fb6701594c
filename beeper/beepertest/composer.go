package beepertest

import (
	"encoding/json"
	"net/http"

	"hearth/beeper"
)

// WithoutChatUpdate makes the fake a Beeper older than v4.2.808: no
// PATCH /v1/chats/{chatID}, so no composer draft to set or read.
func WithoutChatUpdate() Option { return func(f *Fake) { f.noChatUpdate = true } }

// Type puts text in the chat's composer as the owner typing in Beeper
// would ("" empties it); an unknown chat is ignored.
func (f *Fake) Type(chatID, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.chats[chatID]; ok {
		c.chat.Draft = nil
		if text != "" {
			c.chat.Draft = &beeper.ChatDraft{Text: text}
		}
	}
}

// Composer returns the text in the chat's composer ("" when empty).
func (f *Fake) Composer(chatID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.chats[chatID]; ok && c.chat.Draft != nil {
		return c.chat.Draft.Text
	}
	return ""
}

// updateChatLocked serves PATCH /v1/chats/{chatID} for its draft, with
// Beeper's compare-and-set: a non-empty draft only into an empty composer
// (else 422, the composer untouched), draft null or empty clears it. It
// answers the chat as it is afterwards.
func (f *Fake) updateChatLocked(c *fakeChat, r *http.Request) reply {
	if f.noChatUpdate {
		return errReply(http.StatusNotFound, "NOT_FOUND", "no such route")
	}
	var in map[string]json.RawMessage
	if !readBody(r, &in) {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "body must be a JSON object")
	}
	raw, ok := in["draft"]
	if !ok {
		return reply{status: http.StatusOK, body: c.chat}
	}
	var d *beeper.ChatDraft
	if err := json.Unmarshal(raw, &d); err != nil {
		return errReply(http.StatusBadRequest, "BAD_REQUEST", "draft must be {text} or null")
	}
	switch {
	case d == nil || d.Text == "":
		c.chat.Draft = nil
	case c.chat.Draft != nil:
		return errReply(http.StatusUnprocessableEntity, "DRAFT_NOT_EMPTY", "the chat already has a draft; clear it with draft=null first")
	default:
		c.chat.Draft = &beeper.ChatDraft{Text: d.Text}
	}
	return reply{status: http.StatusOK, body: c.chat}
}
