package handlers

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/beeper"
	"hearth/views"
)

// A chat's preview in the list never shows a reaction, a notice, a hidden
// or a deleted message as the chat's last words: each is said in words of
// what happened, or left out.
func TestTheChatListPreviewSaysInWordsWhatAMessageThatIsNotSpeechWas(t *testing.T) {
	now := time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)
	ana := beeper.Message{ID: "m", SenderID: "@ana:beeper.local", SenderName: "Ana Okafor", Timestamp: now}
	with := func(f func(*beeper.Message)) *beeper.Message { m := ana; f(&m); return &m }
	cases := []struct {
		name    string
		preview *beeper.Message
		want    string // "" for no preview line
	}{
		{"text", with(func(m *beeper.Message) { m.Type, m.Text = beeper.TypeText, "See you at 8" }), "Ana: See you at 8"},
		{"reaction", with(func(m *beeper.Message) { m.Type, m.Text, m.LinkedMessageID = beeper.TypeReaction, "👍", "m-1" }), "Ana reacted 👍 to a message"},
		{"notice", with(func(m *beeper.Message) { m.Type, m.Text = beeper.TypeNotice, "Ana Okafor's security code changed." }), "Notice: Ana Okafor's security code changed."},
		{"deleted", with(func(m *beeper.Message) { m.Type, m.IsDeleted = beeper.TypeText, true }), "Ana deleted a message"},
		{"hidden", with(func(m *beeper.Message) { m.Type, m.Text, m.IsHidden = beeper.TypeText, "an edit event", true }), ""},
		{"own reaction", with(func(m *beeper.Message) {
			m.Type, m.Text, m.IsSender, m.LinkedMessageID = beeper.TypeReaction, "❤️", true, "m-1"
		}), "You reacted ❤️ to a message"},
	}
	for _, c := range cases {
		chat := beeper.Chat{ID: "!c:beeper.local", Title: "Ana Okafor", Type: beeper.ChatSingle, LastActivity: now, Preview: c.preview}
		var b bytes.Buffer
		if err := views.Messages(views.MessagesData{Now: now, Chats: []views.ChatLine{chatLineOf(chat)}}).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(&b)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(strings.Fields(doc.Find(`[data-testid="chat-preview"]`).Text()), " ")
		if got != c.want {
			t.Errorf("%s: the chat list's preview reads %q; want %q", c.name, got, c.want)
		}
	}
}
