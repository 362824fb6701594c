package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/agent"
	"hearth/internal/contract/schema/strictmode"
	"hearth/internal/poll"
)

// codexVersion is the Codex CLI the preset is proven against.
const codexVersion = "0.171.0"

// codexBinDir returns the directory holding the pinned Codex CLI's
// `codex`, installed from npm with its install scripts (which fetch the
// platform binary).
func codexBinDir(t *testing.T) string {
	dir := npmPackage{name: "@openai/codex", version: codexVersion, cache: "codex-" + codexVersion, scripts: true}.install(t)
	return filepath.Join(dir, "node_modules", ".bin")
}

// responses is a scripted OpenAI Responses endpoint on loopback. Like the
// real API it refuses a text.format schema that breaks strict mode; it
// also refuses a request that does not carry the job's prompt and the
// kit's instructions, which the runner writes as AGENTS.md for Codex to
// read. Otherwise it answers with the publication answer(n) returns for
// the nth request, unless fail(n) gives an HTTP status.
type responses struct {
	t        *testing.T
	URL      string
	requests atomic.Int64
	prompt   string               // what every request must carry
	answer   func(n int64) string // the model's final message (a strict publication)
	fail     func(n int64) int    // an HTTP status to answer instead, or 0
	before   func(n int64)        // runs before the answer (an owner acting mid-run)
	tokens   [2]int64             // input and output tokens each answer reports

	usage func(n int64) map[string]any // the nth answer's usage, in the API's fields, instead of tokens'

	mu       sync.Mutex
	problems []string // what it refused, for the failure message
	inputs   []string // every request's input text, in order
}

// input is the nth request's input text (from 1).
func (r *responses) input(n int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n < 1 || n > len(r.inputs) {
		return ""
	}
	return r.inputs[n-1]
}

func startResponses(t *testing.T, prompt string, answer func(n int64) string) *responses {
	t.Helper()
	r := &responses{t: t, prompt: prompt, answer: answer, tokens: [2]int64{1234, 56}}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// refuse answers as the API does to a bad request, and remembers why.
func (r *responses) refuse(w http.ResponseWriter, status int, code, msg string) {
	r.mu.Lock()
	r.problems = append(r.problems, msg)
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": "text.format.schema", "code": code}})
}

func (r *responses) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/responses" {
		http.NotFound(w, req)
		return
	}
	n := r.requests.Add(1)
	body, _ := io.ReadAll(req.Body)
	var in struct {
		Text struct {
			Format struct {
				Type   string         `json:"type"`
				Name   string         `json:"name"`
				Strict bool           `json:"strict"`
				Schema map[string]any `json:"schema"`
			} `json:"format"`
		} `json:"text"`
		Input any `json:"input"`
	}
	if enc := req.Header.Get("Content-Encoding"); enc != "" || json.Unmarshal(body, &in) != nil {
		r.refuse(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("unreadable request body (Content-Encoding %q)", enc))
		return
	}
	f := in.Text.Format
	if f.Type != "json_schema" || !f.Strict || f.Schema == nil {
		r.refuse(w, http.StatusBadRequest, "invalid_json_schema", fmt.Sprintf("text.format is %q, strict %v: want a strict json_schema", f.Type, f.Strict))
		return
	}
	if problems, _ := strictmode.Check(f.Schema); len(problems) > 0 {
		r.refuse(w, http.StatusBadRequest, "invalid_json_schema", fmt.Sprintf("Invalid schema for response_format '%s': %s", f.Name, strings.Join(problems, "; ")))
		return
	}
	var texts []string
	collectStrings(in.Input, &texts)
	all := strings.Join(texts, "\n")
	r.mu.Lock()
	r.inputs = append(r.inputs, all)
	r.mu.Unlock()
	if !strings.Contains(all, r.prompt) || !strings.Contains(all, "# hearth job: instructions for the agent") {
		r.refuse(w, http.StatusBadRequest, "invalid_request", "the request does not carry the job's prompt and the kit's instructions (AGENTS.md)")
		return
	}
	if r.before != nil {
		r.before(n)
	}
	if r.fail != nil {
		if status := r.fail(n); status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
	}
	id := fmt.Sprintf("resp_%d", n)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	event := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	event(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "message", "role": "assistant",
		"content": []any{map[string]any{"type": "output_text", "text": r.answer(n)}}}})
	usage := map[string]any{"input_tokens": r.tokens[0], "output_tokens": r.tokens[1], "total_tokens": r.tokens[0] + r.tokens[1]}
	if r.usage != nil {
		usage = r.usage(n)
	}
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "usage": usage}})
}

// collectStrings gathers every string in a decoded JSON value.
func collectStrings(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case []any:
		for _, x := range v {
			collectStrings(x, out)
		}
	case map[string]any:
		for _, x := range v {
			collectStrings(x, out)
		}
	}
}

// codexOwner is an owner's machine: hearth with the demo data, the agent
// token in a 0600 file, a runner data dir, and a CODEX_HOME whose
// config.toml points Codex at the scripted endpoint (as an owner's points
// it at OpenAI after `codex login`).
type codexOwner struct {
	t                *testing.T
	srv              *server
	token, tokenFile string
	data, codexHome  string
	path             string // PATH with the pinned codex first
	api              *responses
}

func newCodexOwner(t *testing.T, api *responses) *codexOwner {
	t.Helper()
	bin := codexBinDir(t)
	return newCodexOwnerOn(t, startServerEnv(t, nil, "--demo"), bin, api)
}

// newCodexOwnerOn is newCodexOwner on a running demo server, with codex in bin.
func newCodexOwnerOn(t *testing.T, srv *server, bin string, api *responses) *codexOwner {
	t.Helper()
	tokenFile := filepath.Join(srv.DataDir, "agent.token")
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	o := &codexOwner{t: t, srv: srv, token: strings.TrimSpace(string(tok)), tokenFile: tokenFile, data: t.TempDir(),
		codexHome: t.TempDir(), path: bin + string(os.PathListSeparator) + os.Getenv("PATH"), api: api}
	config := `# hearth e2e: Codex ` + codexVersion + ` against a scripted Responses endpoint, offline.
model = "gpt-5.5"
model_provider = "hearthtest"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
shell_snapshot = false
unbounded_connection_retries = false

[model_providers.hearthtest]
name = "hearthtest"
base_url = "` + api.URL + `/v1"
env_key = "HEARTH_TEST_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 60000
`
	writeFile(t, o.codexHome, "config.toml", []byte(config), 0o600)
	o.codex(t, "sk-hearth-e2e", "login", "--with-api-key")
	return o
}

// codex runs the pinned codex CLI itself in the owner's CODEX_HOME (as the
// owner would: `codex login --with-api-key`, `codex logout`), stdin given.
func (o *codexOwner) codex(t *testing.T, stdin string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(strings.SplitN(o.path, string(os.PathListSeparator), 2)[0], "codex"), args...)
	cmd.Env = cleanEnv("CODEX_HOME="+o.codexHome, "PATH="+o.path)
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("codex %v: %v\n%s", args, err, out)
	}
}

// env is the owner's environment for `hearth run`: where hearth is, the
// runner's data dir, Codex's home and the provider's key (Codex's own
// credential, never hearth's).
func (o *codexOwner) env(extra ...string) []string {
	return append([]string{"PATH=" + o.path, "HEARTH_URL=" + o.srv.URL, "HEARTH_DATA=" + o.data, "CODEX_HOME=" + o.codexHome,
		"HEARTH_TEST_KEY=sk-hearth-e2e"}, extra...)
}

// run is the README's owner command, `hearth run --job daily-brief --agent codex`, with ARGS instead when given.
func (o *codexOwner) run(args ...string) cliResult {
	o.t.Helper()
	if len(args) == 0 {
		args = []string{"--job", "daily-brief"}
	}
	return runHearth(o.t, o.env(), append(append([]string{"run"}, args...), "--agent", "codex", "--credential-file", o.tokenFile)...)
}

// context reads what an agent reads: the revision, today, the brief and the last publication.
func (o *codexOwner) context() (rev int64, date, zone, brief, lastRunID string) {
	o.t.Helper()
	var ac struct {
		Revision int64 `json:"revision"`
		Today    struct {
			Date     string `json:"date"`
			TimeZone string `json:"timeZone"`
		} `json:"today"`
		Brief *struct {
			Text string `json:"text"`
		} `json:"brief"`
		LastPublication *struct {
			RunID string `json:"runId"`
		} `json:"lastPublication"`
	}
	decodeJSON(o.t, newAgentClient(o.srv.URL, o.token).contextJSON(o.t), &ac)
	if ac.Brief != nil {
		brief = ac.Brief.Text
	}
	if ac.LastPublication != nil {
		lastRunID = ac.LastPublication.RunID
	}
	return ac.Revision, ac.Today.Date, ac.Today.TimeZone, brief, lastRunID
}

// runs is the owner's Runs page: each run's state, detail and usage line.
func (o *codexOwner) runs() []runRow {
	o.t.Helper()
	var out []runRow
	loginOwner(o.t, o.srv.URL).mustPage(http.MethodGet, "/runs", nil).Find(`[data-testid="run"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-id")
		state, _ := s.Attr("data-state")
		out = append(out, runRow{id: id, state: state, detail: s.Find(`[data-testid="run-detail"]`).Text(), text: s.Text(),
			publication: s.Find(`[data-testid="run-publication"]`).Text()})
	})
	return out
}

type runRow struct{ id, state, detail, text, publication string }

// strictBrief is a daily-brief publication as a model answering under
// the strict schema writes it: every property present, null where the
// publication leaves one out. runId, jobKey and expectedRevision are
// placeholders the runner stamps.
func strictBrief(date, zone, text string) string {
	now := time.Now().UTC().Format(time.RFC3339)
	pub := map[string]any{
		"runId": "stamped-by-the-runner", "jobKey": "daily-brief", "expectedRevision": 0, "generatedAt": now,
		"sourceRefs": []any{map[string]any{"id": "life-codex-today", "kind": "life", "path": "notes/today.md",
			"contentHash": "sha256:" + strings.Repeat("c0", 32), "observedAt": now,
			"accountId": nil, "chatId": nil, "messageId": nil, "targetId": nil}},
		"brief":  map[string]any{"date": date, "timeZone": zone, "text": text, "evidenceIds": []any{"life-codex-today"}},
		"people": []any{},
		"activities": []any{map[string]any{"id": "codex-plan-the-day", "kind": "task", "title": "Plan the day", "detail": nil,
			"evidenceIds": []any{"life-codex-today"}, "personId": nil, "parentId": nil, "occurrenceKey": nil,
			"recommendation": map[string]any{"section": "focus", "rank": 1, "reason": nil}, "payload": map[string]any{}}},
		"replyDrafts": []any{}, "retractions": []any{}, "completedRequests": []any{},
		"routineDefinitions": nil, "reviews": nil, "consumedObservations": nil,
	}
	b, _ := json.Marshal(pub)
	return string(b)
}

// dailyBriefPrompt is the kit's prompt, which every request must carry.
func dailyBriefPrompt(t *testing.T) string {
	p, ok := agent.Prompt("daily-brief")
	if !ok {
		t.Fatal("the kit has no daily-brief prompt")
	}
	return strings.TrimSpace(p)
}

func TestCodexRunsTheDailyBriefAndItsPublicationLands(t *testing.T) {
	t.Parallel()
	var date, zone string
	api := startResponses(t, dailyBriefPrompt(t), func(n int64) string { return strictBrief(date, zone, "Written by Codex.") })
	o := newCodexOwner(t, api)
	var before int64
	before, date, zone, _, _ = o.context()

	res := o.run()
	if res.code != 0 {
		t.Fatalf("hearth run --job daily-brief --agent codex: exit %d\nstdout %s\nstderr %s\nendpoint refused: %v", res.code, res.stdout, res.stderr, api.problems)
	}
	rev, _, _, brief, last := o.context()
	runs := o.runs()
	if api.requests.Load() != 1 || rev != before+1 || brief != "Written by Codex." || len(runs) != 1 ||
		runs[0].state != "succeeded" || !strings.Contains(runs[0].publication, last) || !strings.HasSuffix(last, "-1") {
		t.Fatalf("%d request(s); revision %d (was %d), brief %q, last publication %s; runs %+v", api.requests.Load(), rev, before, brief, last, runs)
	}
	if want := fmt.Sprintf("%d tokens", api.tokens[0]+api.tokens[1]); !strings.Contains(runs[0].text, want) {
		t.Fatalf("the Runs page does not show the run's %s:\n%s", want, runs[0].text)
	}
}

func TestALostAnswerIsReplayedWithoutInvokingCodexAgain(t *testing.T) {
	t.Parallel()
	var date, zone string
	api := startResponses(t, dailyBriefPrompt(t), func(n int64) string { return strictBrief(date, zone, "Kept across a crash.") })
	o := newCodexOwner(t, api)
	var before int64
	before, date, zone, _, _ = o.context()

	// The runner is SIGKILLed after hearth stored the publication, before it read the answer.
	cmd := exec.Command(hearthBin, "run", "--job", "daily-brief", "--agent", "codex", "--credential-file", o.tokenFile)
	cmd.Env = cleanEnv(o.env("HEARTH_RUNNER_PAUSE_AT=published")...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	paused := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "paused at published") {
				close(paused)
			}
		}
	}()
	select {
	case <-paused:
	case <-time.After(60 * time.Second):
		t.Fatalf("the runner never published; endpoint refused: %v", api.problems)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	rev, _, _, _, published := o.context()
	if rev != before+1 || api.requests.Load() != 1 {
		t.Fatalf("before the crash: revision %d (was %d), %d request(s)", rev, before, api.requests.Load())
	}

	// The next runner (nothing due) sends the kept bytes again: a replay.
	res := o.run("--due")
	if res.code != 0 {
		t.Fatalf("the next runner: exit %d\n%s", res.code, res.stderr)
	}
	rev, _, _, brief, last := o.context()
	runs := o.runs()
	if api.requests.Load() != 1 || rev != before+1 || last != published || brief != "Kept across a crash." ||
		len(runs) != 1 || runs[0].state != "succeeded" || !strings.Contains(runs[0].publication, published) {
		t.Fatalf("after recovery: %d request(s) (Codex invoked again?), revision %d (was %d), last %s (published %s), runs %+v",
			api.requests.Load(), rev, before, last, published, runs)
	}
}

func TestAnOwnerChangeMidRunGivesANewInvocationThatLands(t *testing.T) {
	t.Parallel()
	var date, zone string
	api := startResponses(t, dailyBriefPrompt(t), func(n int64) string {
		return strictBrief(date, zone, fmt.Sprintf("Answer %d.", n))
	})
	o := newCodexOwner(t, api)
	owner := loginOwner(t, o.srv.URL)
	// While Codex thinks, the owner asks for something: the revision moves on.
	api.before = func(n int64) {
		if n == 1 {
			owner.mustPage(http.MethodPost, "/requests", url.Values{"requestId": {"req-mid-run"}, "kind": {"note"}, "text": {"Call the plumber"}})
		}
	}
	var before int64
	before, date, zone, _, _ = o.context()

	res := o.run()
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
	}
	rev, _, _, brief, last := o.context()
	runs := o.runs()
	if api.requests.Load() != 2 || brief != "Answer 2." || rev != before+2 || !strings.HasSuffix(last, "-2") ||
		len(runs) != 1 || runs[0].state != "succeeded" || !strings.Contains(runs[0].text, "2 agent invocation(s)") {
		t.Fatalf("%d request(s), brief %q, revision %d (was %d), last publication %s, runs %+v", api.requests.Load(), brief, rev, before, last, runs)
	}
	if want := fmt.Sprintf("%d tokens", 2*(api.tokens[0]+api.tokens[1])); !strings.Contains(runs[0].text, want) {
		t.Fatalf("the Runs page does not show both invocations' %s:\n%s", want, runs[0].text)
	}
}

func TestACodexFailureIsRecordedWithItsExitStatus(t *testing.T) {
	t.Parallel()
	api := startResponses(t, dailyBriefPrompt(t), func(int64) string { return "{}" })
	api.fail = func(int64) int { return http.StatusUnauthorized }
	o := newCodexOwner(t, api)
	before, _, _, _, _ := o.context()

	res := o.run()
	if res.code != 1 {
		t.Fatalf("a failed Codex run: exit %d, want 1\n%s", res.code, res.stderr)
	}
	rev, _, _, _, _ := o.context()
	runs := o.runs()
	if rev != before || len(runs) != 1 || runs[0].state != "failed" || !strings.Contains(runs[0].detail, "codex exited with status 1") ||
		!strings.Contains(runs[0].detail, "401") {
		t.Fatalf("revision %d (was %d), runs %+v: want one failed run saying codex's exit status and why", rev, before, runs)
	}
	// The provider refused the credential: Runs says so, and Home too.
	owner := loginOwner(t, o.srv.URL)
	health := owner.mustPage(http.MethodGet, "/runs", nil).Find(`[data-testid="agent-health-state"]`)
	if health.AttrOr("data-state", "") != "refused" || !strings.Contains(health.Text(), "refused") {
		t.Fatalf("Runs' agent login after a 401: state %q, text %q", health.AttrOr("data-state", ""), health.Text())
	}
	if owner.mustPage(http.MethodGet, "/", nil).Find(`[data-testid="auth-held"]`).Length() != 1 {
		t.Fatal("Home does not say the provider refused the login")
	}
}

// TestWithoutACodexLoginScheduledWorkIsHeldNotBurned: Codex's own check
// (the real CLI) finds no credential (its provider takes OpenAI's, and
// none is stored or in the environment), so `hearth run --due` claims nothing, no
// occurrence is used and nothing is counted; Runs says "not logged in"
// with the fix and Home says scheduled runs are held. After `codex login`
// the same occurrence runs.
func TestWithoutACodexLoginScheduledWorkIsHeldNotBurned(t *testing.T) {
	t.Parallel()
	const prompt = "Scheduled: write today's brief in two sentences."
	var date, zone string
	api := startResponses(t, prompt, func(n int64) string { return strictBrief(date, zone, "Written after the login.") })
	o := newCodexOwner(t, api)
	writeFile(t, o.codexHome, "config.toml", []byte(openAIAuthConfig(api)), 0o600)
	o.codex(t, "", "logout")
	_, date, zone, _, _ = o.context()
	ops := newScheduleCLI(t, o.srv, "ops", "schedules:admin")
	at := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
	if res := ops.run(t, "add", "--job", "daily-brief", "--at", at.Format(time.RFC3339), "--prompt", prompt, "--id", "brief"); res.code != 0 {
		t.Fatalf("schedule add: exit %d\n%s", res.code, res.stderr)
	}
	occurrence := "brief/" + at.Format(time.RFC3339)
	waitDue(t, newAgentClient(o.srv.URL, o.token), occurrence)

	res := o.run("--due")
	if res.code != 1 || !strings.Contains(res.stderr, "codex is not logged in") {
		t.Fatalf("hearth run --due without a login: exit %d, want 1 naming the login\n%s", res.code, res.stderr)
	}
	if n := api.requests.Load(); n != 0 || len(o.runs()) != 0 {
		t.Fatalf("held work still ran: %d request(s), runs %+v", n, o.runs())
	}
	waitDue(t, newAgentClient(o.srv.URL, o.token), occurrence) // still due: nothing was claimed
	owner := loginOwner(t, o.srv.URL)
	health := owner.mustPage(http.MethodGet, "/runs", nil).Find(`[data-testid="agent-health"]`)
	if st := health.Find(`[data-testid="agent-health-state"]`).AttrOr("data-state", ""); st != "needs_login" ||
		!strings.Contains(health.Text(), "codex login") {
		t.Fatalf("Runs' agent login card: state %q, text %q", st, health.Text())
	}
	if notice := owner.mustPage(http.MethodGet, "/", nil).Find(`[data-testid="auth-held"]`).Text(); !strings.Contains(notice, "not logged in") {
		t.Fatalf("Home's notice = %q, want that scheduled runs are held", notice)
	}

	o.codex(t, "sk-hearth-e2e", "login", "--with-api-key")
	if res := o.run("--due"); res.code != 0 {
		t.Fatalf("hearth run --due after the login: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
	}
	if _, _, _, brief, _ := o.context(); brief != "Written after the login." || api.requests.Load() != 1 {
		t.Fatalf("after the login: brief %q, %d request(s)", brief, api.requests.Load())
	}
	if owner.mustPage(http.MethodGet, "/", nil).Find(`[data-testid="auth-held"]`).Length() != 0 {
		t.Fatal("Home still says runs are held after a run with a login")
	}
}

func TestCodexRunsAScheduledJobWithTheSchedulesPrompt(t *testing.T) {
	t.Parallel()
	const prompt = "Scheduled: write today's brief in two sentences."
	var date, zone string
	api := startResponses(t, prompt, func(n int64) string { return strictBrief(date, zone, "Written on schedule.") })
	o := newCodexOwner(t, api)
	var before int64
	before, date, zone, _, _ = o.context()
	ops := newScheduleCLI(t, o.srv, "ops", "schedules:admin")
	at := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
	if res := ops.run(t, "add", "--job", "daily-brief", "--at", at.Format(time.RFC3339), "--prompt", prompt, "--id", "brief"); res.code != 0 {
		t.Fatalf("schedule add: exit %d\n%s", res.code, res.stderr)
	}
	waitDue(t, newAgentClient(o.srv.URL, o.token), "brief/"+at.Format(time.RFC3339))

	res := o.run("--due")
	if res.code != 0 {
		t.Fatalf("hearth run --due --agent codex: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
	}
	// The schedule's own bookkeeping moves the revision too: the brief and the run say what landed.
	rev, _, _, brief, last := o.context()
	runs := o.runs()
	if api.requests.Load() != 1 || rev <= before || brief != "Written on schedule." || len(runs) != 1 || runs[0].state != "succeeded" ||
		!strings.Contains(runs[0].text, "Schedule brief") || !strings.Contains(runs[0].publication, last) {
		t.Fatalf("%d request(s), revision %d (was %d), brief %q, last publication %s, runs %+v", api.requests.Load(), rev, before, brief, last, runs)
	}
}

func TestCodexRunsAWokenMessagesJobWithTheWakeUpReasons(t *testing.T) {
	t.Parallel()
	prompt, _ := agent.Prompt("messages")
	api := startResponses(t, strings.TrimSpace(prompt), func(int64) string {
		return `{"runId":"x","jobKey":"messages","expectedRevision":0,"generatedAt":"` + time.Now().UTC().Format(time.RFC3339) +
			`","sourceRefs":[],"brief":null,"people":[],"activities":[],"replyDrafts":[],"retractions":[],"completedRequests":[],` +
			`"routineDefinitions":null,"reviews":null,"consumedObservations":null}`
	})
	bin := codexBinDir(t)
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL,
		"--watch-interval", "200ms", "--wake-debounce", "500ms")
	o := newCodexOwnerOn(t, srv, bin, api)
	watch := exec.Command(hearthBin, "run", "--watch", "--agent", "codex", "--credential-file", o.tokenFile)
	watch.Env = cleanEnv(o.env()...)
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRunner(watch) })
	watchHasRead(t, srv.URL)
	const secret = "a sentence only the context file holds"
	injectMessage(t, beeperURL, secret)
	var runs []runRow
	if !poll.Within(60*time.Second, func() bool {
		runs = o.runs()
		return len(runs) == 1 && runs[0].state != "running"
	}) {
		t.Fatalf("no finished watch run; runs %+v, endpoint refused %v", runs, api.problems)
	}
	in := api.input(1)
	if runs[0].state != "succeeded" || api.requests.Load() != 1 || !strings.Contains(in, "- job: messages") || !strings.Contains(in, "new message(s) in") {
		t.Fatalf("runs %+v, %d request(s); the request's input:\n%s", runs, api.requests.Load(), in)
	}
	if strings.Contains(in, secret) {
		t.Fatal("a message's text reached the model in the prompt (it belongs in the context file only)")
	}
}

func TestARefusedCodexAnswerIsRepairedWithItsJSONPointerErrors(t *testing.T) {
	t.Parallel()
	var date, zone string
	api := startResponses(t, dailyBriefPrompt(t), func(n int64) string {
		pub := strictBrief(date, zone, fmt.Sprintf("Answer %d.", n))
		if n == 1 {
			// Valid under the schema, refused by hearth: the task cites a source the publication does not carry.
			pub = strings.Replace(pub, `"evidenceIds":["life-codex-today"]`, `"evidenceIds":["life-nowhere"]`, 1)
		}
		return pub
	})
	o := newCodexOwner(t, api)
	before, d, z, _, _ := o.context()
	date, zone = d, z

	res := o.run()
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
	}
	if first, repair := api.input(1), api.input(2); strings.Contains(first, "/activities/0/evidenceIds/0") ||
		!strings.Contains(repair, "Your last publication was refused") || !strings.Contains(repair, "/activities/0/evidenceIds/0") {
		t.Fatalf("the second request does not carry the refusal's JSON Pointer (or the first does):\n%s", repair)
	}
	rev, _, _, brief, last := o.context()
	runs := o.runs()
	if api.requests.Load() != 2 || brief != "Answer 2." || rev != before+1 || !strings.HasSuffix(last, "-2") ||
		len(runs) != 1 || runs[0].state != "succeeded" {
		t.Fatalf("%d request(s), brief %q, revision %d (was %d), last publication %s, runs %+v", api.requests.Load(), brief, rev, before, last, runs)
	}
	if !strings.Contains(runs[0].text, "/activities/0/evidenceIds/0") {
		t.Fatalf("the Runs page does not show the refused invocation's error:\n%s", runs[0].text)
	}
	if want := fmt.Sprintf("%d tokens", 2*(api.tokens[0]+api.tokens[1])); !strings.Contains(runs[0].text, want) {
		t.Fatalf("the Runs page does not count both invocations' %s:\n%s", want, runs[0].text)
	}
}
