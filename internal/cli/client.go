package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"hearth/internal/apiclient"
	"hearth/internal/contract"
	"hearth/internal/mcpserver"
	"hearth/models"
)

// ClientFlags are the flags of every client command: where hearth is, the
// agent's credential, and --json.
type ClientFlags struct {
	url, credFile *string
	JSON          *bool // print one JSON object on stdout
}

// AddClientFlags declares --url, --credential-file and --json on fs.
func AddClientFlags(fs *flag.FlagSet) ClientFlags {
	return ClientFlags{
		url:      fs.String("url", EnvOr("HEARTH_URL", "http://127.0.0.1:8080"), "hearth base URL (HEARTH_URL)"),
		credFile: fs.String("credential-file", "", "file holding the agent token (else HEARTH_TOKEN); must not be group/other-readable"),
		JSON:     fs.Bool("json", false, "print one JSON object on stdout"),
	}
}

// baseURL is --url checked up front, so a malformed one is a usage error
// (exit 1) rather than a transport failure that is retried and exits 2.
func (f ClientFlags) baseURL() (string, error) {
	u, err := url.Parse(*f.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", UsageError("--url %q (HEARTH_URL) is not an http:// or https:// URL", *f.url)
	}
	return strings.TrimRight(*f.url, "/"), nil
}

// Client is the client of hearth that --url and the credential name, each
// checked in that order: every client command's preamble.
func (f ClientFlags) Client() (*apiclient.Client, error) {
	base, err := f.baseURL()
	if err != nil {
		return nil, err
	}
	token, err := f.token()
	if err != nil {
		return nil, err
	}
	return apiclient.New(base, token), nil
}

// token reads the agent token from --credential-file or HEARTH_TOKEN.
func (f ClientFlags) token() (string, error) {
	if *f.credFile == "" {
		if t := os.Getenv("HEARTH_TOKEN"); t != "" {
			return t, nil
		}
		return "", &ExitError{Code: ExitRejected, Err: errors.New("no credential: set HEARTH_TOKEN or pass --credential-file")}
	}
	path, err := expandPath("--credential-file", *f.credFile)
	if err != nil {
		return "", &ExitError{Code: ExitRejected, Err: err}
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", &ExitError{Code: ExitRejected, Err: pathError("--credential-file", *f.credFile, path, err)}
	}
	if info.Mode().Perm()&0o077 != 0 {
		return "", &ExitError{Code: ExitRejected, Err: fmt.Errorf("credential file %s is readable by group or others (mode %04o); chmod 600 it", path, info.Mode().Perm())}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", &ExitError{Code: ExitRejected, Err: err}
	}
	return strings.TrimSpace(string(b)), nil
}

// expandPath is a path flag's value with a leading ~/ (or a lone ~)
// expanded against the user's home directory. MCP clients start hearth
// without a shell, so a README's "~/.config/hearth/token" arrives as
// written; ~user/ is refused rather than guessed at.
func expandPath(flagName, p string) (string, error) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s %q: cannot expand ~ (%v); give an absolute path", flagName, p, err)
		}
		return filepath.Join(home, p[1:]), nil
	case strings.HasPrefix(p, "~"):
		return "", fmt.Errorf("%s %q: ~user paths are not expanded; give an absolute path", flagName, p)
	}
	return p, nil
}

// pathError says which flag named a file that cannot be read, where it was
// looked for, and, for a relative path, from which directory: an MCP
// client's working directory is rarely the one the owner expects.
func pathError(flagName, given, path string, err error) error {
	var cause error = err
	if pe, ok := err.(*os.PathError); ok {
		cause = pe.Err
	}
	switch {
	case given != path:
		return fmt.Errorf("%s %q (%s): %w", flagName, given, path, cause)
	case !filepath.IsAbs(path):
		wd, _ := os.Getwd()
		return fmt.Errorf("%s %q: %w (a relative path is read from the working directory, %s; give an absolute path)", flagName, given, cause, wd)
	}
	return fmt.Errorf("%s %s: %w", flagName, path, cause)
}

// unreachable is a request hearth never answered, as the CLI says it.
func unreachable(err error) error {
	return fmt.Errorf("hearth unreachable: %w", err)
}

// CmdContext is `hearth context`: the agent context, compact unless --full,
// printed for a person or, with --json, as hearth answered it.
func CmdContext(args []string) error {
	fs := flag.NewFlagSet("context", flag.ContinueOnError)
	cf := AddClientFlags(fs)
	full := fs.Bool("full", false, "every collection in full, not the compact context (which leaves out what a cursor re-reads)")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	c, err := cf.Client()
	if err != nil {
		return err
	}
	// Compact by default, like the runner and `hearth mcp`: what it leaves
	// out is history, and each collection that lost items says so.
	path := "/api/agent-context?compact=true"
	if *full {
		path = "/api/agent-context"
	}
	r, err := c.Do(context.Background(), http.MethodGet, path, nil)
	if err != nil {
		return unreachable(err)
	}
	if r.Status != http.StatusOK {
		return r.Err()
	}
	var ac contract.AgentContext
	if err := json.Unmarshal(r.Body, &ac); err != nil {
		return &ExitError{Code: ExitUnavailable, Err: fmt.Errorf("invalid context response: %w", err)}
	}
	if *cf.JSON {
		printJSON(r.Body)
		return nil
	}
	printContext(os.Stdout, ac)
	return nil
}

func printContext(w io.Writer, ac contract.AgentContext) {
	Printf(w, "revision %d (read %s)\n", ac.Revision, ac.GeneratedAt.Format(time.RFC3339))
	if p := ac.LastPublication; p != nil {
		Printf(w, "last publication: %s (%s) at revision %d, %s\n", p.RunID, p.JobKey, p.Revision, p.ReceivedAt.Format(time.RFC3339))
	}
	if b := ac.Brief; b != nil {
		Printf(w, "\nbrief %s (%s):\n  %s\n", b.Date, b.TimeZone, b.Text)
	}
	Printf(w, "\npeople: %d%s\n", len(ac.People.Items), more(ac.People.Truncated))
	for _, p := range ac.People.Items {
		Printf(w, "  %-24s %s\n", p.ID, p.Name)
	}
	Printf(w, "\nactivities: %d%s\n", len(ac.Activities.Items), more(ac.Activities.Truncated))
	for _, a := range ac.Activities.Items {
		state := a.UserState.State
		if state == "" { // the compact context leaves out the default
			state = models.StateAvailable
		}
		if a.Retracted != nil {
			state = "retracted"
		}
		Printf(w, "  %-12s %-11s %-28s %s\n", a.Kind, state, a.ID, a.Title)
	}
	Printf(w, "\nreply drafts: %d%s\n", len(ac.ReplyDrafts.Items), more(ac.ReplyDrafts.Truncated))
	for _, d := range ac.ReplyDrafts.Items {
		edited := ""
		if d.OwnerEdit != nil {
			edited = " (edited by owner)"
		}
		if d.Outcome != nil {
			edited += ", " + d.Outcome.Kind
		}
		Printf(w, "  %-24s chat %s, %d candidate(s)%s\n", d.ID, d.ChatID, len(d.Candidates), edited)
	}
	Printf(w, "\npending requests: %d%s\n", len(ac.Requests.Items), more(ac.Requests.Truncated))
	for _, r := range ac.Requests.Items {
		Printf(w, "  %-24s %-11s %s", r.RequestID, r.Kind, r.Text)
		switch {
		case r.EntityName != "":
			Printf(w, " (%s, %s)", r.EntityName, r.EntityID)
		case r.EntityID != "":
			Printf(w, " (%s)", r.EntityID)
		}
		if r.Edit != nil {
			Printf(w, ` [%s → "%s"]`, r.Edit.Field, r.Edit.Value)
		}
		Printf(w, "\n")
	}
	Printf(w, "\npending observations: %d%s\n", len(ac.Observations.Items), more(ac.Observations.Truncated))
	for _, o := range ac.Observations.Items {
		Printf(w, "  %-6d %-9s %-8s %s %s\n", o.ObservationID, o.ChangeType, o.Payload.Kind, o.Source, o.Ref)
	}
	Printf(w, "\nsends (14 days): %d%s\n", len(ac.Sends.Items), more(ac.Sends.Truncated))
	for _, sd := range ac.Sends.Items {
		own := ""
		if sd.OwnReply {
			own = " (own reply)"
		}
		Printf(w, "  %s %-8s chat %s: \"%s\"%s\n", sd.UpdatedAt.Format("2006-01-02 15:04"), sd.Status, sd.ChatID, sd.Body, own)
	}
	Printf(w, "\nreply decisions (14 days): %d%s\n", len(ac.ReplyDecisions.Items), more(ac.ReplyDecisions.Truncated))
	for _, d := range ac.ReplyDecisions.Items {
		detail := ""
		if d.DraftID != "" {
			detail += ", draft " + d.DraftID
		}
		if d.Until != "" {
			detail += ", until " + d.Until
		}
		Printf(w, "  %s %-15s chat %s%s\n", d.At.Format("2006-01-02 15:04"), d.Decision, d.ChatID, detail)
	}
	Printf(w, "\nmeasurements (14 days): %d%s\n", len(ac.Measurements.Items), more(ac.Measurements.Truncated))
	for _, m := range ac.Measurements.Items {
		Printf(w, "  %s %g %s (%s)\n", m.RecordedAt.Format("2006-01-02 15:04"), m.Value, m.Unit, m.ActivityID)
	}
}

func more(truncated bool) string {
	if truncated {
		return " (more: page with GET /api/agent-context/{collection}?cursor=)"
	}
	return ""
}

// CmdPublish is `hearth publish FILE|-`: one publication, retried on a
// transient failure, and its receipt.
func CmdPublish(args []string) error {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	cf := AddClientFlags(fs)
	rest, err := ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return UsageError("publish: want one FILE or - for stdin")
	}
	// Not cf.Client(): the publication is read between the URL's check and
	// the credential's, so each failure is reported in that order.
	base, err := cf.baseURL()
	if err != nil {
		return err
	}
	var body []byte
	if rest[0] == "-" {
		body, err = io.ReadAll(io.LimitReader(os.Stdin, contract.MaxBodyBytes+1))
	} else {
		body, err = os.ReadFile(rest[0])
	}
	if err != nil {
		return &ExitError{Code: ExitRejected, Err: err}
	}
	token, err := cf.token()
	if err != nil {
		return err
	}
	r, err := apiclient.New(base, token).PostRetrying(context.Background(), "/api/agent-results", body, apiclient.DefaultRetries)
	if err != nil {
		return err
	}
	if r.Status != http.StatusCreated && r.Status != http.StatusOK {
		return r.Err()
	}
	var receipt contract.PublishReceipt
	if err := json.Unmarshal(r.Body, &receipt); err != nil || receipt.RunID == "" {
		return &ExitError{Code: ExitUnavailable, Err: fmt.Errorf("invalid receipt from hearth: %q", r.Body)}
	}
	if *cf.JSON {
		out, _ := json.Marshal(struct {
			contract.PublishReceipt
			Replayed bool `json:"replayed"`
		}{receipt, r.Status == http.StatusOK})
		fmt.Println(string(out))
		return nil
	}
	verb := "published"
	if r.Status == http.StatusOK {
		verb = "already published (replay)"
	}
	Printf(os.Stdout, "%s %s at revision %d (%s)\n", verb, receipt.RunID, receipt.Revision, receipt.ReceivedAt.Format(time.RFC3339))
	return nil
}

// CmdMCP serves the MCP tools over stdio until the client disconnects.
func CmdMCP(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	cf := AddClientFlags(fs)
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	c, err := cf.Client()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := mcpserver.Serve(ctx, c, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
		return &ExitError{Code: ExitUnavailable, Err: fmt.Errorf("mcp: %w", err)}
	}
	return nil
}
