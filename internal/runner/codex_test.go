package runner

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/agent"
	"hearth/internal/apiclient"
	"hearth/internal/contract"
	"hearth/internal/contract/schema"
	"hearth/internal/poll"
)

// fakeCodex is a stand-in `codex` script: it records its argv (one per
// line), stdin, environment and the files in its -C dir into rec, and
// behaves as FAKE_CODEX_MODE says: ok writes a strict answer to the -o
// file and a turn.completed event; fail exits 3 after a turn.failed event;
// refuse exits 0 leaving the -o file empty; hang sleeps after a
// turn.completed event, until it is killed.
const fakeCodex = `#!/bin/sh
if [ "$1" = doctor ]; then printf '%s' "$FAKE_CODEX_DOCTOR"; exit 0; fi
rec=$FAKE_CODEX_REC
mkdir -p "$rec"
for a in "$@"; do printf '%s\n' "$a"; done > "$rec/argv"
cat > "$rec/stdin"
env > "$rec/env"
while [ $# -gt 0 ]; do
  case "$1" in
    -C) work=$2; shift ;;
    -o) last=$2; shift ;;
    --output-schema) schema=$2; shift ;;
  esac
  shift
done
ls "$work" > "$rec/workfiles"
cp "$work/AGENTS.md" "$rec/AGENTS.md" 2>/dev/null
cp "$schema" "$rec/schema.json"
echo '{"type":"thread.started","thread_id":"t"}'
case "$FAKE_CODEX_MODE" in
fail)
  echo '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized"}}'
  exit 3 ;;
hang)
  echo '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0}}'
  exec sleep 60 ;;
refuse)
  : > "$last"
  echo '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0}}'
  exit 0 ;;
esac
printf '%s' '{"runId":"x","jobKey":"x","expectedRevision":0,"generatedAt":"2026-09-29T05:00:00Z","sourceRefs":[],"brief":null,"people":[],"activities":[],"replyDrafts":[],"retractions":[],"completedRequests":[],"routineDefinitions":null,"reviews":null,"consumedObservations":null}' > "$last"
echo '{"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":200,"output_tokens":56,"reasoning_output_tokens":7}}'
`

// codexRunner is a runner whose agent is the fake codex script.
func codexRunner(t *testing.T, sandbox string) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex")
	if err := os.WriteFile(bin, []byte(fakeCodex), 0o700); err != nil {
		t.Fatal(err)
	}
	r := &Runner{state: filepath.Join(dir, "state"), codexHome: filepath.Join(dir, "codex-home"), agentDir: filepath.Join(dir, "life"),
		codex: codexPreset(bin, sandbox), log: slog.New(slog.DiscardHandler)}
	if err := os.MkdirAll(filepath.Join(r.state, "work"), 0o700); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "rec")
	t.Setenv("FAKE_CODEX_REC", rec)
	t.Setenv("HEARTH_TOKEN", "hearth_secret_token")
	return r, rec
}

// codexPreset is the preset as `hearth run --agent codex` wires it.
func codexPreset(bin, sandbox string) *Codex {
	strict, _ := schema.Committed(schema.StrictResult)
	return &Codex{Bin: bin, Sandbox: sandbox, StrictSchema: strict, FromStrict: schema.FromStrict}
}

func readRec(t *testing.T, rec, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rec, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTheCodexPresetRunsCodexExecWithThePromptOnStdinAndReadsTheLastMessage(t *testing.T) {
	r, rec := codexRunner(t, "read-only")
	j := runJournal{RunID: "daily-brief-1", PubRunID: "daily-brief-1-1", Job: "daily-brief", Trigger: "manual", Prompt: "Write the brief."}
	pub, use, err := r.invoke(context.Background(), j, []byte(`{"revision":7}`), 7)
	if err != nil {
		t.Fatal(err)
	}
	// The strict answer's nulls are omissions in the publication.
	if strings.Contains(string(pub), "null") || !json.Valid(pub) || !strings.Contains(string(pub), `"completedRequests":[]`) {
		t.Fatalf("publication %s: want the strict answer without its nulls", pub)
	}
	if use.Tokens == nil || *use.Tokens != 1256 {
		t.Fatalf("tokens %v, want input + output = 1256", use.Tokens)
	}
	argv := strings.Split(strings.TrimSpace(readRec(t, rec, "argv")), "\n")
	work := filepath.Join(r.state, "work", j.PubRunID)
	want := []string{"exec", "--skip-git-repo-check", "--color", "never", "-C", work, "-s", "read-only",
		"--output-schema", filepath.Join(work+".codex", "output-schema.json"), "-o", filepath.Join(work+".codex", "last-message.json"), "--json", "-"}
	if !slices.Equal(argv, want) {
		t.Fatalf("argv\n %q\nwant\n %q", argv, want)
	}
	stdin := readRec(t, rec, "stdin")
	if !strings.HasPrefix(stdin, "Write the brief.\n\n## Run\n") || !strings.Contains(stdin, "- runId: daily-brief-1-1\n") ||
		!strings.Contains(stdin, "- context file: "+filepath.Join(work, "context.json")+"\n") || !strings.Contains(stdin, "- life folder: "+r.agentDir+"\n") {
		t.Fatalf("stdin:\n%s", stdin)
	}
	if files := strings.Fields(readRec(t, rec, "workfiles")); !slices.Equal(files, []string{"AGENTS.md", "context", "context.json", "prompt.txt"}) {
		t.Fatalf("the work dir holds %v", files)
	}
	if got := readRec(t, rec, "AGENTS.md"); got != string(agent.Instructions()) {
		t.Fatalf("the work dir's AGENTS.md is not the kit's instructions:\n%.200s", got)
	}
	env := readRec(t, rec, "env")
	if !strings.Contains(env, "CODEX_HOME="+r.codexHome+"\n") || strings.Contains(env, "hearth_secret_token") {
		t.Fatalf("environment: want CODEX_HOME, never hearth's token:\n%s", env)
	}
	if strings.Contains(strings.Join(argv, " ")+stdin, "hearth_secret_token") {
		t.Fatal("hearth's token in codex's arguments or prompt")
	}
	var strict map[string]any
	if err := json.Unmarshal([]byte(readRec(t, rec, "schema.json")), &strict); err != nil || strict["additionalProperties"] != false {
		t.Fatalf("--output-schema is not the strict schema: %v", err)
	}
	if _, err := os.Stat(work); !os.IsNotExist(err) {
		t.Fatalf("the work dir outlived the invocation: %v", err)
	}
}

func TestTheCodexPresetWritesTheLifeFolderOnlyWhenTheOwnerSaysSo(t *testing.T) {
	r, rec := codexRunner(t, "workspace-write")
	j := runJournal{RunID: "requests-1", PubRunID: "requests-1-1", Job: "requests", Trigger: "manual"}
	if _, _, err := r.invoke(context.Background(), j, []byte(`{"revision":1}`), 1); err != nil {
		t.Fatal(err)
	}
	argv := readRec(t, rec, "argv")
	if !strings.Contains(argv, "-s\nworkspace-write\n--add-dir\n"+r.agentDir+"\n") {
		t.Fatalf("argv:\n%s", argv)
	}
}

func TestACodexFailureSaysItsExitStatusAndARefusalPublishesNothing(t *testing.T) {
	r, _ := codexRunner(t, "read-only")
	j := runJournal{RunID: "daily-brief-2", PubRunID: "daily-brief-2-1", Job: "daily-brief", Trigger: "manual"}
	t.Setenv("FAKE_CODEX_MODE", "fail")
	_, _, err := r.invoke(context.Background(), j, []byte(`{"revision":1}`), 1)
	// A 401 from the provider is a refused login, with Codex's words.
	var refused *authRefused
	if !errors.As(err, &refused) || refused.err.Error() != "codex exited with status 3: unexpected status 401 Unauthorized" ||
		err.Error() != "codex exited with status 3: unexpected status 401 Unauthorized (the model provider refused the login)" {
		t.Fatalf("failure: %v", err)
	}
	t.Setenv("FAKE_CODEX_MODE", "refuse")
	_, use, err := r.invoke(context.Background(), j, []byte(`{"revision":1}`), 1)
	if err == nil || !strings.Contains(err.Error(), "without a final message") || use.Tokens == nil || *use.Tokens != 12 {
		t.Fatalf("refusal: %v, tokens %v", err, use.Tokens)
	}
}

func TestAnAgentCommandGetsThePromptOnStdin(t *testing.T) {
	dir := t.TempDir()
	r := &Runner{state: dir, agentCmd: `cmp -s - "$HEARTH_PROMPT_FILE" && cat "$HEARTH_PROMPT_FILE" > ` + filepath.Join(dir, "seen") + ` && echo '{}'`,
		log: slog.New(slog.DiscardHandler)}
	os.MkdirAll(filepath.Join(dir, "work"), 0o700)
	j := runJournal{RunID: "x-1", PubRunID: "x-1-1", Job: "x", Trigger: "manual", Prompt: "Do x."}
	if _, _, err := r.invoke(context.Background(), j, []byte(`{}`), 1); err != nil {
		t.Fatalf("stdin differs from HEARTH_PROMPT_FILE: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "seen")); !strings.HasPrefix(string(b), "Do x.\n\n## Run\n") {
		t.Fatalf("prompt %q", b)
	}
}

func TestAnAgentsUsageAboveTheContractsBoundsIsReportedAtTheBound(t *testing.T) {
	dir := t.TempDir()
	r := &Runner{state: dir, agentCmd: `echo '{"tokens": 9223372036854775000, "costUsd": 1e300}' > "$HEARTH_USAGE_FILE" && echo '{}'`,
		log: slog.New(slog.DiscardHandler)}
	os.MkdirAll(filepath.Join(dir, "work"), 0o700)
	j := runJournal{RunID: "x-1", PubRunID: "x-1-1", Job: "x", Trigger: "manual", Prompt: "Do x."}
	_, use, err := r.invoke(context.Background(), j, []byte(`{}`), 1)
	if err != nil || use.Tokens == nil || *use.Tokens != contract.MaxReportedTokens || use.CostUSD == nil || *use.CostUSD != contract.MaxReportedCostUSD {
		t.Fatalf("usage %+v, %v: want each count at the bound hearth takes, so the report is recorded", use, err)
	}
	r.agentCmd = `echo '{"tokens": -5, "costUsd": -1}' > "$HEARTH_USAGE_FILE" && echo '{}'`
	if _, use, err = r.invoke(context.Background(), j, []byte(`{}`), 1); err != nil || use.Tokens != nil || use.CostUSD != nil {
		t.Fatalf("negative usage %+v, %v: want none reported", use, err)
	}
}

func TestACodexRunStoppedAtItsDeadlineStillCountsTheTokensItSpent(t *testing.T) {
	r, _ := codexRunner(t, "read-only")
	t.Setenv("FAKE_CODEX_MODE", "hang")
	j := runJournal{RunID: "daily-brief-3", PubRunID: "daily-brief-3-1", Job: "daily-brief", Trigger: "manual", Deadline: 1}
	_, use, err := r.invoke(context.Background(), j, []byte(`{"revision":1}`), 1)
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("want the deadline's failure, got %v", err)
	}
	if use.Tokens == nil || *use.Tokens != 12 {
		t.Fatalf("tokens %v: want the 12 of the turn Codex completed before the deadline", use.Tokens)
	}
}

func TestAnUnknownCodexInvocationsTokensCountOnRecoveryAndItsFilesGo(t *testing.T) {
	r, _ := codexRunner(t, "read-only")
	var mu sync.Mutex
	var reports []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, req.URL.Path+" "+string(b))
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	r.client = apiclient.New(srv.URL, "")
	os.MkdirAll(filepath.Join(r.state, "runs"), 0o700)
	// A runner stopped mid-invocation: its journal says invoking and Codex
	// had completed a turn; neither Codex nor the runner wrote usage.json.
	j := runJournal{RunID: "daily-brief-4", PubRunID: "daily-brief-4-1", Job: "daily-brief", Trigger: "manual", Phase: phaseInvoking, Invocation: 1}
	if err := r.save(j); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_CODEX_MODE", "hang")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.invoke(ctx, j, []byte(`{"revision":1}`), 1)
	}()
	work := filepath.Join(r.state, "work", j.PubRunID)
	// Keep a copy of the work dirs as the stopped runner would have left them.
	kept := t.TempDir()
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		b, _ := os.ReadFile(filepath.Join(work+".codex", "events.jsonl"))
		if strings.Contains(string(b), "turn.completed") {
			return true, ""
		}
		select {
		case <-done:
			t.Fatal("codex's events never reached a file the next runner can read")
		default:
		}
		return false, "codex's events.jsonl holds no completed turn yet"
	})
	if err := exec.Command("cp", "-a", work, work+".codex", kept).Run(); err != nil {
		t.Fatal(err)
	}
	cancel()
	<-done
	if err := exec.Command("cp", "-a", filepath.Join(kept, filepath.Base(work)), filepath.Join(kept, filepath.Base(work)+".codex"), filepath.Join(r.state, "work")).Run(); err != nil {
		t.Fatal(err)
	}
	if err := r.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 2 || !strings.Contains(reports[0], "/invocations/1/finish") || !strings.Contains(reports[0], `"outcome":"unknown"`) || !strings.Contains(reports[0], `"tokens":12`) {
		t.Fatalf("reports %q: want the unknown invocation with Codex's 12 tokens", reports)
	}
	for _, d := range []string{work, work + ".codex"} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Fatalf("%s outlived the recovery: %v", d, err)
		}
	}
}

func TestTheAgentsStderrReachesTheTerminalWithoutControlSequencesAndBounded(t *testing.T) {
	dir := t.TempDir()
	var terminal syncBuffer
	// Escape sequences that would clear the screen and retitle the window,
	// then far more output than a terminal should take, then the last word.
	r := &Runner{state: dir, agentStderr: &terminal, log: slog.New(slog.DiscardHandler),
		agentCmd: `printf 'start \033[2J\033]0;pwned\007 done\n' >&2; yes 'a long log line of the agent' | head -c 4000000 >&2; echo 'the last line' >&2; echo '{}'`}
	os.MkdirAll(filepath.Join(dir, "work"), 0o700)
	j := runJournal{RunID: "x-1", PubRunID: "x-1-1", Job: "x", Trigger: "manual", Prompt: "Do x."}
	if _, _, err := r.invoke(context.Background(), j, []byte(`{}`), 1); err != nil {
		t.Fatal(err)
	}
	out := terminal.String()
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `start \x1b[2J\x1b]0;pwned\x07 done`+"\n") {
		t.Fatalf("control sequences reached the terminal: %q", out[:min(len(out), 200)])
	}
	if len(out) > maxStderrShown+2*stderrTail || !strings.Contains(out, "bytes of the agent's stderr left out") || !strings.HasSuffix(out, "the last line\n") {
		t.Fatalf("%d bytes reached the terminal, ending %q: want at most about %d, a note of what was left out, and the tail", len(out), out[max(0, len(out)-200):], maxStderrShown)
	}
}
