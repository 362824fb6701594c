package models

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	_ "github.com/glebarez/go-sqlite"
	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/internal/storetest"
	"hearth/internal/weight"
)

// benchPair times a and base alternately b.N times and reports both and their
// ratio, so one line of `make bench` answers "how far from the baseline".
func benchPair(b *testing.B, a, base func(i int)) {
	b.Helper()
	var ta, tb time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		a(i)
		ta += time.Since(start)
		start = time.Now()
		base(i)
		tb += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(ta.Microseconds())/n, "hearth-µs/op")
	b.ReportMetric(float64(tb.Microseconds())/n, "baseline-µs/op")
	b.ReportMetric(float64(ta)/float64(tb), "ratio")
}

// hundredActivities is a publication of 100 tasks with fresh IDs.
func hundredActivities(run int, expected int64) pub {
	p := newPub(fmt.Sprintf("run-%d", run), expected)
	for j := range 100 {
		a := task(fmt.Sprintf("r%d-a%d", run, j))
		a["detail"] = "Some detail about what to do and why, as an agent would write it."
		a["recommendation"] = map[string]any{"section": "focus", "rank": j}
		p.Add("activities", a)
	}
	return p
}

// BenchmarkPublish100Activities compares a 100-activity publication through
// the whole service (parse, hash, validate, resolve, upsert, receipt) with
// plain database/sql inserting the same rows in one transaction.
func BenchmarkPublish100Activities(b *testing.B) {
	s, _ := newTestStore(b)
	ctx := context.Background()
	baseDir := b.TempDir()
	base, err := Open(ctx, baseDir, Options{}) // same schema, same pragmas
	if err != nil {
		b.Fatal(err)
	}
	base.Close()
	raw, err := sql.Open("sqlite", dsn(DatabasePath(baseDir), 0))
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	rev := int64(0)
	benchPair(b, func(i int) {
		r, _, err := publish(s, ctx, "bench", hundredActivities(i, rev).JSON())
		if err != nil {
			b.Fatal(err)
		}
		rev = r.Revision
	}, func(i int) {
		if err := baselineInsert(ctx, raw, i); err != nil {
			b.Fatal(err)
		}
	})
}

// baselineInsert writes what a publication stores (source ref, 100
// activities, receipt, revision) with prepared statements in one transaction.
func baselineInsert(ctx context.Context, db *sql.DB, run int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UTC()
	var rev int64
	if err := tx.QueryRow("UPDATE workspace SET revision = revision + 1, updated_at = ? WHERE id = 1 RETURNING revision", now).Scan(&rev); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO source_refs (id, kind, path, content_hash, observed_at, revision) VALUES (?, 'life', 'people/ana.md', ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET revision = excluded.revision`, "life-1", "sha256:"+fmt.Sprintf("%064x", 1), now, rev); err != nil {
		return err
	}
	stmt, err := tx.Prepare(`INSERT INTO activities (id, kind, title, detail, occurrence_key, section, rank, payload, evidence_ids, revision, created_at, updated_at)
		VALUES (?, 'task', ?, ?, '', 'focus', ?, '{}', '["life-1"]', ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for j := range 100 {
		id := fmt.Sprintf("r%d-a%d", run, j)
		if _, err := stmt.Exec(id, "Task "+id, "Some detail about what to do and why, as an agent would write it.", j, rev, now, now); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(`INSERT INTO receipts (publisher, run_id, job_key, payload_hash, revision, received_at) VALUES ('bench', ?, 'daily-brief', 'sha256:x', ?, ?)`,
		fmt.Sprintf("run-%d", run), rev, now); err != nil {
		return err
	}
	return tx.Commit()
}

// seedHistory publishes open activities and settles history ones 30 days before now.
func seedHistory(b *testing.B, s *Store, now *storetest.Clock, history, open int) {
	b.Helper()
	ctx := context.Background()
	run := 0
	publish := func(prefix string, n int) {
		for start := 0; start < n; start += contract.MaxActivities {
			p := newPub(fmt.Sprintf("seed-%d", run), mustRevision(b, s))
			for j := start; j < min(n, start+contract.MaxActivities); j++ {
				p.Add("activities", task(fmt.Sprintf("%s-%05d", prefix, j)))
			}
			mustPublish(b, s, p)
			run++
		}
	}
	publish("hist", history)
	settled := now.Now().Add(-30 * 24 * time.Hour)
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Exec(`INSERT INTO activity_states (activity_id, state, revision, updated_at)
			SELECT id, 'completed', revision, ? FROM activities WHERE id LIKE 'hist-%'`, settled).Error; err != nil {
			return err
		}
		return t.Exec(`UPDATE activities SET closed_at = ? WHERE id LIKE 'hist-%'`, settled).Error
	})
	if err != nil {
		b.Fatal(err)
	}
	publish("open", open)
}

// BenchmarkAgentContext reads the context with 100 open activities beside
// 10,000 settled historical ones, against the same read beside only 100:
// the ratio shows whether the read's cost is flat in history.
func BenchmarkAgentContext(b *testing.B) {
	big, bigNow := newTestStore(b)
	seedHistory(b, big, bigNow, 10000, 100)
	small, smallNow := newTestStore(b)
	seedHistory(b, small, smallNow, 100, 100)
	ctx := context.Background()
	read := func(s *Store) func(int) {
		return func(int) {
			ac, err := s.AgentContext(ctx)
			if err != nil || len(ac.Activities.Items) != 100 {
				b.Fatalf("context: %d activities, %v", len(ac.Activities.Items), err)
			}
		}
	}
	benchPair(b, read(big), read(small))
}

// BenchmarkHomeAfterFiveYearsOfDailyWeighIns reads Home on a day with a
// weigh-in saved, over five years of daily readings: today's trend is read
// from the last TrendWindow, so the figure stays that of a young history.
func BenchmarkHomeAfterFiveYearsOfDailyWeighIns(b *testing.B) {
	s, clock := newTestStore(b)
	ctx := context.Background()
	now := clock.Now()
	var rs []weight.Reading
	for day := 5 * 365; day >= 1; day-- {
		rs = append(rs, weight.Reading{Line: len(rs) + 2, At: now.Add(-time.Duration(day) * 24 * time.Hour), Value: 80 + float64(day%7)/10, Unit: "kg"})
	}
	if _, err := s.ImportWeights(ctx, "generic", rs, false); err != nil {
		b.Fatal(err)
	}
	if _, err := s.RecordWeighIn(ctx, "", 80.2); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Home(ctx, costpolicy.Policy{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanRows reads the three source refs of a brief's evidence as
// Home's read does (chipRefs, through scanRows) against GORM's Find and
// reflective scan of the same rows: what each of Home's smaller
// statements saves.
func BenchmarkScanRows(b *testing.B) {
	s, _ := newTestStore(b)
	ctx := context.Background()
	if err := s.db.Exec(`INSERT INTO source_refs (id, kind, path, content_hash, observed_at, revision) VALUES
		('a', 'life', 'people/a.md', 'sha256:0123456789', '2026-01-01 00:00:00', 1),
		('b', 'life', 'people/b.md', 'sha256:0123456789', '2026-01-01 00:00:00', 1),
		('c', 'life', 'people/c.md', 'sha256:0123456789', '2026-01-01 00:00:00', 1)`).Error; err != nil {
		b.Fatal(err)
	}
	ids := []string{"a", "b", "c"}
	read := func(fn func(tx *gorm.DB) ([]SourceRef, error)) {
		if err := s.Read(ctx, func(tx *gorm.DB) error {
			refs, err := fn(tx)
			if err == nil && len(refs) != 3 {
				err = fmt.Errorf("read %d refs, want 3", len(refs))
			}
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
	benchPair(b, func(int) {
		read(func(tx *gorm.DB) ([]SourceRef, error) { return chipRefs(tx, ids) })
	}, func(int) {
		read(func(tx *gorm.DB) ([]SourceRef, error) {
			var refs []SourceRef
			return refs, tx.Where("id IN ?", ids).Find(&refs).Error
		})
	})
}
