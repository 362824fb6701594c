package e2e

import (
	"os/exec"
	"syscall"
	"time"
)

// stopRunner stops a `hearth run` the way systemd does, SIGTERM, and
// waits until it has ended its agent and everything the agent started, so
// that nothing writes in the test's directories while they are removed.
// A runner still there after 30 s is killed.
func stopRunner(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}
