package views

import "time"

// networkWords names the chat network a message goes through (Beeper's
// "WhatsApp", "Signal"), never the account's ID; Beeper when it names none.
func networkWords(network string) string {
	if network = outside(network); network != "" {
		return network
	}
	return "Beeper"
}

// ChatLine is a chat as Messages lists it.
type ChatLine struct {
	ID, Title string
	// Network is the chat network Beeper names ("WhatsApp"), if any.
	Network      string
	Unread       int
	LastActivity time.Time
	// Preview is the chat's last message in words; nil when there is none to show.
	Preview *ChatPreview
}

// ChatPreview is a chat's last message as its list row shows it: who
// wrote it and one line of what it says, both already made safe to show
// (Outside). Act marks a line that says what the sender did (reacted,
// deleted a message), not their words; a notice (a bridge's or a bot's)
// has no sender.
type ChatPreview struct {
	Sender, Text string
	Act          bool
}

// sep is what stands between the sender and the text: a colon before
// their words, nothing before what they did.
func (p ChatPreview) sep() string {
	if p.Act {
		return ""
	}
	return ":"
}

// ChatHead is the chat a conversation, a review or a send's outcome is
// about.
type ChatHead struct {
	ID, Title string
	// Network is the chat network Beeper names ("WhatsApp"), if any.
	Network string
	// AccountID is the Beeper account a reply is sent with.
	AccountID string
	// Group is a chat of more than two: its messages name their sender.
	Group bool
}

// MessageLine is one message as a page shows it.
type MessageLine struct {
	ID string
	// Kind is the message's type as Beeper spells it ("TEXT", "IMAGE").
	Kind   string
	Mine   bool
	Sender string
	At     time.Time
	// Words are the message's words (media said in words); none when deleted.
	Words   string
	Deleted bool
	// Reactions are the reactions to it as shown ("👍 Ana Okafor"), already
	// made safe to show (Outside).
	Reactions []string
}
