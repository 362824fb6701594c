// Package e2e drives the real hearth binary: it builds cmd/hearth once, runs
// `hearth serve` as a separate process on a loopback port and a temporary
// data dir, and talks to it over HTTP and through the CLI, as an agent would.
package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hearth/internal/poll"
	"hearth/internal/storetest"
)

// Bounds every wait in this package so a hung server fails a test instead of the run.
const (
	healthTimeout = 20 * time.Second
	stopTimeout   = 10 * time.Second // docs/contract.md, Operations: SIGTERM exits within 10 s
	cliTimeout    = 60 * time.Second
	httpTimeout   = 15 * time.Second
)

// hearthBin is the binary TestMain built for this run.
var hearthBin string

// fakeAgentBin is the scripted agent the runner tests invoke.
var fakeAgentBin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

// buildAndRun builds cmd/hearth into a temp dir once, so every test runs the
// same real binary rather than an in-process server.
func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "hearth-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	root, err := filepath.Abs("..") // go test runs in e2e/, the module root is its parent
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	hearthBin = filepath.Join(dir, "hearth")
	// hearthtest: the binary honours serve's test hooks (HEARTH_TEST_NOW,
	// HEARTH_TEST_PAUSE_AT), which an ordinary build refuses.
	build := exec.Command("go", "build", "-tags", "hearthtest", "-o", hearthBin, "./cmd/hearth")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build -tags hearthtest ./cmd/hearth: %v\n%s", err, out)
		return 1
	}
	fakeAgentBin = filepath.Join(dir, "fakeagent")
	build = exec.Command("go", "build", "-o", fakeAgentBin, "./e2e/fakeagent")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./e2e/fakeagent: %v\n%s", err, out)
		return 1
	}
	defer closeBrowser()
	return m.Run()
}

// cleanEnv is the parent environment without HEARTH_* and BEEPER_* variables, so a
// developer's shell settings cannot point a test at their real data.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HEARTH_") && !strings.HasPrefix(kv, "BEEPER_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// logBuffer collects a server's output; the server writes while tests read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// All returns the whole log.
func (l *logBuffer) All() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// String returns the log, eliding the middle of a long one: thousands of
// request lines would bury the start-up lines and the last ones that matter.
func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.SplitAfter(l.buf.String(), "\n")
	const head, tail = 40, 200
	if len(lines) <= head+tail {
		return strings.Join(lines, "")
	}
	return strings.Join(lines[:head], "") +
		fmt.Sprintf("… %d lines omitted …\n", len(lines)-head-tail) +
		strings.Join(lines[len(lines)-tail:], "")
}

// server is one running `hearth serve` process.
type server struct {
	URL     string
	DataDir string

	cmd    *exec.Cmd
	log    *logBuffer
	exited chan struct{} // closed once cmd.Wait returned
}

// freeAddr returns a loopback address whose port was free a moment ago.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startServer runs `hearth serve` on a free loopback port and dataDir (a new
// temp dir when empty), waits for /healthz, and stops it when the test ends.
// Its output is printed only if the test failed.
func startServer(tb testing.TB, dataDir string, args ...string) *server {
	tb.Helper()
	return startServerIn(tb, dataDir, nil, args...)
}

// startServerEnv is startServer on a new data dir with extra environment.
func startServerEnv(tb testing.TB, env []string, args ...string) *server {
	tb.Helper()
	return startServerIn(tb, "", env, args...)
}

func startServerIn(tb testing.TB, dataDir string, env []string, args ...string) *server {
	tb.Helper()
	if dataDir == "" {
		dataDir = tb.TempDir()
	}
	// Port 0 and the URL serve logs: a port picked here and freed would race
	// every other process on the machine that binds a free port.
	s := &server{DataDir: dataDir, log: &logBuffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(hearthBin, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dataDir}, args...)...)
	s.cmd.Env = cleanEnv(env...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		tb.Fatalf("start hearth serve: %v", err)
	}
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	tb.Cleanup(func() {
		if s.running() {
			s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.exited:
			case <-time.After(stopTimeout):
				s.cmd.Process.Kill()
				<-s.exited
			}
		}
		if tb.Failed() {
			tb.Logf("hearth serve on %s (data %s), %s; output:\n%s", s.URL, s.DataDir, s.cmd.ProcessState, s.log)
		}
	})
	s.waitListening(tb)
	s.waitHealthy(tb)
	return s
}

var listeningLine = regexp.MustCompile(`msg="hearth listening" url=(http://\S+)`)

// waitListening reads the URL serve bound from its log.
func (s *server) waitListening(tb testing.TB) {
	tb.Helper()
	poll.Eventually(tb, healthTimeout, func() (bool, string) {
		if m := listeningLine.FindStringSubmatch(s.log.All()); m != nil {
			s.URL = m[1]
			return true, ""
		}
		if !s.running() {
			tb.Fatalf("hearth serve exited before it listened: %s", s.cmd.ProcessState)
		}
		return false, "hearth serve never logged the address it listens on"
	})
}

func (s *server) running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// waitHealthy polls GET /healthz until it answers 200 "ok".
func (s *server) waitHealthy(tb testing.TB) {
	tb.Helper()
	client := &http.Client{Timeout: time.Second}
	poll.Eventually(tb, healthTimeout, func() (bool, string) {
		resp, err := client.Get(s.URL + "/healthz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && string(body) == "ok" {
				return true, ""
			}
		}
		if !s.running() {
			tb.Fatalf("hearth serve exited before it was healthy: %s", s.cmd.ProcessState)
		}
		return false, fmt.Sprintf("hearth serve on %s not healthy (last error %v)", s.URL, err)
	})
}

// terminate sends SIGTERM and returns the exit code and how long the exit
// took; a server still running after stopTimeout fails the test and is killed.
func (s *server) terminate(tb testing.TB) (code int, took time.Duration) {
	tb.Helper()
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatalf("SIGTERM: %v", err)
	}
	select {
	case <-s.exited:
		return s.cmd.ProcessState.ExitCode(), time.Since(start)
	case <-time.After(stopTimeout):
		tb.Errorf("hearth serve still running %s after SIGTERM; killing it", stopTimeout)
		s.cmd.Process.Kill()
		<-s.exited
		return -1, time.Since(start)
	}
}

// kill sends SIGKILL, as a crash or an OOM killer would, and waits for the exit.
func (s *server) kill(tb testing.TB) {
	tb.Helper()
	if err := s.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		tb.Fatalf("SIGKILL: %v", err)
	}
	<-s.exited
}

// cliResult is one finished hearth CLI invocation.
type cliResult struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// runHearth runs the hearth binary with args and extra environment entries.
func runHearth(tb testing.TB, env []string, args ...string) cliResult {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, hearthBin, args...)
	cmd.Env = cleanEnv(env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && ctx.Err() == nil:
		res.code = exit.ExitCode()
	default:
		tb.Fatalf("hearth %s: %v (stderr %q)", strings.Join(args, " "), err, res.stderr)
	}
	return res
}

// tokenSeq keeps credential names unique: create refuses a live duplicate name.
var tokenSeq atomic.Int64

// mintToken creates an agent credential with every scope and returns its token.
func mintToken(tb testing.TB, dataDir string) string {
	tb.Helper()
	return mintNamedToken(tb, dataDir, fmt.Sprintf("e2e-agent-%d", tokenSeq.Add(1)))
}

// mintNamedToken creates the credential called name and returns its token.
func mintNamedToken(tb testing.TB, dataDir, name string) string {
	tb.Helper()
	res := runHearth(tb, nil, "token", "create", "--name", name, "--data", dataDir)
	token := strings.TrimSpace(res.stdout)
	if res.code != 0 || !strings.HasPrefix(token, "hearth_") {
		tb.Fatalf("hearth token create: exit %d, stdout %q, stderr %q", res.code, res.stdout, res.stderr)
	}
	return token
}

// agentClient calls the agent API as a bearer-token agent.
type agentClient struct {
	base, token string
	http        *http.Client
}

func newAgentClient(baseURL, token string) *agentClient {
	return &agentClient{base: baseURL, token: token, http: &http.Client{Timeout: httpTimeout}}
}

// do sends one request and returns the status and body; it never fails the
// test, so the crash test's publisher goroutine can call it.
func (c *agentClient) do(method, path string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// publish posts body to /api/agent-results.
func (c *agentClient) publish(body []byte) (int, []byte, error) {
	return c.do(http.MethodPost, "/api/agent-results", body)
}

// contextJSON reads GET /api/agent-context and returns the raw body.
func (c *agentClient) contextJSON(tb testing.TB) []byte {
	tb.Helper()
	status, body, err := c.do(http.MethodGet, "/api/agent-context", nil)
	if err != nil || status != http.StatusOK {
		tb.Fatalf("GET /api/agent-context: status %d, err %v, body %s", status, err, body)
	}
	return body
}

// context reads and decodes GET /api/agent-context.
func (c *agentClient) context(tb testing.TB) agentContext {
	tb.Helper()
	var ac agentContext
	decodeJSON(tb, c.contextJSON(tb), &ac)
	return ac
}

// activityRevisions pages through every activity in the context and returns
// each ID with the revision that last wrote it.
func (c *agentClient) activityRevisions(tb testing.TB) map[string]int64 {
	tb.Helper()
	ids := map[string]int64{}
	page := c.context(tb).Activities
	for range 10_000 { // bounded: 500 per page
		for _, a := range page.Items {
			if _, dup := ids[a.ID]; dup {
				tb.Fatalf("activity %s appears on two context pages", a.ID)
			}
			ids[a.ID] = a.Revision
		}
		if !page.Truncated {
			return ids
		}
		status, body, err := c.do(http.MethodGet, "/api/agent-context/activities?cursor="+page.NextCursor, nil)
		if err != nil || status != http.StatusOK {
			tb.Fatalf("GET activities page: status %d, err %v, body %s", status, err, body)
		}
		page = activityPage{}
		decodeJSON(tb, body, &page)
	}
	tb.Fatal("activity pages never ended")
	return nil
}

func decodeJSON(tb testing.TB, body []byte, v any) {
	tb.Helper()
	if err := json.Unmarshal(body, v); err != nil {
		tb.Fatalf("decode %T: %v in %s", v, err, body)
	}
}

// agentContext is the part of GET /api/agent-context these tests read,
// declared here from docs/agent-api.md so the wire format is what gets tested.
type agentContext struct {
	Revision        int64        `json:"revision"`
	Activities      activityPage `json:"activities"`
	LastPublication *struct {
		RunID    string `json:"runId"`
		Revision int64  `json:"revision"`
	} `json:"lastPublication"`
}

// activityPage is one bounded page of the activities collection.
type activityPage struct {
	Items []struct {
		ID       string `json:"id"`
		Revision int64  `json:"revision"`
	} `json:"items"`
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"nextCursor"`
}

// receipt is the body of 201 and 200 from POST /api/agent-results.
type receipt struct {
	RunID      string    `json:"runId"`
	Revision   int64     `json:"revision"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// publication is an encoded publication and the activity IDs it upserts.
type publication struct {
	RunID       string
	Body        []byte
	ActivityIDs []string
}

// taskPublicationDoc builds a valid publication of n task activities, each
// citing one life source ref; IDs derive from runID so runs never collide.
// It is generated now: the server runs on the real clock.
func taskPublicationDoc(runID string, expectedRevision int64, n int) storetest.Doc {
	now := time.Now().UTC()
	sum := sha256.Sum256([]byte(runID))
	ref := "src-" + runID
	doc := storetest.NewPublication(runID, expectedRevision).
		With("jobKey", "e2e").
		With("generatedAt", now.Format(time.RFC3339)).
		Add("sourceRefs", map[string]any{"id": ref, "kind": "life", "path": "e2e/" + runID + ".md",
			"contentHash": "sha256:" + hex.EncodeToString(sum[:]), "observedAt": now.Add(-time.Minute).Format(time.RFC3339)})
	for i := range n {
		task := storetest.Task(fmt.Sprintf("%s-task-%03d", runID, i), ref)
		task["title"] = fmt.Sprintf("Task %d of run %s", i, runID)
		task["detail"] = "Published by the e2e suite to exercise storage; nothing to do."
		doc.Add("activities", task)
	}
	return doc
}

// encode is doc as a publication to send.
func encode(doc storetest.Doc) publication {
	runID, _ := doc["runId"].(string)
	return publication{RunID: runID, Body: doc.JSON(), ActivityIDs: doc.IDs("activities")}
}

// newPublication is a valid publication of n task activities.
func newPublication(runID string, expectedRevision int64, n int) publication {
	return encode(taskPublicationDoc(runID, expectedRevision, n))
}

// writeFile writes data to a new file under dir with mode perm and returns its path.
func writeFile(tb testing.TB, dir, name string, data []byte, perm os.FileMode) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, perm); err != nil {
		tb.Fatal(err)
	}
	// WriteFile's mode passes through the umask; the tests need the exact mode.
	if err := os.Chmod(path, perm); err != nil {
		tb.Fatal(err)
	}
	return path
}
