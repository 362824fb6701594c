package beeper

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors; test with errors.Is. Every client error is an *APIError wrapping one or more of them.
var (
	// ErrUnauthorized means the token is missing, invalid, expired or lacks scope (401, 403).
	ErrUnauthorized = errors.New("beeper: unauthorized")
	// ErrNotFound means the chat or message does not exist (404).
	ErrNotFound = errors.New("beeper: not found")
	// ErrRateLimited means Beeper asked us to slow down (429); see APIError.RetryAfter.
	ErrRateLimited = errors.New("beeper: rate limited")
	// ErrUnavailable means Beeper could not be reached or failed (5xx, refused, DNS, timeout).
	ErrUnavailable = errors.New("beeper: unavailable")
	// ErrOutcomeUnknown means a send may or may not have been accepted: reconcile by reading the chat.
	ErrOutcomeUnknown = errors.New("beeper: send outcome unknown")
)

// APIError is the error every Client method returns; Status is 0 when no response arrived.
type APIError struct {
	Status     int
	Code       string
	Message    string
	RetryAfter time.Duration
	op         string
	err        error
}

// Error reports the call, the status or transport failure, and Beeper's message.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("beeper: ")
	b.WriteString(e.op)
	b.WriteString(": ")
	switch {
	case e.Status != 0:
		b.WriteString(strconv.Itoa(e.Status))
		if e.Code != "" {
			b.WriteString(" " + e.Code)
		}
	case errors.Is(e.err, ErrOutcomeUnknown):
		b.WriteString("outcome unknown")
	case errors.Is(e.err, ErrUnavailable):
		b.WriteString("unavailable")
	default:
		b.WriteString("failed")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Unwrap exposes the sentinels and any transport cause to errors.Is and errors.As.
func (e *APIError) Unwrap() error { return e.err }

// statusError builds the error for an HTTP error response; the status makes the outcome definite.
func statusError(op string, resp *http.Response, code, message string) *APIError {
	e := &APIError{Status: resp.StatusCode, Code: code, Message: message, op: op}
	switch s := resp.StatusCode; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		e.err = ErrUnauthorized
	case s == http.StatusNotFound:
		e.err = ErrNotFound
	case s == http.StatusTooManyRequests:
		e.err = ErrRateLimited
		e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	case s == http.StatusRequestTimeout || s >= 500:
		e.err = ErrUnavailable
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// parseRetryAfter reads delay-seconds or an HTTP date; anything else means "no advice".
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// transportError builds the error for a call that got no usable response.
// mayHaveArrived marks a non-idempotent call whose request was written, so the
// server may have acted on it even though we never heard back.
func transportError(op string, cause error, callerCancelled, mayHaveArrived bool) *APIError {
	errs := []error{cause}
	if !callerCancelled {
		errs = append(errs, ErrUnavailable)
	}
	if mayHaveArrived {
		errs = append(errs, ErrOutcomeUnknown)
	}
	return &APIError{Message: cause.Error(), op: op, err: errors.Join(errs...)}
}

// Error bodies: newer Beeper sends {code, message}, older {error, code}.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Error   string `json:"error"`
}

func (b errorBody) text() string {
	if b.Message != "" {
		return b.Message
	}
	return b.Error
}
