// Package apiclient is the one Go client of hearth's HTTP API: base URL,
// bearer token, timeouts, JSON bodies, and non-2xx answers as typed errors
// that keep the status, the server's error envelope and Retry-After. The
// CLI, the runner, `hearth mcp` and the e2e fake agent all call hearth
// through it. It knows the API's wire format, never the store.
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// DefaultTimeout bounds one request of a client made by New; a long poll
// uses WithTimeout.
const DefaultTimeout = 30 * time.Second

// DefaultRetries are the waits before each retry of a transient failure of
// a write (PostRetrying's, and the runner's publication).
var DefaultRetries = []time.Duration{500 * time.Millisecond, 2 * time.Second, 5 * time.Second}

// maxAnswerBytes bounds what is read of one answer: a full agent context
// is the largest hearth serves.
const maxAnswerBytes = 64 << 20

// Client calls hearth at one base URL with one agent token. It is safe for
// concurrent use.
type Client struct {
	base, token string
	http        *http.Client
}

// New is a client of hearth at base (no trailing slash) with token, each
// request bounded by DefaultTimeout.
func New(base, token string) *Client {
	return &Client{base: base, token: token, http: &http.Client{Timeout: DefaultTimeout}}
}

// WithTimeout is the same client with its own per-request bound: a long
// poll outlasts DefaultTimeout.
func (c *Client) WithTimeout(d time.Duration) *Client {
	return &Client{base: c.base, token: c.token, http: &http.Client{Timeout: d}}
}

// Base is the base URL the client calls.
func (c *Client) Base() string { return c.base }

// Response is one exchange's answer, whatever its status.
type Response struct {
	Status int
	Body   []byte
	// RetryAfter is the answer's Retry-After in seconds, when it had one.
	RetryAfter time.Duration
}

// OK reports a 2xx answer.
func (r Response) OK() bool { return r.Status >= 200 && r.Status < 300 }

// Transient reports whether a retry with the same bytes may succeed: a
// 5xx or a 429.
func (r Response) Transient() bool {
	return r.Status >= 500 || r.Status == http.StatusTooManyRequests
}

// Err is the answer as an *Error: what a caller returns for a status it
// does not accept.
func (r Response) Err() *Error {
	e := &Error{Status: r.Status, Body: r.Body, RetryAfter: r.RetryAfter}
	if json.Unmarshal(r.Body, &e.Envelope) != nil {
		e.Envelope = Envelope{}
	}
	return e
}

// Do sends one request to base+path with the token, Accept: application/json
// and, when body is not nil, Content-Type: application/json. Any answer is
// a Response; only a transport failure (hearth did not answer) is an error,
// a *TransportError.
func (c *Client) Do(ctx context.Context, method, path string, body []byte) (Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return Response{}, &TransportError{Err: err}
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return Response{}, &TransportError{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return Response{}, &TransportError{Err: err}
	}
	r := Response{Status: resp.StatusCode, Body: b}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		r.RetryAfter = time.Duration(s) * time.Second
	}
	return r, nil
}

// JSON sends in (nil: no body) as JSON and decodes a 2xx answer into out
// (nil: not decoded). A 5xx is an *Error and an undecodable 2xx a
// *DecodeError; a 4xx is returned as the Response for the caller to read,
// since for some calls (a refused publication, a held run) it is an
// answer, not a failure.
func (c *Client) JSON(ctx context.Context, method, path string, in, out any) (Response, error) {
	var raw []byte
	if in != nil {
		var err error
		if raw, err = json.Marshal(in); err != nil {
			return Response{}, err
		}
	}
	r, err := c.Do(ctx, method, path, raw)
	if err != nil {
		return r, err
	}
	if r.Status >= 500 {
		return r, r.Err()
	}
	if out != nil && r.Status < 300 {
		if err := json.Unmarshal(r.Body, out); err != nil {
			return r, &DecodeError{Status: r.Status, Body: r.Body, Err: err}
		}
	}
	return r, nil
}

// PostRetrying POSTs body, retrying transient failures (transport errors,
// 5xx, 429) after each of waits with the exact same bytes, so a retry is an
// idempotent replay; a Retry-After longer than the wait (up to 30 s) is
// honoured. It returns the first non-transient answer, whatever its status,
// or the last failure: an *Error, or a transport failure wrapped with the
// number of attempts.
func (c *Client) PostRetrying(ctx context.Context, path string, body []byte, waits []time.Duration) (Response, error) {
	for attempt := 0; ; attempt++ {
		r, err := c.Do(ctx, http.MethodPost, path, body)
		if err == nil && !r.Transient() {
			return r, nil
		}
		if attempt == len(waits) {
			if err != nil {
				return Response{}, fmt.Errorf("hearth unreachable after %d attempts: %w", attempt+1, err)
			}
			return Response{}, r.Err()
		}
		wait := waits[attempt]
		if r.RetryAfter > wait && r.RetryAfter <= 30*time.Second {
			wait = r.RetryAfter
		}
		select {
		case <-ctx.Done():
			return Response{}, &TransportError{Err: ctx.Err()}
		case <-time.After(wait):
		}
	}
}

// Envelope is hearth's error body.
type Envelope struct {
	Code      string          `json:"code"`
	Message   string          `json:"message"`
	Details   json.RawMessage `json:"details"`
	RequestID string          `json:"requestId"`
}

// EnvelopeCode is the code of an error body, or "" when it is none.
func EnvelopeCode(body []byte) string {
	var env Envelope
	json.Unmarshal(body, &env)
	return env.Code
}

// Error is an answer with a status its caller does not accept.
type Error struct {
	Status int
	// Envelope is the server's error body; its Code is "" when the body was
	// not one.
	Envelope   Envelope
	Body       []byte
	RetryAfter time.Duration
}

// Error is the envelope's code and message, its details indented and its
// request ID, or, for a body that is no envelope, the status alone.
func (e *Error) Error() string {
	if e.Envelope.Code == "" {
		return fmt.Sprintf("HTTP %d with an unreadable body", e.Status)
	}
	msg := fmt.Sprintf("%s: %s", e.Envelope.Code, e.Envelope.Message)
	if len(e.Envelope.Details) > 0 {
		msg += "\n" + indentJSON(e.Envelope.Details)
	}
	if e.Envelope.RequestID != "" {
		msg += "\n(request " + e.Envelope.RequestID + ")"
	}
	return msg
}

// Transient reports whether the same request may succeed later: a 5xx or a 429.
func (e *Error) Transient() bool { return Response{Status: e.Status}.Transient() }

// Unavailable reports whether the failure is hearth's rather than the
// request's: a transient status, or a body that is not hearth's envelope.
func (e *Error) Unavailable() bool { return e.Envelope.Code == "" || e.Transient() }

func indentJSON(raw []byte) string {
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

// TransportError is a request hearth never answered: refused, timed out,
// cut off, or cancelled.
type TransportError struct{ Err error }

// Error is the transport's own message.
func (e *TransportError) Error() string { return e.Err.Error() }

// Unwrap is the transport's error.
func (e *TransportError) Unwrap() error { return e.Err }

// DecodeError is a 2xx answer that is not the JSON the call expects.
type DecodeError struct {
	Status int
	Body   []byte
	Err    error
}

// Error says the answer was unreadable and why.
func (e *DecodeError) Error() string { return "unreadable answer from hearth: " + e.Err.Error() }

// Unwrap is the decoder's error.
func (e *DecodeError) Unwrap() error { return e.Err }

// Unavailable reports whether err (or an error it wraps) means hearth is
// unavailable or answered unreadably, so the same command may succeed
// later: a transport failure, a transient or unreadable *Error, or a
// *DecodeError. The CLI exits 2 for these.
func Unavailable(err error) bool {
	var te *TransportError
	var de *DecodeError
	var ae *Error
	switch {
	case errors.As(err, &te), errors.As(err, &de):
		return true
	case errors.As(err, &ae):
		return ae.Unavailable()
	}
	return false
}
