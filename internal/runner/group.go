package runner

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"hearth/internal/privatefile"
)

// No orphans: the agent never outlives its invocation, nor the runner.
//
// Each invocation gets a process group whose leader is a guard, a tiny
// `sh` that reads a pipe only the runner holds the other end of and, at
// end of file, kills its whole group. The agent (Codex, or the agent
// command) joins that group and everything it starts stays in it (Codex's
// sandboxed commands run under bubblewrap with --die-with-parent, so they
// follow Codex). The pipe closes when the invocation ends, whichever way,
// and when the runner dies, however: even SIGKILL, which no handler sees,
// closes its files. So the group dies in every case, from one mechanism
// the kernel guarantees. The agent also gets a parent-death signal, so it
// dies at once even before the guard reads the end of file; the thread
// that starts it is locked until it is reaped (Pdeathsig fires when the
// creating thread exits, and Go may otherwise retire a thread).
//
// The group's ID is kept beside the work dir (work.pgid): recovery never
// removes a work dir while a process of its group is alive.

// guardScript waits for the end of its stdin, then kills its process group.
const guardScript = `read line; kill -s KILL 0`

// agentGroup is an invocation's process group, led by its guard.
type agentGroup struct {
	guard *exec.Cmd
	hold  *os.File // the runner's end of the guard's pipe
}

// startGroup starts the guard of a new process group and records its ID
// in pgidFile (none when pgidFile is "").
func startGroup(pgidFile string) (*agentGroup, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	guard := exec.Command("/bin/sh", "-c", guardScript)
	guard.Stdin = pr
	guard.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := guard.Start(); err != nil {
		pw.Close()
		return nil, fmt.Errorf("the agent's guard did not start: %w", err)
	}
	g := &agentGroup{guard: guard, hold: pw}
	if pgidFile == "" {
		return g, nil
	}
	if err := privatefile.WriteAtomic(pgidFile, []byte(strconv.Itoa(g.pgid()))); err != nil {
		g.end()
		return nil, err
	}
	return g, nil
}

// pgid is the group's ID: its guard's pid.
func (g *agentGroup) pgid() int { return g.guard.Process.Pid }

// join puts cmd in the group, with a parent-death signal.
func (g *agentGroup) join(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: g.pgid(), Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-g.pgid(), syscall.SIGKILL) }
}

// run joins cmd to the group and runs it. The starting thread stays
// locked until cmd is reaped: Pdeathsig fires when that thread exits, and
// Go may otherwise retire it.
func (g *agentGroup) run(cmd *exec.Cmd) error {
	g.join(cmd)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.Run()
}

// runGuarded runs one of the runner's own short Codex commands (doctor,
// login status, delete) in a guarded group of its own, so it dies with the
// runner as the agent does: npm's codex is a Node wrapper whose native
// child a parent-death signal alone would not reach, and an orphaned
// `codex delete` goes on writing in CODEX_HOME.
func runGuarded(cmd *exec.Cmd) error {
	g, err := startGroup("")
	if err != nil {
		return err
	}
	defer g.end()
	return g.run(cmd)
}

// end kills whatever is left of the group, the guard last of all, and reaps the guard.
func (g *agentGroup) end() {
	g.hold.Close()
	g.guard.Wait()
}

// groupAlive says whether a process of the group recorded in pgidFile is
// alive (false when none was recorded).
func groupAlive(pgidFile string) bool {
	b, err := os.ReadFile(pgidFile)
	if err != nil {
		return false
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pgid <= 1 {
		return false
	}
	return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// groupGoneWait bounds how long recovery waits for a stopped runner's
// agent group to die (its guard kills it at once) before leaving its work dir alone.
var groupGoneWait = 10 * time.Second

// removeWorkWhenIdle removes an invocation's work dir once no process of
// its group is alive; false when one still is after groupGoneWait.
func removeWorkWhenIdle(work string) bool {
	for deadline := time.Now().Add(groupGoneWait); groupAlive(work + ".pgid"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	removeWork(work)
	return true
}

// sweepWork removes the work dirs a stopped runner left whose groups are
// gone (the runner's lock is held: no invocation of this runner is running).
func (r *Runner) sweepWork() {
	entries, err := os.ReadDir(filepath.Join(r.state, "work"))
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasSuffix(e.Name(), ".codex") {
			continue
		}
		work := filepath.Join(r.state, "work", e.Name())
		if groupAlive(work + ".pgid") {
			r.log.Warn("a work dir is still in use by a process of its agent's group; left alone", "dir", work)
			continue
		}
		removeWork(work)
	}
}
