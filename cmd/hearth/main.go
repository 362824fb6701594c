// Command hearth is the workspace server and its command-line clients.
package main

import (
	"errors"
	"fmt"
	"os"

	"hearth/internal/apiclient"

	_ "time/tzdata" // IANA zones even on a machine without /usr/share/zoneinfo
)

const usage = `hearth: a personal workspace that an agent publishes into.

Usage:
  hearth serve   [--addr 127.0.0.1:8080] [--data DIR] [--demo] [--init] [--host NAME]... [--tailscale-owner LOGIN]
  hearth migrate [--data DIR]               apply pending schema migrations (serve does too)
  hearth owner passwd [--data DIR]          passphrase on stdin
  hearth owner logout-all [--data DIR]
  hearth token create --name N [--scopes S] [--data DIR]
  hearth token list [--data DIR]
  hearth token revoke ID|NAME [--data DIR]
  hearth context [--full] [--json] [--url URL] [--credential-file F]   compact unless --full
  hearth publish FILE|- [--json] [--url URL] [--credential-file F]
  hearth mcp [--url URL] [--credential-file F]   MCP server on stdio: get_context, publish_result, list_requests, post_observations
  hearth schedule add --job K (--at T | --cron "m h dom mon dow") [--zone IANA] [--end-at T]
                      (--prompt-file F | --prompt TEXT) [--request-key K] [--id ID]
                      [--max-invocations N] [--deadline D] [--notify-on-success]
  hearth schedule list | cancel ID | due [--now T] | next ID [--from T] [--count N]
                      (each also [--json] [--url URL] [--credential-file F])
  hearth run (--due | --job K [--prompt-file F] | --watch) (--agent codex | --agent-cmd CMD) [--agent-dir DIR]
             [--codex-home DIR] [--codex-bin F] [--codex-sandbox read-only|workspace-write]
             [--data DIR] [--url URL] [--credential-file F] [--json]
  hearth backup FILE [--data DIR]
  hearth seed (--years N | --days N) [--seed S] [--data DIR]   simulated use ending today, into an empty data dir
  hearth fake-beeper [--addr 127.0.0.1:23373] [--token T]   in-memory Beeper Desktop API for demos and tests

Environment: HEARTH_DATA (default ./data), HEARTH_ADDR, HEARTH_URL
(default http://127.0.0.1:8080), HEARTH_TOKEN, HEARTH_HOSTS (comma-separated
--host names), HEARTH_TAILSCALE_OWNER; TZ is the client zone of schedule add.

Exit status: 0 success (or an exact replay); 1 the command must change (usage,
validation, auth, conflict); 2 hearth is unavailable or answered unreadably.
`

// Exit codes of every command (docs/contract.md, CLI exit codes).
const (
	exitOK          = 0
	exitRejected    = 1 // usage, validation, auth or conflict: the command must change
	exitUnavailable = 2 // transport, 5xx or an unreadable answer: retry later
)

// exitError carries a process exit code out of a subcommand.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// usageError is a command used wrongly: exit 1, since retrying cannot help.
func usageError(format string, args ...any) error {
	return &exitError{code: exitRejected, err: fmt.Errorf(format, args...)}
}

// noArgs refuses positional arguments to a command that takes none, rather
// than ignoring a typo.
func noArgs(rest []string) error {
	if len(rest) > 0 {
		return usageError("unexpected argument %q", rest[0])
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(os.Stderr, usage)
		if len(args) == 0 {
			return exitRejected
		}
		return exitOK
	}
	cmds := map[string]func([]string) error{
		"serve":       cmdServe,
		"migrate":     cmdMigrate,
		"owner":       cmdOwner,
		"token":       cmdToken,
		"context":     cmdContext,
		"mcp":         cmdMCP,
		"run":         cmdRun,
		"publish":     cmdPublish,
		"schedule":    cmdSchedule,
		"backup":      cmdBackup,
		"seed":        cmdSeed,
		"fake-beeper": cmdFakeBeeper,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		printf(os.Stderr, "hearth: unknown command \"%s\"\n\n", args[0])
		fmt.Fprint(os.Stderr, usage)
		return exitRejected
	}
	if err := cmd(args[1:]); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil {
				fmt.Fprintln(os.Stderr, "hearth:", termText(ee.err.Error()))
			}
			return ee.code
		}
		fmt.Fprintln(os.Stderr, "hearth:", termText(err.Error()))
		return exitCode(err)
	}
	return exitOK
}

// exitCode is the exit status of an error that carries none: 2 when hearth
// was unavailable or answered unreadably (a retry may succeed), else 1.
func exitCode(err error) int {
	if apiclient.Unavailable(err) {
		return exitUnavailable
	}
	return exitRejected
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}
