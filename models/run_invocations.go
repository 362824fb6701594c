package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// ErrInvocationNotStarted means a report names an invocation the run has not started.
var ErrInvocationNotStarted = errors.New("the run has not started this invocation")

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

func (r RunInvocation) View() contract.InvocationView {
	v := contract.InvocationView{N: r.N, PublicationRunID: r.PublicationRunID, Outcome: r.Outcome, Tokens: r.Tokens, CostUSD: r.CostUSD, DurationMS: r.DurationMS, FinishedAt: r.FinishedAt}
	json.Unmarshal([]byte(r.Errors), &v.Errors) // written by FinishInvocation only
	return v
}

// usageErrors checks reported usage the way a run's finish does: each
// count within the contract's bound, so the run's sums stay exact.
func usageErrors(v *contract.Validator, durationMS int64, tokens *int64, cost *float64) {
	if durationMS < 0 || durationMS > contract.MaxReportedDurationMS {
		v.Add("/durationMs", "out of range", fmt.Sprintf("integer 0 to %d", contract.MaxReportedDurationMS), fmt.Sprint(durationMS))
	}
	if cost != nil && (*cost < 0 || math.IsNaN(*cost) || *cost > contract.MaxReportedCostUSD) {
		v.Add("/costUsd", "out of range", fmt.Sprintf("0 to %d", contract.MaxReportedCostUSD), fmt.Sprint(*cost))
	}
	if tokens != nil && (*tokens < 0 || *tokens > contract.MaxReportedTokens) {
		v.Add("/tokens", "out of range", fmt.Sprintf("integer 0 to %d", contract.MaxReportedTokens), fmt.Sprint(*tokens))
	}
}

// FinishInvocation records how invocation n of a run ended, and adds its
// usage to the run's at once, so the cost cap counts it whatever the run's
// outcome. The same report again is answered with the recorded one (a
// runner restarted after reporting); a different one is
// ErrIdempotencyConflict. Refusal errors are kept redacted.
func (s *Store) FinishInvocation(ctx context.Context, runner, runID string, n int, in contract.InvocationFinishIn) (contract.InvocationView, error) {
	if n < 1 || n > contract.MaxRunInvocations {
		return contract.InvocationView{}, fmt.Errorf("%w: invocation %d: a run has invocations 1 to %d", ErrInvalidInput, n, contract.MaxRunInvocations)
	}
	if err := s.ownRun(ctx, runner, runID); err != nil {
		return contract.InvocationView{}, err
	}
	v := &contract.Validator{}
	if in.PublicationRunID != contract.PublicationRunID(runID, n) {
		v.Add("/publicationRunId", "not this invocation's publication runId", contract.PublicationRunID(runID, n), contract.QuoteFound(in.PublicationRunID))
	}
	v.Enum("/outcome", in.Outcome, []string{contract.InvocationPublished, contract.InvocationConflict, contract.InvocationRefused, contract.InvocationFailed, contract.InvocationUnknown})
	usageErrors(v, in.DurationMS, in.Tokens, in.CostUSD)
	if len(in.Errors) > 0 && in.Outcome != contract.InvocationRefused {
		v.Add("/errors", "only a refused invocation has errors", "no errors", fmt.Sprintf("%d errors", len(in.Errors)))
	}
	if v.Count("/errors", len(in.Errors), contract.MaxRefusalErrors) {
		for i, e := range in.Errors {
			p := fmt.Sprintf("/errors/%d", i)
			v.Text(p+"/path", e.Path, 2*contract.MaxRefusalPath, false)
			v.Text(p+"/expected", e.Expected, 2*contract.MaxRefusalText, false)
			v.Text(p+"/found", e.Found, 2*contract.MaxRefusalText, false)
		}
	}
	if len(v.Errs) > 0 {
		return contract.InvocationView{}, &contract.ValidationError{Errors: v.Errs}
	}
	errs := make([]contract.RefusalError, len(in.Errors))
	for i, e := range in.Errors {
		errs[i] = e.Redacted()
	}
	raw, _ := json.Marshal(errs)
	row := RunInvocation{RunID: runID, N: n, PublicationRunID: in.PublicationRunID, Outcome: in.Outcome, Errors: string(raw),
		Tokens: in.Tokens, CostUSD: in.CostUSD, DurationMS: in.DurationMS}
	_, err := s.commit(ctx, func(t *txn) error {
		var prior []RunInvocation
		if err := t.Where("run_id = ? AND n = ?", runID, n).Limit(1).Find(&prior).Error; err != nil {
			return err
		}
		if len(prior) == 1 {
			if !sameReport(prior[0], row) {
				return contract.ErrIdempotencyConflict
			}
			row = prior[0]
			return nil
		}
		var run Run
		if err := t.Take(&run, "id = ?", runID).Error; err != nil {
			return notFound(err)
		}
		if run.State != contract.RunRunning {
			return ErrRunFinished
		}
		if n > run.Invocations {
			return ErrInvocationNotStarted
		}
		now := s.clock()
		row.FinishedAt = now
		if err := t.Create(&row).Error; err != nil {
			return err
		}
		// Summed here, not in SQL, where an overflowing sum turns into a REAL.
		upd := map[string]any{"duration_ms": run.DurationMS.plus(row.DurationMS), "updated_at": now}
		if row.Tokens != nil {
			upd["tokens"] = run.Tokens.plus(*row.Tokens)
		}
		if row.CostUSD != nil {
			upd["cost_usd"] = gorm.Expr("cost_usd + ?", *row.CostUSD)
		}
		return t.Model(&Run{}).Where("id = ?", runID).Updates(upd).Error
	})
	if err != nil {
		return contract.InvocationView{}, Classify("finish invocation", err)
	}
	return row.View(), nil
}

// sameReport compares what a report says, not when it was recorded.
func sameReport(a, b RunInvocation) bool {
	eqI := (a.Tokens == nil) == (b.Tokens == nil) && (a.Tokens == nil || *a.Tokens == *b.Tokens)
	eqC := (a.CostUSD == nil) == (b.CostUSD == nil) && (a.CostUSD == nil || *a.CostUSD == *b.CostUSD)
	return eqI && eqC && a.PublicationRunID == b.PublicationRunID && a.Outcome == b.Outcome && a.Errors == b.Errors && a.DurationMS == b.DurationMS
}
