// Package cli is the command line's common parts and its client commands:
// the exit codes and the error that carries one, flag parsing, output made
// safe for a terminal, and the commands that are clients of hearth's API
// (context, publish, schedule, mcp) with their flags.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"hearth/internal/apiclient"
)

// Exit codes of every command (docs/contract.md, CLI exit codes).
const (
	ExitOK          = 0
	ExitRejected    = 1 // usage, validation, auth or conflict: the command must change
	ExitUnavailable = 2 // transport, 5xx or an unreadable answer: retry later
)

// ExitError carries a process exit code out of a subcommand.
type ExitError struct {
	Code int
	Err  error // nil: nothing to say (-h)
}

// Error is the message of Err.
func (e *ExitError) Error() string { return e.Err.Error() }

// UsageError is a command used wrongly: exit 1, since retrying cannot help.
func UsageError(format string, args ...any) error {
	return &ExitError{Code: ExitRejected, Err: fmt.Errorf(format, args...)}
}

// NoArgs refuses positional arguments to a command that takes none, rather
// than ignoring a typo.
func NoArgs(rest []string) error {
	if len(rest) > 0 {
		return UsageError("unexpected argument %q", rest[0])
	}
	return nil
}

// ExitCode is the exit status of an error that carries none: 2 when hearth
// was unavailable or answered unreadably (a retry may succeed), else 1.
func ExitCode(err error) int {
	if apiclient.Unavailable(err) {
		return ExitUnavailable
	}
	return ExitRejected
}

// EnvOr is the environment variable key, else fallback when it is unset or empty.
func EnvOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// ParseInterspersed parses flags that may come before or after positional
// arguments. A bad flag exits 1; -h, after the flag package printed the
// command's flags, exits 0.
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
			return nil, &ExitError{Code: ExitOK}
		} else if err != nil {
			return nil, &ExitError{Code: ExitRejected, Err: err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// ParseFlags parses a command that takes no positional arguments: the
// prologue of most commands.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	rest, err := ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	return NoArgs(rest)
}
