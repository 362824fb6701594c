package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunMakesRelativePathsAbsoluteBeforeTheAgentRunsElsewhere runs
// `hearth run` from a directory with --data, --codex-home and --agent-dir
// relative to it. The agent runs in --agent-dir, so every path it is
// handed must already be absolute, or the context file and CODEX_HOME it
// is told about are looked for in the wrong place.
func TestRunMakesRelativePathsAbsoluteBeforeTheAgentRunsElsewhere(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"life", "codex-home"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	seen := filepath.Join(t.TempDir(), "seen")
	probe := writeFile(t, t.TempDir(), "probe.sh", []byte("#!/bin/sh\n"+
		`printf '%s\n%s\n%s\n' "$PWD" "$CODEX_HOME" "$HEARTH_CONTEXT_FILE" > "$PROBE_SEEN"`+"\n"+
		`exec "$FAKE_AGENT"`+"\n"), 0o700)

	cmd := exec.Command(hearthBin, "run", "--job", "daily-brief", "--agent-cmd", probe,
		"--data", "data", "--codex-home", "codex-home", "--agent-dir", "life",
		"--url", f.srv.URL, "--credential-file", f.token)
	cmd.Dir = base
	cmd.Env = cleanEnv("PROBE_SEEN="+seen, "FAKE_AGENT="+fakeAgentBin, "FAKE_AGENT_COUNT_FILE="+f.countLog)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("hearth run with relative paths: %v\n%s", err, out.String())
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the agent never ran: %v\n%s", err, out.String())
	}
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(got) != 3 || got[0] != filepath.Join(base, "life") || got[1] != filepath.Join(base, "codex-home") ||
		!filepath.IsAbs(got[2]) || !strings.HasPrefix(got[2], filepath.Join(base, "data", "runner")+string(filepath.Separator)) {
		t.Errorf("the agent saw PWD, CODEX_HOME, HEARTH_CONTEXT_FILE = %q; want %s, %s and a file under %s",
			got, filepath.Join(base, "life"), filepath.Join(base, "codex-home"), filepath.Join(base, "data", "runner"))
	}
	if !strings.Contains(out.String(), "succeeded") {
		t.Errorf("the run did not succeed:\n%s", out.String())
	}
}
