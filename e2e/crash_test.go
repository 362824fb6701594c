package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"hearth/models"
)

// Shape of the crash test: enough publications per cycle that a kill lands
// mid-transaction sometimes, few enough to stay within the suite's budget.
const (
	crashCycles        = 3
	crashActivities    = 8    // activities per publication
	crashMaxPubs       = 1500 // upper bound on one publisher loop
	crashKillAfterAcks = 600  // kill by then even on a fast machine
)

// attempt is one publication the publisher sent and what it heard back.
type attempt struct {
	pub     publication
	acked   bool // 201 received: the server promised it is stored
	receipt receipt
}

func TestSIGKILLDuringPublishingLosesNoAcknowledgedReceipt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dbPath := models.DatabasePath(dir)
	token := mintToken(t, dir)
	srv := startServer(t, dir)
	var history []*attempt
	for cycle := range crashCycles {
		// Vary the moment of the kill so cycles hit different phases of a request.
		killAfter := time.Second + time.Duration(cycle)*350*time.Millisecond
		attempts := publishUntilKilled(t, srv, newAgentClient(srv.URL, token), cycle, killAfter)
		history = append(history, attempts...)
		if t.Failed() {
			return
		}
		// The file as the crash left it, before any recovery by a new server.
		if err := models.CheckIntegrity(context.Background(), dbPath); err != nil {
			t.Errorf("cycle %d: integrity of the database right after SIGKILL: %v", cycle, err)
		}

		srv = startServer(t, dir)
		c := newAgentClient(srv.URL, token)
		verifyRecovered(t, c, cycle, history, attempts)
		backup := filepath.Join(t.TempDir(), fmt.Sprintf("backup-%d.db", cycle))
		if res := runHearth(t, nil, "backup", backup, "--data", dir); res.code != 0 {
			t.Errorf("cycle %d: hearth backup: exit %d, stderr %q", cycle, res.code, res.stderr)
		}
		if t.Failed() {
			return
		}
	}

	// The last retries must have landed too; then a clean stop and a check of the original file.
	c := newAgentClient(srv.URL, token)
	present := c.activityRevisions(t)
	for _, a := range history {
		if missing := countMissing(present, a.pub.ActivityIDs); missing > 0 {
			t.Errorf("%s acknowledged at revision %d, but %d of its activities are missing", a.pub.RunID, a.receipt.Revision, missing)
		}
	}
	if code, took := srv.terminate(t); code != 0 {
		t.Errorf("serve after SIGTERM: exit %d after %s, want 0", code, took)
	}
	if err := models.CheckIntegrity(context.Background(), dbPath); err != nil {
		t.Errorf("integrity of the database after a clean stop: %v", err)
	}
	acked := 0
	for _, a := range history {
		if a.acked {
			acked++
		}
	}
	t.Logf("%d cycles, %d publications acknowledged, %d activities stored", crashCycles, acked, len(present))
}

// publishUntilKilled publishes back to back from a goroutine, each at the
// revision of the previous receipt, and SIGKILLs the server mid-loop after
// killAfter (or crashKillAfterAcks receipts). It returns every attempt in order.
func publishUntilKilled(t *testing.T, srv *server, c *agentClient, cycle int, killAfter time.Duration) []*attempt {
	t.Helper()
	startRev := c.context(t).Revision
	// attempts is read only after done closes, so it needs no lock.
	var (
		attempts []*attempt
		acks     atomic.Int64
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		rev := startRev
		for i := range crashMaxPubs {
			a := &attempt{pub: newPublication(fmt.Sprintf("crash-c%d-p%04d", cycle, i), rev, crashActivities)}
			attempts = append(attempts, a)
			status, body, err := c.publish(a.pub.Body)
			if err != nil {
				return // the server is gone; this attempt's fate is unknown
			}
			if status != http.StatusCreated {
				t.Errorf("publish %s before the kill: status %d: %s", a.pub.RunID, status, body)
				return
			}
			if err := json.Unmarshal(body, &a.receipt); err != nil || a.receipt.RunID != a.pub.RunID {
				t.Errorf("publish %s: bad receipt %s (%v)", a.pub.RunID, body, err)
				return
			}
			a.acked = true
			rev = a.receipt.Revision
			acks.Add(1)
		}
	}()

	// Kill after killAfter, but not before one receipt (a loaded machine may
	// be slow to start), and early once crashKillAfterAcks were acknowledged.
	start := time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			n, elapsed := acks.Load(), time.Since(start)
			if n >= crashKillAfterAcks || (n > 0 && elapsed >= killAfter) {
				break wait
			}
			if elapsed > healthTimeout {
				t.Errorf("cycle %d: no publication acknowledged in %s", cycle, elapsed)
				break wait
			}
		}
	}
	killedAfter := time.Since(start)
	srv.kill(t)
	select {
	case <-done:
	case <-time.After(2 * httpTimeout):
		t.Fatal("publisher still running long after the kill")
	}
	t.Logf("cycle %d: killed after %s with %d publications acknowledged", cycle, killedAfter.Round(time.Millisecond), acks.Load())
	return attempts
}

// verifyRecovered checks a restarted server against everything the publisher
// saw: acknowledged work survived, nothing is half-applied, and receipts
// replay. It finally retries the one publication whose fate was unknown,
// exactly as the CLI's transport retries do, and records the outcome.
func verifyRecovered(t *testing.T, c *agentClient, cycle int, history, current []*attempt) {
	t.Helper()
	var maxAcked int64
	for _, a := range history {
		if a.acked {
			maxAcked = max(maxAcked, a.receipt.Revision)
		}
	}
	var pending *attempt // sent, but the kill came before its answer
	if n := len(current); n > 0 && !current[n-1].acked {
		pending = current[n-1]
	}

	ac := c.context(t)
	// One sequential publisher: at most its in-flight publication committed unseen.
	if ac.Revision < maxAcked || ac.Revision > maxAcked+1 {
		t.Errorf("cycle %d: context revision %d after restart, want %d (highest acknowledged) or one more", cycle, ac.Revision, maxAcked)
	}

	present := c.activityRevisions(t)
	pendingStored := false
	for _, a := range history {
		missing := countMissing(present, a.pub.ActivityIDs)
		switch {
		case a.acked && missing > 0:
			t.Errorf("cycle %d: %s acknowledged at revision %d, but %d of %d activities are missing",
				cycle, a.pub.RunID, a.receipt.Revision, missing, len(a.pub.ActivityIDs))
		case !a.acked && missing != 0 && missing != len(a.pub.ActivityIDs):
			t.Errorf("cycle %d: unacknowledged %s is half applied: %d of %d activities present",
				cycle, a.pub.RunID, len(a.pub.ActivityIDs)-missing, len(a.pub.ActivityIDs))
		case a == pending && missing == 0:
			pendingStored = true
		}
		if a.acked {
			for _, id := range a.pub.ActivityIDs {
				if rev, ok := present[id]; ok && rev != a.receipt.Revision {
					t.Errorf("cycle %d: activity %s has revision %d, its receipt says %d", cycle, id, rev, a.receipt.Revision)
					break
				}
			}
		}
	}

	// The receipt and the activities commit together: the newest receipt is the
	// pending publication exactly when its activities are there.
	wantLast, wantRev := "", maxAcked
	if pendingStored {
		wantLast, wantRev = pending.pub.RunID, maxAcked+1
	} else {
		for _, a := range history {
			if a.acked && a.receipt.Revision == maxAcked {
				wantLast = a.pub.RunID
			}
		}
	}
	if lp := ac.LastPublication; lp == nil || lp.RunID != wantLast || lp.Revision != wantRev || ac.Revision != wantRev {
		t.Errorf("cycle %d: lastPublication %+v at context revision %d, want %s at revision %d", cycle, lp, ac.Revision, wantLast, wantRev)
	}

	for _, a := range current {
		if a.acked {
			checkReplay(t, c, a)
		}
	}

	// Retry the unknown one with the same bytes: stored means the original
	// receipt (200), lost means it is applied now (201), never twice.
	if pending == nil {
		return
	}
	status, body, err := c.publish(pending.pub.Body)
	want := http.StatusCreated
	if pendingStored {
		want = http.StatusOK
	}
	var r receipt
	if err != nil || status != want || json.Unmarshal(body, &r) != nil || r.RunID != pending.pub.RunID || r.Revision != maxAcked+1 {
		t.Errorf("cycle %d: retry of in-flight %s (stored: %v): status %d, err %v, body %s; want %d at revision %d",
			cycle, pending.pub.RunID, pendingStored, status, err, body, want, maxAcked+1)
		return
	}
	pending.acked, pending.receipt = true, r
	t.Logf("cycle %d: in-flight %s was %s before the retry", cycle, pending.pub.RunID, map[bool]string{true: "committed", false: "lost"}[pendingStored])
}

// checkReplay posts the acknowledged publication's exact bytes again and wants its original receipt.
func checkReplay(t *testing.T, c *agentClient, a *attempt) {
	t.Helper()
	status, body, err := c.publish(a.pub.Body)
	var r receipt
	if err == nil && status == http.StatusOK {
		err = json.Unmarshal(body, &r)
	}
	if err != nil || status != http.StatusOK || !sameReceipt(r, a.receipt) {
		t.Errorf("replay of acknowledged %s: status %d, err %v, body %s; want 200 with %+v", a.pub.RunID, status, err, bytes.TrimSpace(body), a.receipt)
	}
}

func sameReceipt(a, b receipt) bool {
	return a.RunID == b.RunID && a.Revision == b.Revision && a.ReceivedAt.Equal(b.ReceivedAt)
}

// countMissing counts the ids that are not in present.
func countMissing(present map[string]int64, ids []string) int {
	n := 0
	for _, id := range ids {
		if _, ok := present[id]; !ok {
			n++
		}
	}
	return n
}

func TestRestartKeepsContextIdentical(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := startServer(t, dir, "--demo")
	token := demoToken(t, dir)
	// The demo settles with the watch's first read (its baseline, the
	// chats' history behind each person's rhythm, the hand-off compared).
	watchHasRead(t, srv.URL)
	before := contextWithoutGeneratedAt(t, newAgentClient(srv.URL, token))
	if code, took := srv.terminate(t); code != 0 || took > stopTimeout {
		t.Fatalf("serve after SIGTERM: exit %d after %s, want 0 within %s", code, took, stopTimeout)
	}

	// --demo again, as `make run` does: it must leave an existing workspace alone.
	srv = startServer(t, dir, "--demo")
	if again := demoToken(t, dir); again != token {
		t.Errorf("restart replaced the demo token")
	}
	watchHasRead(t, srv.URL)
	after := contextWithoutGeneratedAt(t, newAgentClient(srv.URL, token))
	if !reflect.DeepEqual(before, after) {
		b, _ := json.MarshalIndent(before, "", "  ")
		a, _ := json.MarshalIndent(after, "", "  ")
		t.Errorf("context changed across a restart:\nbefore %s\nafter %s", b, a)
	}
}

// demoToken reads the agent token `serve --demo` wrote into the data dir.
func demoToken(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "agent.token"))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(b))
	if !strings.HasPrefix(token, "hearth_") {
		t.Fatalf("agent.token holds %q, want a hearth_ token", token)
	}
	return token
}

// contextWithoutGeneratedAt reads the context as generic JSON minus the one
// field that is the time of the read; it also checks the demo is not empty.
func contextWithoutGeneratedAt(t *testing.T, c *agentClient) map[string]any {
	t.Helper()
	var doc map[string]any
	decodeJSON(t, c.contextJSON(t), &doc)
	if _, ok := doc["generatedAt"]; !ok {
		t.Fatalf("context has no generatedAt: %v", doc)
	}
	delete(doc, "generatedAt")
	acts, _ := doc["activities"].(map[string]any)
	if items, _ := acts["items"].([]any); len(items) == 0 || doc["revision"] == float64(0) {
		t.Fatalf("demo context is empty (revision %v, activities %v); the comparison would prove nothing", doc["revision"], acts)
	}
	return doc
}
