package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"hearth/internal/contract"
)

// Another chance within the run: an invocation that published nothing (its
// final message was not a publication, the agent or its model provider
// failed after the agent's own retries, or it hit its deadline) is followed
// by the next invocation while hearth allows one, with what went wrong in
// words at the end of the prompt. Only the budget running out fails the
// run, and its detail then says why each invocation failed. A failure no
// retry can fix (the provider refused the login, the runner was stopped)
// fails the run at once, so it burns no invocation.

// DefaultAgentBackoff is the wait before the invocation after a provider
// error (Codex gave up after its own retries): the first wait, then the
// next for each later one; each is at most the run's deadline.
var DefaultAgentBackoff = []time.Duration{30 * time.Second, 2 * time.Minute}

// invocationFailure is why an invocation published nothing.
type invocationFailure struct {
	detail string // for the run's detail and the log: the agent's or the provider's words, never message text
	next   string // what the next prompt says went wrong; "" when no retry can fix it
	wait   bool   // a provider error: back off before the next invocation
}

// notPublication is an agent's final message that is not a publication.
type notPublication struct {
	detail string // what the runner found, for the log and the run
	words  string // what the next prompt says of it: no text of the message
}

func (e *notPublication) Error() string { return e.detail }

// agentExited is an agent that exited with an error: Codex after its own
// retries of the provider, or an agent command's non-zero exit.
type agentExited struct{ err error }

func (e *agentExited) Error() string { return e.err.Error() }
func (e *agentExited) Unwrap() error { return e.err }

// deadlineHit is an invocation stopped at its deadline.
type deadlineHit struct{ deadline time.Duration }

func (e *deadlineHit) Error() string {
	return fmt.Sprintf("no result within the %s deadline; the agent was stopped", e.deadline)
}

// failureOf sorts an invocation's error into what the next invocation is told.
func failureOf(err error) invocationFailure {
	f := invocationFailure{detail: "agent: " + err.Error()}
	var (
		np   *notPublication
		exit *agentExited
		late *deadlineHit
		auth *authRefused
	)
	switch {
	case errors.As(err, &auth):
		// Another invocation would be refused the same way: the login needs the owner.
	case errors.As(err, &np):
		f.next = np.words
	case errors.As(err, &late):
		f.next = fmt.Sprintf("Your last invocation did not finish within its %s deadline and was stopped; nothing of it was kept. "+
			"Work more directly this time: read only the parts of the context this job needs, then print the publication.", late.deadline)
	case errors.As(err, &exit):
		f.next = "Your last invocation ended with an error of the agent or its model provider before it printed a publication (nothing you wrote was at fault, and nothing of it was kept). " +
			"Do the job again from the start."
		f.wait = true
	}
	return f
}

// notAPublication describes a final message (out) that cause refused as a
// publication by what kind of thing was wrong, for the run and for the
// next prompt alike: a parser's error may quote the message, so it is not
// repeated.
func notAPublication(what string, out []byte, cause error) error {
	var why string
	s := bytes.TrimSpace(out)
	switch {
	case len(s) == 0:
		why = "it was empty."
	case s[0] != '{':
		why = "it did not start with a JSON object: there was text before it, or no JSON object at all."
	default:
		dec := json.NewDecoder(bytes.NewReader(s))
		var v any
		switch err := dec.Decode(&v); {
		case errors.Is(err, io.ErrUnexpectedEOF):
			why = "it ended before its JSON object was complete (it was cut off)."
		case err != nil:
			why = "it was not valid JSON."
		case dec.InputOffset() < int64(len(s)):
			why = "there was text after its JSON object."
		default:
			why = "it was JSON but not in the output schema's form" + schemaPlace(cause) + "."
		}
	}
	return &notPublication{
		detail: fmt.Sprintf("%s is not a publication: %s", what, strings.TrimSuffix(why, ".")),
		words: "Your last final message was not a publication: " + why + " " +
			"Print exactly one JSON object in the output schema's form as your final message, with nothing before or after it, and complete.",
	}
}

// schemaPointer is a JSON Pointer made of the schema's own words, safe to repeat in a prompt.
var schemaPointer = regexp.MustCompile(`^schema: (/[A-Za-z0-9_/-]{1,200}): (null in a list|nesting over \d+)`)

// schemaPlace is where the strict reader found a fault, when it names one in the schema's words.
func schemaPlace(cause error) string {
	if cause == nil {
		return ""
	}
	if m := schemaPointer.FindStringSubmatch(cause.Error()); m != nil {
		return fmt.Sprintf(" (at %s: %s)", m[1], m[2])
	}
	return ""
}

// retryPrompt is the prompt of the invocation after one that published
// nothing: the prompt so far, then what went wrong, in words. With no note
// it is the prompt unchanged.
func retryPrompt(base, note string) string {
	if note == "" {
		return base
	}
	var b strings.Builder
	b.WriteString(base)
	if base != "" && !strings.HasSuffix(base, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("\n## Your last invocation published nothing\n\n")
	b.WriteString(note)
	b.WriteString(" Read the context again (index.json, then the parts you need; it may have changed).\n")
	return b.String()
}

// failInvocation journals a failed invocation, then reports it and
// readies the next one if another may fix it (true), else fails the run.
func (r *Runner) failInvocation(ctx context.Context, j *runJournal, f invocationFailure) (bool, error) {
	j.Phase, j.Failure, j.RetryNote, j.RetryWait = phaseFailed, f.detail, f.next, f.wait
	if err := r.save(*j); err != nil {
		return false, err
	}
	return r.afterFailure(ctx, j)
}

// afterFailure reports the journal's failed invocation (also on recovery):
// with no retry note the run fails; otherwise the journal moves on to the
// next invocation, after a backoff when the provider failed (true). A
// runner stopped during the backoff leaves the run started: the next
// runner invokes again.
func (r *Runner) afterFailure(ctx context.Context, j *runJournal) (bool, error) {
	if err := r.reportInvocation(*j, contract.InvocationFailed, nil); err != nil {
		return false, err
	}
	if j.RetryNote == "" {
		return false, r.finish(*j, contract.RunFailed, j.Failure, nil)
	}
	j.Tried = append(j.Tried, fmt.Sprintf("invocation %d: %s", j.Invocation, truncate(j.Failure, triedLen)))
	j.Failures++
	if j.RetryWait {
		j.ProviderFailures++
	}
	j.Phase, j.Use, j.Failure = phaseStarted, nil, ""
	if err := r.save(*j); err != nil {
		return false, err
	}
	budget := j.Budget
	if budget <= 0 {
		budget = contract.MaxRunInvocations
	}
	if j.Invocation >= budget {
		return true, nil // hearth grants no further invocation: the run ends at once, saying why for each
	}
	if !j.RetryWait {
		r.log.Info("the invocation published nothing: invoking the agent again", "run", j.PubRunID)
		return true, nil
	}
	wait := r.backoff(*j)
	r.log.Info("the agent failed: invoking it again after a wait", "run", j.PubRunID, "wait", wait)
	select {
	case <-ctx.Done():
		return false, ctx.Err()
	case <-time.After(wait):
	}
	return true, nil
}

// backoff is the wait before the invocation after the journal's latest
// provider failure: at most the run's deadline.
func (r *Runner) backoff(j runJournal) time.Duration {
	steps := r.agentBackoff
	if steps == nil {
		steps = DefaultAgentBackoff
	}
	if len(steps) == 0 {
		return 0
	}
	wait := steps[min(max(j.ProviderFailures, 1), len(steps))-1]
	if limit := time.Duration(j.Deadline) * time.Second; limit > 0 && wait > limit {
		wait = limit
	}
	return wait
}

// triedLen bounds each invocation's reason in a run's detail, so three fit
// in contract.MaxReasonLen.
const triedLen = 140

// triedDetail is a run's failure once no invocation is left and an earlier
// one failed: why each invocation published nothing.
func triedDetail(j runJournal, code string) string {
	return fmt.Sprintf("no invocation is left (%s); %s", code, strings.Join(j.Tried, "; "))
}
