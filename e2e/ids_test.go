package e2e

import "testing"

// TestCLIRefusesIDsMadeOnlyOfDots: every ID the CLI takes, "." ".." and
// "...", is refused with exit 1 naming what was wrong; an ID in a URL path
// is refused before the request (clients and proxies may resolve "." and
// ".." away).
func TestCLIRefusesIDsMadeOnlyOfDots(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	ops := newScheduleCLI(t, srv, "ops", "schedules:admin")
	agentCred := writeFile(t, t.TempDir(), "agent.token", []byte(mintToken(t, srv.DataDir)+"\n"), 0o600)
	add := func(extra ...string) []string {
		return append([]string{"add", "--cron", "0 8 * * *", "--zone", "UTC", "--prompt", "Write."}, extra...)
	}
	for _, id := range []string{".", "..", "..."} {
		wantExit(t, ops.run(t, add("--job", "morning", "--id", id)...), 1, "stderr", `"path": "/id"`)
		wantExit(t, ops.run(t, add("--job", id)...), 1, "stderr", `"path": "/job"`)
		wantExit(t, ops.run(t, add("--job", "morning", "--request-key", id)...), 1, "stderr", `"path": "/requestKey"`)
		wantExit(t, ops.run(t, "cancel", id), 1, "stderr", "invalid schedule ID")
		wantExit(t, ops.run(t, "next", id), 1, "stderr", "invalid schedule ID")
		res := runHearth(t, nil, "run", "--job", id, "--agent-cmd", "true", "--data", t.TempDir(), "--url", srv.URL, "--credential-file", agentCred)
		wantExit(t, res, 1, "stderr", "--job")
	}
	if res := ops.run(t, "list", "--json"); res.code != 0 || res.stdout != `{"schedules":[],"truncated":false}`+"\n" {
		t.Errorf("schedules after the refusals: exit %d, %s", res.code, res.stdout)
	}
}
