package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hearth/internal/apiclient"
	"hearth/internal/contract"
	"hearth/internal/strictjson"
)

// Repair instead of failure, so one wrong field does not cost a whole run: a publication hearth refuses (422
// invalid_result) is given back to the agent, within the run's invocation
// budget, as its errors: path, expected and a redacted found, never the
// refused values themselves. Each invocation's end is reported to hearth
// as soon as the runner knows it, from the journal, so its usage counts
// even if the runner stops before the run's finish.

// invocationUse is one invocation's usage as the journal keeps it until hearth has it.
type invocationUse struct {
	Tokens     *int64   `json:"tokens,omitempty"`
	CostUSD    *float64 `json:"costUsd,omitempty"`
	DurationMS int64    `json:"durationMs"`
}

func useOf(u agentUsage, took time.Duration) *invocationUse {
	return &invocationUse{Tokens: u.Tokens, CostUSD: u.CostUSD, DurationMS: min(took.Milliseconds(), contract.MaxReportedDurationMS)}
}

// phaseFailed: the invocation failed (the agent, or its output); the journal
// holds its usage and why, until hearth has the invocation and the run's end.
const phaseFailed = "failed"

// repairPrompt is the prompt of an invocation after a refusal. Resumed
// in the refused invocation's Codex session, where the run's prompt and
// the refused answer already are, it is the refused publication's errors
// alone. Started cold, it is the run's prompt, then the errors and the
// file holding the refused publication (refusedFile, when there is one).
// With no errors it is the run's prompt unchanged. It never quotes the
// refused publication: its text may come from the owner's messages.
func repairPrompt(base string, errs []contract.RefusalError, refusedFile string, resumed bool) string {
	if len(errs) == 0 {
		return base
	}
	var b strings.Builder
	if !resumed {
		b.WriteString(base)
		if base != "" && !strings.HasSuffix(base, "\n") {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	b.WriteString("## Your last publication was refused\n\n")
	b.WriteString("hearth refused your last publication (HTTP 422 invalid_result) and stored nothing of it. ")
	switch {
	case resumed:
		b.WriteString("Print one corrected publication, whole, that fixes every error below and keeps what was right. ")
		b.WriteString("This invocation has its own runId and context file (see Run below); read the context again where you need it (it may have changed). ")
	case refusedFile != "":
		fmt.Fprintf(&b, "The refused publication is in %s: read it, then print one corrected publication, whole, that fixes every error below. ", refusedFile)
		b.WriteString("Read the context again where you need it (index.json, then the parts; it may have changed). ")
	default:
		b.WriteString("Read the context again (index.json, then the parts you need; it may have changed), then print one corrected publication that fixes every error below. ")
	}
	b.WriteString("Each error gives a JSON Pointer path into your publication, what hearth expected there and what it found (values are described, not repeated).\n\n")
	for _, e := range errs {
		fmt.Fprintf(&b, "- path %s: expected %s; found %s\n", orNone(e.Path, "(the whole publication)"), orNone(e.Expected, "(not stated)"), orNone(e.Found, "(not stated)"))
	}
	if len(errs) == contract.MaxRefusalErrors {
		fmt.Fprintf(&b, "\nOnly the first %d errors are listed; check the rest of the publication the same way.\n", contract.MaxRefusalErrors)
	}
	return b.String()
}

// resumeSession is the Codex session an invocation continues: after a
// refusal, the latest session the run recorded (the refused invocation's);
// otherwise none, and the invocation starts a new one.
func resumeSession(j runJournal) string {
	if len(j.RepairErrors) == 0 || len(j.CodexSessions) == 0 {
		return ""
	}
	return j.CodexSessions[len(j.CodexSessions)-1]
}

// withSession is sessions with id last, if id is a session not yet there.
func withSession(sessions []string, id string) []string {
	if id == "" || slices.Contains(sessions, id) {
		return sessions
	}
	return append(sessions, id)
}

// refusedFile is where the refused publication a repair fixes is kept
// (DATA/runner/failed/), or "" when there is none: the refusal is always
// of the invocation before this one.
func (r *Runner) refusedFile(j runJournal) string {
	if len(j.RepairErrors) == 0 || j.Invocation < 2 {
		return ""
	}
	path := filepath.Join(r.state, "failed", contract.PublicationRunID(j.RunID, j.Invocation-1)+".json")
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}

// deleteSessions deletes the Codex sessions of a run that has ended:
// Codex keeps them in CODEX_HOME (sessions/ and its thread database) with
// everything the model read, and nothing resumes them after the run.
func (r *Runner) deleteSessions(j runJournal) {
	if r.codex == nil || len(j.CodexSessions) == 0 {
		return
	}
	env := checkEnv(r.codexHome)
	for _, id := range j.CodexSessions {
		if err := r.codex.deleteSession(context.Background(), env, id); err != nil {
			r.log.Warn("a Codex session of the run was not deleted", "run", j.RunID, "session", id, "err", err)
		}
	}
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// refusalErrors reads a 422 answer's field errors: nil unless it is the
// validation envelope (code invalid_result with errors).
func refusalErrors(body []byte) []contract.RefusalError {
	var env struct {
		Code    string `json:"code"`
		Details struct {
			Errors []strictjson.FieldError `json:"errors"`
		} `json:"details"`
	}
	if json.Unmarshal(body, &env) != nil || env.Code != "invalid_result" || len(env.Details.Errors) == 0 {
		return nil
	}
	return contract.RefusalErrorsOf(env.Details.Errors)
}

// exhaustedDetail is a run's failure when its last refusal used the budget.
func exhaustedDetail(j runJournal) string {
	n := len(j.RepairErrors)
	return fmt.Sprintf("hearth refused the publication of invocation %d (HTTP 422 invalid_result) and no invocation is left: %d error(s), the first at %s",
		j.Invocation, n, orNone(j.RepairErrors[0].Path, "the publication's root"))
}

// reportInvocation tells hearth how the journal's current invocation
// ended, with its journalled usage. The same report again is harmless;
// hearth unreachable is an error (the journal keeps the report for the next
// run); any other refusal is logged and the run goes on.
func (r *Runner) reportInvocation(j runJournal, outcome string, errs []contract.RefusalError) error {
	in := contract.InvocationFinishIn{PublicationRunID: j.PubRunID, Outcome: outcome, Errors: errs}
	if u := j.Use; u != nil {
		in.Tokens, in.CostUSD, in.DurationMS = u.Tokens, u.CostUSD, u.DurationMS
	}
	path := fmt.Sprintf("/api/runs/%s/invocations/%d/finish", url.PathEscape(j.RunID), j.Invocation)
	status, body, err := r.api(http.MethodPost, path, in, nil)
	if err != nil {
		return err
	}
	if status >= 400 {
		r.log.Warn("hearth did not record the invocation", "run", j.RunID, "invocation", j.Invocation, "status", status, "code", apiclient.EnvelopeCode(body))
	}
	return nil
}

// retire moves the journal past an invocation whose publication hearth
// did not take (a conflict or a refusal): the journal first, so a runner
// stopped in between sends the same publication again, then the pending
// file (a refused one is kept in failed/ for the owner).
func (r *Runner) retire(j *runJournal, refused bool) error {
	j.Phase, j.Use = phaseStarted, nil
	if err := r.save(*j); err != nil {
		return err
	}
	if refused {
		return renameIfPresent(r.pendingPath(j.PubRunID), filepath.Join(r.state, "failed", j.PubRunID+".json"))
	}
	os.Remove(r.pendingPath(j.PubRunID))
	return nil
}

func renameIfPresent(from, to string) error {
	if err := os.Rename(from, to); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// leftoverUsage is what an agent stopped with the runner reported, if
// anything: reported usage counts even when the outcome is unknown.
func (r *Runner) leftoverUsage(j runJournal) *invocationUse {
	u := readUsage(filepath.Join(r.state, "work", j.PubRunID), r.codex)
	if u.Tokens == nil && u.CostUSD == nil {
		return nil
	}
	return &invocationUse{Tokens: u.Tokens, CostUSD: u.CostUSD}
}

// readUsage is the usage an invocation in work reported: Codex's
// turn.completed events under the Codex preset, else what an agent
// command wrote to HEARTH_USAGE_FILE.
func readUsage(work string, codex *Codex) agentUsage {
	var u agentUsage
	if b, err := os.ReadFile(codexEventsFile(work)); err == nil {
		if codex == nil {
			codex = &Codex{} // a Codex invocation recovered by a command agent's runner: no model known
		}
		u = codex.usage(b)
		u.Session = codexSession(b)
	} else if b, err := os.ReadFile(filepath.Join(work, "usage.json")); err == nil {
		json.Unmarshal(b, &u)
	}
	return u.bounded()
}

// bounded keeps what the agent reported within the bounds hearth takes, so
// its report is recorded (and its cost counts towards the cap) rather than
// refused: a count above its bound is reported at the bound, a negative or
// not-a-number one not at all.
func (u agentUsage) bounded() agentUsage {
	if u.Tokens != nil {
		switch t := *u.Tokens; {
		case t < 0:
			u.Tokens = nil
		case t > contract.MaxReportedTokens:
			u.Tokens = ptrTo(int64(contract.MaxReportedTokens))
		}
	}
	if u.CostUSD != nil {
		switch c := *u.CostUSD; {
		case c < 0 || math.IsNaN(c):
			u.CostUSD = nil
		case c > contract.MaxReportedCostUSD:
			u.CostUSD = ptrTo(float64(contract.MaxReportedCostUSD))
		}
	}
	return u
}

func ptrTo[T any](v T) *T { return &v }

// removeWork removes an invocation's work dir and the files beside it (Codex's, its group's ID).
func removeWork(work string) {
	os.RemoveAll(work)
	os.RemoveAll(work + ".codex")
	os.Remove(work + ".pgid")
}
