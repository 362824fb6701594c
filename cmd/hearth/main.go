// Command hearth is the workspace server and its command-line clients.
package main

import (
	"errors"
	"fmt"
	"os"

	"hearth/internal/cli"

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

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(os.Stderr, usage)
		if len(args) == 0 {
			return cli.ExitRejected
		}
		return cli.ExitOK
	}
	cmds := map[string]func([]string) error{
		"serve":       cmdServe,
		"migrate":     cmdMigrate,
		"owner":       cmdOwner,
		"token":       cmdToken,
		"context":     cli.CmdContext,
		"mcp":         cli.CmdMCP,
		"run":         cmdRun,
		"publish":     cli.CmdPublish,
		"schedule":    cli.CmdSchedule,
		"backup":      cmdBackup,
		"seed":        cmdSeed,
		"fake-beeper": cmdFakeBeeper,
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		cli.Printf(os.Stderr, "hearth: unknown command \"%s\"\n\n", args[0])
		fmt.Fprint(os.Stderr, usage)
		return cli.ExitRejected
	}
	if err := cmd(args[1:]); err != nil {
		var ee *cli.ExitError
		if errors.As(err, &ee) {
			if ee.Err != nil {
				fmt.Fprintln(os.Stderr, "hearth:", cli.TermText(ee.Err.Error()))
			}
			return ee.Code
		}
		fmt.Fprintln(os.Stderr, "hearth:", cli.TermText(err.Error()))
		return cli.ExitCode(err)
	}
	return cli.ExitOK
}
