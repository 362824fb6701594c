package beeper

import (
	"encoding/json"
	"strings"
	"time"
)

// Chat types as the API spells them.
const (
	ChatSingle = "single"
	ChatGroup  = "group"
)

// User is a chat participant or an account's own user.
type User struct {
	ID          string `json:"id"`
	FullName    string `json:"fullName,omitempty"`
	Username    string `json:"username,omitempty"`
	PhoneNumber string `json:"phoneNumber,omitempty"`
	Email       string `json:"email,omitempty"`
	ImgURL      string `json:"imgURL,omitempty"`
	IsSelf      bool   `json:"isSelf,omitempty"`
}

// Account is one connected chat network account in Beeper Desktop.
type Account struct {
	AccountID string `json:"accountID"`
	User      User   `json:"user"`
	Network   string `json:"network,omitempty"`
}

// Participants is the (possibly truncated) member list of a chat.
type Participants struct {
	Items   []User `json:"items"`
	HasMore bool   `json:"hasMore"`
	Total   int    `json:"total"`
}

// Chat is one conversation; Preview is set only in chat lists.
type Chat struct {
	ID                     string       `json:"id"`
	LocalChatID            string       `json:"localChatID,omitempty"`
	AccountID              string       `json:"accountID"`
	Network                string       `json:"network,omitempty"`
	Title                  string       `json:"title"`
	Type                   string       `json:"type"`
	Participants           Participants `json:"participants"`
	UnreadCount            int          `json:"unreadCount"`
	LastActivity           time.Time    `json:"lastActivity,omitzero"`
	LastReadMessageSortKey SortKey      `json:"lastReadMessageSortKey,omitempty"`
	IsArchived             bool         `json:"isArchived,omitempty"`
	IsMuted                bool         `json:"isMuted,omitempty"`
	IsPinned               bool         `json:"isPinned,omitempty"`
	Preview                *Message     `json:"preview,omitempty"`
}

// Message is one message in a chat; LinkedMessageID is the message it replies to.
type Message struct {
	ID              string    `json:"id"`
	AccountID       string    `json:"accountID"`
	ChatID          string    `json:"chatID"`
	SenderID        string    `json:"senderID"`
	SenderName      string    `json:"senderName,omitempty"`
	SortKey         SortKey   `json:"sortKey"`
	Timestamp       time.Time `json:"timestamp"`
	Type            string    `json:"type,omitempty"`
	Text            string    `json:"text,omitempty"`
	IsSender        bool      `json:"isSender,omitempty"`
	IsUnread        bool      `json:"isUnread,omitempty"`
	LinkedMessageID string    `json:"linkedMessageID,omitempty"`
	EditedTimestamp time.Time `json:"editedTimestamp,omitzero"`
	IsDeleted       bool      `json:"isDeleted,omitempty"`
	SendStatus      string    `json:"sendStatus,omitempty"`
}

// SortKey orders messages within a chat; it is opaque but sortable.
type SortKey string

// UnmarshalJSON accepts a JSON string or number, because older Beeper versions sent numbers.
func (k *SortKey) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*k = SortKey(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*k = SortKey(n.String())
	return nil
}

// Compare returns -1, 0 or +1; decimal keys compare numerically so "10" sorts after "9".
func (k SortKey) Compare(o SortKey) int {
	a, b := string(k), string(o)
	if isDigits(a) && isDigits(b) {
		a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
		if len(a) != len(b) {
			if len(a) < len(b) {
				return -1
			}
			return 1
		}
	}
	return strings.Compare(a, b)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ChatPage is one page of chats, most recent activity first.
type ChatPage struct {
	Items        []Chat `json:"items"`
	HasMore      bool   `json:"hasMore"`
	OldestCursor string `json:"oldestCursor,omitempty"`
	NewestCursor string `json:"newestCursor,omitempty"`
}

// MessagePage is one page of messages; the client sorts Items oldest first by SortKey.
type MessagePage struct {
	Items        []Message `json:"items"`
	HasMore      bool      `json:"hasMore"`
	OldestCursor string    `json:"oldestCursor,omitempty"`
	NewestCursor string    `json:"newestCursor,omitempty"`
}

// Paging directions: Before pages older (the API default), After pages newer.
const (
	Before = "before"
	After  = "after"
)

// ChatsQuery filters and pages GET /v1/chats.
type ChatsQuery struct {
	AccountIDs []string
	Cursor     string
	Direction  string
}

// SearchChatsQuery filters and pages GET /v1/chats/search; zero values are left out.
type SearchChatsQuery struct {
	Query      string
	Type       string
	Inbox      string
	UnreadOnly bool
	Limit      int
	Cursor     string
	Direction  string
}

// MessagesQuery pages GET /v1/chats/{chatID}/messages.
type MessagesQuery struct {
	Cursor    string
	Direction string
}

// SendRequest is the body of a send; ReplyToMessageID is optional.
type SendRequest struct {
	Text             string `json:"text"`
	ReplyToMessageID string `json:"replyToMessageID,omitempty"`
}

// SendResult identifies an accepted send; the final message ID arrives later.
type SendResult struct {
	ChatID           string `json:"chatID"`
	PendingMessageID string `json:"pendingMessageID"`
}

// Info describes the running Beeper Desktop app (GET /v1/info).
type Info struct {
	App struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"app"`
	// Version is the X-Beeper-Desktop-Version response header.
	Version string `json:"-"`
}
