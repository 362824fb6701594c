package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"hearth/internal/apiclient"
	"hearth/internal/contract"
	"hearth/internal/ids"
	"hearth/internal/schedule"
	"hearth/models"
)

// CmdSchedule is `hearth schedule add|list|cancel|due|next`: a client of the
// host API, with no direct database fallback. add and cancel need a
// schedules:admin credential; list, due and next schedules:read.
func CmdSchedule(args []string) error {
	subs := map[string]func([]string) error{
		"add": scheduleAdd, "list": scheduleList, "cancel": scheduleCancel, "due": scheduleDue, "next": scheduleNext,
	}
	if len(args) == 0 || subs[args[0]] == nil {
		return UsageError("schedule: want add, list, cancel, due or next")
	}
	return subs[args[0]](args[1:])
}

// scheduleClient is one schedule subcommand's client of hearth and --json.
type scheduleClient struct {
	api  *apiclient.Client
	json bool
}

// parseSchedule parses a subcommand's flags (declared on fs by the caller)
// and checks the URL and credential, in that order, so usage errors exit 1
// before anything touches the network.
func parseSchedule(fs *flag.FlagSet, args []string, positional int) (scheduleClient, []string, error) {
	cf := AddClientFlags(fs)
	rest, err := ParseInterspersed(fs, args)
	if err != nil {
		return scheduleClient{}, nil, err
	}
	if len(rest) != positional {
		if positional == 0 {
			return scheduleClient{}, nil, NoArgs(rest)
		}
		return scheduleClient{}, nil, UsageError("%s: want one schedule ID", fs.Name())
	}
	if positional == 1 && !ids.Valid(rest[0]) {
		// It goes into the URL path, where clients and proxies may resolve "." and ".." away.
		return scheduleClient{}, nil, UsageError("%s: invalid schedule ID %q: want %s", fs.Name(), rest[0], ids.Expected)
	}
	c, err := cf.Client()
	if err != nil {
		return scheduleClient{}, nil, err
	}
	return scheduleClient{api: c, json: *cf.JSON}, rest, nil
}

// get reads path and decodes a 200 answer into v; valid checks that the
// answer is hearth's (otherwise exit 2).
func (sc scheduleClient) get(path string, v any, valid func() bool) ([]byte, error) {
	r, err := sc.api.Do(context.Background(), http.MethodGet, path, nil)
	if err != nil {
		return nil, unreachable(err)
	}
	if r.Status != http.StatusOK {
		return nil, r.Err()
	}
	return r.Body, decodeAnswer(r.Body, v, valid)
}

// decodeAnswer decodes a success body; one that is not the expected JSON is
// an invalid answer (exit 2).
func decodeAnswer(body []byte, v any, valid func() bool) error {
	if err := json.Unmarshal(body, v); err != nil || !valid() {
		return &ExitError{Code: ExitUnavailable, Err: fmt.Errorf("invalid answer from hearth: %.200q", body)}
	}
	return nil
}

// printJSON writes one JSON object on stdout.
func printJSON(body []byte) {
	os.Stdout.Write(body)
	fmt.Println()
}

// addRequest is the body of POST /api/schedules as the CLI builds it.
type addRequest struct {
	RequestKey      string             `json:"requestKey,omitempty"`
	ID              string             `json:"id,omitempty"`
	Job             string             `json:"job"`
	At              string             `json:"at,omitempty"`
	Cron            string             `json:"cron,omitempty"`
	EndAt           string             `json:"endAt,omitempty"`
	Zone            string             `json:"zone,omitempty"`
	ClientZone      string             `json:"clientZone,omitempty"`
	Prompt          string             `json:"prompt"`
	Limits          *contract.LimitsIn `json:"limits,omitempty"`
	NotifyOnSuccess bool               `json:"notifyOnSuccess,omitempty"`
}

// derivedRequestKey is the request key of an add without --request-key: a
// hash of everything else the request says, so rerunning the same command
// (after a timeout, or exit 2) replays the same create instead of making a
// second schedule. To create a second, identical schedule on purpose, pass
// another --request-key.
func derivedRequestKey(req addRequest) string {
	req.RequestKey = ""
	b, _ := json.Marshal(req)
	sum := sha256.Sum256(b)
	return "cli-" + hex.EncodeToString(sum[:16])
}

func scheduleAdd(args []string) error {
	fs := flag.NewFlagSet("schedule add", flag.ContinueOnError)
	job := fs.String("job", "", "job key the runner runs (required)")
	at := fs.String("at", "", "one-off: an RFC 3339 instant with Z or an offset, in the future")
	cronExpr := fs.String("cron", "", `recurring: "minute hour day-of-month month day-of-week", in the zone`)
	zone := fs.String("zone", "", "IANA zone (else TZ, else UTC; the answer says which)")
	endAt := fs.String("end-at", "", "cron only: nothing is due at or after this RFC 3339 instant")
	promptFile := fs.String("prompt-file", "", "file holding the prompt (- for stdin)")
	prompt := fs.String("prompt", "", "the prompt, instead of --prompt-file")
	requestKey := fs.String("request-key", "", "idempotency key (default: derived from the other inputs)")
	id := fs.String("id", "", "schedule ID (default: the job and a hash of the request key)")
	maxInv := fs.Int("max-invocations", 0, "agent invocations per occurrence across retries, 1-3 (default 3)")
	deadline := fs.Duration("deadline", 0, "per attempt, 1m-10m (default 10m)")
	notify := fs.Bool("notify-on-success", false, "notify the owner when a run succeeds")
	sc, _, err := parseSchedule(fs, args, 0)
	if err != nil {
		return err
	}
	switch {
	case *job == "":
		return UsageError("schedule add: want --job K")
	case (*at == "") == (*cronExpr == ""):
		return UsageError("schedule add: want exactly one of --at T or --cron EXPR")
	case (*prompt == "") == (*promptFile == ""):
		return UsageError("schedule add: want exactly one of --prompt-file F or --prompt TEXT")
	}
	if err := instantFlags("schedule add", [2]string{"--at", *at}, [2]string{"--end-at", *endAt}); err != nil {
		return err
	}
	req := addRequest{ID: *id, Job: *job, At: *at, Cron: *cronExpr, EndAt: *endAt, Zone: *zone,
		ClientZone: os.Getenv("TZ"), Prompt: *prompt, NotifyOnSuccess: *notify}
	if *promptFile != "" {
		var b []byte
		if *promptFile == "-" {
			b, err = io.ReadAll(io.LimitReader(os.Stdin, schedule.MaxPromptBytes+1))
		} else {
			b, err = os.ReadFile(*promptFile)
		}
		if err != nil {
			return &ExitError{Code: ExitRejected, Err: err}
		}
		req.Prompt = string(b)
	}
	if *maxInv != 0 || *deadline != 0 {
		req.Limits = &contract.LimitsIn{}
		if *maxInv != 0 {
			req.Limits.MaxInvocations = maxInv
		}
		if *deadline != 0 {
			secs := int(deadline.Seconds())
			req.Limits.DeadlineSeconds = &secs
		}
	}
	req.RequestKey = *requestKey
	if req.RequestKey == "" {
		req.RequestKey = derivedRequestKey(req)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, err := sc.api.PostRetrying(context.Background(), "/api/schedules", body, apiclient.DefaultRetries)
	if err != nil {
		return err
	}
	if r.Status != http.StatusCreated && r.Status != http.StatusOK {
		return r.Err()
	}
	var receipt models.ScheduleReceipt
	if err := decodeAnswer(r.Body, &receipt, func() bool { return receipt.ScheduleID != "" && receipt.RequestKey == req.RequestKey }); err != nil {
		return err
	}
	replayed := r.Status == http.StatusOK
	if sc.json {
		out, _ := json.Marshal(struct {
			models.ScheduleReceipt
			Replayed bool `json:"replayed"`
		}{receipt, replayed})
		printJSON(out)
		return nil
	}
	verb := "created"
	if replayed {
		verb = "already created (replay of the same request)"
	}
	Printf(os.Stdout, "%s schedule %s (job %s), next due %s, zone %s (%s)\nrequest key %s\n",
		verb, receipt.ScheduleID, receipt.Job, timeOrNone(receipt.NextDueAt), receipt.Zone, receipt.ZoneSource, receipt.RequestKey)
	return nil
}

// instantFlags checks time flags ({name, value}; an empty value was not
// given) as the server checks the fields they fill, with hearth's one
// bound, so a value the server would refuse is a usage error before
// anything is sent.
func instantFlags(cmd string, flags ...[2]string) error {
	for _, f := range flags {
		if f[1] != "" {
			if _, err := schedule.ParseInstant(f[0], f[1]); err != nil {
				return UsageError("%s: %s", cmd, strings.TrimPrefix(err.Error(), "schedules: "))
			}
		}
	}
	return nil
}

func timeOrNone(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.Format(time.RFC3339)
}

func scheduleList(args []string) error {
	sc, _, err := parseSchedule(flag.NewFlagSet("schedule list", flag.ContinueOnError), args, 0)
	if err != nil {
		return err
	}
	var list struct {
		Schedules *[]models.ScheduleView `json:"schedules"`
		Truncated bool                   `json:"truncated"`
	}
	body, err := sc.get("/api/schedules", &list, func() bool { return list.Schedules != nil })
	if err != nil {
		return err
	}
	if sc.json {
		printJSON(body)
		return nil
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	Printf(w, "ID\tJOB\tSTATE\tRULE\tNEXT DUE\tZONE\n")
	for _, v := range *list.Schedules {
		state := v.State
		if v.Hold != "" {
			state += " (held: " + v.Hold + ")"
		} else if v.StateReason != "" && v.State != "active" {
			state += " (" + v.StateReason + ")"
		}
		rule := "at " + v.At
		if v.Cron != "" {
			rule = "cron " + v.Cron
		}
		Printf(w, "%s\t%s\t%s\t%s\t%s\t%s (%s)\n", v.ID, v.Job, state, rule, timeOrNone(v.NextDueAt), v.Zone, v.ZoneSource)
	}
	return w.Flush()
}

func scheduleCancel(args []string) error {
	sc, rest, err := parseSchedule(flag.NewFlagSet("schedule cancel", flag.ContinueOnError), args, 1)
	if err != nil {
		return err
	}
	r, err := sc.api.PostRetrying(context.Background(), "/api/schedules/"+url.PathEscape(rest[0])+"/cancel", nil, apiclient.DefaultRetries)
	if err != nil {
		return err
	}
	if r.Status != http.StatusOK {
		return r.Err()
	}
	var res models.CancelResult
	if err := decodeAnswer(r.Body, &res, func() bool { return res.ScheduleID == rest[0] && res.State == "cancelled" }); err != nil {
		return err
	}
	if sc.json {
		printJSON(r.Body)
		return nil
	}
	verb := "cancelled"
	if res.AlreadyCancelled {
		verb = "already cancelled"
	}
	Printf(os.Stdout, "%s %s at %s\n", verb, res.ScheduleID, res.CancelledAt.Format(time.RFC3339))
	if o := res.StoppedOccurrence; o != nil {
		Printf(os.Stdout, "the occurrence due %s had not started; it never will\n", o.DueAt.Format(time.RFC3339))
	}
	if o := res.RunningOccurrence; o != nil {
		Printf(os.Stdout, "NOTE: the occurrence due %s is %s (attempt %d of %d); cancel does not stop or undo it\n",
			o.DueAt.Format(time.RFC3339), o.State, o.Attempts, o.MaxAttempts)
	}
	if res.FileNotRetired != "" {
		Printf(os.Stdout, "NOTE: %s\n", res.FileNotRetired)
	}
	return nil
}

func scheduleDue(args []string) error {
	fs := flag.NewFlagSet("schedule due", flag.ContinueOnError)
	now := fs.String("now", "", "evaluate at this RFC 3339 instant instead of the server's clock")
	sc, _, err := parseSchedule(fs, args, 0)
	if err != nil {
		return err
	}
	if err := instantFlags("schedule due", [2]string{"--now", *now}); err != nil {
		return err
	}
	path := "/api/schedules/due"
	if *now != "" {
		path += "?now=" + url.QueryEscape(*now)
	}
	var rep struct {
		Now  time.Time            `json:"now"`
		Due  *[]contract.DueItem  `json:"due"`
		Held *[]contract.HeldItem `json:"held"`
	}
	body, err := sc.get(path, &rep, func() bool { return rep.Due != nil && rep.Held != nil })
	if err != nil {
		return err
	}
	if sc.json {
		printJSON(body)
		return nil
	}
	if len(*rep.Due) == 0 {
		Printf(os.Stdout, "nothing due at %s\n", rep.Now.Format(time.RFC3339))
	}
	for _, d := range *rep.Due {
		Printf(os.Stdout, "due %s  %s (job %s), expires %s\n", d.DueAt.Format(time.RFC3339), d.OccurrenceID, d.Job, d.ExpiresAt.Format(time.RFC3339))
	}
	for _, h := range *rep.Held {
		Printf(os.Stdout, "held %s: %s", h.ScheduleID, h.Hold)
		if h.Reason != "" {
			Printf(os.Stdout, " (%s)", h.Reason)
		}
		Printf(os.Stdout, "\n")
	}
	return nil
}

func scheduleNext(args []string) error {
	fs := flag.NewFlagSet("schedule next", flag.ContinueOnError)
	from := fs.String("from", "", "list instants after this RFC 3339 instant (default: now)")
	count := fs.Int("count", models.DefaultNextCount, "how many, 1-"+strconv.Itoa(models.MaxNextCount))
	sc, rest, err := parseSchedule(fs, args, 1)
	if err != nil {
		return err
	}
	if err := instantFlags("schedule next", [2]string{"--from", *from}); err != nil {
		return err
	}
	q := url.Values{"count": {strconv.Itoa(*count)}}
	if *from != "" {
		q.Set("from", *from)
	}
	var res schedule.NextResult
	body, err := sc.get("/api/schedules/"+url.PathEscape(rest[0])+"/next?"+q.Encode(), &res, func() bool {
		return res.ScheduleID == rest[0] && res.Next != nil && res.Skipped != nil
	})
	if err != nil {
		return err
	}
	if sc.json {
		printJSON(body)
		return nil
	}
	Printf(os.Stdout, "%s in %s (%s):\n", res.ScheduleID, res.Zone, res.ZoneSource)
	for _, n := range res.Next {
		Printf(os.Stdout, "  %s\n", n.DueAt.Format(time.RFC3339))
	}
	if len(res.Next) == 0 {
		Printf(os.Stdout, "  nothing due after that\n")
	}
	for _, s := range res.Skipped {
		Printf(os.Stdout, "  skipped %s: %s\n", s.WallTime, s.Reason)
	}
	return nil
}
