package models

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// immutableHash fingerprints what a revision may never change: everything
// but its status and evidence (catalog metadata the agent may update).
func immutableHash(d *contract.RoutineDefinitionIn) string {
	steps := make([]map[string]any, len(d.Steps))
	for i, s := range d.Steps {
		steps[i] = map[string]any{"id": s.ID, "title": s.Title, "kind": s.Kind, "required": s.Required, "payload": s.BoundPayload()}
	}
	sum := sha256.Sum256([]byte(jsonText(map[string]any{"title": d.Title, "purpose": d.Purpose, "trigger": d.Trigger,
		"steps": steps, "rule": d.CompletionRule})))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// resolveRoutines checks routine references: evidence (life refs with a
// hash among them, so an imported routine cites its source), revisions that
// would change a stored one, and reviews naming a known routine revision.
func resolveRoutines(r *contract.Result, tx *gorm.DB, v *contract.Validator, pubRefs map[string]bool) error {
	refs := map[string]contract.SourceRefIn{}
	for _, s := range r.SourceRefs {
		refs[s.ID] = s
	}
	pubRevs := map[string]bool{}
	for i := range r.RoutineDefinitions {
		d := &r.RoutineDefinitions[i]
		path := fmt.Sprintf("/routineDefinitions/%d", i)
		pubRevs[fmt.Sprintf("%s@%d", d.ID, d.Revision)] = true
		lifeWithHash := slices.ContainsFunc(d.EvidenceIDs, func(id string) bool {
			ref, ok := refs[id]
			return ok && ref.Kind == "life" && ref.ContentHash != nil
		})
		if !lifeWithHash {
			var n int64
			if err := tx.Model(&SourceRef{}).Where("id IN ? AND kind = 'life' AND content_hash != ''", d.EvidenceIDs).Count(&n).Error; err != nil {
				return err
			}
			if n == 0 {
				v.Add(path+"/evidenceIds", "a routine definition cites the life file it was imported from",
					"at least one life source ref with a contentHash", fmt.Sprintf("%d refs, none a hashed life ref", len(d.EvidenceIDs)))
			}
		}
		var stored []string
		if err := tx.Table("routine_definitions").Where("routine_id = ? AND revision = ?", d.ID, d.Revision).Pluck("content_hash", &stored).Error; err != nil {
			return err
		}
		if len(stored) == 1 && stored[0] != immutableHash(d) {
			v.Add(path+"/revision", fmt.Sprintf("revision %d of %q is stored with other content; a new revision never overwrites an old one", d.Revision, d.ID),
				"a new revision number, or this revision unchanged (status and evidence may change)", fmt.Sprint(d.Revision))
		}
	}
	for i, rv := range r.Reviews {
		if pubRevs[fmt.Sprintf("%s@%d", rv.RoutineID, rv.Revision)] {
			continue
		}
		var n int64
		if err := tx.Table("routine_definitions").Where("routine_id = ? AND revision = ?", rv.RoutineID, rv.Revision).Count(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			v.Add(fmt.Sprintf("/reviews/%d/revision", i), fmt.Sprintf("unknown routine revision %s@%d", rv.RoutineID, rv.Revision),
				"a routine revision in this publication or stored earlier", fmt.Sprint(rv.Revision))
		}
	}
	return nil
}

const upsertRoutineDefinition = `INSERT INTO routine_definitions (routine_id, revision, title, purpose, trigger_kind, trigger_days,
		trigger_event, time_of_day, steps, completion_rule, status, evidence_ids, content_hash, published_revision, created_at, updated_at)
	VALUES VALUES_ROWS
	ON CONFLICT (routine_id, revision) DO UPDATE SET status = excluded.status, evidence_ids = excluded.evidence_ids,
		published_revision = excluded.published_revision, updated_at = excluded.updated_at`

const upsertReview = `INSERT INTO routine_reviews (id, routine_id, revision, window_from, window_to, observations, uncertainties,
		proposals, evidence_ids, metrics, published_revision, created_at, updated_at)
	VALUES VALUES_ROWS
	ON CONFLICT (id) DO UPDATE SET routine_id = excluded.routine_id, revision = excluded.revision, window_from = excluded.window_from,
		window_to = excluded.window_to, observations = excluded.observations, uncertainties = excluded.uncertainties,
		proposals = excluded.proposals, evidence_ids = excluded.evidence_ids, metrics = excluded.metrics,
		published_revision = excluded.published_revision, updated_at = excluded.updated_at`

// applyRoutines stores definitions and reviews; each review keeps the
// counts hearth computed for its window when it arrived.
func applyRoutines(r *contract.Result, t *txn) error {
	tx, rev, now := t.DB, t.rev, t.now
	rows := make([][]any, 0, len(r.RoutineDefinitions))
	for i := range r.RoutineDefinitions {
		d := &r.RoutineDefinitions[i]
		steps := make([]contract.RoutineStep, len(d.Steps))
		for j, s := range d.Steps {
			steps[j] = contract.RoutineStep{ID: s.ID, Title: s.Title, Kind: s.Kind, Required: s.Required, Payload: []byte(jsonText(s.BoundPayload()))}
		}
		var event, timeOfDay string
		if d.Trigger.Event != nil {
			event = *d.Trigger.Event
		}
		if d.Trigger.TimeOfDay != nil {
			timeOfDay = *d.Trigger.TimeOfDay
		}
		days := d.Trigger.Days
		if days == nil {
			days = []int{}
		}
		rows = append(rows, []any{d.ID, d.Revision, d.Title, d.Purpose, d.Trigger.Kind, jsonText(days), event, timeOfDay,
			jsonText(steps), jsonText(d.CompletionRule), d.Status, evidenceText(d.EvidenceIDs), immutableHash(d), rev, now, now})
		t.touch("routine:" + d.ID)
	}
	if err := execRows(tx, upsertRoutineDefinition, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, rv := range r.Reviews {
		m, err := RoutineMetrics(tx, rv.RoutineID, rv.Revision, rv.Window.From, rv.Window.To, now)
		if err != nil {
			return err
		}
		rows = append(rows, []any{rv.ID, rv.RoutineID, rv.Revision, rv.Window.From, rv.Window.To, jsonText(nonNil(rv.Observations)),
			jsonText(nonNil(rv.Uncertainties)), jsonText(rv.Proposals), evidenceText(rv.EvidenceIDs), jsonText(m), rev, now, now})
		t.touch("routine:" + rv.RoutineID)
	}
	return execRows(tx, upsertReview, rows)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
