package handlers

import (
	"cmp"
	"slices"
	"strings"

	"hearth/beeper"
	"hearth/views"
)

// chatLineOf is c as Messages lists it, its last message in words.
func chatLineOf(c beeper.Chat) views.ChatLine {
	return views.ChatLine{ID: c.ID, Title: c.Title, Network: c.Network, Unread: c.UnreadCount, LastActivity: c.LastActivity, Preview: previewOf(c)}
}

// previewOf is the chat list's preview of c (Beeper sends the newest
// message with each chat it lists), nil when it sent none or the message
// is hidden. A reaction, a notice or a deleted message is said in words
// of what happened, never as someone's last words.
func previewOf(c beeper.Chat) *views.ChatPreview {
	m := c.Preview
	if m == nil || m.IsHidden {
		return nil
	}
	p := views.ChatPreview{Sender: views.Outside(m.SenderName), Text: strings.Join(strings.Fields(views.Outside(m.Words())), " ")}
	switch {
	case m.IsSender:
		p.Sender = "You"
	case p.Sender == "":
		p.Sender = views.Outside(c.Title)
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
	return &p
}

// chatHeadOf is c as a conversation, a review or a send's outcome names it.
func chatHeadOf(c beeper.Chat) views.ChatHead {
	return views.ChatHead{ID: c.ID, Title: c.Title, Network: c.Network, AccountID: c.AccountID, Group: c.Type == beeper.ChatGroup}
}

// messageLineOf is m as a page shows it, without the reactions to it.
func messageLineOf(m beeper.Message) views.MessageLine {
	return views.MessageLine{ID: m.ID, Kind: m.Kind(), Mine: m.IsSender, Sender: m.SenderName, At: m.Timestamp, Words: m.Words(), Deleted: m.IsDeleted}
}

// conversationOf is msgs (oldest first) as a conversation shows them: a
// reaction under the message it answers, not as a message of its own (one
// to a message on another page shows with that page), whether Beeper sent
// it as a REACTION message or in the message's reactions (named from
// people, the chat's participants); a hidden message (Beeper hides it
// from display) left out.
func conversationOf(msgs []beeper.Message, people []beeper.User) []views.MessageLine {
	out := make([]views.MessageLine, 0, len(msgs))
	var shown []beeper.Message // out's messages, for the reactions Beeper lists on them
	at := map[string]int{}
	for _, m := range msgs {
		if m.IsHidden || m.Kind() == beeper.TypeReaction {
			continue
		}
		at[m.ID] = len(out)
		out = append(out, messageLineOf(m))
		shown = append(shown, m)
	}
	react := func(i int, key, who string) {
		r := strings.TrimSpace(views.Outside(key) + " " + who)
		if !slices.Contains(out[i].Reactions, r) { // Beeper may report one both ways
			out[i].Reactions = append(out[i].Reactions, r)
		}
	}
	for _, m := range msgs {
		i, ok := at[m.LinkedMessageID]
		if m.IsHidden || m.IsDeleted || m.Kind() != beeper.TypeReaction || !ok {
			continue
		}
		who := views.Outside(m.SenderName)
		switch {
		case m.IsSender:
			who = "You"
		case who == "":
			who = views.Outside(m.SenderID)
		}
		react(i, m.Text, who)
	}
	for i, m := range shown {
		for _, r := range m.Reactions {
			who := views.Outside(r.ParticipantID)
			for _, u := range people {
				if u.ID == r.ParticipantID {
					who = cmp.Or(views.Outside(u.FullName), views.Outside(u.Username), who)
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

// newestSortKey is the newest of msgs' sort key (oldest first; "" for none).
func newestSortKey(msgs []beeper.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	return string(msgs[len(msgs)-1].SortKey)
}
