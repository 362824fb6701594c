package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hearth/internal/poll"
)

// startToolThenHang is a scripted Responses endpoint whose model first
// has Codex run cmd with its shell tool, then never answers the turn's
// next request: Codex stays mid-turn with cmd running. midTurn is closed
// when that request arrives.
func startToolThenHang(t *testing.T, cmd string) (api *responses, midTurn chan struct{}) {
	t.Helper()
	midTurn, release := make(chan struct{}), make(chan struct{})
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/responses" {
			http.NotFound(w, req)
			return
		}
		if n.Add(1) > 1 {
			if n.Load() == 2 {
				close(midTurn)
			}
			select {
			case <-req.Context().Done():
			case <-release:
			}
			return
		}
		args, _ := json.Marshal(map[string]any{"cmd": cmd, "yield_time_ms": 1000})
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []map[string]any{
			{"type": "response.created", "response": map[string]any{"id": "resp_1"}},
			{"type": "response.output_item.done", "item": map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_1", "arguments": string(args)}},
			{"type": "response.completed", "response": map[string]any{"id": "resp_1", "usage": map[string]any{"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}}},
		} {
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return &responses{t: t, URL: srv.URL}, midTurn
}

// survivors are the live processes whose command line holds marker or
// whose environment holds env, as "pid: command line".
func survivors(marker, env string) map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if s := string(stat); strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z") {
			continue // exited, not yet reaped: it runs nothing
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if bytes.Contains(cmdline, []byte(marker)) || bytes.Contains(environ, []byte(env)) {
			out[pid] = strings.ReplaceAll(string(cmdline), "\x00", " ")
		}
	}
	return out
}

func TestASIGKILLedRunnerLeavesNoCodexProcessBehind(t *testing.T) {
	t.Parallel()
	// A command line no other test's process has.
	marker := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	api, midTurn := startToolThenHang(t, "sleep "+marker)
	o := newCodexOwner(t, api)
	env := "CODEX_HOME=" + o.codexHome + "\x00"
	t.Cleanup(func() {
		for pid := range survivors(marker, env) {
			syscall.Kill(pid, syscall.SIGKILL) // what this test's runner left
		}
	})

	runner := exec.Command(hearthBin, "run", "--job", "daily-brief", "--agent", "codex", "--credential-file", o.tokenFile)
	runner.Env = cleanEnv(o.env()...)
	var stderr bytes.Buffer
	runner.Stderr = &stderr
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { runner.Process.Kill(); runner.Wait() })
	select {
	case <-midTurn:
	case <-time.After(90 * time.Second):
		t.Fatalf("Codex never came back for the turn's next request\n%s", stderr.String())
	}
	// Codex is mid-turn with its shell command running.
	before := survivors(marker, env)
	var sleeping, codex bool
	for _, cmd := range before {
		sleeping = sleeping || strings.Contains(cmd, "sleep "+marker) && !strings.Contains(cmd, "codex") // the command, or its shell
		codex = codex || strings.Contains(cmd, "codex")
	}
	if !sleeping || !codex {
		t.Fatalf("before the kill: processes %v; want Codex and its command running", before)
	}

	runner.Process.Signal(syscall.SIGKILL)
	runner.Wait()
	var left map[int]string
	poll.Eventually(t, 15*time.Second, func() (bool, string) {
		left = survivors(marker, env)
		return len(left) == 0, fmt.Sprintf("after the runner's SIGKILL these outlived it:\n%v", left)
	})

	// The next runner reports the run unknown and removes its work dir: nothing uses it.
	res := o.run("--due")
	runs := o.runs()
	work, _ := os.ReadDir(filepath.Join(o.data, "runner", "work"))
	if res.code != 0 || len(runs) != 1 || runs[0].state != "unknown" || len(work) != 0 {
		t.Fatalf("recovery: exit %d, runs %+v, work dir holds %d entries\n%s", res.code, runs, len(work), res.stderr)
	}
}
