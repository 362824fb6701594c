package runner

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"hearth/internal/apiclient"
	"hearth/internal/poll"
	"hearth/internal/privatefile"
)

// processGone says whether pid has exited (a zombie counts as gone: it runs nothing).
func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command's closing parenthesis.
	s := string(b)
	return strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
}

// waitGone waits until pid has exited, failing the test if it is still running after a while.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	if !poll.Within(10*time.Second, func() bool { return processGone(pid) }) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("%s (pid %d) outlived its invocation", what, pid)
	}
}

func TestWhatAnAgentStartsDiesWithItsInvocation(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild")
	// The agent leaves a process behind, detached from its output, and ends well.
	r := &Runner{state: dir, log: slog.New(slog.DiscardHandler),
		agentCmd: `sleep 300 </dev/null >/dev/null 2>&1 & echo $! > ` + pidFile + `; echo '{}'`}
	os.MkdirAll(filepath.Join(dir, "work"), 0o700)
	j := runJournal{RunID: "x-1", PubRunID: "x-1-1", Job: "x", Trigger: "manual", Prompt: "Do x."}
	if _, _, err := r.invoke(context.Background(), j, []byte(`{}`), 1); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitGone(t, pid, "the agent's background process")
	if _, err := os.Stat(filepath.Join(dir, "work", "x-1-1.pgid")); !os.IsNotExist(err) {
		t.Fatalf("the group's ID outlived the invocation: %v", err)
	}
}

func TestRecoveryNeverRemovesAWorkDirWhileItsAgentLives(t *testing.T) {
	h, url := startFakeHost(t, 3)
	r := retryRunner(t, url, "true")
	r.client = apiclient.New(url, "t")
	old := groupGoneWait
	groupGoneWait = 200 * time.Millisecond
	t.Cleanup(func() { groupGoneWait = old })
	// A stopped runner's invocation whose agent is still running in its group.
	j := runJournal{RunID: "daily-brief-5", PubRunID: "daily-brief-5-1", Job: "daily-brief", Trigger: "manual", Phase: phaseInvoking, Invocation: 1}
	work := filepath.Join(r.state, "work", j.PubRunID)
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	agent := exec.Command("sleep", "60")
	agent.Dir = work
	agent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	if err := privatefile.WriteAtomic(work+".pgid", []byte(strconv.Itoa(agent.Process.Pid))); err != nil {
		t.Fatal(err)
	}
	if err := r.save(j); err != nil {
		t.Fatal(err)
	}
	if err := r.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(work); err != nil || h.finish["outcome"] != "unknown" {
		t.Fatalf("work dir %v, finish %v: want the run reported unknown and the live agent's work dir kept", err, h.finish)
	}
	// Once its group is gone, the next recovery removes it.
	agent.Process.Kill()
	agent.Wait()
	if err := r.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{work, work + ".pgid"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s outlived its agent: %v", p, err)
		}
	}
}
