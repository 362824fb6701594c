package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"hearth/internal/privatefile"
	"hearth/internal/termsafe"
)

// The Codex preset (`hearth run --agent codex`) runs the real `codex exec`
// for a job: the prompt on stdin, the run's work dir as its root (with the
// kit's AGENTS.md, context.json, context/ and prompt.txt), hearth's strict output
// schema, and the last message in a file the runner reads as the
// publication. stdout (`--json` events) is only read for usage.

// Codex is the preset's settings. The strict schema and its reader come
// from the caller (internal/contract/schema): that package also holds the
// schema generator, which links the store, and the runner links none.
type Codex struct {
	Bin     string // the codex executable: --codex-bin, HEARTH_CODEX_BIN, or codex on PATH
	Sandbox string // -s for the commands Codex runs: read-only unless the owner chose workspace-write
	// StrictSchema is the strict output schema Codex answers in (schema.StrictResult).
	StrictSchema []byte
	// FromStrict turns Codex's strict answer into a publication (schema.FromStrict).
	FromStrict func(strict []byte) ([]byte, error)
	// Prices price each invocation's tokens (LoadPrices); nil is DefaultPrices.
	Prices Prices

	// model is the model Codex uses in this CODEX_HOME, as its own check
	// said (checkLogin); "" until then, or when it could not tell.
	model string
}

// CodexSandboxes are the sandbox modes the preset accepts. danger-full-access
// is not offered: a job needs to read, at most to write the life folder.
var CodexSandboxes = []string{"read-only", "workspace-write"}

// args is the `codex exec` command line for one invocation, or `codex
// exec resume SESSION` for a repair that continues the refused
// invocation's session. No credential is ever in it: Codex finds its own
// login in CODEX_HOME. Sessions are recorded (no --ephemeral) so that a
// repair can resume one; the runner deletes them when the run ends.
func (c *Codex) args(work, schemaFile, lastFile, lifeDir, session string) []string {
	args := []string{"exec", "--skip-git-repo-check", "--color", "never", "-C", work, "-s", c.Sandbox}
	if c.Sandbox == "workspace-write" && lifeDir != "" {
		args = append(args, "--add-dir", lifeDir) // the life folder, for the owner's corrections
	}
	if session != "" {
		args = append(args, "resume", session)
	}
	return append(args, "--output-schema", schemaFile, "-o", lastFile, "--json", "-")
}

// errSessionGone means `codex exec resume` found no session to continue
// (it ended before starting a thread); the repair starts a new one.
var errSessionGone = errors.New("the codex session to resume is gone")

// sessionID is the shape of a Codex session (thread) id the runner passes
// back to Codex: a UUID, which never reads as an option.
var sessionID = regexp.MustCompile(`^[0-9A-Fa-f][0-9A-Fa-f-]{0,63}$`)

// codexSession is the session (thread) id of `codex exec --json`'s
// thread.started event, or "" when Codex started none.
func codexSession(events []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(events))
	sc.Buffer(make([]byte, 64*1024), len(events)+1)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "thread.started" && sessionID.MatchString(ev.ThreadID) {
			return ev.ThreadID
		}
	}
	return ""
}

// deleteSession deletes a recorded session in CODEX_HOME with `codex
// delete --force`: its rollout file (CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-*-ID.jsonl) and Codex's rows for it hold what the model read,
// message text included.
func (c *Codex) deleteSession(ctx context.Context, env []string, id string) error {
	if !sessionID.MatchString(id) {
		return fmt.Errorf("not a session id: %q", id)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Bin, "delete", "--force", id)
	cmd.Env = env
	var stderr agentLog
	stderr.out = io.Discard
	cmd.Stderr = &stderr
	if err := runGuarded(cmd); err != nil {
		// Codex prints its error, then a backtrace: the error is the line that says why.
		why := stderr.lastLine()
		for _, line := range strings.Split(string(stderr.tail), "\n") {
			if strings.HasPrefix(line, "Error:") {
				why = line
				break
			}
		}
		return fmt.Errorf("codex delete: %v: %s", err, truncate(why, 300))
	}
	return nil
}

// files writes what a Codex invocation needs beside the work dir (so
// the agent's root holds only AGENTS.md, context.json, context/ and prompt.txt): a
// private copy of the strict schema and the last-message file's path.
func (c *Codex) files(work string) (schemaFile, lastFile string, err error) {
	dir := work + ".codex"
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	strict := c.StrictSchema
	if len(strict) == 0 {
		return "", "", errors.New("the strict output schema is not embedded")
	}
	schemaFile, lastFile = filepath.Join(dir, "output-schema.json"), filepath.Join(dir, "last-message.json")
	if err := privatefile.WriteAtomic(schemaFile, strict); err != nil {
		return "", "", err
	}
	return schemaFile, lastFile, nil
}

// codexEventsFile is where an invocation keeps Codex's event stream.
func codexEventsFile(work string) string {
	return filepath.Join(work+".codex", "events.jsonl")
}

// codexReport is what an invocation's event stream says: the tokens of
// every completed turn, and the error that ended it.
type codexReport struct {
	turns     int
	tokens    codexTokens
	lastError string
}

// codexEvents reads `codex exec --json`'s event stream: the tokens of
// every completed turn, and the error that ended it: the turn's failure,
// else Codex's last top-level error. Items of type "error" are warnings
// (unknown model metadata, say) and never the failure. Other events (the
// messages and commands) are not kept.
func codexEvents(stdout []byte) codexReport {
	var rep codexReport
	failed := false // a turn.failed was read: its message is the error
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64*1024), len(stdout)+1)
	for sc.Scan() {
		var ev struct {
			Type    string       `json:"type"`
			Usage   *codexTokens `json:"usage"`
			Message string       `json:"message"`
			Error   *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "turn.completed":
			if ev.Usage != nil {
				rep.turns++
				rep.tokens = rep.tokens.plus(*ev.Usage)
			}
		case "turn.failed":
			if ev.Error != nil && ev.Error.Message != "" {
				rep.lastError, failed = ev.Error.Message, true
			}
		case "error":
			// Also a notice of a retry ("Reconnecting... 1/5"): the turn's failure outranks it.
			if ev.Message != "" && !failed {
				rep.lastError = ev.Message
			}
		}
	}
	return rep
}

// usage is an invocation's usage from its event stream: its tokens, and
// their cost when the model's price is known.
func (c *Codex) usage(events []byte) agentUsage {
	rep := codexEvents(events)
	if rep.turns == 0 {
		return agentUsage{}
	}
	total := rep.tokens.total()
	prices := c.Prices
	if prices == nil {
		prices = DefaultPrices
	}
	return agentUsage{Tokens: &total, CostUSD: prices.Cost(c.model, rep.tokens)}
}

// outcome turns a finished `codex exec` into the publication or the
// reason it failed. A non-zero exit says its status and Codex's last error
// (from the event stream, else stderr's last line): those are Codex's and
// the provider's words, never the owner's messages.
func (c *Codex) outcome(runErr error, work, lastFile string, use agentUsage, stderrTail string) ([]byte, agentUsage, error) {
	var exit *exec.ExitError
	if errors.As(runErr, &exit) {
		var why string
		if b, err := os.ReadFile(codexEventsFile(work)); err == nil {
			why = codexEvents(b).lastError
		}
		if why == "" {
			why = stderrTail
		}
		msg := fmt.Sprintf("codex exited with status %d", exit.ExitCode())
		if why != "" {
			msg += ": " + truncate(why, 300)
		}
		if providerRefusal.MatchString(why) {
			return nil, use, &authRefused{errors.New(msg)}
		}
		return nil, use, &agentExited{errors.New(msg)}
	}
	if runErr != nil {
		return nil, use, fmt.Errorf("codex did not run: %v", runErr)
	}
	out, err := os.ReadFile(lastFile)
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return nil, use, &notPublication{detail: "codex ended without a final message (a refusal or an empty answer); nothing to publish",
			words: "Your last invocation ended without a final message (an empty answer or a refusal). Print one publication as your final message."}
	}
	if len(out) > maxAgentOutput {
		return nil, use, &notPublication{detail: fmt.Sprintf("codex's final message is over %d bytes", maxAgentOutput),
			words: fmt.Sprintf("Your last final message was over %d bytes. Print one publication, within that size.", maxAgentOutput)}
	}
	pub, err := c.FromStrict(out)
	if err != nil {
		return nil, use, notAPublication("codex's final message", out, err)
	}
	return pub, use, nil
}

// maxStderrShown bounds the agent's stderr passed on as it comes, per
// invocation; past it only the last stderrTail bytes are shown, at the end.
const (
	maxStderrShown = 64 << 10
	stderrTail     = 4 << 10
)

// agentLog passes the agent's stderr on to out line by line, made safe for
// a terminal (termsafe.Text: escape sequences and other controls shown as
// Go escapes, newlines and tabs kept), and bounded: the first
// maxStderrShown bytes as they come, then only the tail, which finish
// prints after a note of how much was left out. It keeps the tail for the
// failure's reason too (lastLine).
type agentLog struct {
	out     io.Writer
	shown   int    // bytes passed on
	partial []byte // the line being written, while under the bound
	over    bool   // past maxStderrShown
	omitted int    // bytes past the bound, the kept tail included
	tail    []byte // the last stderrTail bytes written
}

func (l *agentLog) Write(p []byte) (int, error) {
	l.tail = append(l.tail, p...)
	if len(l.tail) > stderrTail {
		l.tail = l.tail[len(l.tail)-stderrTail:]
	}
	if l.over {
		l.omitted += len(p)
		return len(p), nil
	}
	l.partial = append(l.partial, p...)
	for {
		nl := bytes.IndexByte(l.partial, '\n')
		if nl < 0 || l.shown+nl+1 > maxStderrShown {
			break
		}
		io.WriteString(l.out, termsafe.Text(string(l.partial[:nl+1])))
		l.shown += nl + 1
		l.partial = l.partial[nl+1:]
	}
	if l.shown+len(l.partial) > maxStderrShown {
		l.over, l.omitted, l.partial = true, len(l.partial), nil
	}
	return len(p), nil
}

// finish passes on what the agent left unfinished: its last line without
// a newline, or, past the bound, a note and the tail's whole lines.
func (l *agentLog) finish() {
	if !l.over {
		if len(l.partial) > 0 {
			io.WriteString(l.out, termsafe.Text(string(l.partial))+"\n")
		}
		return
	}
	tail := l.tail[len(l.tail)-min(len(l.tail), l.omitted):]
	if nl := bytes.IndexByte(tail, '\n'); nl >= 0 && nl < len(tail)-1 {
		tail = tail[nl+1:] // from a line's start
	}
	fmt.Fprintf(l.out, "[hearth: %d bytes of the agent's stderr left out]\n", l.omitted-len(tail))
	text := termsafe.Text(string(tail))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	io.WriteString(l.out, text)
}

// lastLine is the last non-empty line kept.
func (l *agentLog) lastLine() string {
	lines := strings.Split(strings.TrimSpace(string(l.tail)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// maxCodexEvents bounds the event stream kept for usage: a long session's
// command output may be large, and only the turn events matter.
const maxCodexEvents = 64 << 20
