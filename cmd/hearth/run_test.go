package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/internal/cli"
)

func TestTheAgentFlagsAreCheckedBeforeAnythingRuns(t *testing.T) {
	t.Setenv("HEARTH_CODEX_BIN", "")
	t.Setenv("HEARTH_AGENT_CMD", "")
	data := t.TempDir()
	badPrices := filepath.Join(t.TempDir(), "prices.json")
	os.WriteFile(badPrices, []byte(`{"models":{"gpt-6.2-sol":{"input":2,"output":10}}}`), 0o600)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--job", "daily-brief"}, "no agent: pass --agent codex"},
		{[]string{"--job", "daily-brief", "--agent", "claude"}, "the one preset is codex"},
		{[]string{"--job", "daily-brief", "--agent", "codex", "--agent-cmd", "true"}, "say one"},
		{[]string{"--job", "daily-brief", "--agent", "codex", "--codex-bin", filepath.Join(data, "no-codex")}, "install Codex, or pass --codex-bin"},
		{[]string{"--job", "daily-brief", "--agent", "codex", "--codex-sandbox", "danger-full-access"}, "read-only, workspace-write"},
		{[]string{"--job", "daily-brief", "--agent-cmd", "true", "--prices", badPrices}, "--prices goes with --agent codex"},
		{[]string{"--job", "daily-brief", "--agent", "codex", "--codex-bin", "/bin/true", "--prices", badPrices}, "model gpt-6.2-sol: no cachedInput price"},
		{[]string{"--job", "weekly-digest", "--agent-cmd", "true"}, "has daily-brief, messages, requests, routine-review): pass --prompt-file"},
		{[]string{"--job", "daily-brief", "--agent-cmd", "true", "--agent-backoff", "30s,soon"}, "want durations such as 30s,2m"},
		{[]string{"--job", "daily-brief", "--agent-cmd", "true", "--agent-backoff", "-1s"}, "want durations such as 30s,2m"},
		{[]string{"--job", "daily-brief", "--agent-cmd", "true", "--failed-days", "-1"}, "want 0 (keep them all) or more"},
	} {
		err := cmdRun(append(c.args, "--data", data, "--url", "http://127.0.0.1:1"))
		var xe *cli.ExitError
		if !errors.As(err, &xe) || xe.Code != cli.ExitRejected || !strings.Contains(err.Error(), c.want) {
			t.Errorf("hearth run %v: %v; want a usage error saying %q", c.args, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("a usage error touched the data dir: %v", entries)
	}
}
