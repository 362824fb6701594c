package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/poll"
	"hearth/models"
	"hearth/models/read"
)

// TestSIGKILLBetweenClaimAndRunRowStrandsNothing kills the real server
// (SIGKILL) while a schedule run's start is paused between its claim and
// its run row: the claim must not have been committed without the run, so
// after a restart the occurrence is still due and the runner's retry of
// the same runId claims it and starts the run.
func TestSIGKILLBetweenClaimAndRunRowStrandsNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ops := strings.TrimSpace(runHearth(t, nil, "token", "create", "--name", "ops", "--scopes", "schedules:admin", "--data", dir).stdout)
	runner := mintToken(t, dir)
	srv := startServerIn(t, dir, []string{"HEARTH_TEST_PAUSE_AT=" + models.PauseRunClaimed})

	// A one-off a moment ahead (it must be in the future when created), then wait until it is due.
	at := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second)
	occurrence := "brief/" + at.Format(time.RFC3339)
	status, body, err := newAgentClient(srv.URL, ops).do(http.MethodPost, "/api/schedules",
		[]byte(`{"requestKey":"k1","id":"brief","job":"morning","at":"`+at.Format(time.RFC3339)+`","prompt":"Write the brief."}`))
	if err != nil || status != http.StatusCreated {
		t.Fatalf("create: %d %s %v", status, body, err)
	}
	waitDue(t, newAgentClient(srv.URL, runner), occurrence)

	start := []byte(`{"runId":"run-1","job":"morning","trigger":"schedule","scheduleId":"brief"}`)
	go newAgentClient(srv.URL, runner).do(http.MethodPost, "/api/runs", start) // never answered
	waitForLog(t, srv, "paused at "+models.PauseRunClaimed)
	srv.kill(t)

	// The file as the crash left it, before a new server touches it.
	store, err := models.OpenExisting(context.Background(), dir, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := store.Schedule(context.Background(), "brief")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := read.Of(store).Runs(context.Background())
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	if v.Outstanding != nil || v.Counters.Admitted != 0 || len(runs.Runs) != 0 {
		t.Fatalf("after SIGKILL between claim and run row: outstanding %+v, %d admitted, runs %+v; want nothing claimed",
			v.Outstanding, v.Counters.Admitted, runs.Runs)
	}

	srv = startServer(t, dir)
	c := newAgentClient(srv.URL, runner)
	waitDue(t, c, occurrence)
	status, body, err = c.do(http.MethodPost, "/api/runs", start)
	var st contract.RunStart
	if err != nil || status != http.StatusCreated || json.Unmarshal(body, &st) != nil || st.Run == nil || st.Run.OccurrenceID != occurrence {
		t.Fatalf("the runner's retry after the restart: %d %s %v", status, body, err)
	}
}

// waitDue polls GET /api/schedules/due until it lists occurrence.
func waitDue(t *testing.T, c *agentClient, occurrence string) {
	t.Helper()
	poll.Eventually(t, healthTimeout, func() (bool, string) {
		status, body, err := c.do(http.MethodGet, "/api/schedules/due", nil)
		var rep contract.DueReport
		if err != nil || status != http.StatusOK || json.Unmarshal(body, &rep) != nil {
			t.Fatalf("due: %d %s %v", status, body, err)
		}
		for _, d := range rep.Due {
			if d.OccurrenceID == occurrence {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%s never came due: %s", occurrence, body)
	})
}
