package models

import (
	"context"
	"fmt"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// PublishDryRun validates a publication, as contract.DecodePublication
// decoded it, fully, in one read transaction, and reports what it would
// change. Validation errors are returned as Publish returns them;
// conflicts are reported, not returned.
func (s *Store) PublishDryRun(ctx context.Context, publisher string, pub contract.Publication) (contract.DryRunReport, error) {
	r, hash, invalid := pub.Result, pub.Hash, pub.Invalid
	rep := contract.DryRunReport{RunID: r.RunID, DryRun: true, ExpectedRevision: r.ExpectedRevision, Changes: map[string]contract.CollectionDiff{}, Conflicts: []contract.DryRunConflict{}}
	err := s.Read(ctx, func(tx *gorm.DB) error {
		var prior Receipt
		if err := tx.Where("publisher = ? AND run_id = ?", publisher, r.RunID).Limit(1).Find(&prior).Error; err != nil {
			return err
		}
		if prior.RunID != "" {
			if prior.PayloadHash == hash {
				rep.Replay = true
			} else {
				rep.Conflicts = append(rep.Conflicts, contract.DryRunConflict{Code: "idempotency_conflict",
					Message: "this runId was already published with different content"})
			}
		}
		errs, err := resolveReferences(&r, tx)
		if err != nil {
			return err
		}
		if refused := invalid.Join(errs); refused != nil {
			return refused
		}
		if rep.CurrentRevision, err = WorkspaceRevision(tx); err != nil {
			return err
		}
		if rep.CurrentRevision != r.ExpectedRevision && !rep.Replay {
			rep.Conflicts = append(rep.Conflicts, contract.DryRunConflict{Code: "revision_conflict",
				Message: fmt.Sprintf("expectedRevision %d, current %d", r.ExpectedRevision, rep.CurrentRevision)})
		}
		return diff(&r, tx, rep.Changes)
	})
	if err != nil {
		return contract.DryRunReport{}, Classify("dry run", err)
	}
	rep.Valid = true
	return rep, nil
}

// diff counts, per collection, the published IDs that are new or stored.
func diff(r *contract.Result, tx *gorm.DB, out map[string]contract.CollectionDiff) error {
	ids := func(n int, id func(int) string) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = id(i)
		}
		return s
	}
	for _, c := range []struct {
		name, table string
		ids         []string
	}{
		{"sourceRefs", "source_refs", ids(len(r.SourceRefs), func(i int) string { return r.SourceRefs[i].ID })},
		{"people", "people", ids(len(r.People), func(i int) string { return r.People[i].ID })},
		{"activities", "activities", ids(len(r.Activities), func(i int) string { return r.Activities[i].ID })},
		{"replyDrafts", "reply_drafts", ids(len(r.ReplyDrafts), func(i int) string { return r.ReplyDrafts[i].ID })},
		{"reviews", "routine_reviews", ids(len(r.Reviews), func(i int) string { return r.Reviews[i].ID })},
	} {
		found, err := existing(tx, c.table, c.ids)
		if err != nil {
			return err
		}
		out[c.name] = contract.CollectionDiff{Created: len(c.ids) - len(found), Updated: len(found)}
	}
	defs := contract.CollectionDiff{}
	for _, d := range r.RoutineDefinitions {
		var n int64
		if err := tx.Table("routine_definitions").Where("routine_id = ? AND revision = ?", d.ID, d.Revision).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			defs.Updated++
		} else {
			defs.Created++
		}
	}
	out["routineDefinitions"] = defs
	if r.Brief != nil {
		out["brief"] = contract.CollectionDiff{Updated: 1}
	}
	out["retractions"] = contract.CollectionDiff{Updated: len(r.Retractions)}
	out["completedRequests"] = contract.CollectionDiff{Updated: len(r.CompletedRequests)}
	out["consumedObservations"] = contract.CollectionDiff{Updated: len(r.ConsumedObservations)}
	return nil
}
