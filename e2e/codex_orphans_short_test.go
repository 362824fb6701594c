package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"hearth/internal/poll"
)

// The runner's own short Codex commands (the login check, `codex delete`
// of a finished run's session) die with it too: an orphaned `codex delete`
// went on writing in CODEX_HOME after the runner was gone.
func TestASIGKILLedRunnerLeavesNoCodexDeleteBehind(t *testing.T) {
	t.Parallel()
	var date, zone string
	api := startResponses(t, dailyBriefPrompt(t), func(int64) string { return strictBrief(date, zone, "Written before the kill.") })
	o := newCodexOwner(t, api)
	_, date, zone, _, _ = o.context()

	// A codex on PATH before the real one: `codex delete` first runs a
	// child that outlives its shell's death (as npm's Node wrapper runs
	// the native binary), then the real command.
	marker := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	real, err := exec.LookPath(filepath.Join(codexBinDir(t), "codex"))
	if err != nil {
		t.Fatal(err)
	}
	shim := t.TempDir()
	writeFile(t, shim, "codex", []byte("#!/bin/sh\nif [ \"$1\" = delete ]; then sleep "+marker+"; fi\nexec "+real+" \"$@\"\n"), 0o755)
	o.path = shim + string(os.PathListSeparator) + o.path
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
	deleting := func() bool {
		for _, cmd := range survivors(marker, env) {
			if strings.Contains(cmd, "sleep "+marker) {
				return true
			}
		}
		return false
	}
	if !poll.Within(90*time.Second, deleting) {
		runner.Process.Kill()
		runner.Wait()
		t.Fatalf("the runner never ran codex delete\n%s", stderr.String())
	}

	runner.Process.Signal(syscall.SIGKILL)
	runner.Wait()
	if !poll.Within(15*time.Second, func() bool { return len(survivors(marker, env)) == 0 }) {
		t.Fatalf("after the runner's SIGKILL these outlived it:\n%v", survivors(marker, env))
	}
}
