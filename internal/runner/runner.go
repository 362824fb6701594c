// Package runner is `hearth run`: it drives the external agent for
// hearth's jobs. It claims work through hearth's API, invokes
// the configured agent command (or Codex), keeps the result in a private
// file until hearth acknowledges it, journals each step so a restarted
// runner recovers, and never invokes the agent again for work whose
// outcome it does not know. It talks to hearth only over the API.
package runner

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"hearth/agent"
	"hearth/internal/apiclient"
	"hearth/internal/contract"
	"hearth/internal/privatefile"
)

// maxAgentOutput bounds what the agent may print: one publication.
const maxAgentOutput = contract.MaxBodyBytes

// runJournal is what the runner writes before each step of a run, so a
// restarted runner knows where the last one stopped.
type runJournal struct {
	RunID      string `json:"runId"`
	Job        string `json:"job"`
	Trigger    string `json:"trigger"`
	ScheduleID string `json:"scheduleId,omitempty"`
	Phase      string `json:"phase"` // claiming, started, invoking, publishing, failed
	PubRunID   string `json:"publicationRunId,omitempty"`
	Invocation int    `json:"invocation"`
	Prompt     string `json:"prompt"` // the run's prompt; a repair adds RepairErrors to it
	Deadline   int    `json:"deadlineSeconds"`
	WakeLease  string `json:"wakeLease,omitempty"` // acknowledged once the run started
	// Use is the current invocation's usage, kept from its end until hearth has it.
	Use *invocationUse `json:"usage,omitempty"`
	// RepairErrors are the last refused publication's errors, given to the next invocation.
	RepairErrors []contract.RefusalError `json:"repairErrors,omitempty"`
	Failure      string                  `json:"failure,omitempty"` // phase failed: why
	// RetryNote is what the next invocation is told of a failed one, in
	// words; empty when no retry can fix it. RetryWait: back off first.
	RetryNote string `json:"retryNote,omitempty"`
	RetryWait bool   `json:"retryWait,omitempty"`
	// Tried says why each earlier invocation published nothing; Failures
	// counts the failed ones, ProviderFailures those that back off.
	Tried            []string `json:"tried,omitempty"`
	Failures         int      `json:"failures,omitempty"`
	ProviderFailures int      `json:"providerFailures,omitempty"`
	// Budget is the run's invocations as hearth granted them at its start.
	Budget int `json:"budget,omitempty"`
	// WakeReasons and WakeMarks say why a watch run was woken; the prompt carries them.
	WakeReasons []string `json:"wakeReasons,omitempty"`
	WakeMarks   int      `json:"wakeMarks,omitempty"`
	// CodexSessions are the Codex sessions the run recorded, the latest
	// last (a repair resumes it); they are deleted when the run ends.
	CodexSessions []string `json:"codexSessions,omitempty"`
}

// Journal phases.
const (
	phaseClaiming   = "claiming"   // the run is being started at the host (a schedule run claims)
	phaseStarted    = "started"    // the host recorded the run; the agent has not been invoked
	phaseInvoking   = "invoking"   // the agent may be running: its outcome is unknown if we stop
	phasePublishing = "publishing" // the result is in pending/ until hearth acknowledges it
)

// Config is one `hearth run`'s settings.
type Config struct {
	Client    *apiclient.Client // hearth, with the runner's credential
	AgentCmd  string            // run with sh -c, unless Codex is set
	AgentDir  string            // the agent's working directory: the owner's life folder
	CodexHome string            // CODEX_HOME for the agent
	Codex     *Codex            // set by --agent codex: the agent is `codex exec`, not AgentCmd
	State     string            // DATA/runner: journals, pending results, the lock
	Log       *slog.Logger
	// Retries are the waits before each retry of a publication hearth did
	// not answer (or answered 5xx/429); nil means apiclient.DefaultRetries.
	Retries []time.Duration
	// WakeWait is how long each wake-up poll asks hearth to wait; 0 means WakePollWait.
	WakeWait time.Duration
	// AgentBackoff are the waits before an invocation after a provider
	// error; nil means DefaultAgentBackoff.
	AgentBackoff []time.Duration
	// FailedRetention is how long a refused publication stays in failed/; 0 keeps them all.
	FailedRetention time.Duration
}

// Runner carries out runs for one `hearth run`.
type Runner struct {
	client    *apiclient.Client
	agentCmd  string
	agentDir  string
	codexHome string
	codex     *Codex // set by --agent codex: the agent is `codex exec`, not agentCmd
	state     string // DATA/runner
	log       *slog.Logger
	// agentStderr is where the agent's own log goes, made safe
	// (agentLog); nil is the runner's stderr.
	agentStderr io.Writer
	retries     []time.Duration
	wakeWait    time.Duration // how long each wake-up poll asks hearth to wait
	// agentBackoff are the waits before an invocation after a provider error (nil: DefaultAgentBackoff).
	agentBackoff []time.Duration
	// failedRetention is how long a refused publication stays in failed/ (0: for good).
	failedRetention time.Duration
	out             []contract.RunView
}

// New is a runner with cfg, its state directories made (0700).
func New(cfg Config) (*Runner, error) {
	r := &Runner{client: cfg.Client, agentCmd: cfg.AgentCmd, agentDir: cfg.AgentDir, codexHome: cfg.CodexHome, codex: cfg.Codex,
		state: cfg.State, log: cfg.Log, retries: cfg.Retries, wakeWait: cfg.WakeWait, agentBackoff: cfg.AgentBackoff,
		failedRetention: cfg.FailedRetention}
	if r.retries == nil {
		r.retries = apiclient.DefaultRetries
	}
	if r.wakeWait == 0 {
		r.wakeWait = WakePollWait
	}
	for _, d := range []string{r.state, filepath.Join(r.state, "runs"), filepath.Join(r.state, "pending"), filepath.Join(r.state, "failed"), filepath.Join(r.state, "work")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Runs are the runs this runner finished, as hearth recorded them.
func (r *Runner) Runs() []contract.RunView { return append([]contract.RunView{}, r.out...) }

// ErrLocked means another `hearth run` holds the runner's lock.
var ErrLocked = errors.New("another hearth run holds the lock")

// Lock takes the runner's lock so runs never overlap, on this host or in
// another process; ErrLocked when another runner holds it.
func (r *Runner) Lock() (func(), error) {
	f, err := os.OpenFile(filepath.Join(r.state, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, err
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}

// api calls the host; a transport failure, a 5xx or an unreadable answer
// is an error that reads as hearth unavailable (exit 2).
func (r *Runner) api(method, path string, body any, out any) (int, []byte, error) {
	return r.apiWith(context.Background(), r.client, method, path, body, out)
}

// apiWith is api with its own context and client (a long poll's).
func (r *Runner) apiWith(ctx context.Context, c *apiclient.Client, method, path string, body any, out any) (int, []byte, error) {
	resp, err := c.JSON(ctx, method, path, body, out)
	var te *apiclient.TransportError
	if errors.As(err, &te) {
		return 0, nil, fmt.Errorf("hearth is unavailable: %w", err)
	}
	return resp.Status, resp.Body, err
}

// get reads path into out; any answer but a 2xx is an error, so a revoked
// token stops --due and slows --watch rather than reading as "nothing due".
func (r *Runner) get(path string, out any) error {
	return only2xx(r.api(http.MethodGet, path, nil, out))
}

// only2xx is an api call's outcome as one error: any answer but a 2xx is one.
func only2xx(status int, body []byte, err error) error {
	if err == nil && status >= 300 {
		err = apiclient.Response{Status: status, Body: body}.Err()
	}
	return err
}

// newRunID names a run: the job, the start time and a random tail.
func newRunID(job string) string {
	b := make([]byte, 3)
	rand.Read(b)
	id := fmt.Sprintf("%s-%s-%s", job, time.Now().UTC().Format("20060102T150405Z"), hex.EncodeToString(b))
	if len(id) > 120 {
		id = id[len(id)-120:]
	}
	return id
}

// RunDue runs every due schedule once, after the agent's login check: with
// no login it claims nothing and returns ErrNeedsLogin.
func (r *Runner) RunDue(ctx context.Context) error {
	if err := r.checkLogin(ctx, "scheduled work is held"); err != nil {
		return err
	}
	var rep contract.DueReport
	if err := r.get("/api/schedules/due", &rep); err != nil {
		return err
	}
	var firstErr error
	for _, d := range rep.Due {
		if err := r.runJob(ctx, runJournal{Job: d.Job, Trigger: contract.TriggerSchedule, ScheduleID: d.ScheduleID}); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// WakePollWait is how long each wake-up poll asks hearth to wait; the
// client waits wakePollMargin longer, so an idle poll ends with hearth's
// empty answer, never with the client giving up mid-poll.
const (
	WakePollWait   = 60 * time.Second
	wakePollMargin = 30 * time.Second
)

// wakeAnswer is GET /api/agent-wake's answer as the runner reads it.
type wakeAnswer struct {
	Jobs      []contract.Wake `json:"jobs"`
	Schedules []struct {
		ScheduleID string `json:"scheduleId"`
		Job        string `json:"job"`
	} `json:"schedules"`
}

// pollWake is one long poll; SIGTERM (ctx) ends it.
func (r *Runner) pollWake(ctx context.Context) (wakeAnswer, error) {
	var wake wakeAnswer
	client := r.client.WithTimeout(r.wakeWait + wakePollMargin)
	path := fmt.Sprintf("/api/agent-wake?timeout=%d", int(r.wakeWait.Seconds()))
	err := only2xx(r.apiWith(ctx, client, http.MethodGet, path, nil, &wake))
	return wake, err
}

// Watch waits on the wake-up channel and runs each job it names once. A
// job comes leased: its run acknowledges the lease once it started, so a
// wake-up lost before then is offered again when the lease expires.
func (r *Runner) Watch(ctx context.Context) error {
	r.checkLogin(ctx, "scheduled work is held")
	for ctx.Err() == nil {
		wake, err := r.pollWake(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			r.log.Warn("wake-up channel unavailable; trying again in 30 s", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Second):
			}
			continue
		}
		for _, j := range wake.Jobs {
			r.log.Info("woken", "job", j.JobKey, "marks", j.Marks)
			// The kit's prompt for the job, when it has one; the Run section says why it woke.
			prompt, ok := agent.Prompt(j.JobKey)
			if !ok {
				r.log.Warn("the job kit has no prompt for this job; the agent gets the Run section only", "job", j.JobKey)
			}
			if err := r.runJob(ctx, runJournal{Job: j.JobKey, Trigger: contract.TriggerWatch, WakeLease: j.LeaseID, Prompt: prompt,
				WakeReasons: j.Reasons, WakeMarks: j.Marks}); err != nil {
				r.log.Warn("run failed", "job", j.JobKey, "err", err)
			}
		}
		if len(wake.Schedules) > 0 && r.checkLogin(ctx, "scheduled work is held") != nil {
			// Held: the occurrences stay due and the next poll offers them
			// again; wait one poll's length before checking the login again.
			select {
			case <-ctx.Done():
			case <-time.After(r.wakeWait):
			}
			continue
		}
		for _, s := range wake.Schedules {
			if err := r.runJob(ctx, runJournal{Job: s.Job, Trigger: contract.TriggerSchedule, ScheduleID: s.ScheduleID}); err != nil {
				r.log.Warn("run failed", "job", s.Job, "err", err)
			}
		}
	}
	return nil
}

// ackWake tells hearth the run that handles a leased wake-up started. A
// failure only costs a second run once the lease expires, so it is logged
// and the run goes on.
func (r *Runner) ackWake(j runJournal) {
	if j.WakeLease == "" {
		return
	}
	if err := only2xx(r.api(http.MethodPost, "/api/agent-wake/ack", contract.WakeAck{LeaseID: j.WakeLease}, nil)); err != nil {
		r.log.Warn("wake-up not acknowledged; it will be offered again when its lease expires", "job", j.Job, "err", err)
	}
}

// RunManual runs job now at the owner's request, with prompt, after the
// agent's login check: with no login it starts nothing and says so.
func (r *Runner) RunManual(ctx context.Context, job, prompt string) error {
	if err := r.checkLogin(ctx, "the job was not run"); err != nil {
		return err
	}
	return r.runJob(ctx, runJournal{Job: job, Trigger: contract.TriggerManual, Prompt: prompt})
}

// runJob starts a run at the host (a schedule run claims its occurrence)
// and carries it out. The journal names the run before the claim, so a
// runner stopped around the claim starts the same run again: the host
// answers a known runId with that run, never a second claim.
func (r *Runner) runJob(ctx context.Context, j runJournal) error {
	j.RunID, j.Phase = newRunID(j.Job), phaseClaiming
	if err := r.save(j); err != nil {
		return err
	}
	return r.claim(ctx, j)
}

// claim starts (or starts again) the journal's run at the host, then executes it.
func (r *Runner) claim(ctx context.Context, j runJournal) error {
	in := contract.RunStartIn{RunID: j.RunID, Job: j.Job, Trigger: j.Trigger}
	if j.ScheduleID != "" {
		in.ScheduleID = &j.ScheduleID
	}
	var start contract.RunStart
	status, body, err := r.api(http.MethodPost, "/api/runs", in, &start)
	if err != nil {
		return err
	}
	if status >= 400 {
		os.Remove(r.journalPath(j.RunID))
		return apiclient.Response{Status: status, Body: body}.Err()
	}
	if !start.Admitted {
		os.Remove(r.journalPath(j.RunID))
		r.log.Info("run held", "job", j.Job, "schedule", j.ScheduleID, "hold", start.Hold, "reason", start.Reason)
		return nil
	}
	pauseAt("claimed")
	if j.Trigger == contract.TriggerSchedule {
		j.Prompt = start.Prompt
	}
	j.Phase, j.Deadline, j.Budget = phaseStarted, start.DeadlineSecs, start.MaxInvocations
	if err := r.save(j); err != nil {
		return err
	}
	return r.execute(ctx, j)
}

// pauseAt blocks forever at point when HEARTH_RUNNER_PAUSE_AT names it. It
// is for the crash tests only: they SIGKILL the runner there.
func pauseAt(point string) {
	if os.Getenv("HEARTH_RUNNER_PAUSE_AT") == point {
		fmt.Fprintln(os.Stderr, "paused at", point)
		select {}
	}
}

// execute invokes the agent and publishes its result, re-reading and
// regenerating under a new runId after a revision conflict or a refusal
// (the refusal's errors go into the next prompt), at most three
// invocations in all. Each invocation's end is reported to hearth as soon
// as it is known. The run has started, so its wake-up lease (if any) is
// acknowledged first; a recovered run acknowledges it again, harmlessly.
func (r *Runner) execute(ctx context.Context, j runJournal) error {
	r.ackWake(j)
	for {
		var run contract.RunView
		status, body, err := r.api(http.MethodPost, "/api/runs/"+url.PathEscape(j.RunID)+"/invocations", nil, &run)
		if err != nil {
			return err
		}
		if status >= 400 {
			if j.Failures > 0 {
				return r.finish(j, contract.RunFailed, triedDetail(j, apiclient.EnvelopeCode(body)), nil)
			}
			if len(j.RepairErrors) > 0 {
				return r.finish(j, contract.RunFailed, exhaustedDetail(j), nil)
			}
			return r.finish(j, contract.RunFailed, "no further invocation: "+apiclient.EnvelopeCode(body), nil)
		}
		j.Invocation, j.PubRunID, j.Phase, j.Use, j.Failure = run.Invocations, contract.PublicationRunID(j.RunID, run.Invocations), phaseInvoking, nil, ""
		if err := r.save(j); err != nil {
			return err
		}
		var ac struct {
			Revision int64 `json:"revision"`
		}
		status, ctxBody, err := r.api(http.MethodGet, contextPath(j.Job), nil, &ac)
		if err != nil {
			return err
		}
		if status >= 400 {
			_, err := r.failInvocation(ctx, &j, invocationFailure{detail: fmt.Sprintf("could not read the context (HTTP %d)", status)})
			return err
		}
		started := time.Now()
		inv := j
		inv.Prompt = retryPrompt(repairPrompt(j.Prompt, j.RepairErrors, r.refusedFile(j), resumeSession(j) != ""), j.RetryNote)
		out, use, err := r.invoke(ctx, inv, ctxBody, ac.Revision)
		if errors.Is(err, errSessionGone) {
			r.log.Info("the Codex session to repair in is gone: starting a new one with the refused publication", "run", j.PubRunID)
			inv.CodexSessions, inv.Prompt = nil, retryPrompt(repairPrompt(j.Prompt, j.RepairErrors, r.refusedFile(j), false), j.RetryNote)
			out, use, err = r.invoke(ctx, inv, ctxBody, ac.Revision)
		}
		took := time.Since(started)
		j.Use = useOf(use, took)
		j.CodexSessions = withSession(j.CodexSessions, use.Session)
		// What the provider said of the login is news for the Runs page: a
		// refusal, or an answer after one.
		if refused := (*authRefused)(nil); errors.As(err, &refused) {
			r.reportHealth(contract.HealthRefused, refused.err.Error())
		} else if err == nil && r.codex != nil {
			r.reportHealth(contract.HealthOK, "the model provider answered the last invocation")
		}
		if err == nil {
			out, err = shapePublication(out, j.PubRunID, j.Job, ac.Revision)
		}
		if err != nil {
			r.log.Warn("agent failed", "job", j.Job, "run", j.PubRunID, "err", err, "took", took.Round(time.Millisecond))
			if again, err := r.failInvocation(ctx, &j, failureOf(err)); err != nil || !again {
				return err
			}
			continue
		}
		pub := out
		pending := r.pendingPath(j.PubRunID)
		if err := privatefile.WriteAtomic(pending, pub); err != nil {
			return err
		}
		j.Phase, j.RetryNote, j.RetryWait = phasePublishing, "", false
		if err := r.save(j); err != nil {
			return err
		}
		r.log.Info("agent finished", "job", j.Job, "run", j.PubRunID, "invocation", j.Invocation, "took", took.Round(time.Millisecond), "bytes", len(pub))
		done, err := r.publish(&j, pub)
		if err != nil || done {
			return err
		}
	}
}

// agentUsage is what the agent reported it spent, if anything.
type agentUsage struct {
	Tokens  *int64   `json:"tokens"`
	CostUSD *float64 `json:"costUsd"`
	// Session is the Codex session the invocation recorded, read from the
	// same events as its tokens; not usage, and never from an agent command.
	Session string `json:"-"`
}

// invoke runs the agent (the command, or Codex) with the context, the
// kit's instructions (as AGENTS.md, where Codex reads them) and the prompt
// in a private work dir, the prompt also on stdin, the deadline of the run,
// and credentials only in its environment (never hearth's token: the runner
// publishes, not the agent).
func (r *Runner) invoke(ctx context.Context, j runJournal, contextJSON []byte, revision int64) ([]byte, agentUsage, error) {
	work := filepath.Join(r.state, "work", j.PubRunID)
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, agentUsage{}, err
	}
	defer removeWork(work)
	ctxFile, promptFile, usageFile := filepath.Join(work, "context.json"), filepath.Join(work, "prompt.txt"), filepath.Join(work, "usage.json")
	ctxDir := filepath.Join(work, "context")
	if err := writeContextDir(ctxDir, contextJSON); err != nil {
		return nil, agentUsage{}, err
	}
	prompt := []byte(runPrompt(j, ctxFile, ctxDir, r.agentDir, revision))
	for name, data := range map[string][]byte{ctxFile: contextJSON, promptFile: prompt, filepath.Join(work, agent.InstructionsFile): agent.Instructions()} {
		if err := privatefile.WriteAtomic(name, data); err != nil {
			return nil, agentUsage{}, err
		}
	}
	deadline := time.Duration(j.Deadline) * time.Second
	if deadline <= 0 || deadline > 10*time.Minute {
		deadline = 10 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	var cmd *exec.Cmd
	var lastFile, session string
	if r.codex != nil {
		schemaFile, last, err := r.codex.files(work)
		if err != nil {
			return nil, agentUsage{}, err
		}
		lastFile, session = last, resumeSession(j)
		cmd = exec.CommandContext(cctx, r.codex.Bin, r.codex.args(work, schemaFile, lastFile, r.agentDir, session)...)
		cmd.Dir = work
	} else {
		cmd = exec.CommandContext(cctx, "sh", "-c", r.agentCmd)
		cmd.Dir = r.agentDir
	}
	group, err := startGroup(work + ".pgid")
	if err != nil {
		return nil, agentUsage{}, err
	}
	defer group.end()
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HEARTH_TOKEN=") && !strings.HasPrefix(kv, "HEARTH_AGENT_CMD=") {
			env = append(env, kv)
		}
	}
	env = append(env, "HEARTH_CONTEXT_FILE="+ctxFile, "HEARTH_CONTEXT_DIR="+ctxDir, "HEARTH_PROMPT_FILE="+promptFile, "HEARTH_USAGE_FILE="+usageFile,
		"HEARTH_RUN_ID="+j.PubRunID, "HEARTH_JOB="+j.Job, fmt.Sprintf("HEARTH_EXPECTED_REVISION=%d", revision))
	if r.codexHome != "" {
		env = append(env, "CODEX_HOME="+r.codexHome)
	}
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(prompt)
	var stdout bytes.Buffer
	// The agent's own log; hearth's logs never hold message contents.
	stderr := &agentLog{out: r.agentStderr}
	if stderr.out == nil {
		stderr.out = os.Stderr
	}
	cmd.Stderr = stderr
	if r.codex != nil {
		// Codex's event stream holds the messages it read: never printed,
		// kept in a private file for its usage, which a runner stopped
		// mid-invocation reads on its next start (leftoverUsage).
		events, err := os.OpenFile(codexEventsFile(work), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return nil, agentUsage{}, err
		}
		defer events.Close()
		cmd.Stdout = &limitedWriter{w: events, n: maxCodexEvents}
	} else {
		cmd.Stdout = &limitedWriter{w: &stdout, n: maxAgentOutput + 1}
	}
	err = group.run(cmd)
	stderr.finish()
	use := readUsage(work, r.codex)
	switch {
	case cctx.Err() == context.DeadlineExceeded:
		return nil, use, &deadlineHit{deadline}
	case ctx.Err() != nil:
		return nil, use, ctx.Err()
	case r.codex != nil && session != "" && err != nil && use.Session == "":
		return nil, use, errSessionGone
	case r.codex != nil:
		return r.codex.outcome(err, work, lastFile, use, stderr.lastLine())
	case err != nil:
		return nil, use, &agentExited{fmt.Errorf("exited: %v", err)}
	case stdout.Len() > maxAgentOutput:
		return nil, use, &notPublication{detail: fmt.Sprintf("printed more than %d bytes", maxAgentOutput),
			words: fmt.Sprintf("Your last output was over %d bytes. Print one publication, within that size.", maxAgentOutput)}
	}
	return stdout.Bytes(), use, nil
}

// limitedWriter keeps at most n bytes and discards the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// shapePublication stamps the agent's publication with the run's runId,
// job and the revision its context was read at, so a retry is the same
// bytes and a stale one is a conflict.
func shapePublication(out []byte, runID, job string, revision int64) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var pub map[string]any
	if err := dec.Decode(&pub); err != nil || pub == nil {
		return nil, notAPublication("the agent's output", out, errors.New("the agent did not print a JSON object"))
	}
	pub["runId"], pub["jobKey"], pub["expectedRevision"] = runID, job, revision
	return json.Marshal(pub)
}

// publish sends the pending result with the same bytes until hearth
// answers, and reports the invocation's end: true when the run ended
// (published or refused for good), false after a revision conflict or a
// refusal with errors (the caller invokes again; j is ready for it).
// Unreachable hearth leaves the result pending for the next run (exit 2).
func (r *Runner) publish(j *runJournal, pub []byte) (bool, error) {
	// The same bytes each time, so a retry is an idempotent replay.
	resp, err := r.client.PostRetrying(context.Background(), "/api/agent-results", pub, r.retries)
	if err != nil {
		r.log.Warn("publication not acknowledged; kept for the next run", "run", j.PubRunID, "file", r.pendingPath(j.PubRunID))
		var ae *apiclient.Error
		if errors.As(err, &ae) {
			return true, err
		}
		return true, fmt.Errorf("hearth is unavailable: %w", err)
	}
	pauseAt("published")
	switch {
	case resp.Status == http.StatusOK || resp.Status == http.StatusCreated:
		var rc contract.PublishReceipt
		json.Unmarshal(resp.Body, &rc)
		if err := r.reportInvocation(*j, contract.InvocationPublished, nil); err != nil {
			return true, err
		}
		os.Remove(r.pendingPath(j.PubRunID))
		return true, r.finish(*j, contract.RunSucceeded, "", &rc)
	case resp.Status == http.StatusConflict && apiclient.EnvelopeCode(resp.Body) == "revision_conflict":
		r.log.Info("revision conflict: reading the context again", "run", j.PubRunID)
		if err := r.reportInvocation(*j, contract.InvocationConflict, nil); err != nil {
			return true, err
		}
		j.RepairErrors = nil // the result was valid: the next one regenerates, it does not repair
		j.Tried = append(j.Tried, fmt.Sprintf("invocation %d: a revision conflict", j.Invocation))
		return false, r.retire(j, false)
	case resp.Status == http.StatusUnprocessableEntity:
		if errs := refusalErrors(resp.Body); errs != nil {
			r.log.Info("publication refused: invoking the agent again with its errors", "run", j.PubRunID, "errors", len(errs), "first", errs[0].Path)
			if err := r.reportInvocation(*j, contract.InvocationRefused, errs); err != nil {
				return true, err
			}
			j.RepairErrors = errs
			j.Tried = append(j.Tried, fmt.Sprintf("invocation %d: hearth refused its publication (%d error(s), the first at %s)", j.Invocation, len(errs), orNone(errs[0].Path, "the root")))
			return false, r.retire(j, true)
		}
	}
	if err := r.reportInvocation(*j, contract.InvocationRefused, nil); err != nil {
		return true, err
	}
	os.Rename(r.pendingPath(j.PubRunID), filepath.Join(r.state, "failed", j.PubRunID+".json"))
	return true, r.finish(*j, contract.RunFailed, fmt.Sprintf("hearth refused the publication: HTTP %d %s", resp.Status, apiclient.EnvelopeCode(resp.Body)), nil)
}

// finish reports a run's outcome and forgets its journal. Its usage is
// hearth's sum of the invocations already reported, never the runner's memory.
func (r *Runner) finish(j runJournal, outcome, detail string, rc *contract.PublishReceipt) error {
	in := map[string]any{"outcome": outcome, "detail": truncate(detail, contract.MaxReasonLen)}
	if rc != nil {
		in["publicationRunId"], in["publicationRevision"] = rc.RunID, rc.Revision
	}
	var run contract.RunView
	status, body, err := r.api(http.MethodPost, "/api/runs/"+url.PathEscape(j.RunID)+"/finish", in, &run)
	if err != nil {
		return err
	}
	if status >= 400 {
		return apiclient.Response{Status: status, Body: body}.Err()
	}
	r.deleteSessions(j)
	os.Remove(r.journalPath(j.RunID))
	r.out = append(r.out, run)
	if outcome == contract.RunFailed {
		return fmt.Errorf("run %s of %s failed: %s", j.RunID, j.Job, detail)
	}
	return nil
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// Recover finishes what the last runner left: a run that never invoked
// the agent goes on; one stopped mid-invocation is reported unknown and
// never rerun; a result still pending is sent again, the same bytes.
// Refused publications past the retention go first.
func (r *Runner) Recover(ctx context.Context) error {
	r.pruneFailed(time.Now())
	entries, err := os.ReadDir(filepath.Join(r.state, "runs"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			// A temp journal a crash left before its rename: the step it
			// would have named never began, so the journal beside it counts.
			if strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), ".tmp") {
				os.Remove(filepath.Join(r.state, "runs", e.Name()))
			}
			continue
		}
		b, err := os.ReadFile(filepath.Join(r.state, "runs", e.Name()))
		if err != nil {
			return err
		}
		var j runJournal
		if err := json.Unmarshal(b, &j); err != nil {
			r.log.Warn("unreadable run journal left alone", "file", e.Name())
			continue
		}
		r.log.Info("recovering an interrupted run", "run", j.RunID, "phase", j.Phase)
		r.learnModel(ctx) // its invocations are priced
		switch j.Phase {
		case phaseClaiming:
			err = r.claim(ctx, j)
		case phaseStarted:
			err = r.execute(ctx, j)
		case phaseInvoking:
			// Usage the stopped agent already reported still counts.
			j.Use = r.leftoverUsage(j)
			j.CodexSessions = withSession(j.CodexSessions, readUsage(filepath.Join(r.state, "work", j.PubRunID), r.codex).Session)
			if err = r.reportInvocation(j, contract.InvocationUnknown, nil); err == nil {
				if !removeWorkWhenIdle(filepath.Join(r.state, "work", j.PubRunID)) {
					r.log.Warn("the stopped invocation's agent is still alive; its work dir is left alone", "run", j.PubRunID)
				}
				err = r.finish(j, contract.RunUnknown, fmt.Sprintf("the runner stopped during agent invocation %d; its outcome is unknown and it is not rerun", j.Invocation), nil)
			}
		case phaseFailed:
			var again bool
			if again, err = r.afterFailure(ctx, &j); err == nil && again {
				err = r.execute(ctx, j)
			}
		case phasePublishing:
			var pub []byte
			if pub, err = os.ReadFile(r.pendingPath(j.PubRunID)); err != nil {
				if err = r.reportInvocation(j, contract.InvocationUnknown, nil); err == nil {
					err = r.finish(j, contract.RunUnknown, "the pending result is missing", nil)
				}
				break
			}
			var done bool
			if done, err = r.publish(&j, pub); err == nil && !done {
				err = r.execute(ctx, j)
			}
		}
		if err != nil {
			if apiclient.Unavailable(err) {
				return err
			}
			r.log.Warn("recovered run ended badly", "run", j.RunID, "err", err)
		}
	}
	r.sweepWork()
	return nil
}

func (r *Runner) journalPath(runID string) string {
	return filepath.Join(r.state, "runs", runID+".json")
}

func (r *Runner) pendingPath(pubRunID string) string {
	return filepath.Join(r.state, "pending", pubRunID+".json")
}

// save writes the journal durably before the step it names.
func (r *Runner) save(j runJournal) error {
	b, _ := json.Marshal(j)
	return privatefile.WriteAtomic(r.journalPath(j.RunID), b)
}
