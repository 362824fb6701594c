package e2e

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/internal/poll"
)

// runnerFixture is a demo server, a private state dir for the runner, the
// demo token in a 0600 file and a file the fake agent counts invocations in.
type runnerFixture struct {
	t        *testing.T
	srv      *server
	state    string
	token    string
	countLog string
}

func newRunnerFixture(t *testing.T, serveArgs ...string) *runnerFixture {
	t.Helper()
	srv := startServerEnv(t, nil, append([]string{"--demo"}, serveArgs...)...)
	return &runnerFixture{t: t, srv: srv, state: t.TempDir(), token: filepath.Join(srv.DataDir, "agent.token"),
		countLog: filepath.Join(t.TempDir(), "invocations")}
}

// run is `hearth run ARGS` against url (the server's unless given) with the fake agent.
func (f *runnerFixture) run(url string, env []string, args ...string) cliResult {
	f.t.Helper()
	if url == "" {
		url = f.srv.URL
	}
	args = append([]string{"run", "--agent-cmd", fakeAgentBin, "--data", f.state, "--url", url, "--credential-file", f.token}, args...)
	return runHearth(f.t, append([]string{"FAKE_AGENT_COUNT_FILE=" + f.countLog}, env...), args...)
}

// invocations lists the publication runIds the fake agent was invoked for.
func (f *runnerFixture) invocations() []string {
	b, _ := os.ReadFile(f.countLog)
	return strings.Fields(string(b))
}

// runsPage is the owner's Runs page as (run ID → state).
func (f *runnerFixture) runsPage() map[string]string {
	f.t.Helper()
	d := loginOwner(f.t, f.srv.URL).mustPage(http.MethodGet, "/runs", nil)
	out := map[string]string{}
	d.Find(`[data-testid="run"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-id")
		out[id], _ = s.Attr("data-state")
	})
	return out
}

func (f *runnerFixture) lastPublicationRunID() (string, int64) {
	f.t.Helper()
	var ac struct {
		Revision        int64 `json:"revision"`
		LastPublication struct {
			RunID string `json:"runId"`
		} `json:"lastPublication"`
	}
	tok, _ := os.ReadFile(f.token)
	decodeJSON(f.t, newAgentClient(f.srv.URL, strings.TrimSpace(string(tok))).contextJSON(f.t), &ac)
	return ac.LastPublication.RunID, ac.Revision
}

func TestRunnerInvokesTheAgentOncePublishesAndRecordsTheRun(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	_, before := f.lastPublicationRunID()
	res := f.run("", nil, "--job", "daily-brief", "--json")
	if res.code != 0 || !strings.Contains(res.stdout, `"state":"succeeded"`) || !strings.Contains(res.stdout, `"costUsd":0.25`) {
		t.Fatalf("run: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	inv := f.invocations()
	runID, rev := f.lastPublicationRunID()
	if len(inv) != 1 || runID != inv[0] || rev != before+1 {
		t.Fatalf("invocations %v, last publication %s at %d (was %d)", inv, runID, rev, before)
	}
	if states := f.runsPage(); len(states) != 1 {
		t.Fatalf("Runs page %v", states)
	}
	if entries, _ := os.ReadDir(filepath.Join(f.state, "runner", "pending")); len(entries) != 0 {
		t.Fatalf("pending results left after acknowledgement: %v", entries)
	}
}

// lossyProxy forwards to target; it answers the first n publications'
// responses by dropping the connection after hearth got them (a lost
// answer), or with status when status is non-zero (nothing forwarded).
func lossyProxy(t *testing.T, target string, n int, status int) string {
	t.Helper()
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/agent-results" || seen.Add(1) > int64(n) {
			rp.ServeHTTP(w, r)
			return
		}
		if status != 0 {
			w.WriteHeader(status)
			io.WriteString(w, `{"code":"unavailable","message":"proxy","requestId":"proxy-0001"}`)
			return
		}
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRunnerRetriesALostAnswerWithTheSameRunIDAndBytes(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	_, before := f.lastPublicationRunID()
	res := f.run(lossyProxy(t, f.srv.URL, 1, 0), nil, "--job", "daily-brief")
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	inv := f.invocations()
	runID, rev := f.lastPublicationRunID()
	if len(inv) != 1 || runID != inv[0] || rev != before+1 {
		t.Fatalf("a lost answer: invocations %v, publication %s at revision %d (was %d): want one invocation, one publication", inv, runID, rev, before)
	}
}

func TestRunnerRegeneratesUnderANewRunIDAfterARevisionConflict(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	other := mintNamedToken(t, f.srv.DataDir, "interferer")
	res := f.run("", []string{"FAKE_AGENT_MODE=conflict-once", "FAKE_AGENT_URL=" + f.srv.URL, "FAKE_AGENT_OWN_TOKEN=" + other}, "--job", "daily-brief", "--json")
	if res.code != 0 || !strings.Contains(res.stdout, `"invocations":2`) {
		t.Fatalf("run: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	inv := f.invocations()
	runID, _ := f.lastPublicationRunID()
	if len(inv) != 2 || inv[0] == inv[1] || !strings.HasSuffix(inv[0], "-1") || runID != inv[1] {
		t.Fatalf("invocations %v, last publication %s: want a new runId for the regenerated result", inv, runID)
	}
}

func TestAPendingResultSurvivesUntilHearthAcknowledgesIt(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	res := f.run(lossyProxy(t, f.srv.URL, 1000, http.StatusServiceUnavailable), nil, "--job", "daily-brief")
	if res.code != 2 {
		t.Fatalf("hearth unavailable for publishing: exit %d, want 2\n%s", res.code, res.stderr)
	}
	pending, _ := filepath.Glob(filepath.Join(f.state, "runner", "pending", "*.json"))
	if len(pending) != 1 {
		t.Fatalf("pending results %v, want the one result kept", pending)
	}
	if info, err := os.Stat(pending[0]); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("pending result %v mode %v: want 0600", err, info.Mode().Perm())
	}
	// The next run (nothing is due) sends it again, the same bytes; the agent is not invoked again.
	res = f.run("", nil, "--due")
	if res.code != 0 {
		t.Fatalf("recovering run: exit %d\n%s", res.code, res.stderr)
	}
	runID, _ := f.lastPublicationRunID()
	if inv := f.invocations(); len(inv) != 1 || runID != inv[0] {
		t.Fatalf("invocations %v, publication %s", inv, runID)
	}
	if left, _ := filepath.Glob(filepath.Join(f.state, "runner", "pending", "*.json")); len(left) != 0 {
		t.Fatalf("pending after acknowledgement: %v", left)
	}
}

// startRunner starts `hearth run` in the background and waits until its
// stderr says pausedAt (or, when empty, until the fake agent is running).
func (f *runnerFixture) startRunner(env []string, pausedAt string, args ...string) *exec.Cmd {
	f.t.Helper()
	args = append([]string{"run", "--agent-cmd", fakeAgentBin, "--data", f.state, "--url", f.srv.URL, "--credential-file", f.token}, args...)
	cmd := exec.Command(hearthBin, args...)
	cmd.Env = cleanEnv(append([]string{"FAKE_AGENT_COUNT_FILE=" + f.countLog}, env...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var paused atomic.Bool
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if pausedAt != "" && strings.Contains(sc.Text(), "paused at "+pausedAt) {
				paused.Store(true)
			}
		}
	}()
	poll.Eventually(f.t, 30*time.Second, func() (bool, string) {
		if pausedAt == "" {
			return len(f.invocations()) > 0, "the runner never ran the agent"
		}
		return paused.Load(), "the runner never reached " + strconv.Quote(pausedAt)
	})
	return cmd
}

func TestSIGKILLDuringTheAgentLeavesTheRunUnknownNeverRerun(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	pidFile := filepath.Join(t.TempDir(), "agent.pid")
	cmd := f.startRunner([]string{"FAKE_AGENT_MODE=sleep", "FAKE_AGENT_PID_FILE=" + pidFile}, "", "--job", "daily-brief")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	poll.Eventually(t, 10*time.Second, func() (bool, string) {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				syscall.Kill(-pid, syscall.SIGKILL) // the agent's own process group, which the runner made
				syscall.Kill(pid, syscall.SIGKILL)
				return true, ""
			}
		}
		return false, "the agent never wrote its pid"
	})
	// A new runner with nothing due only recovers: it reports the run unknown and does not invoke the agent.
	res := f.run("", nil, "--due", "--json")
	if res.code != 0 || !strings.Contains(res.stdout, `"state":"unknown"`) {
		t.Fatalf("recovery: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if inv := f.invocations(); len(inv) != 1 {
		t.Fatalf("the agent was invoked again after a crash: %v", inv)
	}
	states := f.runsPage()
	for id, st := range states {
		if st != "unknown" {
			t.Fatalf("run %s is %s on the Runs page, want unknown", id, st)
		}
	}
}

func TestSIGKILLAroundTheClaimStartsTheSameRunAgain(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	cmd := f.startRunner([]string{"HEARTH_RUNNER_PAUSE_AT=claimed"}, "claimed", "--job", "daily-brief")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	res := f.run("", nil, "--due", "--json")
	if res.code != 0 || strings.Count(res.stdout, `"state":"succeeded"`) != 1 {
		t.Fatalf("recovery: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if states := f.runsPage(); len(states) != 1 {
		t.Fatalf("runs %v: the claim was made twice", states)
	}
	if inv := f.invocations(); len(inv) != 1 {
		t.Fatalf("invocations %v", inv)
	}
}

func TestSIGKILLAfterPublishingBeforeTheAnswerIsAReplayNotASecondPublication(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	_, before := f.lastPublicationRunID()
	cmd := f.startRunner([]string{"HEARTH_RUNNER_PAUSE_AT=published"}, "published", "--job", "daily-brief")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	res := f.run("", nil, "--due", "--json")
	if res.code != 0 || !strings.Contains(res.stdout, `"state":"succeeded"`) {
		t.Fatalf("recovery: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	runID, rev := f.lastPublicationRunID()
	if inv := f.invocations(); len(inv) != 1 || runID != inv[0] || rev != before+1 {
		t.Fatalf("invocations %v, publication %s at %d (was %d): the re-send was not a replay", inv, runID, rev, before)
	}
}

func TestRunnerExitCodes(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	for _, c := range []struct {
		name string
		env  []string
		args []string
		code int
	}{
		{"no mode", nil, nil, 1},
		{"two modes", nil, []string{"--due", "--job", "x"}, 1},
		{"agent fails", []string{"FAKE_AGENT_MODE=fail"}, []string{"--job", "daily-brief", "--agent-backoff", "0s"}, 1},
		{"agent prints garbage", []string{"FAKE_AGENT_MODE=garbage"}, []string{"--job", "daily-brief"}, 1},
		{"nothing due", nil, []string{"--due"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := *f
			f.t = t
			if res := f.run("", c.env, c.args...); res.code != c.code {
				t.Fatalf("exit %d, want %d\n%s", res.code, c.code, res.stderr)
			}
		})
	}
	// A revoked or wrong credential is a rejection (1), not "nothing due".
	bad := filepath.Join(t.TempDir(), "bad.token")
	if err := os.WriteFile(bad, []byte("hearth_not_a_real_token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	wrong := *f
	wrong.token = bad
	if res := wrong.run("", nil, "--due"); res.code != 1 || !strings.Contains(res.stderr, "unauthorized") {
		t.Fatalf("wrong token: exit %d, want 1\n%s", res.code, res.stderr)
	}
	// Unreachable hearth is 2.
	if res := f.run("http://"+freeAddr(t), nil, "--job", "daily-brief"); res.code != 2 {
		t.Fatalf("unreachable: exit %d", res.code)
	}
}

func TestRunWatchWakesOnceForABurstOfMessages(t *testing.T) {
	t.Parallel()
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL,
		"--watch-interval", "200ms", "--wake-debounce", "1s")
	f := &runnerFixture{t: t, srv: srv, state: t.TempDir(), token: filepath.Join(srv.DataDir, "agent.token"), countLog: filepath.Join(t.TempDir(), "invocations")}
	watch := exec.Command(hearthBin, "run", "--watch", "--agent-cmd", fakeAgentBin, "--data", f.state, "--url", srv.URL, "--credential-file", f.token)
	watch.Env = cleanEnv("FAKE_AGENT_COUNT_FILE=" + f.countLog)
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRunner(watch) })
	// The watch's first read sets its baseline: wait for it, on the Messages page.
	watchHasRead(t, srv.URL)
	for i := range 20 {
		body := strings.NewReader(`{"chatId":"!ana-okafor:beeper.local","senderId":"@ana:beeper.local","text":"message ` + strconv.Itoa(i) + `"}`)
		req, _ := http.NewRequest(http.MethodPost, beeperURL+"/_fake/incoming", body)
		req.Header.Set("Authorization", "Bearer e2e-token")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("inject: %v %v", err, resp)
		}
		resp.Body.Close()
	}
	poll.Within(30*time.Second, func() bool { return len(f.invocations()) > 0 })
	time.Sleep(2 * time.Second) // room for a wrong second wake-up
	if inv := f.invocations(); len(inv) != 1 || !strings.HasPrefix(inv[0], "messages-") {
		t.Fatalf("the agent ran %v: want once, for the messages job", inv)
	}
	if states := f.runsPage(); len(states) != 1 {
		t.Fatalf("runs %v", states)
	}
}
