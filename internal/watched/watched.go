// Package watched is what the Beeper watch reads in one pass (its chats
// and their messages, as internal/beeperflow gives them to the store) and
// the observation payload a message becomes. It is pure: the store records
// a pass (models' beeperwatch.go).
package watched

import (
	"cmp"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"hearth/internal/contract"
	"hearth/internal/strictjson"
)

// Message is one Beeper message as the watch records it: the
// fields of the observation it becomes (internal/beeperflow reads them).
type Message struct {
	ID              string
	SenderID        string
	SenderName      string
	Text            string
	Timestamp       time.Time
	SortKey         string
	IsSender        bool
	LinkedMessageID string
	// Type is Beeper's message type (TEXT, IMAGE, REACTION, ...), and Text
	// its words: media described, with the caption if any.
	Type string
	// Aside marks a message that does not count in the conversation
	// (beeper.Message.Counts is false): a reaction, a notice, a hidden or
	// deleted message never makes a reply owed, wakes the job, makes a
	// draft stale or answers one.
	Aside    bool
	Deleted  bool
	EditedAt time.Time
	// Change marks a message the watch saw before that was since edited
	// or deleted: not a new message.
	Change bool
}

// Records reports whether m, new, becomes an observation: what counts, and
// reactions (the agent may read a thumbs-up as an answer); not notices,
// hidden or deleted messages.
func (m Message) Records() bool { return !m.Aside || m.Type == TypeReaction }

// TypeReaction is Beeper's type of a reaction (beeper.TypeReaction).
const TypeReaction = "REACTION"

// Chat is one chat the watch read: what it shows of the chat, and
// its messages newer than the cursor (on a baseline, the chat list's newest).
type Chat struct {
	ID        string
	AccountID string
	Title     string
	Muted     bool
	Messages  []Message
	// History are earlier messages read once for the rhythm (HistoryRead):
	// only when they were said is kept, and nothing else is done with them.
	History     []Message
	HistoryRead bool
	// Said is the newest message that counts among those the read went
	// through (new or not), if any: where the chat's last word stands
	// when that word was deleted.
	Said *Message
}

// Read is one pass of the watch: the chats read, the newest activity
// seen (the next cursor), and the job new messages make dirty, debounced.
type Read struct {
	Chats    []Chat
	Newest   *time.Time
	Job      string
	Debounce time.Duration
}

// maxMessageNameBytes bounds a message's chat title, sender name and IDs
// as recorded: they are names, and anyone who can message the owner can
// make them long.
const maxMessageNameBytes = 1 << 10

// Payload is a message's observation payload. Anyone can send the
// owner a message longer than an observation holds
// (contract.MaxObservationRawBytes), so a long text (or name) is kept cut
// at a character boundary, noted in <field>Cut with its original and kept
// sizes in bytes, so the agent knows it has only the start.
func Payload(chat Chat, m Message) (json.RawMessage, error) {
	raw := map[string]any{"chatId": chat.ID, "timestamp": m.Timestamp, "sortKey": m.SortKey, "isSender": m.IsSender, "text": m.Text}
	if m.Type != "" {
		raw["type"] = m.Type
	}
	if !m.EditedAt.IsZero() {
		raw["editedAt"] = m.EditedAt.UTC()
	}
	if m.Deleted {
		raw["deleted"] = true
	}
	for key, value := range map[string]string{"chatTitle": chat.Title, "senderId": m.SenderID, "senderName": m.SenderName, "replyTo": m.LinkedMessageID} {
		keepCut(raw, key, value, maxMessageNameBytes)
	}
	size := func() (int, error) {
		b, err := json.Marshal(raw)
		if err != nil {
			return 0, err
		}
		canonical, err := strictjson.Canonical(b)
		return len(canonical), err
	}
	if n, err := size(); err != nil || n <= contract.MaxObservationRawBytes {
		return messageJSON(raw), err
	}
	// The longest start of the text that fits: escapes make a byte of text
	// take up to six in canonical form, so the cut is searched, not computed.
	fits, tooLong := 0, len(m.Text)
	for tooLong-fits > 1 {
		mid := (fits + tooLong) / 2
		keepCut(raw, "text", m.Text, mid)
		n, err := size()
		if err != nil {
			return nil, err
		}
		if n <= contract.MaxObservationRawBytes {
			fits = mid
		} else {
			tooLong = mid
		}
	}
	keepCut(raw, "text", m.Text, fits)
	if n, err := size(); err != nil || n > contract.MaxObservationRawBytes {
		return nil, cmp.Or(err, fmt.Errorf("%d bytes in canonical form with its text cut", n))
	}
	return messageJSON(raw), nil
}

// messageJSON is a message payload as JSON; it holds only strings, numbers, booleans and times.
func messageJSON(v map[string]any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// keepCut sets raw[key] to value, cut to at most limit bytes at a
// character boundary; a cut is noted in raw[key+"Cut"].
func keepCut(raw map[string]any, key, value string, limit int) {
	if len(value) <= limit {
		raw[key] = value
		return
	}
	n := max(limit, 0)
	for n > 0 && !utf8.RuneStart(value[n]) {
		n--
	}
	raw[key] = value[:n]
	raw[key+"Cut"] = map[string]int{"originalBytes": len(value), "keptBytes": n}
}
