package beeperflow

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	_ "github.com/glebarez/go-sqlite" // the "sqlite" driver, for a second connection

	"hearth/models"
)

// testNow is the fixed clock of these tests (the store tests' too).
var testNow = time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)

// newTestStore opens a fresh database file under t.TempDir with a clock the test can move.
func newTestStore(t testing.TB) (*models.Store, *time.Time) {
	t.Helper()
	now := testNow
	s, err := models.Open(context.Background(), t.TempDir(), models.Options{Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &now
}

// pub is a publication under construction; tests mutate it and call body().
type pub map[string]any

// newPub returns a valid publication with one life source ref and no items.
func newPub(runID string, expected int64) pub {
	return pub{
		"runId":            runID,
		"jobKey":           "daily-brief",
		"expectedRevision": expected,
		"generatedAt":      "2026-09-29T06:59:00Z",
		"sourceRefs": []any{map[string]any{
			"id": "life-1", "kind": "life", "path": "people/ana.md",
			"contentHash": "sha256:" + fmt.Sprintf("%064x", 1), "observedAt": "2026-09-29T06:58:00Z",
		}},
		"people":            []any{},
		"activities":        []any{},
		"replyDrafts":       []any{},
		"retractions":       []any{},
		"completedRequests": []any{},
	}
}

func (p pub) add(key string, items ...map[string]any) pub {
	list, _ := p[key].([]any)
	for _, it := range items {
		list = append(list, it)
	}
	p[key] = list
	return p
}

func (p pub) body() []byte {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return b
}

func draft(id string, bodies ...string) map[string]any {
	cands := []any{}
	for i, b := range bodies {
		cands = append(cands, map[string]any{"id": fmt.Sprintf("c%d", i), "style": "plain", "body": b})
	}
	return map[string]any{"id": id, "accountId": "acc", "chatId": "chat-1", "sourceMessageRevision": "10",
		"reason": "they asked", "candidates": cands, "evidenceIds": []any{"life-1"}}
}

// mustPublish publishes and fails the test on any error.
func mustPublish(t testing.TB, s *models.Store, p pub) models.PublishReceipt {
	t.Helper()
	r, _, err := s.Publish(context.Background(), "cred-test", p.body())
	if err != nil {
		t.Fatalf("publish %v: %v", p["runId"], err)
	}
	return r
}

func mustRevision(t testing.TB, s *models.Store) int64 {
	t.Helper()
	rev, err := s.Revision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

// findActivity returns the activity with id from the agent context.
func findActivity(t testing.TB, s *models.Store, id string) (models.ActivityView, bool) {
	t.Helper()
	ac, err := s.AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ac.Activities.Items {
		if a.ID == id {
			return a, true
		}
	}
	return models.ActivityView{}, false
}

// countRows runs a COUNT-like query on the store's file from a read-only
// connection of its own (the store's pools are its own business).
func countRows(t testing.TB, s *models.Store, query string, args ...any) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+s.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
