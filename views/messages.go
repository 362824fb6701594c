package views

import (
	"cmp"
	"slices"
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
// wrote it and one line of what it says. Act marks a line that says what
// the sender did (reacted, deleted a message), not their words; a
// notice (a bridge's or a bot's) has no sender.
type chatPreview struct {
	Sender, Text string
	Act          bool
}

// sep is what stands between the sender and the text: a colon before
// their words, nothing before what they did.
func (p chatPreview) sep() string {
	if p.Act {
		return ""
	}
	return ":"
}

// previewOf is the chat list's preview of c (Beeper sends the newest
// message with each chat it lists), ok false when it sent none or the
// message is hidden. A reaction, a notice or a deleted message is said in
// words of what happened, never as someone's last words.
func previewOf(c beeper.Chat) (chatPreview, bool) {
	m := c.Preview
	if m == nil || m.IsHidden {
		return chatPreview{}, false
	}
	p := chatPreview{Sender: outside(m.SenderName), Text: strings.Join(strings.Fields(outside(m.Words())), " ")}
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
		p.Text, p.Act = "deleted a message", true
	case m.Kind() == beeper.TypeReaction:
		p.Text, p.Act = strings.TrimSpace("reacted "+p.Text), true
		if m.LinkedMessageID != "" {
			p.Text += " to a message"
		}
	case m.Kind() == beeper.TypeNotice:
		p.Sender, p.Text = "", strings.TrimSpace("Notice: "+p.Text)
	case p.Text == "":
		p.Text = "sent a message"
	}
	// The row shows one line; the rest would only be cut off by CSS.
	if r := []rune(p.Text); len(r) > 140 {
		p.Text = string(r[:140]) + "…"
	}
	return p, true
}

// shownMessage is a message as a conversation shows it, with the
// reactions to it ("👍 Ana Okafor").
type shownMessage struct {
	beeper.Message
	Reactions []string
}

// conversationOf is msgs (oldest first) as a conversation shows them: a
// reaction under the message it answers, not as a message of its own (one
// to a message on another page shows with that page), whether Beeper sent
// it as a REACTION message or in the message's reactions (named from
// people, the chat's participants); a hidden message (Beeper hides it
// from display) left out.
func conversationOf(msgs []beeper.Message, people []beeper.User) []shownMessage {
	out := make([]shownMessage, 0, len(msgs))
	at := map[string]int{}
	for _, m := range msgs {
		if m.IsHidden || m.Kind() == beeper.TypeReaction {
			continue
		}
		at[m.ID] = len(out)
		out = append(out, shownMessage{Message: m})
	}
	react := func(i int, key, who string) {
		r := strings.TrimSpace(outside(key) + " " + who)
		if !slices.Contains(out[i].Reactions, r) { // Beeper may report one both ways
			out[i].Reactions = append(out[i].Reactions, r)
		}
	}
	for _, m := range msgs {
		i, ok := at[m.LinkedMessageID]
		if m.IsHidden || m.IsDeleted || m.Kind() != beeper.TypeReaction || !ok {
			continue
		}
		who := outside(m.SenderName)
		switch {
		case m.IsSender:
			who = "You"
		case who == "":
			who = outside(m.SenderID)
		}
		react(i, m.Text, who)
	}
	for i := range out {
		for _, r := range out[i].Message.Reactions {
			who := outside(r.ParticipantID)
			for _, u := range people {
				if u.ID == r.ParticipantID {
					who = cmp.Or(outside(u.FullName), outside(u.Username), who)
					if u.IsSelf {
						who = "You"
					}
				}
			}
			react(i, r.ReactionKey, who)
		}
	}
	return out
}
