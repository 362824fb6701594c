package beeper

import (
	"encoding/json"
	"strings"
	"time"

	"hearth/internal/sortkey"
)

// Chat types as the API spells them.
const (
	ChatSingle = "single"
	ChatGroup  = "group"
)

// User is a chat participant or an account's own user.
type User struct {
	ID            string `json:"id"`
	FullName      string `json:"fullName,omitempty"`
	Username      string `json:"username,omitempty"`
	PhoneNumber   string `json:"phoneNumber,omitempty"`
	Email         string `json:"email,omitempty"`
	ImgURL        string `json:"imgURL,omitempty"`
	IsSelf        bool   `json:"isSelf,omitempty"`
	CannotMessage bool   `json:"cannotMessage,omitempty"`
}

// Account is one connected chat network account in Beeper Desktop.
type Account struct {
	AccountID string `json:"accountID"`
	// Bridge is required by SDK 5 but absent before Beeper Desktop 4.2.785.
	Bridge  Bridge `json:"bridge"`
	User    User   `json:"user"`
	Network string `json:"network,omitempty"`
}

// Bridge providers as SDK 5 spells them.
const (
	BridgeCloud       = "cloud"
	BridgeSelfHosted  = "self-hosted"
	BridgeLocal       = "local"
	BridgePlatformSDK = "platform-sdk"
)

// Bridge says which bridge serves an account (for example local-whatsapp, local, whatsapp).
type Bridge struct {
	ID       string `json:"id"`
	Provider string `json:"provider"`
	Type     string `json:"type"`
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
	IsLowPriority          bool         `json:"isLowPriority,omitempty"`
	IsMarkedUnread         bool         `json:"isMarkedUnread,omitempty"`
	IsMuted                bool         `json:"isMuted,omitempty"`
	IsPinned               bool         `json:"isPinned,omitempty"`
	IsReadOnly             bool         `json:"isReadOnly,omitempty"`
	UnreadMentionsCount    int          `json:"unreadMentionsCount,omitempty"`
	Description            string       `json:"description,omitempty"`
	Preview                *Message     `json:"preview,omitempty"`
	// Draft is what the chat's composer holds (Desktop API v4.2.808 and
	// later); nil when it is empty or the Beeper version does not say.
	Draft *ChatDraft `json:"draft,omitempty"`
}

// ChatDraft is a chat's composer draft. Beeper keeps Text as Matrix HTML,
// converted from the plain text or Markdown it was given.
type ChatDraft struct {
	Text string `json:"text"`
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
	IsHidden        bool      `json:"isHidden,omitempty"`
	// Attachments are the message's media, if any (a photo, a voice note, a file).
	Attachments []Attachment `json:"attachments,omitempty"`
	// Reactions are the reactions to the message, where Beeper lists them
	// on it rather than (or as well as) as REACTION messages.
	Reactions []Reaction `json:"reactions,omitempty"`
	// SendStatus is set when the bridge reported on a message the owner sent.
	SendStatus *SendStatus `json:"sendStatus,omitempty"`
	// Seen is the message's read receipts, when the network reports them.
	Seen Seen `json:"seen,omitzero"`
}

// Message types as SDK 5 spells Message.Type.
const (
	TypeText     = "TEXT"
	TypeNotice   = "NOTICE"
	TypeImage    = "IMAGE"
	TypeVideo    = "VIDEO"
	TypeVoice    = "VOICE"
	TypeAudio    = "AUDIO"
	TypeFile     = "FILE"
	TypeSticker  = "STICKER"
	TypeLocation = "LOCATION"
	TypeReaction = "REACTION"
)

// Attachment types as SDK 5 spells Attachment.Type.
const (
	AttachmentImage   = "img"
	AttachmentVideo   = "video"
	AttachmentAudio   = "audio"
	AttachmentUnknown = "unknown"
)

// Attachment is one medium of a message (SDK 5's Attachment); Duration is
// in seconds, for audio and video.
type Attachment struct {
	Type        string  `json:"type"`
	ID          string  `json:"id,omitempty"`
	Duration    float64 `json:"duration,omitempty"`
	FileName    string  `json:"fileName,omitempty"`
	FileSize    float64 `json:"fileSize,omitempty"`
	MimeType    string  `json:"mimeType,omitempty"`
	IsGif       bool    `json:"isGif,omitempty"`
	IsSticker   bool    `json:"isSticker,omitempty"`
	IsVoiceNote bool    `json:"isVoiceNote,omitempty"`
	SrcURL      string  `json:"srcURL,omitempty"`
}

// Reaction is one participant's reaction to a message (SDK 5's Reaction):
// ReactionKey is an emoji when Emoji is set, else a network's key or shortcode.
type Reaction struct {
	ID            string `json:"id"`
	ParticipantID string `json:"participantID"`
	ReactionKey   string `json:"reactionKey"`
	Emoji         bool   `json:"emoji,omitempty"`
	ImgURL        string `json:"imgURL,omitempty"`
}

// Send statuses as SDK 5 spells SendStatus.Status.
const (
	StatusSuccess       = "SUCCESS"
	StatusPending       = "PENDING"
	StatusFailRetriable = "FAIL_RETRIABLE"
	StatusFailPermanent = "FAIL_PERMANENT"
)

// SendStatus is the bridge's report on delivering a message (SDK 5's
// Message.SendStatus). Message is meant for the owner; InternalError is
// for diagnostics only.
type SendStatus struct {
	Status           string    `json:"status"`
	Timestamp        time.Time `json:"timestamp,omitzero"`
	DeliveredToUsers []string  `json:"deliveredToUsers,omitempty"`
	InternalError    string    `json:"internalError,omitempty"`
	Message          string    `json:"message,omitempty"`
	Reason           string    `json:"reason,omitempty"`
}

// UnmarshalJSON reads SDK 5's object and, from older Beeper versions, a bare
// status string. Any other shape, and a timestamp that is not RFC 3339, is
// dropped rather than failing the whole page: one odd message must not make
// Beeper look unavailable.
func (s *SendStatus) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	*s = SendStatus{}
	switch {
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &s.Status)
	case len(b) == 0 || b[0] != '{':
		return nil // a shape no version declared: no report
	}
	// The fields as declared, but the timestamp, shadowed to be read leniently.
	type fields SendStatus
	var w struct {
		fields
		Timestamp json.RawMessage `json:"timestamp"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = SendStatus(w.fields)
	var ts string
	if json.Unmarshal(w.Timestamp, &ts) == nil {
		s.Timestamp, _ = time.Parse(time.RFC3339Nano, ts)
	}
	return nil
}

// SendState is what a message's send status means to the sender.
type SendState int

// Send states, from SendStatus.State.
const (
	// SendUnreported: no status, or one hearth does not know; a message the
	// owner sent that Beeper shows without a status counts as sent.
	SendUnreported SendState = iota
	// SendSucceeded: the network accepted it (SUCCESS).
	SendSucceeded
	// SendInProgress: Beeper is sending it (PENDING).
	SendInProgress
	// SendRetrying: a try failed and Beeper is still retrying (FAIL_RETRIABLE): not final.
	SendRetrying
	// SendFailedForGood: Beeper gave up (FAIL_PERMANENT, or an older version's failure string).
	SendFailedForGood
)

// State classifies the status; nil is SendUnreported. Older Beeper versions
// sent free strings: any mentioning a failure (or "error") is final, as before.
func (s *SendStatus) State() SendState {
	if s == nil {
		return SendUnreported
	}
	st := strings.ToUpper(strings.TrimSpace(s.Status))
	switch st {
	case StatusSuccess, "SENT", "DELIVERED":
		return SendSucceeded
	case StatusPending, "SENDING":
		return SendInProgress
	case StatusFailRetriable:
		return SendRetrying
	case StatusFailPermanent:
		return SendFailedForGood
	}
	if strings.Contains(st, "FAIL") || st == "ERROR" {
		return SendFailedForGood
	}
	return SendUnreported
}

// Text is the status for the owner: Beeper's message when it gave one, else the status.
func (s *SendStatus) Text() string {
	if s == nil {
		return ""
	}
	if s.Message != "" {
		return s.Message
	}
	return s.Status
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
func (k SortKey) Compare(o SortKey) int { return sortkey.Compare(string(k), string(o)) }

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

// Chat search scopes (SearchChatsQuery.Scope).
const (
	ScopeTitles       = "titles"
	ScopeParticipants = "participants"
)

// SearchChatsQuery filters and pages GET /v1/chats/search; zero values are
// left out, so Beeper's defaults apply (muted chats included, all inboxes).
type SearchChatsQuery struct {
	Query              string
	Scope              string // ScopeTitles (title and network) or ScopeParticipants
	AccountIDs         []string
	Type               string // ChatSingle, ChatGroup or "any"
	Inbox              string // "primary", "low-priority" or "archive"
	UnreadOnly         bool
	ExcludeMuted       bool // sends includeMuted=false
	LastActivityAfter  time.Time
	LastActivityBefore time.Time
	Limit              int
	Cursor             string
	Direction          string
}

// SearchMessagesQuery filters and pages GET /v1/messages/search; zero values are left out.
type SearchMessagesQuery struct {
	Query              string
	AccountIDs         []string
	ChatIDs            []string
	ChatType           string // ChatSingle or ChatGroup
	Sender             string // "me", "others" or a user ID
	DateAfter          time.Time
	DateBefore         time.Time
	MediaTypes         []string // "any", "video", "image", "link", "file"
	ExcludeMuted       bool     // sends includeMuted=false
	IncludeLowPriority bool     // sends excludeLowPriority=false
	Limit              int
	Cursor             string
	Direction          string
}

// MessageSearchPage is one page of found messages, newest first, with the
// chats they belong to keyed by chat ID.
type MessageSearchPage struct {
	Items        []Message
	Chats        map[string]Chat
	HasMore      bool
	OldestCursor string
	NewestCursor string
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

// FocusRequest is the body of POST /v1/focus (SDK 5's FocusParams); every
// field is optional: without ChatID Beeper only comes to the front.
type FocusRequest struct {
	ChatID              string `json:"chatID,omitempty"`
	MessageID           string `json:"messageID,omitempty"`
	DraftText           string `json:"draftText,omitempty"`
	DraftAttachmentPath string `json:"draftAttachmentPath,omitempty"`
}

// FocusResult says whether Beeper Desktop opened (SDK 5's FocusResponse).
type FocusResult struct {
	Success bool `json:"success"`
}

// Info describes the running Beeper Desktop app (GET /v1/info, which needs no token).
type Info struct {
	App struct {
		BundleID string `json:"bundle_id"`
		Name     string `json:"name"`
		Version  string `json:"version"`
	} `json:"app"`
	Endpoints struct {
		MCP   string `json:"mcp"`
		OAuth struct {
			AuthorizationEndpoint string `json:"authorization_endpoint"`
			IntrospectionEndpoint string `json:"introspection_endpoint"`
			RegistrationEndpoint  string `json:"registration_endpoint"`
			RevocationEndpoint    string `json:"revocation_endpoint"`
			TokenEndpoint         string `json:"token_endpoint"`
			UserinfoEndpoint      string `json:"userinfo_endpoint"`
		} `json:"oauth"`
		Spec     string `json:"spec"`
		WSEvents string `json:"ws_events"`
	} `json:"endpoints"`
	Platform struct {
		Arch    string `json:"arch"`
		OS      string `json:"os"`
		Release string `json:"release,omitempty"`
	} `json:"platform"`
	Server struct {
		BaseURL      string `json:"base_url"`
		Hostname     string `json:"hostname"`
		MCPEnabled   bool   `json:"mcp_enabled"`
		Port         int    `json:"port"`
		RemoteAccess bool   `json:"remote_access"`
		Status       string `json:"status"`
	} `json:"server"`
	// Version is the X-Beeper-Desktop-Version response header.
	Version string `json:"-"`
}
