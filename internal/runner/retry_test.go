package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/internal/apiclient"
	"hearth/internal/contract/schema"
	"hearth/internal/poll"
)

// fakeHost is the part of hearth's API a run's execution calls: it grants
// at most budget invocations (then 409 attempts_exhausted, as hearth
// does), accepts every publication and records the reports.
type fakeHost struct {
	budget int

	mu          sync.Mutex
	invocations int
	reports     []string // each invocation's finish body, in order
	finish      map[string]any
	published   int
}

func startFakeHost(t *testing.T, budget int) (*fakeHost, string) {
	h := &fakeHost{budget: budget}
	srv := httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(srv.Close)
	return h, srv.URL
}

var invocationFinishPath = regexp.MustCompile(`^/api/runs/[^/]+/invocations/\d+/finish$`)

func (h *fakeHost) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch p := req.URL.Path; {
	case strings.HasSuffix(p, "/invocations") && req.Method == http.MethodPost:
		if h.invocations >= h.budget {
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"code":"attempts_exhausted","message":"no invocation is left"}`)
			return
		}
		h.invocations++
		fmt.Fprintf(w, `{"id":"run","state":"running","invocations":%d}`, h.invocations)
	case p == "/api/agent-context":
		io.WriteString(w, `{"revision":4}`)
	case invocationFinishPath.MatchString(p):
		h.reports = append(h.reports, string(body))
		io.WriteString(w, `{}`)
	case p == "/api/agent-results":
		h.published++
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"runId":"x","revision":5}`)
	case strings.HasSuffix(p, "/finish"):
		json.Unmarshal(body, &h.finish)
		io.WriteString(w, `{"id":"run","state":"x"}`)
	default:
		io.WriteString(w, `{}`)
	}
}

// retryRunner is a runner whose agent command is script, in a fresh state dir, talking to url.
func retryRunner(t *testing.T, url, script string) *Runner {
	t.Helper()
	r, err := New(Config{Client: apiclient.New(url, "t"), AgentCmd: script, State: t.TempDir(), Log: slog.New(slog.DiscardHandler),
		AgentBackoff: []time.Duration{time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	r.agentStderr = io.Discard
	return r
}

// scriptAgent prints, on its nth invocation, the nth of answers (the last
// one after that) and keeps each prompt in dir/prompt-N.
func scriptAgent(dir string, answers ...string) string {
	var cases strings.Builder
	for i, a := range answers {
		pattern := fmt.Sprint(i + 1)
		if i == len(answers)-1 {
			pattern = "*"
		}
		fmt.Fprintf(&cases, "%s) %s ;;\n", pattern, a)
	}
	return fmt.Sprintf(`n=$(( $(cat %[1]s/count 2>/dev/null || echo 0) + 1 )); echo $n > %[1]s/count; cp "$HEARTH_PROMPT_FILE" %[1]s/prompt-$n
case $n in
%[2]sesac`, dir, cases.String())
}

func readPrompt(t *testing.T, dir string, n int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("prompt-%d", n)))
	if err != nil {
		t.Fatalf("invocation %d never ran: %v", n, err)
	}
	return string(b)
}

func startedRun() runJournal {
	return runJournal{RunID: "daily-brief-r", Job: "daily-brief", Trigger: "manual", Phase: phaseStarted, Prompt: "Write the brief.", Deadline: 60}
}

func TestAFailedInvocationIsFollowedByAnotherThatIsToldWhatWentWrong(t *testing.T) {
	const secret = "Ana said the surgery is on Thursday"
	for _, c := range []struct {
		name, first, words string
	}{
		{"prose around the JSON", `echo 'Here is the brief (` + secret + `): {"a":1} Hope it helps.'`, "did not start with a JSON object"},
		{"a truncated answer", `printf '{"activities":[{"title":"` + secret + `"'`, "cut off"},
		{"an agent that exits with an error", `echo '` + secret + `' >&2; exit 3`, "ended with an error of the agent or its model provider"},
		{"a hang past the deadline", `exec sleep 30`, "did not finish within its 3s deadline"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, url := startFakeHost(t, 3)
			dir := t.TempDir()
			r := retryRunner(t, url, scriptAgent(dir, c.first, `echo '{}'`))
			j := startedRun()
			j.Deadline = 3 // seconds: the second, quick invocation must finish within it too, even on a loaded machine
			if err := r.execute(context.Background(), j); err != nil {
				t.Fatalf("the run failed: %v; reports %q", err, h.reports)
			}
			if h.invocations != 2 || h.published != 1 || h.finish["outcome"] != "succeeded" || len(h.reports) != 2 ||
				!strings.Contains(h.reports[0], `"outcome":"failed"`) || !strings.Contains(h.reports[1], `"outcome":"published"`) {
				t.Fatalf("%d invocation(s), %d publication(s), finish %v, reports %q: want a failed one, then one that published", h.invocations, h.published, h.finish, h.reports)
			}
			if first := readPrompt(t, dir, 1); strings.Contains(first, "published nothing") {
				t.Fatalf("the first prompt speaks of a failure:\n%s", first)
			}
			second := readPrompt(t, dir, 2)
			if !strings.Contains(second, "## Your last invocation published nothing") || !strings.Contains(second, c.words) ||
				strings.Index(second, "published nothing") > strings.Index(second, "## Run") {
				t.Fatalf("the second prompt does not say %q before the Run section:\n%s", c.words, second)
			}
			if strings.Contains(second, "Thursday") {
				t.Fatalf("the second prompt carries the failed answer's text:\n%s", second)
			}
		})
	}
}

func TestARunWhoseEveryInvocationFailsSaysWhyForEach(t *testing.T) {
	h, url := startFakeHost(t, 3)
	dir := t.TempDir()
	r := retryRunner(t, url, scriptAgent(dir, `echo 'no JSON at all'`, `printf '{"a":'`, `exit 3`))
	err := r.execute(context.Background(), startedRun())
	if err == nil || h.invocations != 3 || len(h.reports) != 3 || h.published != 0 {
		t.Fatalf("err %v, %d invocation(s), reports %q, %d publication(s): want three failed invocations and a failed run", err, h.invocations, h.reports, h.published)
	}
	detail, _ := h.finish["detail"].(string)
	for _, want := range []string{"no invocation is left (attempts_exhausted)", "invocation 1: agent: the agent's output is not a publication",
		"invocation 2: agent: the agent's output is not a publication", "invocation 3: agent: exited: exit status 3"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the run's detail lacks %q:\n%s", want, detail)
		}
	}
	if h.finish["outcome"] != "failed" || len([]rune(detail)) > 500 {
		t.Fatalf("finish %v: want failed, with a detail hearth takes", h.finish)
	}
}

func TestARefusedLoginBurnsNoFurtherInvocation(t *testing.T) {
	h, url := startFakeHost(t, 3)
	r, _ := codexRunner(t, "read-only")
	r.client = apiclient.New(url, "t")
	r.agentBackoff = []time.Duration{time.Millisecond}
	for _, d := range []string{"runs", "pending", "failed"} {
		os.MkdirAll(filepath.Join(r.state, d), 0o700)
	}
	t.Setenv("FAKE_CODEX_MODE", "fail") // a 401
	err := r.execute(context.Background(), startedRun())
	if err == nil || h.invocations != 1 || h.finish["outcome"] != "failed" || !strings.Contains(fmt.Sprint(h.finish["detail"]), "401") {
		t.Fatalf("err %v, %d invocation(s), finish %v: want the run failed at once, naming the 401", err, h.invocations, h.finish)
	}
}

func TestAStoppedRunnerDuringTheBackoffLeavesTheRunToInvokeAgain(t *testing.T) {
	h, url := startFakeHost(t, 3)
	dir := t.TempDir()
	r := retryRunner(t, url, scriptAgent(dir, `exit 3`, `echo '{}'`))
	r.agentBackoff = []time.Duration{time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.execute(ctx, startedRun()) }()
	poll.Eventually(t, 20*time.Second, func() (bool, string) {
		h.mu.Lock()
		n := len(h.reports)
		h.mu.Unlock()
		return n == 1, "the first invocation was never reported"
	})
	cancel() // SIGTERM during the wait
	if err := <-done; err == nil {
		t.Fatal("a runner stopped during the backoff said nothing")
	}
	// The next runner recovers the run and invokes again, with the failure in words.
	r.agentBackoff = []time.Duration{time.Millisecond}
	if err := r.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h.invocations != 2 || h.finish["outcome"] != "succeeded" || !strings.Contains(readPrompt(t, dir, 2), "published nothing") {
		t.Fatalf("%d invocation(s), finish %v: want the recovered run's second invocation to publish", h.invocations, h.finish)
	}
}

func TestTheBackoffGrowsAndNeverPassesTheRunsDeadline(t *testing.T) {
	r := &Runner{}
	for _, c := range []struct {
		failures, deadline int
		want               time.Duration
	}{{1, 600, 30 * time.Second}, {2, 600, 2 * time.Minute}, {3, 600, 2 * time.Minute}, {2, 60, time.Minute}} {
		if got := r.backoff(runJournal{ProviderFailures: c.failures, Deadline: c.deadline}); got != c.want {
			t.Errorf("after %d provider failure(s), deadline %ds: wait %s, want %s", c.failures, c.deadline, got, c.want)
		}
	}
}

func TestAFinalMessageThatIsNotAPublicationIsDescribedNotRepeated(t *testing.T) {
	const secret = "Ana's surgery is on Thursday"
	for _, c := range []struct{ name, out, words string }{
		{"empty", "  \n", "it was empty"},
		{"prose before", "Sure! " + secret + ` {"a":1}`, "text before it"},
		{"prose after", `{"a":"` + secret + `"} I hope this helps.`, "text after its JSON object"},
		{"truncated", `{"a":"` + secret, "cut off"},
		{"not JSON", `{"a": ` + secret + `}`, "not valid JSON"},
		{"a null in a list", `{"activities":[null],"note":"` + secret + `"}`, "not in the output schema's form (at /activities/0: null in a list)"},
	} {
		_, cause := schema.FromStrict([]byte(c.out))
		if cause == nil {
			t.Fatalf("%s: the strict reader took %q", c.name, c.out)
		}
		err := notAPublication("codex's final message", []byte(c.out), cause)
		np, ok := err.(*notPublication)
		if !ok || !strings.Contains(np.words, c.words) || strings.Contains(np.words, "Thursday") {
			t.Errorf("%s: words %q: want %q and none of the message", c.name, np.words, c.words)
		}
		// The run's detail describes it the same way; a parser's error may quote the message ("invalid character 'A'").
		if !strings.HasPrefix(np.detail, "codex's final message is not a publication: ") || strings.Contains(np.detail, "Thursday") || strings.Contains(np.detail, "character") {
			t.Errorf("%s: detail %q: want a description, none of the message", c.name, np.detail)
		}
	}
}

// The event streams are recorded from Codex 0.171.0 against a scripted
// endpoint: an unknown model's metadata warning (an item of type "error")
// in a turn that completed, and a 500 storm with Codex's default retries.
func TestCodexWarningsAreNeverAnInvocationsFailure(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rep := codexEvents(read("codex-events-warning-ok.jsonl"))
	if why, tokens := rep.lastError, rep.tokens.total(); why != "" || rep.turns != 1 || tokens != 12 {
		t.Fatalf("a completed turn with a warning item: error %q, tokens %d; want no error and 12 tokens", why, tokens)
	}
	why := codexEvents(read("codex-events-500-storm.jsonl")).lastError
	if want := "We’re currently experiencing high demand, which may cause temporary errors."; why != want {
		t.Fatalf("a 500 storm's error %q, want the turn's failure %q (not a retry notice or the warning)", why, want)
	}
	// A turn's failure outranks a later top-level error, and a warning after it changes nothing.
	stream := `{"type":"turn.failed","error":{"message":"unexpected status 502"}}
{"type":"error","message":"Reconnecting... 1/5"}
{"type":"item.completed","item":{"id":"item_9","type":"error","message":"Model metadata not found"}}
`
	if why = codexEvents([]byte(stream)).lastError; why != "unexpected status 502" {
		t.Fatalf("error %q, want the turn's failure", why)
	}
}
