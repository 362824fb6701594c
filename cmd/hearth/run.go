package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"hearth/internal/cli"
	"hearth/internal/contract/schema"
	"hearth/internal/ids"
	"hearth/internal/runner"
	"hearth/models"
)

// cmdRun is `hearth run`: its flags, checked before anything runs, then
// the runner (internal/runner) under its lock.
func cmdRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	cf := cli.AddClientFlags(fs)
	dir := dataFlag(fs)
	due := fs.Bool("due", false, "run every schedule that is due (for a systemd timer)")
	job := fs.String("job", "", "run this job now (the owner's request: not held by the cost cap)")
	watch := fs.Bool("watch", false, "wait on GET /api/agent-wake and run each dirty job and due schedule once")
	promptFile := fs.String("prompt-file", "", "with --job: the prompt to give the agent")
	agentCmd := fs.String("agent-cmd", os.Getenv("HEARTH_AGENT_CMD"), "the agent command, run with sh -c; it gets the prompt on stdin and prints one publication on stdout (HEARTH_AGENT_CMD)")
	agentName := fs.String("agent", "", "a preset agent instead of --agent-cmd: codex (runs codex exec)")
	agentDir := fs.String("agent-dir", "", "the agent's working directory (--agent-cmd); the owner's life folder, named in the prompt")
	codexHome := fs.String("codex-home", os.Getenv("CODEX_HOME"), "CODEX_HOME for the agent")
	codexBin := fs.String("codex-bin", cli.EnvOr("HEARTH_CODEX_BIN", "codex"), "with --agent codex: the codex executable (HEARTH_CODEX_BIN)")
	codexSandbox := fs.String("codex-sandbox", "read-only", "with --agent codex: the sandbox of the commands Codex runs: read-only or workspace-write (the life folder writable)")
	backoffFlag := fs.String("agent-backoff", "30s,2m", "the waits before invoking the agent again after it failed with an error (a provider error after Codex's own retries): the first, then each later one; each at most the run's deadline")
	failedDays := fs.Int("failed-days", int(models.DefaultObservationHorizon/(24*time.Hour)), "refused publications kept in DATA/runner/failed (they may hold text derived from messages) are removed after this many days, at each start; 0 keeps them all")
	pricesFile := fs.String("prices", "", "with --agent codex: a JSON price file, USD per 1M tokens by model, over the built-in OpenAI prices (see docs/schedules-and-runner.md)")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *failedDays < 0 {
		return cli.UsageError("--failed-days %d: want 0 (keep them all) or more", *failedDays)
	}
	backoff, err := parseBackoff(*backoffFlag)
	if err != nil {
		return cli.UsageError("--agent-backoff %q: %v", *backoffFlag, err)
	}
	modes := 0
	for _, on := range []bool{*due, *job != "", *watch} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return cli.UsageError("say exactly one of --due, --job K, --watch")
	}
	var codex *runner.Codex
	switch *agentName {
	case "":
		if *agentCmd == "" {
			return cli.UsageError("no agent: pass --agent codex, or --agent-cmd (or set HEARTH_AGENT_CMD)")
		}
	case "codex":
		explicit := false
		fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "agent-cmd" })
		if explicit {
			return cli.UsageError("--agent codex and --agent-cmd: say one")
		}
		if !slices.Contains(runner.CodexSandboxes, *codexSandbox) {
			return cli.UsageError("--codex-sandbox %q: want one of %s", *codexSandbox, strings.Join(runner.CodexSandboxes, ", "))
		}
		bin, err := exec.LookPath(*codexBin)
		if err != nil {
			return cli.UsageError("--agent codex: %v (install Codex, or pass --codex-bin)", err)
		}
		strict, _ := schema.Committed(schema.StrictResult)
		prices, err := runner.LoadPrices(*pricesFile)
		if err != nil {
			return cli.UsageError("--prices: %v", err)
		}
		codex = &runner.Codex{Bin: bin, Sandbox: *codexSandbox, StrictSchema: strict, FromStrict: schema.FromStrict, Prices: prices}
		*agentCmd = ""
	default:
		return cli.UsageError("--agent %q: the one preset is codex; other agents go in --agent-cmd", *agentName)
	}
	if *pricesFile != "" && codex == nil {
		return cli.UsageError("--prices goes with --agent codex (an agent command reports its own cost)")
	}
	if *job != "" && !ids.Valid(*job) {
		// The job names the run, and the run its journal file.
		return cli.UsageError("--job %q: want %s", *job, ids.Expected)
	}
	if *promptFile != "" && *job == "" {
		return cli.UsageError("--prompt-file goes with --job")
	}
	var prompt string
	if *promptFile != "" {
		b, err := os.ReadFile(*promptFile)
		if err != nil {
			return cli.UsageError("%v", err)
		}
		prompt = string(b)
	} else if *job != "" {
		if prompt, err = runner.KitPrompt(*job); err != nil {
			return cli.UsageError("%v", err)
		}
	}
	// The agent runs in another directory (its work dir, or --agent-dir),
	// so every path the runner hands it is made absolute here.
	paths := []*string{agentDir, codexHome, dir}
	if codex != nil {
		paths = append(paths, &codex.Bin)
	}
	for _, p := range paths {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return err
			}
		}
	}
	client, err := cf.Client()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	r, err := runner.New(runner.Config{Client: client, AgentCmd: *agentCmd, AgentDir: *agentDir, CodexHome: *codexHome,
		Codex: codex, State: filepath.Join(*dir, "runner"), Log: log, AgentBackoff: backoff,
		FailedRetention: time.Duration(*failedDays) * 24 * time.Hour})
	if err != nil {
		return err
	}
	unlock, err := r.Lock()
	if err != nil {
		if errors.Is(err, runner.ErrLocked) {
			if *due || *watch {
				log.Info("another hearth run holds the lock; nothing to do")
				return nil
			}
			return &cli.ExitError{Code: cli.ExitRejected, Err: err}
		}
		return err
	}
	defer unlock()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = r.Recover(ctx)
	switch {
	case err != nil:
	case *due:
		err = r.RunDue(ctx)
	case *job != "":
		err = r.RunManual(ctx, *job, prompt)
	case *watch:
		err = r.Watch(ctx)
	}
	if *cf.JSON {
		json.NewEncoder(os.Stdout).Encode(map[string]any{"runs": r.Runs()})
	} else {
		for _, v := range r.Runs() {
			cli.Printf(os.Stdout, "%s %s: %s (%d invocation(s))%s\n", v.Job, v.ID, v.State, v.Invocations, detailSuffix(v.Detail))
		}
	}
	return err
}

func detailSuffix(d string) string {
	if d == "" {
		return ""
	}
	return ": " + d
}

// parseBackoff reads --agent-backoff: comma-separated durations, none negative.
func parseBackoff(s string) ([]time.Duration, error) {
	out := []time.Duration{}
	for _, f := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("want durations such as 30s,2m")
		}
		out = append(out, d)
	}
	return out, nil
}
