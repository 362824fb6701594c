package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/agent"
	"hearth/internal/poll"
)

// prompts reads the prompts the fake agent received on stdin, in order.
func prompts(t *testing.T, log string) []string {
	t.Helper()
	b, _ := os.ReadFile(log)
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

// runSection is the part of a prompt after the runner's "## Run" heading.
func runSection(t *testing.T, prompt string) string {
	t.Helper()
	_, run, ok := strings.Cut(prompt, "\n## Run\n")
	if !ok {
		t.Fatalf("the prompt has no Run section:\n%s", prompt)
	}
	return run
}

func TestAJobRunWithoutAPromptFileGivesTheAgentTheKitsPromptOnStdin(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	log := filepath.Join(t.TempDir(), "prompts")
	res := f.run("", []string{"FAKE_AGENT_PROMPT_LOG=" + log}, "--job", "daily-brief")
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s", res.code, res.stderr)
	}
	got := prompts(t, log)
	kit, _ := agent.Prompt("daily-brief")
	inv := f.invocations()
	if len(got) != 1 || len(inv) != 1 || !strings.HasPrefix(got[0], strings.TrimSpace(kit)) {
		t.Fatalf("%d prompt(s) for invocations %v; want one starting with the kit's daily-brief prompt:\n%s", len(got), inv, strings.Join(got, "\n---\n"))
	}
	run := runSection(t, got[0])
	for _, want := range []string{"- job: daily-brief\n", "- runId: " + inv[0] + "\n", "- context file: ", "context.json"} {
		if !strings.Contains(run, want) {
			t.Errorf("the Run section lacks %q:\n%s", want, run)
		}
	}
	if strings.Contains(run, "woken") {
		t.Errorf("an owner's run names wake-up reasons:\n%s", run)
	}
}

func TestAJobTheKitDoesNotKnowNeedsAPromptFile(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	res := f.run("", nil, "--job", "weekly-digest")
	if res.code != 1 || !strings.Contains(res.stderr, "--prompt-file") {
		t.Fatalf("unknown job without --prompt-file: exit %d, want 1 naming --prompt-file\n%s", res.code, res.stderr)
	}
	for _, job := range agent.Jobs() {
		if !strings.Contains(res.stderr, job) {
			t.Errorf("the usage error does not list the kit's job %s:\n%s", job, res.stderr)
		}
	}
	if len(f.invocations()) != 0 || len(f.runsPage()) != 0 {
		t.Fatalf("a usage error started a run")
	}
	// With a prompt file the same job runs, with that prompt.
	log := filepath.Join(t.TempDir(), "prompts")
	file := writeFile(t, t.TempDir(), "prompt.md", []byte("Digest the week.\n"), 0o600)
	if res := f.run("", []string{"FAKE_AGENT_PROMPT_LOG=" + log}, "--job", "weekly-digest", "--prompt-file", file); res.code != 0 {
		t.Fatalf("with --prompt-file: exit %d\n%s", res.code, res.stderr)
	}
	if got := prompts(t, log); len(got) != 1 || !strings.HasPrefix(got[0], "Digest the week.\n") {
		t.Fatalf("prompts %q", got)
	}
}

func TestAScheduledRunGetsTheSchedulesOwnPrompt(t *testing.T) {
	t.Parallel()
	f := newRunnerFixture(t)
	ops := newScheduleCLI(t, f.srv, "ops", "schedules:admin")
	at := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
	if res := ops.run(t, "add", "--job", "daily-brief", "--at", at.Format(time.RFC3339), "--prompt", "The schedule's own words.", "--id", "brief"); res.code != 0 {
		t.Fatalf("schedule add: exit %d\n%s", res.code, res.stderr)
	}
	tok, _ := os.ReadFile(f.token)
	waitDue(t, newAgentClient(f.srv.URL, strings.TrimSpace(string(tok))), "brief/"+at.Format(time.RFC3339))
	log := filepath.Join(t.TempDir(), "prompts")
	if res := f.run("", []string{"FAKE_AGENT_PROMPT_LOG=" + log}, "--due"); res.code != 0 {
		t.Fatalf("run --due: exit %d\n%s", res.code, res.stderr)
	}
	got := prompts(t, log)
	kit, _ := agent.Prompt("daily-brief")
	if len(got) != 1 || !strings.HasPrefix(got[0], "The schedule's own words.") || strings.Contains(got[0], strings.TrimSpace(kit)) {
		t.Fatalf("prompts %q: want the schedule's prompt, not the kit's", got)
	}
	if run := runSection(t, got[0]); !strings.Contains(run, "- job: daily-brief\n") {
		t.Fatalf("Run section:\n%s", run)
	}
}

func TestAWatchRunPromptCarriesTheWakeUpReasonsNotTheMessages(t *testing.T) {
	t.Parallel()
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL,
		"--watch-interval", "200ms", "--wake-debounce", "500ms")
	f := &runnerFixture{t: t, srv: srv, state: t.TempDir(), token: filepath.Join(srv.DataDir, "agent.token"), countLog: filepath.Join(t.TempDir(), "invocations")}
	log := filepath.Join(t.TempDir(), "prompts")
	watch := exec.Command(hearthBin, "run", "--watch", "--agent-cmd", fakeAgentBin, "--data", f.state, "--url", srv.URL, "--credential-file", f.token)
	watch.Env = cleanEnv("FAKE_AGENT_COUNT_FILE="+f.countLog, "FAKE_AGENT_PROMPT_LOG="+log)
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopRunner(watch) })
	watchHasRead(t, srv.URL)
	const secret = "the secret text of a message"
	injectMessage(t, beeperURL, secret)
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		return len(f.invocations()) > 0, "the watch never ran the agent"
	})
	got := prompts(t, log)
	kit, _ := agent.Prompt("messages")
	if len(got) != 1 || !strings.HasPrefix(got[0], strings.TrimSpace(kit)) {
		t.Fatalf("prompts %q: want the kit's messages prompt", got)
	}
	run := runSection(t, got[0])
	if !strings.Contains(run, "- job: messages\n") || !strings.Contains(run, "woken") || !strings.Contains(run, "new message(s) in") {
		t.Fatalf("the Run section does not say why the run was woken:\n%s", run)
	}
	if strings.Contains(got[0], secret) {
		t.Fatalf("the prompt carries a message's text:\n%s", got[0])
	}
}
