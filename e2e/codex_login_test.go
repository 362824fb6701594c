package e2e

import (
	"strings"
	"testing"
	"time"
)

// openAIAuthConfig points Codex at the scripted endpoint as a provider that
// takes OpenAI's own credentials (a stored login, CODEX_API_KEY or
// OPENAI_API_KEY) instead of an env_key of its own.
func openAIAuthConfig(api *responses) string {
	return `# hearth e2e: Codex ` + codexVersion + ` with OpenAI's own credentials, against a scripted endpoint.
model = "gpt-5.5"
model_provider = "hearthtest"
approval_policy = "never"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
shell_snapshot = false
unbounded_connection_retries = false

[model_providers.hearthtest]
name = "hearthtest"
base_url = "` + api.URL + `/v1"
requires_openai_auth = true
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 60000
`
}

// scheduleBrief adds a one-time daily-brief schedule due in two seconds
// and waits until it is due; it returns the occurrence.
func scheduleBrief(t *testing.T, o *codexOwner, prompt string) string {
	t.Helper()
	ops := newScheduleCLI(t, o.srv, "ops", "schedules:admin")
	at := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
	if res := ops.run(t, "add", "--job", "daily-brief", "--at", at.Format(time.RFC3339), "--prompt", prompt, "--id", "brief"); res.code != 0 {
		t.Fatalf("schedule add: exit %d\n%s", res.code, res.stderr)
	}
	occurrence := "brief/" + at.Format(time.RFC3339)
	waitDue(t, newAgentClient(o.srv.URL, o.token), occurrence)
	return occurrence
}

// runWith is `hearth run ARGS --agent codex` in the owner's environment
// with env over it.
func (o *codexOwner) runWith(env []string, args ...string) cliResult {
	o.t.Helper()
	return runHearth(o.t, o.env(env...), append(append([]string{"run"}, args...), "--agent", "codex", "--credential-file", o.tokenFile)...)
}

// TestWithAnAPIKeyInTheEnvironmentScheduledWorkRuns: no stored login
// (`codex login status` says "Not logged in"), but CODEX_API_KEY is in the
// runner's environment, which `codex exec` uses: the check lets the due
// schedule run, and it publishes.
func TestWithAnAPIKeyInTheEnvironmentScheduledWorkRuns(t *testing.T) {
	t.Parallel()
	const prompt = "Scheduled: write today's brief with the key from the environment."
	var date, zone string
	api := startResponses(t, prompt, func(int64) string { return strictBrief(date, zone, "Written with CODEX_API_KEY.") })
	o := newCodexOwner(t, api)
	writeFile(t, o.codexHome, "config.toml", []byte(openAIAuthConfig(api)), 0o600)
	o.codex(t, "", "logout")
	_, date, zone, _, _ = o.context()
	scheduleBrief(t, o, prompt)

	res := o.runWith([]string{"CODEX_API_KEY=sk-hearth-e2e-env", "OPENAI_API_KEY="}, "--due")
	if res.code != 0 {
		t.Fatalf("hearth run --due with CODEX_API_KEY: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
	}
	if _, _, _, brief, _ := o.context(); brief != "Written with CODEX_API_KEY." || api.requests.Load() != 1 {
		t.Fatalf("brief %q, %d request(s): want the scheduled run published", brief, api.requests.Load())
	}
	if st := loginOwner(t, o.srv.URL).mustPage("GET", "/runs", nil).Find(`[data-testid="agent-health-state"]`).AttrOr("data-state", ""); st != "ok" {
		t.Fatalf("Runs' agent login: %q, want ok", st)
	}
}

// TestWithAProvidersEnvKeyScheduledWorkRuns: the configured provider names
// its own env_key (HEARTH_TEST_KEY), which the runner's environment holds,
// and nothing is stored in CODEX_HOME: the due schedule runs and publishes.
func TestWithAProvidersEnvKeyScheduledWorkRuns(t *testing.T) {
	t.Parallel()
	const prompt = "Scheduled: write today's brief with the provider's key."
	var date, zone string
	api := startResponses(t, prompt, func(int64) string { return strictBrief(date, zone, "Written with the provider's env_key.") })
	o := newCodexOwner(t, api) // its config's provider has env_key = "HEARTH_TEST_KEY", and o.env sets it
	o.codex(t, "", "logout")
	_, date, zone, _, _ = o.context()
	scheduleBrief(t, o, prompt)

	res := o.runWith([]string{"CODEX_API_KEY=", "OPENAI_API_KEY="}, "--due")
	if res.code != 0 {
		t.Fatalf("hearth run --due with the provider's env_key: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
	}
	if _, _, _, brief, _ := o.context(); brief != "Written with the provider's env_key." || api.requests.Load() != 1 {
		t.Fatalf("brief %q, %d request(s): want the scheduled run published", brief, api.requests.Load())
	}
}

// TestWithNoCodexCredentialDueAndJobAreRefusedInWords: no stored login, no
// API key, no provider key: `--due` and `--job` each refuse at once,
// saying what Codex found and what to do; nothing is claimed (the
// occurrence stays due), no run is recorded and the model is never asked.
func TestWithNoCodexCredentialDueAndJobAreRefusedInWords(t *testing.T) {
	t.Parallel()
	const prompt = "Scheduled: write today's brief without a credential."
	api := startResponses(t, prompt, func(int64) string { return "{}" })
	o := newCodexOwner(t, api)
	writeFile(t, o.codexHome, "config.toml", []byte(openAIAuthConfig(api)), 0o600)
	o.codex(t, "", "logout")
	occurrence := scheduleBrief(t, o, prompt)
	none := []string{"CODEX_API_KEY=", "OPENAI_API_KEY="}

	for _, c := range []struct {
		args []string
		held string
	}{
		{[]string{"--due"}, "scheduled work is held"},
		{[]string{"--job", "daily-brief"}, "the job was not run"},
	} {
		res := o.runWith(none, c.args...)
		t.Logf("hearth run %v refused after %s", c.args, res.took.Round(time.Millisecond))
		if res.code != 1 || !strings.Contains(res.stderr, "codex is not logged in") || !strings.Contains(res.stderr, "no Codex credentials were found") ||
			!strings.Contains(res.stderr, c.held) || !strings.Contains(res.stderr, "CODEX_API_KEY") {
			t.Fatalf("hearth run %v with no credential: exit %d, want 1 saying what Codex found, what was held and the fix\n%s", c.args, res.code, res.stderr)
		}
		if n := api.requests.Load(); n != 0 || len(o.runs()) != 0 {
			t.Fatalf("hearth run %v with no credential: %d model request(s), runs %+v", c.args, n, o.runs())
		}
		waitDue(t, newAgentClient(o.srv.URL, o.token), occurrence) // not claimed
	}
	owner := loginOwner(t, o.srv.URL)
	health := owner.mustPage("GET", "/runs", nil).Find(`[data-testid="agent-health"]`)
	if st := health.Find(`[data-testid="agent-health-state"]`).AttrOr("data-state", ""); st != "needs_login" || !strings.Contains(health.Text(), "no Codex credentials were found") {
		t.Fatalf("Runs' agent login card: state %q, text %q", st, health.Text())
	}
}
