package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/internal/apiclient"
)

// resumableCodex is a stand-in `codex` that keeps sessions as the real
// one does, in files under $CODEX_HOME/sessions: `exec` starts one
// (thread.started with a new id), `exec ... resume ID` continues ID, or
// exits 1 before starting a thread when ID's file is gone, and `delete
// --force ID` removes it. Each exec's argv and stdin go to $FAKE_CODEX_REC
// as argv.N and stdin.N.
const resumableCodex = `#!/bin/sh
rec=$FAKE_CODEX_REC
mkdir -p "$rec" "$CODEX_HOME/sessions"
if [ "$1" = doctor ]; then printf '%s' "$FAKE_CODEX_DOCTOR"; exit 0; fi
if [ "$1" = delete ]; then
  [ "$2" = --force ] && [ -f "$CODEX_HOME/sessions/$3" ] || { echo "Error: no session $3" >&2; exit 1; }
  rm "$CODEX_HOME/sessions/$3"
  exit 0
fi
n=$(($(ls "$rec" | grep -c '^argv\.') + 1))
for a in "$@"; do printf '%s\n' "$a"; done > "$rec/argv.$n"
cat > "$rec/stdin.$n"
id=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) last=$2; shift ;;
    resume) id=$2; shift ;;
  esac
  shift
done
if [ -n "$id" ]; then
  [ -f "$CODEX_HOME/sessions/$id" ] || { echo "Error: thread/resume failed: no rollout found for thread id $id" >&2; exit 1; }
else
  id=$(printf '0000000%d-0000-4000-8000-000000000000' "$n")
fi
echo "$n" >> "$CODEX_HOME/sessions/$id"
echo '{"type":"thread.started","thread_id":"'"$id"'"}'
printf '%s' '{"runId":"x","jobKey":"x","expectedRevision":0,"generatedAt":"2026-09-29T05:00:00Z","sourceRefs":[],"brief":null,"people":[],"activities":[],"replyDrafts":[],"retractions":[],"completedRequests":[],"routineDefinitions":null,"reviews":null,"consumedObservations":null}' > "$last"
echo '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2,"reasoning_output_tokens":0}}'
`

// fakeHearth answers a run's API calls; publications answer with
// refusals[n] (a 422's body) for the nth, then 201.
type fakeHearth struct {
	mu           sync.Mutex
	invocations  int
	published    int
	refusals     []string
	finishedRuns []string
}

func (h *fakeHearth) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case req.URL.Path == "/api/runs":
		w.Write([]byte(`{"admitted":true,"deadlineSeconds":60,"maxInvocations":3}`))
	case strings.HasSuffix(req.URL.Path, "/invocations") && req.Method == http.MethodPost:
		h.invocations++
		fmt.Fprintf(w, `{"id":"daily-brief-9","job":"daily-brief","state":"running","invocations":%d}`, h.invocations)
	case req.URL.Path == "/api/agent-context":
		w.Write([]byte(`{"revision":3}`))
	case req.URL.Path == "/api/agent-results":
		h.published++
		if h.published <= len(h.refusals) {
			w.WriteHeader(http.StatusUnprocessableEntity)
			w.Write([]byte(h.refusals[h.published-1]))
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"runId":"x","revision":4}`))
	case strings.HasSuffix(req.URL.Path, "/finish") && !strings.Contains(req.URL.Path, "/invocations/"):
		h.finishedRuns = append(h.finishedRuns, req.URL.Path)
		w.Write([]byte(`{"id":"daily-brief-9","state":"succeeded"}`))
	default:
		w.Write([]byte(`{}`))
	}
}

const refusal422 = `{"code":"invalid_result","message":"the result was rejected","details":{"errors":[` +
	`{"path":"/activities/0/colour","message":"unknown field","expected":"one of: id, kind","found":"field \"colour\""},` +
	`{"path":"/activities/0/evidenceIds/0","message":"unknown source ref","expected":"a source ref","found":"\"life-nowhere\""}]}}`

// resumeRunner is a runner whose Codex is resumableCodex, talking to h.
func resumeRunner(t *testing.T, h *fakeHearth) (r *Runner, rec, home string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "codex")
	if err := os.WriteFile(bin, []byte(resumableCodex), 0o700); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	home = filepath.Join(dir, "codex-home")
	r, err := New(Config{Client: apiclient.New(srv.URL, ""), CodexHome: home, Codex: codexPreset(bin, "read-only"),
		State: filepath.Join(dir, "state"), Log: slog.New(slog.DiscardHandler), Retries: []time.Duration{}})
	if err != nil {
		t.Fatal(err)
	}
	rec = filepath.Join(dir, "rec")
	t.Setenv("FAKE_CODEX_REC", rec)
	t.Setenv("FAKE_CODEX_DOCTOR", `{"codexVersion":"0.171.0","checks":{"auth.credentials":{"status":"ok","summary":"auth is configured"},"config.load":{"status":"ok","details":{"model":"<default>"}}}}`)
	return r, rec, home
}

func sessionsLeft(t *testing.T, home string) []string {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(home, "sessions"))
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestARepairResumesTheRefusedInvocationsSessionWithItsErrorsAlone(t *testing.T) {
	h := &fakeHearth{refusals: []string{refusal422}}
	r, rec, home := resumeRunner(t, h)
	if err := r.RunManual(context.Background(), "daily-brief", "Write the brief."); err != nil {
		t.Fatal(err)
	}
	first := strings.Split(strings.TrimSpace(readRec(t, rec, "argv.1")), "\n")
	second := strings.Split(strings.TrimSpace(readRec(t, rec, "argv.2")), "\n")
	session := "00000001-0000-4000-8000-000000000000"
	if strings.Contains(strings.Join(first, " "), "resume") || strings.Contains(strings.Join(first, " "), "--ephemeral") {
		t.Fatalf("the first invocation is not a new recorded session: %q", first)
	}
	if i := indexOf(second, "resume"); i < 0 || second[i+1] != session || indexOf(second, "--output-schema") < i || indexOf(second, "-o") < i {
		t.Fatalf("the repair does not resume %s with the output schema and -o: %q", session, second)
	}
	stdin := readRec(t, rec, "stdin.2")
	if !strings.HasPrefix(stdin, "## Your last publication was refused\n") || strings.Contains(stdin, "Write the brief.") ||
		!strings.Contains(stdin, "path /activities/0/colour") || !strings.Contains(stdin, "path /activities/0/evidenceIds/0") ||
		!strings.Contains(stdin, "\n## Run\n") || !strings.Contains(stdin, "- runId: daily-brief-") {
		t.Fatalf("the resumed prompt is not the errors and the new Run section alone:\n%s", stdin)
	}
	if left := sessionsLeft(t, home); len(left) != 0 || len(h.finishedRuns) != 1 {
		t.Fatalf("sessions left after the run ended: %v (runs finished: %v)", left, h.finishedRuns)
	}
}

func TestARepairWhoseSessionIsGoneStartsANewOneWithTheRefusedPublicationsFile(t *testing.T) {
	h := &fakeHearth{refusals: []string{refusal422}}
	r, rec, home := resumeRunner(t, h)
	// The session disappears between the refusal and the repair, as when
	// the owner deletes it or CODEX_HOME is another one.
	r.codex.Bin = wrapBeforeResume(t, r.codex.Bin, filepath.Join(home, "sessions"))
	if err := r.RunManual(context.Background(), "daily-brief", "Write the brief."); err != nil {
		t.Fatal(err)
	}
	third := readRec(t, rec, "argv.3")
	if strings.Contains(third, "resume") {
		t.Fatalf("the fallback resumed again: %q", third)
	}
	stdin := readRec(t, rec, "stdin.3")
	_, after, _ := strings.Cut(stdin, "The refused publication is in ")
	file, _, _ := strings.Cut(after, ": read it")
	if b, err := os.ReadFile(file); err != nil || !strings.HasPrefix(file, filepath.Join(r.state, "failed")+"/") || !json.Valid(b) {
		t.Fatalf("the cold repair does not name the refused publication's file (%q: %v):\n%s", file, err, stdin)
	}
	if !strings.HasPrefix(stdin, "Write the brief.\n") || !strings.Contains(stdin, "path /activities/0/colour") {
		t.Fatalf("the cold repair lacks the run's prompt or the errors:\n%s", stdin)
	}
	if h.invocations != 2 || h.published != 2 {
		t.Fatalf("%d invocations and %d publications: the fallback is the same invocation", h.invocations, h.published)
	}
	if left := sessionsLeft(t, home); len(left) != 0 {
		t.Fatalf("sessions left after the run ended: %v", left)
	}
}

// wrapBeforeResume is a codex that empties sessions before a resume, then runs bin.
func wrapBeforeResume(t *testing.T, bin, sessions string) string {
	t.Helper()
	w := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\ncase \" $* \" in *\" resume \"*) rm -f " + sessions + "/* ;; esac\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(w, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

func TestTheSessionIDComesFromThreadStartedAndNeverReadsAsAnOption(t *testing.T) {
	for events, want := range map[string]string{
		`{"type":"thread.started","thread_id":"01a24118-644f-7a70-9d9b-9db2d92dbd5d"}` + "\n" + `{"type":"turn.started"}`: "01a24118-644f-7a70-9d9b-9db2d92dbd5d",
		`{"type":"turn.started"}`:                          "",
		`{"type":"thread.started","thread_id":"--last"}`:   "",
		`{"type":"thread.started","thread_id":"../x"}`:     "",
		`{"type":"item.completed","thread_id":"0123-abc"}`: "",
	} {
		if got := codexSession([]byte(events)); got != want {
			t.Errorf("%s: session %q, want %q", events, got, want)
		}
	}
}

func TestARunEndedOnRecoveryDeletesTheSessionsOfItsInvocationsAndTheStoppedOne(t *testing.T) {
	h := &fakeHearth{}
	r, _, home := resumeRunner(t, h)
	earlier, stopped := "0000000a-0000-4000-8000-000000000000", "0000000b-0000-4000-8000-000000000000"
	for _, id := range []string{earlier, stopped, "0000000c-0000-4000-8000-000000000000"} {
		writeTestFile(t, filepath.Join(home, "sessions", id), "1\n")
	}
	// A runner stopped during invocation 2: Codex had started its session.
	j := runJournal{RunID: "daily-brief-5", PubRunID: "daily-brief-5-2", Job: "daily-brief", Trigger: "manual", Phase: phaseInvoking,
		Invocation: 2, CodexSessions: []string{earlier}}
	if err := r.save(j); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, codexEventsFile(filepath.Join(r.state, "work", j.PubRunID)), `{"type":"thread.started","thread_id":"`+stopped+`"}`+"\n")
	if err := r.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := sessionsLeft(t, home); len(left) != 1 || left[0] != "0000000c-0000-4000-8000-000000000000" || len(h.finishedRuns) != 1 {
		t.Fatalf("sessions left %v, runs finished %v: want only the other run's session kept", left, h.finishedRuns)
	}
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
