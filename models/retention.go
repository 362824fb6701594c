package models

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"hearth/internal/contract"
)

// DefaultObservationHorizon is how long a consumed observation keeps its
// payload: long enough for the agent to look back over a season, short
// enough that years of messages do not stay in the database.
const DefaultObservationHorizon = 90 * 24 * time.Hour

// PruneReport says what one prune did.
type PruneReport struct {
	// Deleted are older consumed versions of an item that has a newer one.
	Deleted int64 `json:"deleted"`
	// Emptied are newest versions that kept their row and content hash and
	// lost their payload.
	Emptied int64 `json:"emptied"`
	// FreedBytes is the space returned to the file system.
	FreedBytes int64 `json:"freedBytes"`
}

// PruneObservations drops the payloads of observations consumed before
// now-horizon. Only observations are ever pruned: receipts, owner
// decisions, measurements, sends and routine history are kept for good.
// Pending observations are never touched, whatever their age. The space is
// returned with an incremental vacuum, outside the transaction.
func (s *Store) PruneObservations(ctx context.Context, horizon time.Duration) (PruneReport, error) {
	if horizon <= 0 {
		return PruneReport{}, fmt.Errorf("models: prune horizon must be positive, got %s", horizon)
	}
	now := s.clock().UTC()
	cutoff := now.Add(-horizon)
	var rep PruneReport
	_, err := s.commit(ctx, func(t *txn) error {
		del := t.Exec(`DELETE FROM observations WHERE status = ? AND pruned_at IS NULL AND consumed_at < ?
			AND EXISTS (SELECT 1 FROM observations n WHERE n.source = observations.source AND n.ref = observations.ref AND n.id > observations.id)`,
			contract.ObservationConsumed, cutoff)
		if del.Error != nil {
			return del.Error
		}
		// A version an earlier prune emptied was kept only as its item's
		// newest (to answer duplicates): once a newer version is about to be
		// emptied, it goes too. Looked up by the items pruned now, so the
		// prune never scans every emptied row.
		superseded := t.Exec(`DELETE FROM observations WHERE pruned_at IS NOT NULL
			AND (source, ref) IN (SELECT source, ref FROM observations WHERE status = ? AND pruned_at IS NULL AND consumed_at < ?)
			AND EXISTS (SELECT 1 FROM observations n WHERE n.source = observations.source AND n.ref = observations.ref AND n.id > observations.id)`,
			contract.ObservationConsumed, cutoff)
		if superseded.Error != nil {
			return superseded.Error
		}
		upd := t.Exec(`UPDATE observations SET raw = '', pruned_at = ? WHERE status = ? AND pruned_at IS NULL AND consumed_at < ?`,
			now, contract.ObservationConsumed, cutoff)
		rep.Deleted, rep.Emptied = del.RowsAffected+superseded.RowsAffected, upd.RowsAffected
		return upd.Error
	})
	if err != nil {
		return PruneReport{}, fmt.Errorf("models: prune observations: %w", err)
	}
	if rep.Deleted+rep.Emptied == 0 {
		return rep, nil
	}
	rep.FreedBytes, err = s.vacuumFree(ctx)
	return rep, err
}

// vacuumFree returns the free pages to the file system (the database is in
// incremental auto-vacuum; see ensureIncrementalVacuum) and says how much.
func (s *Store) vacuumFree(ctx context.Context) (int64, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	conn, err := s.sqlDB.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var pageSize, before, after int64
	if err := conn.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
		return 0, err
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&before); err != nil {
		return 0, err
	}
	if err := drain(conn.QueryContext(ctx, "PRAGMA incremental_vacuum")); err != nil {
		return 0, fmt.Errorf("models: incremental vacuum: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA page_count").Scan(&after); err != nil {
		return 0, err
	}
	return (before - after) * pageSize, nil
}

// ensureIncrementalVacuum puts the database in incremental auto-vacuum, so
// a prune can give space back without rewriting the whole file. The mode
// takes effect only through a VACUUM, which rewrites the file once: on a
// new database that costs nothing, on an old one it happens at the first
// start of a binary with retention. One connection runs both statements
// (the pragma is that connection's until the VACUUM persists it).
func ensureIncrementalVacuum(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var mode int
	if err := conn.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil {
		return err
	}
	const incremental = 2
	if mode == incremental {
		return nil
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA auto_vacuum = INCREMENTAL"); err != nil {
		return err
	}
	// VACUUM builds the new file in a transient database first: on disk,
	// not in memory as the writer's statement journals are (dsn), or an old
	// database would be held in memory whole.
	if _, err := conn.ExecContext(ctx, "PRAGMA temp_store = FILE"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "VACUUM")
	if _, perr := conn.ExecContext(ctx, "PRAGMA temp_store = MEMORY"); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		return fmt.Errorf("models: vacuum into incremental auto-vacuum: %w", err)
	}
	return nil
}

// drain reads a statement's rows to the end (incremental_vacuum does its
// work as its rows are stepped).
func drain(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// Optimize refreshes the query planner's statistics: without them, on
// years of data, SQLite chose a low-selectivity index for Messages' chat
// lookup (make bench-years). analysis_limit bounds the work per index, so
// a large file is sampled, not read whole, while the write lock is held.
// serve runs it at start and then daily with the retention prune.
func (s *Store) Optimize(ctx context.Context) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	conn, err := s.sqlDB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("models: optimize: %w", err)
	}
	defer conn.Close()
	for _, stmt := range []string{"PRAGMA analysis_limit=1000", "ANALYZE"} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("models: optimize: %s: %w", stmt, err)
		}
	}
	return nil
}
