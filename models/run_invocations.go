package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gorm.io/gorm"

	"hearth/internal/strictjson"
)

// Invocation outcomes (issue 16): how one agent invocation of a run ended.
const (
	InvocationPublished = "published" // hearth accepted its publication
	InvocationConflict  = "conflict"  // a revision conflict: the next invocation reads again
	InvocationRefused   = "refused"   // hearth refused its publication (422): the next one repairs it
	InvocationFailed    = "failed"    // the agent failed or printed no publication
	InvocationUnknown   = "unknown"   // the runner stopped while the agent ran
)

// Bounds on a refused invocation's errors as hearth keeps them.
const (
	// MaxRefusalErrors bounds the errors kept per refused invocation.
	MaxRefusalErrors = 20
	maxRefusalPath   = 300
	maxRefusalText   = 200
	maxFoundRunes    = 80
	maxTokenRunes    = 32 // a quoted value or path segment longer than this is described, not shown
)

// ErrInvocationNotStarted means a report names an invocation the run has not started.
var ErrInvocationNotStarted = errors.New("the run has not started this invocation")

// RefusalError is one error of a refused publication as hearth keeps it
// and gives it back to the agent: where, what was expected and what was
// found, redacted so it never carries message contents.
type RefusalError struct {
	Path     string `json:"path"`
	Expected string `json:"expected"`
	Found    string `json:"found"`
}

// RefusalErrorOf is a validation error as a refusal keeps it: the message
// (which may quote the value) is dropped, and quoted values that are not
// short tokens, like a draft's text, become "a text of N characters".
func RefusalErrorOf(fe strictjson.FieldError) RefusalError {
	return RefusalError{Path: fe.Path, Expected: fe.Expected, Found: fe.Found}.redacted()
}

// RefusalErrorsOf redacts and bounds a refusal's error list.
func RefusalErrorsOf(fes []strictjson.FieldError) []RefusalError {
	out := make([]RefusalError, 0, min(len(fes), MaxRefusalErrors))
	for _, fe := range fes[:min(len(fes), MaxRefusalErrors)] {
		out = append(out, RefusalErrorOf(fe))
	}
	return out
}

// redacted applies the redaction; it is stable, so a report replayed
// after redaction compares equal.
func (e RefusalError) redacted() RefusalError {
	return RefusalError{Path: redactPath(e.Path), Expected: clip(redactQuoted(e.Expected), maxRefusalText), Found: clip(redactQuoted(e.Found), maxFoundRunes)}
}

// tokenLike is a short value without spaces: an ID, an enum word, a field name.
func tokenLike(s string) bool {
	if utf8.RuneCountInString(s) > maxTokenRunes || strings.HasSuffix(s, "…") {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '"' {
			return false
		}
	}
	return true
}

// redactPath replaces each JSON Pointer segment that is not token-like (an
// unknown field named with free text) by "…".
func redactPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if !tokenLike(s) {
			segs[i] = "…"
		}
	}
	return clip(strings.Join(segs, "/"), maxRefusalPath)
}

// redactQuoted replaces each Go-quoted string in s that is not token-like
// with its length, e.g. `string "lunch with Ana"` → "string, a text of 14 characters".
func redactQuoted(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := closingQuote(s, i)
		if j < 0 {
			// An unterminated quote: nothing after it is shown.
			b.WriteString(strings.TrimRight(s[:i], " "))
			b.WriteString(", a text")
			return b.String()
		}
		val, err := strconv.Unquote(s[i : j+1])
		switch {
		case err == nil && tokenLike(val):
			b.WriteString(s[:i])
			b.WriteString(strconv.Quote(val))
		default:
			prefix := strings.TrimRight(s[:i], " ")
			b.WriteString(prefix)
			if prefix != "" {
				b.WriteString(", ")
			}
			n := utf8.RuneCountInString(val)
			if strings.HasSuffix(val, "…") {
				fmt.Fprintf(&b, "a text of more than %d characters", n-1)
			} else {
				fmt.Fprintf(&b, "a text of %d characters", n)
			}
		}
		s = s[j+1:]
	}
}

// closingQuote is the index of the quote ending the Go-quoted string at i, or -1.
func closingQuote(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// RunInvocation is one agent invocation of a run, as the runner reported its end.
type RunInvocation struct {
	RunID            string `gorm:"primaryKey"`
	N                int    `gorm:"primaryKey;column:n"`
	PublicationRunID string
	Outcome          string
	Errors           string // JSON []RefusalError
	Tokens           *int64
	CostUSD          *float64 `gorm:"column:cost_usd"`
	DurationMS       int64    `gorm:"column:duration_ms"`
	FinishedAt       time.Time
}

// InvocationView is an invocation as the API and the Runs page show it.
type InvocationView struct {
	N                int            `json:"n"`
	PublicationRunID string         `json:"publicationRunId"`
	Outcome          string         `json:"outcome"`
	Errors           []RefusalError `json:"errors,omitempty"`
	Tokens           *int64         `json:"tokens,omitempty"`
	CostUSD          *float64       `json:"costUsd,omitempty"`
	DurationMS       int64          `json:"durationMs,omitempty"`
	FinishedAt       time.Time      `json:"finishedAt"`
}

func (r RunInvocation) view() InvocationView {
	v := InvocationView{N: r.N, PublicationRunID: r.PublicationRunID, Outcome: r.Outcome, Tokens: r.Tokens, CostUSD: r.CostUSD, DurationMS: r.DurationMS, FinishedAt: r.FinishedAt}
	json.Unmarshal([]byte(r.Errors), &v.Errors) // written by FinishInvocation only
	return v
}

// InvocationFinishIn is POST /api/runs/{id}/invocations/{n}/finish: how
// invocation n ended and what it spent.
type InvocationFinishIn struct {
	PublicationRunID string         `json:"publicationRunId"`
	Outcome          string         `json:"outcome"`
	Errors           []RefusalError `json:"errors,omitempty"`
	Tokens           *int64         `json:"tokens,omitempty"`
	CostUSD          *float64       `json:"costUsd,omitempty"`
	DurationMS       int64          `json:"durationMs,omitempty"`
}

// DecodeInvocationFinish reads POST /api/runs/{id}/invocations/{n}/finish.
func DecodeInvocationFinish(body []byte) (InvocationFinishIn, error) {
	var in InvocationFinishIn
	return in, decodeStrict(body, &in)
}

// PublicationRunIDOf is the runId invocation n of run publishes under.
func PublicationRunIDOf(runID string, n int) string { return fmt.Sprintf("%s-%d", runID, n) }

// usageErrors checks reported usage the way a run's finish does.
func usageErrors(v *validator, durationMS int64, tokens *int64, cost *float64) {
	if durationMS < 0 {
		v.add("/durationMs", "must not be negative", "integer >= 0", fmt.Sprint(durationMS))
	}
	if cost != nil && (*cost < 0 || math.IsNaN(*cost) || *cost > 1e6) {
		v.add("/costUsd", "out of range", "0 to 1000000", fmt.Sprint(*cost))
	}
	if tokens != nil && *tokens < 0 {
		v.add("/tokens", "must not be negative", "integer >= 0", fmt.Sprint(*tokens))
	}
}

// FinishInvocation records how invocation n of a run ended, and adds its
// usage to the run's at once, so the cost cap counts it whatever the run's
// outcome. The same report again is answered with the recorded one (a
// runner restarted after reporting); a different one is
// ErrIdempotencyConflict. Refusal errors are kept redacted.
func (s *Store) FinishInvocation(ctx context.Context, runner, runID string, n int, in InvocationFinishIn) (InvocationView, error) {
	if n < 1 || n > MaxRunInvocations {
		return InvocationView{}, fmt.Errorf("%w: invocation %d: a run has invocations 1 to %d", ErrInvalidInput, n, MaxRunInvocations)
	}
	if err := s.ownRun(ctx, runner, runID); err != nil {
		return InvocationView{}, err
	}
	v := &validator{}
	if in.PublicationRunID != PublicationRunIDOf(runID, n) {
		v.add("/publicationRunId", "not this invocation's publication runId", PublicationRunIDOf(runID, n), quoteFound(in.PublicationRunID))
	}
	v.enum("/outcome", in.Outcome, []string{InvocationPublished, InvocationConflict, InvocationRefused, InvocationFailed, InvocationUnknown})
	usageErrors(v, in.DurationMS, in.Tokens, in.CostUSD)
	if len(in.Errors) > 0 && in.Outcome != InvocationRefused {
		v.add("/errors", "only a refused invocation has errors", "no errors", fmt.Sprintf("%d errors", len(in.Errors)))
	}
	if v.count("/errors", len(in.Errors), MaxRefusalErrors) {
		for i, e := range in.Errors {
			p := fmt.Sprintf("/errors/%d", i)
			v.text(p+"/path", e.Path, 2*maxRefusalPath, false)
			v.text(p+"/expected", e.Expected, 2*maxRefusalText, false)
			v.text(p+"/found", e.Found, 2*maxRefusalText, false)
		}
	}
	if len(v.errs) > 0 {
		return InvocationView{}, &ValidationError{Errors: v.errs}
	}
	errs := make([]RefusalError, len(in.Errors))
	for i, e := range in.Errors {
		errs[i] = e.redacted()
	}
	raw, _ := json.Marshal(errs)
	row := RunInvocation{RunID: runID, N: n, PublicationRunID: in.PublicationRunID, Outcome: in.Outcome, Errors: string(raw),
		Tokens: in.Tokens, CostUSD: in.CostUSD, DurationMS: in.DurationMS}
	err := s.write(ctx, func(tx *gorm.DB) error {
		var prior []RunInvocation
		if err := tx.Where("run_id = ? AND n = ?", runID, n).Limit(1).Find(&prior).Error; err != nil {
			return err
		}
		if len(prior) == 1 {
			if !sameReport(prior[0], row) {
				return ErrIdempotencyConflict
			}
			row = prior[0]
			return nil
		}
		var run Run
		if err := tx.Take(&run, "id = ?", runID).Error; err != nil {
			return notFound(err)
		}
		if run.State != RunRunning {
			return ErrRunFinished
		}
		if n > run.Invocations {
			return ErrInvocationNotStarted
		}
		now := s.clock()
		row.FinishedAt = now
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		upd := map[string]any{"duration_ms": gorm.Expr("duration_ms + ?", row.DurationMS), "updated_at": now}
		if row.Tokens != nil {
			upd["tokens"] = gorm.Expr("tokens + ?", *row.Tokens)
		}
		if row.CostUSD != nil {
			upd["cost_usd"] = gorm.Expr("cost_usd + ?", *row.CostUSD)
		}
		return tx.Model(&Run{}).Where("id = ?", runID).Updates(upd).Error
	})
	if err != nil {
		return InvocationView{}, classify("finish invocation", err)
	}
	return row.view(), nil
}

// sameReport compares what a report says, not when it was recorded.
func sameReport(a, b RunInvocation) bool {
	eqI := (a.Tokens == nil) == (b.Tokens == nil) && (a.Tokens == nil || *a.Tokens == *b.Tokens)
	eqC := (a.CostUSD == nil) == (b.CostUSD == nil) && (a.CostUSD == nil || *a.CostUSD == *b.CostUSD)
	return eqI && eqC && a.PublicationRunID == b.PublicationRunID && a.Outcome == b.Outcome && a.Errors == b.Errors && a.DurationMS == b.DurationMS
}

// invocationsOf reads the invocations of runs, by run ID, in order.
func invocationsOf(tx *gorm.DB, runIDs []string) (map[string][]InvocationView, error) {
	out := map[string][]InvocationView{}
	if len(runIDs) == 0 {
		return out, nil
	}
	var rows []RunInvocation
	if err := tx.Where("run_id IN ?", runIDs).Order("run_id, n").Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.RunID] = append(out[r.RunID], r.view())
	}
	return out, nil
}
