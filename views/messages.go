package views

import (
	"strings"

	"hearth/beeper"
)

// networkWords names the chat network a message goes through (Beeper's
// "WhatsApp", "Signal"), never the account's ID; Beeper when it names none.
func networkWords(network string) string {
	if network = outside(network); network != "" {
		return network
	}
	return "Beeper"
}

// chatPreview is a chat's last message as its list row shows it: who
// wrote it and one line of what it says.
type chatPreview struct{ Sender, Text string }

// previewOf is the chat list's preview of c (Beeper sends the newest
// message with each chat it lists), ok false when it sent none.
func previewOf(c beeper.Chat) (chatPreview, bool) {
	m := c.Preview
	if m == nil || m.IsHidden {
		return chatPreview{}, false
	}
	p := chatPreview{Sender: outside(m.SenderName), Text: strings.Join(strings.Fields(outside(m.Text)), " ")}
	switch {
	case m.IsSender:
		p.Sender = "You"
	case p.Sender == "":
		p.Sender = outside(c.Title)
	default:
		// The first name is enough beside the chat's title, and leaves the line for the text.
		p.Sender = strings.Fields(p.Sender)[0]
	}
	switch {
	case m.IsDeleted:
		p.Text = "deleted a message"
	case p.Text == "":
		p.Text = messageKindWords(m.Type)
	}
	// The row shows one line; the rest would only be cut off by CSS.
	if r := []rune(p.Text); len(r) > 140 {
		p.Text = string(r[:140]) + "…"
	}
	return p, true
}

// messageKindWords names a message without text by its kind.
func messageKindWords(kind string) string {
	switch kind {
	case "IMAGE":
		return "sent a photo"
	case "VIDEO":
		return "sent a video"
	case "VOICE", "AUDIO":
		return "sent a voice message"
	case "FILE":
		return "sent a file"
	case "STICKER":
		return "sent a sticker"
	case "LOCATION":
		return "sent a location"
	case "REACTION":
		return "reacted"
	}
	return "sent a message"
}
