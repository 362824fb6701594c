package e2e

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hearth/internal/poll"
)

// injectMessage has the fake Beeper receive a message from Ana.
func injectMessage(t *testing.T, beeperURL, text string) {
	t.Helper()
	body := strings.NewReader(`{"chatId":"!ana-okafor:beeper.local","senderId":"@ana:beeper.local","text":"` + text + `"}`)
	req, _ := http.NewRequest(http.MethodPost, beeperURL+"/_fake/incoming", body)
	req.Header.Set("Authorization", "Bearer e2e-token")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("inject: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("inject: %d", resp.StatusCode)
	}
}

// finishedWakePolls counts the /api/agent-wake requests serve logged as finished.
func (s *server) finishedWakePolls() int {
	return strings.Count(s.log.String(), "route=/api/agent-wake ")
}

// watchHasRead logs the owner in and waits until the Beeper watch has read
// once: its first read sets the baseline that new messages are counted from.
func watchHasRead(t *testing.T, base string) *ownerClient {
	t.Helper()
	owner := loginOwner(t, base)
	if !poll.Within(20*time.Second, func() bool {
		return owner.mustPage(http.MethodGet, "/messages", nil).Find(`[data-testid="watch-status"][data-ok="true"]`).Length() == 1
	}) {
		t.Fatal("the Beeper watch never read")
	}
	return owner
}

func TestRunWatchGetsTheWakeUpAnAbandonedPollLeftBehind(t *testing.T) {
	t.Parallel()
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL,
		"--watch-interval", "200ms", "--wake-debounce", "1s")
	f := &runnerFixture{t: t, srv: srv, state: t.TempDir(), token: filepath.Join(srv.DataDir, "agent.token"), countLog: filepath.Join(t.TempDir(), "invocations")}
	watchHasRead(t, srv.URL)
	// A client that gives up on its poll, as the runner's 30 s client did on a 60 s poll.
	tok, _ := os.ReadFile(f.token)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/agent-wake?timeout=120", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	if resp, err := (&http.Client{Timeout: 300 * time.Millisecond}).Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the poll answered %d with nothing dirty", resp.StatusCode)
	}
	if !poll.Within(10*time.Second, func() bool { return srv.finishedWakePolls() == 1 }) {
		t.Error("serve kept the abandoned poll open")
	}
	injectMessage(t, beeperURL, "are you free on Sunday?")
	// Once the message's wake-up is due, an abandoned poll still open would have it.
	poll.Within(20*time.Second, func() bool { return srv.finishedWakePolls() == 1 })

	stderr := &logBuffer{}
	watch := exec.Command(hearthBin, "run", "--watch", "--agent-cmd", fakeAgentBin, "--data", f.state, "--url", srv.URL, "--credential-file", f.token)
	watch.Env = cleanEnv("FAKE_AGENT_COUNT_FILE=" + f.countLog)
	watch.Stderr = stderr
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRunner(watch) })
	if !poll.Within(30*time.Second, func() bool { return len(f.invocations()) == 1 }) {
		t.Fatalf("the agent ran %v: the wake-up the abandoned poll left behind was lost\nrunner:\n%s", f.invocations(), stderr)
	}
	// The run acknowledged its lease, so the next message wakes the runner
	// again now, not when the lease would have expired.
	injectMessage(t, beeperURL, "or Monday?")
	if !poll.Within(30*time.Second, func() bool { return len(f.invocations()) == 2 }) {
		t.Fatalf("the agent ran %v after a second message: want a second run\nrunner:\n%s", f.invocations(), stderr)
	}
	for _, id := range f.invocations() {
		if !strings.HasPrefix(id, "messages-") {
			t.Fatalf("invocations %v: want runs of the messages job", f.invocations())
		}
	}
	if strings.Contains(stderr.String(), "level=WARN") {
		t.Fatalf("the runner warned:\n%s", stderr)
	}
}

func TestSIGTERMEndsOpenLongPollsAndServeExitsZero(t *testing.T) {
	t.Parallel()
	srv := startServerEnv(t, nil, "--demo")
	tok, _ := os.ReadFile(filepath.Join(srv.DataDir, "agent.token"))

	// An owner's /events stream, open and past its first event.
	owner := loginOwner(t, srv.URL)
	streamReq, _ := http.NewRequest(http.MethodGet, srv.URL+"/events", nil)
	stream, err := (&http.Client{Jar: owner.hc.Jar}).Do(streamReq)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("/events: %v %v", err, stream)
	}
	if line, err := bufio.NewReader(stream.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, "event: revision") {
		t.Fatalf("/events first line %q, %v", line, err)
	}
	streamEnded := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, stream.Body)
		streamEnded <- err
	}()

	// An agent's wake-up poll that would wait 120 s.
	type pollResult struct {
		status int
		err    error
	}
	polled := make(chan pollResult, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/agent-wake?timeout=120", nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
		resp, err := (&http.Client{Timeout: 150 * time.Second}).Do(req)
		if err != nil {
			polled <- pollResult{err: err}
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		polled <- pollResult{status: resp.StatusCode}
	}()
	time.Sleep(500 * time.Millisecond) // let the poll reach its wait (not part of the verdict)

	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Far below the poll's own 120 s: a shutdown that waits for it fails.
	select {
	case <-srv.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("serve still running 20 s after SIGTERM with a poll open")
	}
	if code := srv.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("serve exited %d after SIGTERM, want 0\n%s", code, srv.log)
	}
	if r := <-polled; r.err != nil || r.status != http.StatusServiceUnavailable {
		t.Fatalf("the open poll at shutdown: status %d, err %v: want a 503 answer", r.status, r.err)
	}
	if err := <-streamEnded; err != nil {
		t.Fatalf("the /events stream did not end cleanly: %v", err)
	}
}
