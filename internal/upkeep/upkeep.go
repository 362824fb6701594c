// Package upkeep is serve's background work on the store, each loop until
// its context ends, a failure logged and tried again at the next tick:
// today's routine occurrences, observation retention and the planner's
// statistics, and verified backups.
package upkeep

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"hearth/models"
)

// MaintainEvery keeps the database in shape now and then every interval
// until ctx ends: it drops old consumed observations' payloads (unless
// horizon is 0, which keeps them all) and refreshes the planner's
// statistics. A failure is logged and tried at the next tick.
func MaintainEvery(ctx context.Context, store *models.Store, horizon, every time.Duration, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if horizon > 0 {
			rep, err := store.PruneObservations(ctx, horizon)
			switch {
			case err != nil && ctx.Err() == nil:
				log.Error("prune observations", "err", err)
			case rep.Deleted+rep.Emptied > 0:
				log.Info("pruned observations", "deleted", rep.Deleted, "emptied", rep.Emptied, "freedBytes", rep.FreedBytes)
			}
		}
		if err := store.Optimize(ctx); err != nil && ctx.Err() == nil {
			log.Error("optimize", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// BackupEveryInterval makes a verified backup every interval until ctx
// ends; the first is due an interval after the newest drill (at once when
// there is none), so a restart neither skips one nor takes an extra one. A
// failed backup is recorded by the store (Home says so), logged, and tried
// again an interval later.
func BackupEveryInterval(ctx context.Context, store *models.Store, dir string, keep int, every time.Duration, log *slog.Logger) {
	wait := time.Duration(0)
	if last, ok, err := store.LastBackupDrill(ctx); err != nil {
		log.Error("backup schedule", "err", err)
	} else if ok {
		wait = time.Until(last.FinishedAt.Add(every))
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(max(wait, 0)):
		}
		if d, err := store.BackupInto(ctx, dir, keep); err != nil {
			if ctx.Err() == nil {
				log.Error("backup", "err", err)
			}
		} else {
			log.Info("verified backup", "path", d.Path, "bytes", d.Bytes, "receipts", d.Receipts)
		}
		wait = every
	}
}

// OccurrenceEnsurer is the part of the store the ticker calls.
type OccurrenceEnsurer interface {
	EnsureOccurrences(ctx context.Context) (int, error)
}

// EnsureOccurrencesEvery instantiates today's routine occurrences every
// interval until ctx ends (serve has just done so once before it starts). A failure (or a panic) is logged and
// tried again at the next tick; it never stops serve.
func EnsureOccurrencesEvery(ctx context.Context, store OccurrenceEnsurer, every time.Duration, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		EnsureOnce(ctx, store, log)
	}
}

// EnsureOnce instantiates today's routine occurrences once; a failure or a
// panic is logged, never raised.
func EnsureOnce(ctx context.Context, store OccurrenceEnsurer, log *slog.Logger) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("ensure occurrences panicked", "panic", fmt.Sprint(r))
		}
	}()
	n, err := store.EnsureOccurrences(ctx)
	switch {
	case err != nil && ctx.Err() == nil:
		log.Error("ensure occurrences", "err", err)
	case n > 0:
		log.Info("routine occurrences instantiated", "count", n)
	}
}
