package beepertest

import (
	"cmp"

	"hearth/beeper"
)

// AddHistory adds a one-to-one chat titled title between the owner and
// other, holding msgs at their own timestamps (oldest first): a chat with a
// past, read by everyone already. Each message keeps its ID (else the fake
// gives one), SenderID (SelfID for the owner's), Type and Text.
func (f *Fake) AddHistory(chatID, title string, other beeper.User, msgs []beeper.Message) beeper.Chat {
	f.mu.Lock()
	defer f.mu.Unlock()
	self := f.selfLocked(AccountID)
	c := &fakeChat{chat: beeper.Chat{ID: chatID, AccountID: AccountID, Network: "WhatsApp", Title: title, Type: beeper.ChatSingle,
		Participants: beeper.Participants{Items: []beeper.User{self, other}, Total: 2}}}
	f.chats[chatID] = c
	for _, msg := range msgs {
		from := other
		if msg.SenderID == SelfID {
			from = self
		}
		m := f.appendLocked(c, from, msg.Text, msg.LinkedMessageID, msg.Timestamp)
		m.ID = cmp.Or(msg.ID, m.ID)
		m.Type = cmp.Or(msg.Type, m.Type)
	}
	return c.chat
}
