package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
)

// postObservations records one batch and fails the test on a refused item
// unless it is a duplicate, which it returns.
func postObservations(t *testing.T, s *Store, items ...map[string]any) ([]contract.ObservationReceipt, []*contract.DuplicateObservationError) {
	t.Helper()
	list := make([]any, len(items))
	for i, it := range items {
		list[i] = it
	}
	body, _ := json.Marshal(map[string]any{"observations": list})
	outs, err := postObservationBatch(s, context.Background(), "cred-test", body)
	if err != nil {
		t.Fatal(err)
	}
	receipts, dups := make([]contract.ObservationReceipt, len(outs)), make([]*contract.DuplicateObservationError, len(outs))
	for i, o := range outs {
		if o.Err != nil && !errors.As(o.Err, &dups[i]) {
			t.Fatalf("item %d: %v", i, o.Err)
		}
		receipts[i] = o.Receipt
	}
	return receipts, dups
}

func message(ref, text string) map[string]any {
	return map[string]any{"source": "beeper:chat-1", "ref": ref, "changeType": "created", "actor": "agent",
		"payload": map[string]any{"kind": "message", "providerId": "beeper", "raw": map[string]any{"text": text}}}
}

// consume publishes a run that cites the observations.
func consume(t *testing.T, s *Store, run string, ids ...int64) {
	t.Helper()
	p := newPub(run, mustRevision(t, s))
	cited := make([]any, len(ids))
	for i, id := range ids {
		cited[i] = id
	}
	p["consumedObservations"] = cited
	mustPublish(t, s, p)
}

func TestPrunedObservationSentAgainIsStillADuplicate(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	old, _ := postObservations(t, s, message("m1", "first words"))
	edited, _ := postObservations(t, s, message("m1", "edited words"))
	consume(t, s, "run-1", old[0].ObservationID, edited[0].ObservationID)
	now.Advance(DefaultObservationHorizon + time.Hour)

	rep, err := s.PruneObservations(ctx, DefaultObservationHorizon)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted != 1 || rep.Emptied != 1 {
		t.Fatalf("prune = %+v, want the older version deleted and the newest emptied", rep)
	}
	var rows []Observation
	s.db.Order("id").Find(&rows)
	if len(rows) != 1 || rows[0].ID != edited[0].ObservationID || rows[0].Raw != "" || rows[0].PrunedAt == nil || rows[0].ContentHash != edited[0].ContentHash {
		t.Fatalf("rows after prune: %+v", rows)
	}

	_, dups := postObservations(t, s, message("m1", "edited words"))
	if dups[0] == nil || dups[0].ObservationID != edited[0].ObservationID || dups[0].ConsumedRunID != "run-1" {
		t.Fatalf("the newest version sent again = %+v, want a duplicate of observation %d consumed by run-1", dups[0], edited[0].ObservationID)
	}
	again, dups := postObservations(t, s, message("m1", "first words"))
	if dups[0] != nil || again[0].Action != contract.ActionModified {
		t.Fatalf("an older version sent again = %+v, %v; want a new version, as before the prune", again[0], dups[0])
	}
}

func TestPruneLeavesPendingAndRecentObservations(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	pending, _ := postObservations(t, s, message("p1", "never cited"))
	early, _ := postObservations(t, s, message("c1", "cited long ago"))
	consume(t, s, "run-early", early[0].ObservationID)
	now.Advance(DefaultObservationHorizon)
	recent, _ := postObservations(t, s, message("c2", "cited lately"))
	consume(t, s, "run-recent", recent[0].ObservationID)
	now.Advance(time.Hour)

	rep, err := s.PruneObservations(ctx, DefaultObservationHorizon)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted != 0 || rep.Emptied != 1 {
		t.Fatalf("prune = %+v, want only the observation consumed before the horizon emptied", rep)
	}
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ac.Observations.Items) != 1 || ac.Observations.Items[0].ObservationID != pending[0].ObservationID ||
		!strings.Contains(string(ac.Observations.Items[0].Payload.Raw), "never cited") {
		t.Fatalf("pending observations after prune: %+v", ac.Observations.Items)
	}
	var kept Observation
	s.db.First(&kept, recent[0].ObservationID)
	if kept.PrunedAt != nil || !strings.Contains(kept.Raw, "cited lately") {
		t.Fatalf("an observation consumed inside the horizon lost its payload: %+v", kept)
	}
	if _, err := s.PruneObservations(ctx, 0); err == nil {
		t.Fatal("a zero horizon pruned; want an error")
	}
}

// TestPruneKeepsEverythingTheOwnerDid counts every table of the owner's
// and the agent's history before and after a prune of a long-used
// database: only observations may change.
func TestPruneKeepsEverythingTheOwnerDid(t *testing.T) {
	s, now := seedForPlans(t)
	ctx := context.Background()
	mustPublish(t, s, newPub("run-weigh", mustRevision(t, s)).Add("activities", map[string]any{"id": "weigh", "kind": "measurement",
		"title": "Weigh in", "evidenceIds": []any{"life-1"}, "payload": map[string]any{"metric": "weight", "unit": "kg"}}))
	if _, err := s.RecordMeasurement(ctx, "weigh", 72.4); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	s.db.Raw(`SELECT id FROM observations WHERE status = 'pending' ORDER BY id`).Scan(&ids)
	consume(t, s, "run-consume", ids[:500]...)
	now.Advance(DefaultObservationHorizon + 24*time.Hour)

	kept := []string{"receipts", "activities", "activity_states", "activity_decisions", "measurements", "sends", "reply_actions",
		"requests", "routine_occurrences", "routine_outcomes", "routine_trials", "people", "reply_drafts", "source_refs"}
	count := func() map[string]int64 {
		out := map[string]int64{}
		for _, table := range kept {
			var n int64
			if err := s.db.Raw(fmt.Sprintf("SELECT COUNT(*) FROM %s", table)).Scan(&n).Error; err != nil {
				t.Fatal(err)
			}
			out[table] = n
		}
		return out
	}
	before := count()
	rep, err := s.PruneObservations(ctx, DefaultObservationHorizon)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Emptied != 500 || rep.FreedBytes <= 0 {
		t.Fatalf("prune = %+v, want 500 payloads dropped and space returned", rep)
	}
	after := count()
	for _, table := range kept {
		if before[table] != after[table] {
			t.Errorf("%s: %d rows before the prune, %d after", table, before[table], after[table])
		}
	}
	if before["measurements"] == 0 || before["activity_decisions"] == 0 || before["receipts"] == 0 {
		t.Fatalf("the seed wrote no history to keep: %v", before)
	}
}

func TestANewDatabaseIsInIncrementalAutoVacuum(t *testing.T) {
	s, _ := newTestStore(t)
	var mode int
	if err := s.db.Raw("PRAGMA auto_vacuum").Scan(&mode).Error; err != nil {
		t.Fatal(err)
	}
	if mode != 2 {
		t.Fatalf("auto_vacuum = %d, want 2 (incremental)", mode)
	}
}

func TestOptimizeGivesThePlannerStatistics(t *testing.T) {
	s, _ := seedForPlans(t)
	if err := s.db.Exec("DROP TABLE IF EXISTS sqlite_stat1").Error; err != nil {
		t.Fatal(err)
	}
	if err := s.Optimize(context.Background()); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := s.db.Raw("SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'reply_drafts'").Scan(&n).Error; err != nil || n == 0 {
		t.Fatalf("statistics for reply_drafts after Optimize: %d rows, %v", n, err)
	}
}

// TestAnEmptiedVersionIsDeletedOnceANewerOneExists: a newest version
// emptied by one prune keeps its row only to answer duplicates; once the
// item has a newer version, a later prune deletes it like any older one.
func TestAnEmptiedVersionIsDeletedOnceANewerOneExists(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	first, _ := postObservations(t, s, message("m1", "first words"))
	consume(t, s, "run-1", first[0].ObservationID)
	now.Advance(DefaultObservationHorizon + time.Hour)
	if rep, err := s.PruneObservations(ctx, DefaultObservationHorizon); err != nil || rep.Emptied != 1 {
		t.Fatalf("first prune = %+v, %v; want the only version emptied", rep, err)
	}
	edited, _ := postObservations(t, s, message("m1", "edited words"))
	consume(t, s, "run-2", edited[0].ObservationID)
	now.Advance(DefaultObservationHorizon + time.Hour)

	rep, err := s.PruneObservations(ctx, DefaultObservationHorizon)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted != 1 || rep.Emptied != 1 {
		t.Fatalf("second prune = %+v, want the emptied older version deleted and the newest emptied", rep)
	}
	var ids []int64
	s.db.Raw(`SELECT id FROM observations WHERE ref = 'm1' ORDER BY id`).Scan(&ids)
	if len(ids) != 1 || ids[0] != edited[0].ObservationID {
		t.Fatalf("versions of m1 after both prunes: %v, want only %d", ids, edited[0].ObservationID)
	}
}

// An old database is vacuumed into incremental auto-vacuum once; the
// connection that did it still keeps its statement journals in memory.
func TestAnOldDatabaseIsVacuumedIntoIncrementalAndItsWriterKeepsJournalsInMemory(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", dsn(filepath.Join(t.TempDir(), "old.db"), 0))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // the one connection that vacuums is the one read after
	if _, err := db.ExecContext(ctx, "CREATE TABLE notes (body TEXT)"); err != nil {
		t.Fatal(err)
	}
	if err := ensureIncrementalVacuum(ctx, db); err != nil {
		t.Fatal(err)
	}
	var mode, store int
	if err := db.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&store); err != nil {
		t.Fatal(err)
	}
	if mode != 2 || store != 2 {
		t.Fatalf("after the vacuum: auto_vacuum = %d, temp_store = %d; want 2 (incremental), 2 (memory)", mode, store)
	}
}
