package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/internal/contract"
	"hearth/internal/poll"
	"hearth/models"
)

// scheduleCLI runs `hearth schedule` against one server with one credential.
type scheduleCLI struct {
	url, credFile string
	env           []string
}

// newScheduleCLI mints a credential with scopes on srv's data dir.
func newScheduleCLI(t *testing.T, srv *server, name, scopes string) scheduleCLI {
	t.Helper()
	res := runHearth(t, nil, "token", "create", "--name", name, "--scopes", scopes, "--data", srv.DataDir)
	token := strings.TrimSpace(res.stdout)
	if res.code != 0 || !strings.HasPrefix(token, "hearth_") {
		t.Fatalf("token create %s: exit %d, %q", name, res.code, res.stderr)
	}
	return scheduleCLI{url: srv.URL, credFile: writeFile(t, t.TempDir(), name+".token", []byte(token+"\n"), 0o600)}
}

func (c scheduleCLI) run(t *testing.T, args ...string) cliResult {
	t.Helper()
	return runHearth(t, c.env, append(append([]string{"schedule"}, args...), "--url", c.url, "--credential-file", c.credFile)...)
}

// oneJSONObject decodes stdout as exactly one JSON object into v and
// returns its top-level keys, sorted.
func oneJSONObject(t *testing.T, res cliResult, v any) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(res.stdout))
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, res.stdout)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout holds more than one JSON value:\n%s", res.stdout)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(res.stdout), v); err != nil {
			t.Fatal(err)
		}
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func wantKeys(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s --json keys = %v, want %v", what, got, want)
	}
}

func TestScheduleCLIExitCodesAndJSONShapes(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	ops := newScheduleCLI(t, srv, "ops", models.ScopeSchedulesAdmin)
	ops.env = []string{"TZ=Europe/Berlin"}
	agent := newScheduleCLI(t, srv, "agent", "context:read,results:publish,schedules:read")
	contextOnly := newScheduleCLI(t, srv, "ctx", "context:read")
	at := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	receiptKeys := []string{"scheduleId", "requestKey", "job", "state", "fingerprint", "zone", "zoneSource", "nextDueAt", "createdAt", "createdBy", "revision", "replayed"}

	// add: created, then the same command again is a replay of the same schedule.
	var first, second struct {
		ScheduleID, ZoneSource, RequestKey string
		Replayed                           bool
	}
	res := ops.run(t, "add", "--job", "dentist", "--at", at, "--prompt", "Remind me of the dentist.", "--json")
	wantExit(t, res, 0, "stdout", `"replayed":false`)
	wantKeys(t, "add", oneJSONObject(t, res, &first), receiptKeys...)
	if first.ZoneSource != "client" || !strings.HasPrefix(first.RequestKey, "cli-") {
		t.Errorf("add: %+v", first)
	}
	res = ops.run(t, "add", "--job", "dentist", "--at", at, "--prompt", "Remind me of the dentist.", "--json")
	wantExit(t, res, 0, "stdout", `"replayed":true`)
	if oneJSONObject(t, res, &second); second.ScheduleID != first.ScheduleID || second.RequestKey != first.RequestKey {
		t.Errorf("rerun created %+v, first %+v", second, first)
	}
	wantExit(t, ops.run(t, "add", "--job", "dentist", "--at", at, "--prompt", "Remind me of the dentist."), 0, "stdout", "already created (replay")

	promptFile := writeFile(t, t.TempDir(), "prompt.md", []byte("Check the night build.\n"), 0o600)
	res = ops.run(t, "add", "--id", "night", "--job", "night", "--cron", "30 2 * * *", "--zone", "America/New_York", "--prompt-file", promptFile, "--request-key", "night-1")
	wantExit(t, res, 0, "stdout", "created schedule night (job night)")
	wantExit(t, res, 0, "stdout", "America/New_York (explicit)")

	// add refusals: exit 1 with the envelope code.
	for _, tc := range []struct {
		name string
		cli  scheduleCLI
		args []string
		want string
	}{
		{"past at", ops, []string{"add", "--job", "late", "--at", "2020-01-01T00:00:00Z", "--prompt", "x"}, "invalid_request"},
		{"at without offset", ops, []string{"add", "--job", "late", "--at", "2030-01-01T09:00:00", "--prompt", "x"}, "has no offset"},
		{"invalid zone", ops, []string{"add", "--job", "z", "--cron", "0 9 * * *", "--zone", "Mars/Base", "--prompt", "x"}, "/zone"},
		{"same key, other body", ops, []string{"add", "--id", "night", "--job", "night", "--cron", "45 2 * * *", "--prompt", "x", "--request-key", "night-1"}, "idempotency_conflict"},
		{"agent may not add", agent, []string{"add", "--job", "a", "--cron", "0 9 * * *", "--prompt", "x"}, "schedules:admin"},
		{"no job", ops, []string{"add", "--cron", "0 9 * * *", "--prompt", "x"}, "--job"},
		{"at and cron", ops, []string{"add", "--job", "a", "--at", at, "--cron", "0 9 * * *", "--prompt", "x"}, "exactly one of --at"},
		{"no prompt", ops, []string{"add", "--job", "a", "--cron", "0 9 * * *"}, "--prompt-file"},
		{"missing prompt file", ops, []string{"add", "--job", "a", "--cron", "0 9 * * *", "--prompt-file", "/nonexistent/p.md"}, "no such file"},
		{"list: scope", contextOnly, []string{"list"}, "schedules:read"},
		{"list: stray argument", agent, []string{"list", "extra"}, `unexpected argument "extra"`},
		{"cancel: no ID", ops, []string{"cancel"}, "want one schedule ID"},
		{"cancel: agent", agent, []string{"cancel", "night"}, "forbidden"},
		{"cancel: unknown", ops, []string{"cancel", "nope"}, "not_found"},
		{"due: bad now", agent, []string{"due", "--now", "tomorrow"}, "--now: not an RFC 3339 instant"},
		{"next: unknown", agent, []string{"next", "nope"}, "not_found"},
		{"next: bad count", agent, []string{"next", "night", "--count", "0"}, "invalid_request"},
		{"no subcommand", ops, nil, "want add, list, cancel, due or next"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.cli.run(t, tc.args...)
			wantExit(t, res, 1, "stderr", tc.want)
			if res.stdout != "" {
				t.Errorf("stdout on a refusal: %q", res.stdout)
			}
		})
	}

	// list, due, next: read with the agent's schedules:read.
	var list struct{ Schedules []map[string]any }
	res = agent.run(t, "list", "--json")
	wantExit(t, res, 0, "stdout", `"schedules"`)
	wantKeys(t, "list", oneJSONObject(t, res, &list), "schedules", "truncated")
	if len(list.Schedules) != 2 {
		t.Fatalf("list: %s", res.stdout)
	}
	viewKeys := []string{"id", "job", "state", "stateChangedAt", "zone", "zoneSource", "nextDueAt", "lastDueAt", "lastFinishedAt", "limits",
		"notifyOnSuccess", "promptPreview", "fingerprint", "createdAt", "createdBy", "approvedAt", "approvedBy", "counters", "outstanding", "file"}
	for _, s := range list.Schedules {
		var keys []string
		for k := range s {
			if k != "at" && k != "cron" && k != "endAt" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		wantKeys(t, "list item", keys, viewKeys...)
	}
	wantExit(t, agent.run(t, "list"), 0, "stdout", "night")

	res = agent.run(t, "due", "--json")
	wantExit(t, res, 0, "stdout", `"due":[]`)
	wantKeys(t, "due", oneJSONObject(t, res, nil), "now", "due", "held")
	wantExit(t, agent.run(t, "due"), 0, "stdout", "nothing due")
	far := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	res = agent.run(t, "due", "--now", far, "--json")
	var due contract.DueReport
	oneJSONObject(t, res, &due)
	if res.code != 0 || len(due.Due) != 1 || due.Due[0].ScheduleID != "night" {
		t.Errorf("due --now %s: %s", far, res.stdout)
	}
	var dueItem map[string]json.RawMessage
	if res.code == 0 && len(due.Due) == 1 {
		var raw struct{ Due []map[string]json.RawMessage }
		json.Unmarshal([]byte(res.stdout), &raw)
		dueItem = raw.Due[0]
		var keys []string
		for k := range dueItem {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		wantKeys(t, "due item", keys, "scheduleId", "occurrenceId", "dueAt", "expiresAt", "job", "zone", "limits", "notifyOnSuccess", "prompt", "fingerprint", "skipped")
	}

	res = agent.run(t, "next", "night", "--from", "2026-03-07T12:00:00Z", "--count", "2", "--json")
	wantExit(t, res, 0, "stdout", `"skipped":[{"wallTime":"2026-03-08T02:30","reason":"nonexistent"}]`)
	if strings.TrimSpace(res.stdout) != `{"scheduleId":"night","zone":"America/New_York","zoneSource":"explicit","next":[{"dueAt":"2026-03-09T02:30:00-04:00"},{"dueAt":"2026-03-10T02:30:00-04:00"}],"skipped":[{"wallTime":"2026-03-08T02:30","reason":"nonexistent"}]}` {
		t.Errorf("next --json = %s", res.stdout)
	}
	wantExit(t, agent.run(t, "next", "night", "--from", "2026-03-07T12:00:00Z", "--count", "2"), 0, "stdout", "skipped 2026-03-08T02:30: nonexistent")

	// cancel: idempotent, stays listed, never revives.
	res = ops.run(t, "cancel", "night", "--json")
	wantExit(t, res, 0, "stdout", `"alreadyCancelled":false`)
	wantKeys(t, "cancel", oneJSONObject(t, res, nil), "scheduleId", "state", "cancelledAt", "cancelledBy", "alreadyCancelled", "runningOccurrence", "stoppedOccurrence")
	wantExit(t, ops.run(t, "cancel", "night", "--json"), 0, "stdout", `"alreadyCancelled":true`)
	wantExit(t, ops.run(t, "cancel", "night"), 0, "stdout", "already cancelled night")
	wantExit(t, agent.run(t, "list", "--json"), 0, "stdout", `"state":"cancelled"`)
	wantExit(t, ops.run(t, "add", "--id", "night", "--job", "night", "--cron", "30 2 * * *", "--prompt", "again", "--request-key", "night-2"), 1, "stderr", "schedule_exists")
	res = agent.run(t, "due", "--now", far, "--json")
	if oneJSONObject(t, res, &due); res.code != 0 || len(due.Due) != 0 {
		t.Errorf("due after cancel: %s", res.stdout)
	}

	// A revoked credential is refused (exit 1).
	if r := runHearth(t, nil, "token", "revoke", "ops", "--data", srv.DataDir); r.code != 0 {
		t.Fatalf("revoke: %s", r.stderr)
	}
	wantExit(t, ops.run(t, "list"), 1, "stderr", "unauthorized")
}

// TestScheduleCLIUnavailableOrInvalidAnswerExitsTwo: no server, or one that
// is not hearth, is exit 2 for every subcommand.
func TestScheduleCLIUnavailableOrInvalidAnswerExitsTwo(t *testing.T) {
	t.Parallel()
	notHearth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		w.Write([]byte("<html>not hearth</html>"))
	}))
	t.Cleanup(notHearth.Close)
	wrongJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(wrongJSON.Close)
	cred := writeFile(t, t.TempDir(), "t.token", []byte("hearth_unused\n"), 0o600)
	subs := [][]string{{"list"}, {"due"}, {"next", "x"}, {"cancel", "x"}, {"add", "--job", "j", "--cron", "0 9 * * *", "--prompt", "p"}}
	for _, base := range []string{notHearth.URL, wrongJSON.URL} {
		for _, sub := range subs {
			res := runHearth(t, nil, append(append([]string{"schedule"}, sub...), "--url", base, "--credential-file", cred, "--json")...)
			if res.code != 2 || !(strings.Contains(res.stderr, "invalid answer") || strings.Contains(res.stderr, "unreadable body")) {
				t.Errorf("%v against %s: exit %d, stderr %q; want 2 naming the invalid answer", sub, base, res.code, res.stderr)
			}
			if res.stdout != "" {
				t.Errorf("%v: stdout %q", sub, res.stdout)
			}
		}
	}
	down := "http://" + freeAddr(t)
	for _, sub := range [][]string{{"list"}, {"due"}, {"next", "x"}} {
		res := runHearth(t, nil, append(append([]string{"schedule"}, sub...), "--url", down, "--credential-file", cred)...)
		wantExit(t, res, 2, "stderr", "unreachable")
	}
}

// waitForLog waits until the server's output contains s.
func waitForLog(t *testing.T, srv *server, s string) {
	t.Helper()
	poll.Eventually(t, healthTimeout, func() (bool, string) {
		if strings.Contains(srv.log.String(), s) {
			return true, ""
		}
		if !srv.running() {
			t.Fatalf("server exited before logging %q", s)
		}
		return false, fmt.Sprintf("server never logged %q", s)
	})
}

// ledgerSchedules reads the ledger straight from the file a killed server
// left, without the recovery serve runs at start.
func ledgerSchedules(t *testing.T, dir string) map[string]string {
	t.Helper()
	store, err := models.OpenExisting(context.Background(), dir, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	list, err := store.Schedules(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	for _, s := range list.Schedules {
		states[s.ID] = s.State
	}
	return states
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// TestScheduleJournalSurvivesSIGKILL kills the real server (SIGKILL) at
// each point of a schedule file operation and checks that the next start
// completes or rolls it back, and that the client's retry is answered
// truthfully.
func TestScheduleJournalSurvivesSIGKILL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	defs, retired := filepath.Join(dir, "schedules", "definitions"), filepath.Join(dir, "schedules", "retired")
	token := strings.TrimSpace(runHearth(t, nil, "token", "create", "--name", "ops", "--scopes", "schedules:admin", "--data", dir).stdout)
	body := func(id string) []byte {
		return []byte(`{"requestKey":"key-` + id + `","id":"` + id + `","job":"night","cron":"30 2 * * *","zone":"UTC","prompt":"Check the build."}`)
	}
	// killAt starts serve paused at point, sends the request, and SIGKILLs
	// the server once it is paused there.
	killAt := func(point, method, path string, b []byte) {
		t.Helper()
		srv := startServerIn(t, dir, []string{"HEARTH_TEST_PAUSE_AT=" + point})
		go newAgentClient(srv.URL, token).do(method, path, b) // never answered
		waitForLog(t, srv, "paused at "+point)
		srv.kill(t)
	}
	create := func(srv *server, id string) (int, map[string]any) {
		t.Helper()
		status, resp, err := newAgentClient(srv.URL, token).do(http.MethodPost, "/api/schedules", body(id))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(resp, &m)
		return status, m
	}

	// 1. Killed after the file was written, before the ledger row committed.
	killAt("schedule-file-written", http.MethodPost, "/api/schedules", body("written"))
	if !exists(filepath.Join(defs, "written.md")) {
		t.Fatal("the file was not written before the pause point")
	}
	if st := ledgerSchedules(t, dir); len(st) != 0 {
		t.Fatalf("ledger before recovery = %v; the row must not be committed yet", st)
	}
	srv := startServer(t, dir)
	waitForLog(t, srv, "schedule writes interrupted by the last stop were finished")
	if st := ledgerSchedules(t, dir); st["written"] != "active" {
		t.Fatalf("after restart the ledger = %v, want written active (completed)", st)
	}
	if status, m := create(srv, "written"); status != http.StatusOK || m["scheduleId"] != "written" {
		t.Fatalf("retry after completion: %d %v; want 200 with the original receipt", status, m)
	}
	srv.terminate(t)

	// 2. Killed after the intent committed, before the file: rolled back.
	killAt("schedule-journal-written", http.MethodPost, "/api/schedules", body("intent"))
	if exists(filepath.Join(defs, "intent.md")) {
		t.Fatal("a file was written before the pause point")
	}
	srv = startServer(t, dir)
	if st := ledgerSchedules(t, dir); st["intent"] != "" {
		t.Fatalf("rolled-back add is in the ledger: %v", st)
	}
	if status, m := create(srv, "intent"); status != http.StatusCreated || m["scheduleId"] != "intent" {
		t.Fatalf("retry after rollback: %d %v; want 201", status, m)
	}
	srv.terminate(t)

	// 3. Killed after a cancel committed, before the file was retired: completed.
	killAt("schedule-cancel-committed", http.MethodPost, "/api/schedules/intent/cancel", nil)
	if st := ledgerSchedules(t, dir); st["intent"] != "cancelled" {
		t.Fatalf("cancel not committed before the pause point: %v", st)
	}
	if !exists(filepath.Join(defs, "intent.md")) || exists(filepath.Join(retired, "intent.md")) {
		t.Fatal("the file moved before the pause point")
	}
	srv = startServer(t, dir)
	if exists(filepath.Join(defs, "intent.md")) || !exists(filepath.Join(retired, "intent.md")) {
		t.Fatal("restart did not retire the cancelled schedule's file")
	}
	status, resp, _ := newAgentClient(srv.URL, token).do(http.MethodPost, "/api/schedules/intent/cancel", nil)
	if status != http.StatusOK || !bytes.Contains(resp, []byte(`"alreadyCancelled":true`)) {
		t.Fatalf("cancel retry: %d %s", status, resp)
	}
	if err := models.CheckIntegrity(context.Background(), models.DatabasePath(dir)); err != nil {
		t.Fatal(err)
	}
}

// TestServeStartsAfterACancelWhoseFileCannotMove kills the real server
// after a cancel committed, leaves another file under retired/ (as a
// restore or a backup taken mid-cancel does), and restarts it: serve
// starts, says which schedule's file stayed, and later writes go on.
func TestServeStartsAfterACancelWhoseFileCannotMove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	defs, retired := filepath.Join(dir, "schedules", "definitions"), filepath.Join(dir, "schedules", "retired")
	token := strings.TrimSpace(runHearth(t, nil, "token", "create", "--name", "ops", "--scopes", "schedules:admin", "--data", dir).stdout)
	body := func(id string) []byte {
		return []byte(`{"requestKey":"key-` + id + `","id":"` + id + `","job":"night","cron":"30 2 * * *","zone":"UTC","prompt":"Check the build."}`)
	}
	srv := startServerIn(t, dir, []string{"HEARTH_TEST_PAUSE_AT=schedule-cancel-committed"})
	agent := newAgentClient(srv.URL, token)
	if status, resp, err := agent.do(http.MethodPost, "/api/schedules", body("stuck")); err != nil || status != http.StatusCreated {
		t.Fatalf("create: %d %s %v", status, resp, err)
	}
	go agent.do(http.MethodPost, "/api/schedules/stuck/cancel", nil) // never answered
	waitForLog(t, srv, "paused at schedule-cancel-committed")
	srv.kill(t)
	if err := os.MkdirAll(retired, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(retired, "stuck.md"), []byte("an older file\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	srv = startServer(t, dir)
	waitForLog(t, srv, "could not be moved to retired/")
	if st := ledgerSchedules(t, dir); st["stuck"] != "cancelled" {
		t.Fatalf("ledger = %v, want stuck cancelled", st)
	}
	if !exists(filepath.Join(defs, "stuck.md")) {
		t.Error("the file that could not move is gone")
	}
	agent = newAgentClient(srv.URL, token)
	if status, resp, err := agent.do(http.MethodPost, "/api/schedules", body("next")); err != nil || status != http.StatusCreated {
		t.Fatalf("a later create: %d %s %v", status, resp, err)
	}
	status, resp, _ := agent.do(http.MethodGet, "/api/schedules", nil)
	if status != http.StatusOK || !bytes.Contains(resp, []byte(`"stateReason":"file_not_retired"`)) || !bytes.Contains(resp, []byte("already holds another file")) {
		t.Fatalf("the schedule does not say why its file stayed: %d %s", status, resp)
	}
}

// TestScheduleBackupCopiesFilesAndARestoreWaitsForTheOwner backs up a live
// server, restores the copy into a new data dir, and starts it.
func TestScheduleBackupCopiesFilesAndARestoreWaitsForTheOwner(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	ops := newScheduleCLI(t, srv, "ops", models.ScopeSchedulesAdmin)
	wantExit(t, ops.run(t, "add", "--id", "kept", "--job", "j", "--cron", "0 9 * * *", "--zone", "UTC", "--prompt", "x"), 0, "stdout", "created")
	backup := filepath.Join(t.TempDir(), "hearth.db")
	res := runHearth(t, nil, "backup", backup, "--data", srv.DataDir)
	wantExit(t, res, 0, "stdout", "1 schedule definition files to "+backup+".schedules")
	if !exists(filepath.Join(backup+".schedules", "definitions", "kept.md")) {
		t.Fatal("backup lacks the definition file")
	}

	restored := t.TempDir()
	copyFileTo(t, backup, models.DatabasePath(restored))
	must(t, os.MkdirAll(filepath.Join(restored, "schedules", "definitions"), 0o700))
	copyFileTo(t, filepath.Join(backup+".schedules", "definitions", "kept.md"), filepath.Join(restored, "schedules", "definitions", "kept.md"))
	srv2 := startServer(t, restored)
	waitForLog(t, srv2, "running on a restored backup")
	ops.url = srv2.URL
	wantExit(t, ops.run(t, "list", "--json"), 0, "stdout", `"state":"restore_pending"`)
	res = ops.run(t, "due", "--now", time.Now().Add(48*time.Hour).UTC().Format(time.RFC3339), "--json")
	wantExit(t, res, 0, "stdout", `"hold":"restore_pending"`)
}

func copyFileTo(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(to, b, 0o600))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSchedulesPageAt390 shows a held schedule on a phone: no horizontal
// overflow, no serious accessibility violation, what changed and Approve
// again; approving it works.
func TestSchedulesPageAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	ops := newScheduleCLI(t, srv, "ops", models.ScopeSchedulesAdmin)
	wantExit(t, ops.run(t, "add", "--id", "morning-brief-with-a-rather-long-identifier", "--job", "morning", "--cron", "30 6 * * 1-5",
		"--zone", "Europe/Berlin", "--prompt", "Write the morning brief from today's calendar, the open requests and anything the owner asked for yesterday."), 0, "stdout", "created")
	p := filepath.Join(srv.DataDir, "schedules", "definitions", "morning-brief-with-a-rather-long-identifier.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(p, bytes.Replace(b, []byte("30 6 * * 1-5"), []byte("30 5 * * *"), 1), 0o600))

	tb := newTab(t, srv)
	tb.login()
	row := `[data-testid="schedule"][data-id="morning-brief-with-a-rather-long-identifier"]`
	tb.do("open Schedules", chromedp.Click(css(`nav a[href="/more"]`)), chromedp.Click(css(`[data-testid="more-schedules"]`)), chromedp.WaitVisible(css(row+` [data-testid="approve-schedule"]`)))
	widths := get(tb, "widths", chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`))
	if widths[0] > widths[1] || widths[1] != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", widths[0], widths[1])
	}
	axeViolations(tb, "Schedules")
	// What changed reads in words; the cron strings are only inside its Details.
	changes := get(tb, "changes", chromedp.Evaluate[[]string](`(function(){var c=document.querySelector('`+row+` [data-testid="schedule-changes"]').cloneNode(true);`+
		`var d=c.querySelector('details');var raw=d?d.textContent:'';c.querySelectorAll('details').forEach(function(e){e.remove()});`+
		`return [c.textContent.replace(/\s+/g,' '), raw.replace(/\s+/g,' ')]})()`))
	if !strings.Contains(changes[0], "Timing: Monday to Friday at 06:30 (Berlin) → every day at 05:30 (Berlin)") || strings.Contains(changes[0], "* *") {
		t.Errorf("what changed, as the owner reads it: %q", changes[0])
	}
	if !strings.Contains(changes[1], "cron 30 6 * * 1-5") || !strings.Contains(changes[1], "cron 30 5 * * *") {
		t.Errorf("what changed, in the details: %q", changes[1])
	}
	tb.do("approve again", chromedp.Click(css(row+` [data-testid="approve-schedule"]`)))
	// The 303 back and the live reload the commit triggers may both
	// navigate, so poll across navigations.
	approved := `(function(){var r=document.querySelector('` + row + `');return !!r&&!r.querySelector('[data-testid="schedule-review"]')&&r.dataset.state==="active"})()`
	var last error
	if !poll.Within(stepTimeout, func() bool {
		ctx, cancel := context.WithTimeout(tb.ctx, time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](approved))
		cancel()
		last = err
		return err == nil && ok
	}) {
		tb.fail("review gone after approval", fmt.Errorf("still shown (last error %v)", last))
	}
}
