// Package beeper is a small client for the Beeper Desktop local API. It
// decodes what the official SDK 5 (npm @beeper/desktop-api 5.0.0) declares,
// still reading older Beeper versions' shapes; beepertest is its fake, and
// e2e/beeper_sdk_test.go proves the fake against that SDK.
package beeper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultBaseURL is where Beeper Desktop serves its API unless told otherwise.
const DefaultBaseURL = "http://localhost:23373"

// DefaultTimeout bounds each call, including reading the response body.
const DefaultTimeout = 10 * time.Second

// maxBody caps how much of a response we read, so a confused server cannot exhaust memory.
const maxBody = 8 << 20

// Client calls the Beeper Desktop API. It never retries: callers decide, and a
// send must not be repeated behind the owner's back.
type Client struct {
	baseURL string
	token   string
	hc      *http.Client
	timeout time.Duration
}

// Option configures a Client.
type Option func(*Client)

// WithTimeout sets the per-call timeout; d <= 0 leaves only the caller's context.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithHTTPClient sets the underlying HTTP client (its own Timeout also applies).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// NewClient returns a client for baseURL (for example DefaultBaseURL) using token as Bearer.
func NewClient(baseURL, token string, opts ...Option) *Client {
	c := &Client{
		baseURL: strings.TrimRight(baseURL, "/"),
		token:   token,
		hc:      http.DefaultClient,
		timeout: DefaultTimeout,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL returns the URL the client talks to, for status displays.
func (c *Client) BaseURL() string { return c.baseURL }

// Info describes the running app; useful as a cheap reachability and token check.
func (c *Client) Info(ctx context.Context) (Info, error) {
	var info Info
	h, err := c.do(ctx, http.MethodGet, "/v1/info", nil, nil, &info)
	info.Version = h.Get("X-Beeper-Desktop-Version")
	return info, err
}

// Accounts lists the connected accounts.
func (c *Client) Accounts(ctx context.Context) ([]Account, error) {
	var accounts []Account
	_, err := c.do(ctx, http.MethodGet, "/v1/accounts", nil, nil, &accounts)
	return accounts, err
}

// Chats lists chats, most recent activity first.
func (c *Client) Chats(ctx context.Context, q ChatsQuery) (ChatPage, error) {
	v := url.Values{}
	for _, id := range q.AccountIDs {
		v.Add("accountIDs", id)
	}
	setNonEmpty(v, "cursor", q.Cursor)
	setNonEmpty(v, "direction", q.Direction)
	return c.chatPage(ctx, "/v1/chats", v)
}

// SearchChats searches chats by title, network or participant names, and
// filters; zero-valued fields are not sent.
func (c *Client) SearchChats(ctx context.Context, q SearchChatsQuery) (ChatPage, error) {
	v := url.Values{}
	setNonEmpty(v, "query", q.Query)
	setNonEmpty(v, "scope", q.Scope)
	for _, id := range q.AccountIDs {
		v.Add("accountIDs", id)
	}
	setNonEmpty(v, "type", q.Type)
	setNonEmpty(v, "inbox", q.Inbox)
	if q.UnreadOnly {
		v.Set("unreadOnly", "true")
	}
	if q.ExcludeMuted {
		v.Set("includeMuted", "false")
	}
	setTime(v, "lastActivityAfter", q.LastActivityAfter)
	setTime(v, "lastActivityBefore", q.LastActivityBefore)
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	setNonEmpty(v, "cursor", q.Cursor)
	setNonEmpty(v, "direction", q.Direction)
	return c.chatPage(ctx, "/v1/chats/search", v)
}

// SearchMessages searches messages across chats, newest first; zero-valued fields are not sent.
func (c *Client) SearchMessages(ctx context.Context, q SearchMessagesQuery) (MessageSearchPage, error) {
	v := url.Values{}
	setNonEmpty(v, "query", q.Query)
	for _, id := range q.AccountIDs {
		v.Add("accountIDs", id)
	}
	for _, id := range q.ChatIDs {
		v.Add("chatIDs", id)
	}
	setNonEmpty(v, "chatType", q.ChatType)
	setNonEmpty(v, "sender", q.Sender)
	setTime(v, "dateAfter", q.DateAfter)
	setTime(v, "dateBefore", q.DateBefore)
	for _, m := range q.MediaTypes {
		v.Add("mediaTypes", m)
	}
	if q.ExcludeMuted {
		v.Set("includeMuted", "false")
	}
	if q.IncludeLowPriority {
		v.Set("excludeLowPriority", "false")
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	setNonEmpty(v, "cursor", q.Cursor)
	setNonEmpty(v, "direction", q.Direction)
	var w struct {
		wirePage[Message]
		Chats map[string]Chat `json:"chats"`
	}
	if _, err := c.do(ctx, http.MethodGet, "/v1/messages/search", v, nil, &w); err != nil {
		return MessageSearchPage{}, err
	}
	return MessageSearchPage{Items: w.Items, Chats: w.Chats, HasMore: w.HasMore, OldestCursor: string(w.OldestCursor), NewestCursor: string(w.NewestCursor)}, nil
}

func (c *Client) chatPage(ctx context.Context, path string, v url.Values) (ChatPage, error) {
	var w wirePage[Chat]
	if _, err := c.do(ctx, http.MethodGet, path, v, nil, &w); err != nil {
		return ChatPage{}, err
	}
	return ChatPage{Items: w.Items, HasMore: w.HasMore, OldestCursor: string(w.OldestCursor), NewestCursor: string(w.NewestCursor)}, nil
}

// Chat fetches one chat.
func (c *Client) Chat(ctx context.Context, chatID string) (Chat, error) {
	var chat Chat
	p, err := chatPath(chatID)
	if err != nil {
		return chat, err
	}
	_, err = c.do(ctx, http.MethodGet, p, nil, nil, &chat)
	return chat, err
}

// Messages fetches one page of a chat's messages, sorted oldest first by SortKey
// because the API leaves page order open.
func (c *Client) Messages(ctx context.Context, chatID string, q MessagesQuery) (MessagePage, error) {
	p, err := chatPath(chatID)
	if err != nil {
		return MessagePage{}, err
	}
	v := url.Values{}
	setNonEmpty(v, "cursor", q.Cursor)
	setNonEmpty(v, "direction", q.Direction)
	var w wirePage[Message]
	if _, err := c.do(ctx, http.MethodGet, p+"/messages", v, nil, &w); err != nil {
		return MessagePage{}, err
	}
	slices.SortStableFunc(w.Items, func(a, b Message) int { return a.SortKey.Compare(b.SortKey) })
	return MessagePage{Items: w.Items, HasMore: w.HasMore, OldestCursor: string(w.OldestCursor), NewestCursor: string(w.NewestCursor)}, nil
}

// Message fetches one message by its ID or, on newer Beeper versions, its pendingMessageID.
func (c *Client) Message(ctx context.Context, chatID, messageID string) (Message, error) {
	var m Message
	p, err := chatPath(chatID)
	if err != nil {
		return m, err
	}
	if messageID == "" {
		return m, errors.New("beeper: empty message ID")
	}
	_, err = c.do(ctx, http.MethodGet, p+"/messages/"+url.PathEscape(messageID), nil, nil, &m)
	return m, err
}

// MarkRead marks a chat read through messageID (the whole chat when it is
// empty) and returns the chat as it is afterwards.
func (c *Client) MarkRead(ctx context.Context, chatID, messageID string) (Chat, error) {
	var chat Chat
	p, err := chatPath(chatID)
	if err != nil {
		return chat, err
	}
	body := struct {
		MessageID string `json:"messageID,omitempty"`
	}{messageID}
	_, err = c.do(ctx, http.MethodPost, p+"/read", nil, body, &chat)
	return chat, err
}

// Archive moves a chat to the archive, or back to the inbox when archived is false.
func (c *Client) Archive(ctx context.Context, chatID string, archived bool) error {
	p, err := chatPath(chatID)
	if err != nil {
		return err
	}
	body := struct {
		Archived bool `json:"archived"`
	}{archived}
	_, err = c.do(ctx, http.MethodPost, p+"/archive", nil, body, nil)
	return err
}

// SetDraft puts text in the chat's composer (PATCH /v1/chats/{chatID},
// Desktop API v4.2.808) and returns the chat as it is afterwards. Beeper
// takes it only while the composer is empty, so the owner's own typing is
// never overwritten; older versions answer 404 or 405.
func (c *Client) SetDraft(ctx context.Context, chatID, text string) (Chat, error) {
	if strings.TrimSpace(text) == "" {
		return Chat{}, errors.New("beeper: set draft: empty text")
	}
	return c.patchDraft(ctx, chatID, &ChatDraft{Text: text})
}

// ClearDraft empties the chat's composer, text and attachments ({draft: null}).
func (c *Client) ClearDraft(ctx context.Context, chatID string) (Chat, error) {
	return c.patchDraft(ctx, chatID, nil)
}

func (c *Client) patchDraft(ctx context.Context, chatID string, d *ChatDraft) (Chat, error) {
	var chat Chat
	p, err := chatPath(chatID)
	if err != nil {
		return chat, err
	}
	body := struct {
		Draft *ChatDraft `json:"draft"`
	}{d}
	_, err = c.do(ctx, http.MethodPatch, p, nil, body, &chat)
	return chat, err
}

// Focus opens Beeper Desktop on the owner's computer, on a chat (and
// message) when given, with DraftText in its message field: the owner
// finishes and sends it there. It sends nothing.
func (c *Client) Focus(ctx context.Context, req FocusRequest) (FocusResult, error) {
	var res FocusResult
	_, err := c.do(ctx, http.MethodPost, "/v1/focus", nil, req, &res)
	return res, err
}

// Send posts a text message, once; Beeper takes it only from a token created
// with "Allow sensitive actions" (else 403). If the request may have reached
// Beeper but no answer came back, the error satisfies errors.Is(err,
// ErrOutcomeUnknown): read the chat to learn whether it was sent before
// offering another try.
func (c *Client) Send(ctx context.Context, chatID string, req SendRequest) (SendResult, error) {
	var res SendResult
	p, err := chatPath(chatID)
	if err != nil {
		return res, err
	}
	if strings.TrimSpace(req.Text) == "" {
		return res, errors.New("beeper: send: empty text")
	}
	_, err = c.do(ctx, http.MethodPost, p+"/messages", nil, req, &res)
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusForbidden {
		apiErr.Message += ` (sending needs a token created with "Allow sensitive actions")`
	}
	return res, err
}

// chatPath escapes the chat ID as one path segment: Matrix room IDs contain '!' and ':'.
func chatPath(chatID string) (string, error) {
	if chatID == "" {
		return "", errors.New("beeper: empty chat ID")
	}
	return "/v1/chats/" + url.PathEscape(chatID), nil
}

func setNonEmpty(v url.Values, key, value string) {
	if value != "" {
		v.Set(key, value)
	}
}

// setTime sends an instant as ISO 8601 UTC with milliseconds, the API's own format.
func setTime(v url.Values, key string, t time.Time) {
	if !t.IsZero() {
		v.Set(key, t.UTC().Format(TimeFormat))
	}
}

// TimeFormat is how the API writes instants: ISO 8601 UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// wirePage decodes cursors leniently: they are opaque and could arrive as numbers.
type wirePage[T any] struct {
	Items        []T     `json:"items"`
	HasMore      bool    `json:"hasMore"`
	OldestCursor SortKey `json:"oldestCursor"`
	NewestCursor SortKey `json:"newestCursor"`
}

// do performs one request without retrying and decodes a 2xx JSON body into out.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, in, out any) (http.Header, error) {
	op := method + " " + path
	callCtx := ctx
	if c.timeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	// A non-idempotent request that was written may have been acted on even if
	// no response arrives; the trace tells us whether it got that far.
	var wrote atomic.Bool
	callCtx = httptrace.WithClientTrace(callCtx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) },
	})
	unsafe := method != http.MethodGet && method != http.MethodHead

	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("beeper: %s: encode: %w", op, err)
		}
		body = bytes.NewReader(b)
	}
	u := c.baseURL + path
	if len(query) > 0 {
		u += "?" + query.Encode() // Encode repeats the key for each value, as the API expects.
	}
	req, err := http.NewRequestWithContext(callCtx, method, u, body)
	if err != nil {
		return nil, fmt.Errorf("beeper: %s: %w", op, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, transportError(op, err, errors.Is(ctx.Err(), context.Canceled), unsafe && wrote.Load())
	}
	defer resp.Body.Close()
	raw, readErr := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if resp.StatusCode >= 300 {
		// The status alone is a definite answer, even if the body was cut short.
		var eb errorBody
		_ = json.Unmarshal(raw, &eb)
		return resp.Header, statusError(op, resp, eb.Code, eb.text())
	}
	if readErr != nil {
		return resp.Header, transportError(op, readErr, errors.Is(ctx.Err(), context.Canceled), unsafe)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			// A 2xx means Beeper accepted a send; without the body we cannot say what it did.
			return resp.Header, transportError(op, fmt.Errorf("decode response: %w", err), false, unsafe)
		}
	}
	return resp.Header, nil
}

// FromEnv returns the base URL (EnvBaseURL, default DefaultBaseURL) and the
// token from BEEPER_ACCESS_TOKEN, the variables the official SDKs read.
func FromEnv() (baseURL, token string) {
	baseURL = EnvBaseURL()
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	return baseURL, strings.TrimSpace(os.Getenv("BEEPER_ACCESS_TOKEN"))
}

// EnvBaseURL returns BEEPER_BASE_URL (SDK 5's name) or else
// BEEPER_DESKTOP_BASE_URL (SDK 4's), trimmed; "" when neither is set.
func EnvBaseURL() string {
	for _, k := range []string{"BEEPER_BASE_URL", "BEEPER_DESKTOP_BASE_URL"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
	}
	return ""
}

// ReadTokenFile reads a token from path, refusing a file that group or others
// can read, because the token can send messages as the owner.
func ReadTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("beeper: token file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("beeper: token file: %w", err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("beeper: token file %s is accessible by group or others (mode %04o); run chmod 600 %s", path, perm, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", fmt.Errorf("beeper: token file %s: %w", path, err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" {
		return "", fmt.Errorf("beeper: token file %s is empty", path)
	}
	return token, nil
}
