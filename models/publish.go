package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/ids"
	"hearth/internal/strictjson"
)

// Publish applies one agent publication, as contract.DecodePublication
// decoded it, atomically. Replayed is true when an identical earlier
// publication's receipt is returned. Errors: *ValidationError (its shape
// errors and the references that resolve to nothing), ErrIdempotencyConflict,
// *RevisionConflictError; anything else is transient.
func (s *Store) Publish(ctx context.Context, publisher string, pub contract.Publication) (receipt contract.PublishReceipt, replayed bool, err error) {
	r, hash, invalid := pub.Result, pub.Hash, pub.Invalid
	_, err = s.commit(ctx, func(t *txn) error {
		// Replay is checked before validation and the revision so a retry
		// still succeeds after later edits. A runId that is not an ID was
		// never stored, so it cannot be a replay.
		var prior Receipt
		if ids.Valid(r.RunID) {
			if err := t.Where("publisher = ? AND run_id = ?", publisher, r.RunID).Limit(1).Find(&prior).Error; err != nil {
				return err
			}
		}
		if prior.RunID != "" {
			if prior.PayloadHash != hash {
				return contract.ErrIdempotencyConflict
			}
			receipt = contract.PublishReceipt{RunID: prior.RunID, Revision: prior.Revision, ReceivedAt: prior.ReceivedAt}
			replayed = true
			return nil
		}
		// References are resolved even when the shape is refused, so one
		// refusal names every problem.
		errs, err := resolveReferences(&r, t.DB)
		if err != nil {
			return err
		}
		if refused := invalid.Join(errs); refused != nil {
			return refused
		}
		current, err := WorkspaceRevision(t.DB)
		if err != nil {
			return err
		}
		if current != r.ExpectedRevision {
			return &contract.RevisionConflictError{Expected: r.ExpectedRevision, Current: current}
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		if err := apply(&r, t, publisher); err != nil {
			return err
		}
		t.touch("publication")
		rc := Receipt{Publisher: publisher, RunID: r.RunID, JobKey: r.JobKey, PayloadHash: hash, Revision: rev, ReceivedAt: t.now}
		if err := t.Create(&rc).Error; err != nil {
			return err
		}
		receipt = contract.PublishReceipt{RunID: r.RunID, Revision: rev, ReceivedAt: t.now}
		return nil
	})
	if err != nil {
		return contract.PublishReceipt{}, false, Classify("publish", err)
	}
	return receipt, replayed, nil
}

// Classify wraps storage failures with a layer prefix but leaves contract
// errors (which handlers map to 4xx) untouched.
func Classify(op string, err error) error {
	var invalid *contract.ValidationError
	var conflict *contract.RevisionConflictError
	switch {
	case errors.As(err, &invalid), errors.As(err, &conflict),
		errors.Is(err, contract.ErrIdempotencyConflict), errors.Is(err, ErrClientKeyConflict), errors.Is(err, ErrNotFound), errors.Is(err, ErrInvalidInput):
		return err
	}
	return fmt.Errorf("models: %s: %w", op, err)
}

// existing returns which of ids exist in table (column id).
func existing(tx *gorm.DB, table string, ids []string) (map[string]bool, error) {
	found := map[string]bool{}
	for chunk := range slices.Chunk(ids, 500) {
		var got []string
		if err := tx.Table(table).Where("id IN ?", chunk).Pluck("id", &got).Error; err != nil {
			return nil, err
		}
		for _, id := range got {
			found[id] = true
		}
	}
	return found, nil
}

type refCheck struct {
	path, id string
}

// resolveReferences checks every reference against this publication and
// stored rows: evidence, people, parents (routines, no cycles), drafts,
// retractions and completed requests.
func resolveReferences(r *contract.Result, tx *gorm.DB) ([]strictjson.FieldError, error) {
	v := &contract.Validator{}
	pubRefs := map[string]bool{}
	for _, s := range r.SourceRefs {
		pubRefs[s.ID] = true
	}
	pubPeople := map[string]bool{}
	for _, p := range r.People {
		pubPeople[p.ID] = true
	}
	pubDrafts := map[string]bool{}
	for _, d := range r.ReplyDrafts {
		pubDrafts[d.ID] = true
	}
	pubActs := map[string]*contract.ActivityIn{}
	for i := range r.Activities {
		pubActs[r.Activities[i].ID] = &r.Activities[i]
	}

	var evidence, people, drafts []refCheck
	addEvidence := func(path string, ids []string) {
		for i, id := range ids {
			if !pubRefs[id] {
				evidence = append(evidence, refCheck{fmt.Sprintf("%s/%d", path, i), id})
			}
		}
	}
	if r.Brief != nil {
		addEvidence("/brief/evidenceIds", r.Brief.EvidenceIDs)
	}
	for i, p := range r.People {
		addEvidence(fmt.Sprintf("/people/%d/evidenceIds", i), p.EvidenceIDs)
	}
	for i, a := range r.Activities {
		path := fmt.Sprintf("/activities/%d", i)
		addEvidence(path+"/evidenceIds", a.EvidenceIDs)
		if a.PersonID != nil && !pubPeople[*a.PersonID] {
			people = append(people, refCheck{path + "/personId", *a.PersonID})
		}
		if rp, ok := a.BoundPayload().(*contract.ReplyPayload); ok && !pubDrafts[rp.DraftID] {
			drafts = append(drafts, refCheck{path + "/payload/draftId", rp.DraftID})
		}
	}
	for i, d := range r.RoutineDefinitions {
		addEvidence(fmt.Sprintf("/routineDefinitions/%d/evidenceIds", i), d.EvidenceIDs)
	}
	for i, rv := range r.Reviews {
		addEvidence(fmt.Sprintf("/reviews/%d/evidenceIds", i), rv.EvidenceIDs)
	}
	for i, d := range r.ReplyDrafts {
		path := fmt.Sprintf("/replyDrafts/%d", i)
		addEvidence(path+"/evidenceIds", d.EvidenceIDs)
		if d.PersonID != nil && !pubPeople[*d.PersonID] {
			people = append(people, refCheck{path + "/personId", *d.PersonID})
		}
	}
	for _, check := range []struct {
		table, what string
		refs        []refCheck
	}{
		{"source_refs", "source ref", evidence},
		{"people", "person", people},
		{"reply_drafts", "reply draft", drafts},
	} {
		ids := make([]string, len(check.refs))
		for i, c := range check.refs {
			ids[i] = c.id
		}
		found, err := existing(tx, check.table, ids)
		if err != nil {
			return nil, err
		}
		for _, c := range check.refs {
			if !found[c.id] {
				v.Add(c.path, fmt.Sprintf("unknown %s %q: not in this publication nor stored earlier", check.what, c.id),
					fmt.Sprintf("the ID of a %s in this publication or stored earlier", check.what), contract.QuoteFound(c.id))
			}
		}
	}
	if err := resolveParents(r, tx, v, pubActs); err != nil {
		return nil, err
	}
	if err := resolveRetractions(r, tx, v, pubActs, pubDrafts); err != nil {
		return nil, err
	}
	if err := resolveCompletions(r, tx, v); err != nil {
		return nil, err
	}
	if err := resolveReplies(r, tx, v); err != nil {
		return nil, err
	}
	if err := resolveActedOn(r, tx, v); err != nil {
		return nil, err
	}
	if err := resolveRoutines(r, tx, v, pubRefs); err != nil {
		return nil, err
	}
	if err := resolveConsumed(r, tx, v); err != nil {
		return nil, err
	}
	if err := resolveOwnerItems(r, tx, v); err != nil {
		return nil, err
	}
	return v.Errs, nil
}

// resolveReplies holds the contract of one reply activity per draft: Home
// and Messages show the same reply, a send completes it, and a retraction
// of either withdraws both. So a draft named by two activities (here or
// stored and live), or a reply whose draft this publication retracts (or
// the reverse), is refused.
func resolveReplies(r *contract.Result, tx *gorm.DB, v *contract.Validator) error {
	retracted := map[string]bool{}
	for _, rt := range r.Retractions {
		retracted[rt.Kind+":"+rt.ID] = true
	}
	byDraft := map[string]string{}
	var drafts []string
	for i, a := range r.Activities {
		rp, ok := a.BoundPayload().(*contract.ReplyPayload)
		if !ok {
			continue
		}
		path := fmt.Sprintf("/activities/%d/payload/draftId", i)
		if other, ok := byDraft[rp.DraftID]; ok {
			v.Add(path, fmt.Sprintf("draft %q is already the reply of activity %q in this publication", rp.DraftID, other),
				"a draft no other reply activity names", contract.QuoteFound(rp.DraftID))
			continue
		}
		byDraft[rp.DraftID] = a.ID
		drafts = append(drafts, rp.DraftID)
		if retracted["replyDraft:"+rp.DraftID] {
			v.Add(path, fmt.Sprintf("draft %q is retracted in this publication, which withdraws its reply too", rp.DraftID),
				"a live draft", contract.QuoteFound(rp.DraftID))
		}
	}
	for i, d := range r.ReplyDrafts {
		var owners []string
		if err := tx.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", d.ID).Pluck("id", &owners).Error; err != nil {
			return err
		}
		for _, a := range owners {
			if retracted["activity:"+a] {
				v.Add(fmt.Sprintf("/replyDrafts/%d/id", i), fmt.Sprintf("draft %q is published while its reply activity %q is retracted, which withdraws the draft too", d.ID, a),
					"a draft whose reply stays live", contract.QuoteFound(d.ID))
			}
		}
	}
	for chunk := range slices.Chunk(drafts, 500) {
		var rows []struct{ ID, DraftID string }
		if err := tx.Model(&Activity{}).Select("id, draft_id").Where("draft_id IN ? AND retracted_at IS NULL", chunk).Scan(&rows).Error; err != nil {
			return err
		}
		for _, row := range rows {
			if mine := byDraft[row.DraftID]; mine != row.ID && !retracted["activity:"+row.ID] {
				i := slices.IndexFunc(r.Activities, func(a contract.ActivityIn) bool { return a.ID == mine })
				v.Add(fmt.Sprintf("/activities/%d/payload/draftId", i), fmt.Sprintf("draft %q is already the reply of stored activity %q", row.DraftID, row.ID),
					"a draft no other live reply activity names (retract the other first)", contract.QuoteFound(row.DraftID))
			}
		}
	}
	return nil
}

// resolveActedOn refuses a re-publication that would change the identity
// of an activity the owner has acted on (a decision, a measurement, a
// send): its kind, occurrenceKey and parentId. The owner's record must keep
// meaning what it meant; a changed activity needs a new ID.
func resolveActedOn(r *contract.Result, tx *gorm.DB, v *contract.Validator) error {
	ids := make([]string, len(r.Activities))
	for i, a := range r.Activities {
		ids[i] = a.ID
	}
	stored := map[string]Activity{}
	for chunk := range slices.Chunk(ids, 500) {
		var rows []Activity
		// The parentheses are ours: GORM did not add them to this multi-line
		// OR, and without them SQLite scanned every activity ever published.
		err := tx.Select("id, kind, occurrence_key, parent_id").Where("id IN ?", chunk).Where(
			`(EXISTS (SELECT 1 FROM activity_states s WHERE s.activity_id = activities.id)
			OR EXISTS (SELECT 1 FROM measurements m WHERE m.activity_id = activities.id)
			OR EXISTS (SELECT 1 FROM sends d WHERE d.activity_id = activities.id))`).Find(&rows).Error
		if err != nil {
			return err
		}
		for _, a := range rows {
			stored[a.ID] = a
		}
	}
	for i, a := range r.Activities {
		old, ok := stored[a.ID]
		if !ok {
			continue
		}
		path := fmt.Sprintf("/activities/%d", i)
		fixed := func(field, was, now string) {
			if was != now {
				v.Add(path+"/"+field, fmt.Sprintf("the owner has acted on %q, so its %s stays %q; publish a new ID for a different one", a.ID, field, was),
					contract.QuoteFound(was), contract.QuoteFound(now))
			}
		}
		fixed("kind", old.Kind, a.Kind)
		fixed("occurrenceKey", old.OccurrenceKey, deref(a.OccurrenceKey))
		fixed("parentId", deref(old.ParentID), deref(a.ParentID))
	}
	return nil
}

type storedParent struct {
	ID       string
	Kind     string
	ParentID *string
}

// resolveParents checks each parentId names a routine and that following
// parents from any published activity never returns to it.
func resolveParents(r *contract.Result, tx *gorm.DB, v *contract.Validator, pub map[string]*contract.ActivityIn) error {
	stored := map[string]storedParent{}
	lookup := func(id string) (kind string, parent *string, ok bool, err error) {
		if a, ok := pub[id]; ok {
			return a.Kind, a.ParentID, true, nil
		}
		if s, ok := stored[id]; ok {
			return s.Kind, s.ParentID, true, nil
		}
		var rows []storedParent
		if err := tx.Model(&Activity{}).Select("id, kind, parent_id").Where("id = ?", id).Find(&rows).Error; err != nil {
			return "", nil, false, err
		}
		if len(rows) == 0 {
			return "", nil, false, nil
		}
		stored[id] = rows[0]
		return rows[0].Kind, rows[0].ParentID, true, nil
	}
	for i, a := range r.Activities {
		if a.ParentID == nil || *a.ParentID == a.ID {
			continue
		}
		path := fmt.Sprintf("/activities/%d/parentId", i)
		kind, _, ok, err := lookup(*a.ParentID)
		if err != nil {
			return err
		}
		if !ok {
			v.Add(path, fmt.Sprintf("unknown activity %q: not in this publication nor stored earlier", *a.ParentID),
				"the ID of a routine activity", contract.QuoteFound(*a.ParentID))
			continue
		}
		if kind != contract.KindRoutine {
			v.Add(path, fmt.Sprintf("parent %q is a %s, not a routine", *a.ParentID, kind), "the ID of a routine activity", contract.QuoteFound(*a.ParentID))
			continue
		}
		seen := map[string]bool{a.ID: true}
		for cur := a.ParentID; cur != nil; {
			if seen[*cur] {
				v.Add(path, fmt.Sprintf("parent chain of %q loops back through %q", a.ID, *cur), "a parent chain without cycles", contract.QuoteFound(*a.ParentID))
				break
			}
			seen[*cur] = true
			_, next, ok, err := lookup(*cur)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			cur = next
		}
	}
	return nil
}

func resolveRetractions(r *contract.Result, tx *gorm.DB, v *contract.Validator, acts map[string]*contract.ActivityIn, drafts map[string]bool) error {
	var actIDs, draftIDs []string
	for _, rt := range r.Retractions {
		if rt.Kind == "activity" {
			actIDs = append(actIDs, rt.ID)
		} else {
			draftIDs = append(draftIDs, rt.ID)
		}
	}
	foundActs, err := existing(tx, "activities", actIDs)
	if err != nil {
		return err
	}
	foundDrafts, err := existing(tx, "reply_drafts", draftIDs)
	if err != nil {
		return err
	}
	for i, rt := range r.Retractions {
		path := fmt.Sprintf("/retractions/%d/id", i)
		inPub, found := acts[rt.ID] != nil, foundActs[rt.ID]
		what := "activity"
		if rt.Kind == "replyDraft" {
			inPub, found, what = drafts[rt.ID], foundDrafts[rt.ID], "reply draft"
		}
		switch {
		case inPub:
			v.Add(path, fmt.Sprintf("%s %q is both published and retracted here", what, rt.ID), "an ID not upserted in the same publication", contract.QuoteFound(rt.ID))
		case !found:
			v.Add(path, fmt.Sprintf("unknown %s %q: nothing to retract", what, rt.ID), fmt.Sprintf("the ID of a stored %s", what), contract.QuoteFound(rt.ID))
		}
	}
	return nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain values are marshalled here
	}
	return string(b)
}

func evidenceText(ids []string) string {
	if ids == nil {
		ids = []string{}
	}
	return jsonText(ids)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// rowsPerStatement sizes multi-row upserts. The driver prepares a statement
// on every Exec and binds arguments in O(n²), so one statement per row and
// one statement for all rows are both slow; BenchmarkPublish100Activities
// measured this size as the fastest.
const rowsPerStatement = 20

// execRows runs an upsert whose query has one "(?, ...)" VALUES tuple
// (marked by the VALUES_ROWS placeholder) for many rows, several rows per
// statement. It goes to the transaction's connection directly: GORM's Exec
// walked the SQL and wrapped each of the hundreds of arguments, half of a
// publication's garbage (make bench).
func execRows(tx *gorm.DB, query string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(rows[0])), ", ") + ")"
	full := "" // the query for a whole chunk, built once
	args := make([]any, 0, min(len(rows), rowsPerStatement)*len(rows[0]))
	for chunk := range slices.Chunk(rows, rowsPerStatement) {
		q := full
		if q == "" || len(chunk) < rowsPerStatement {
			q = strings.Replace(query, "VALUES_ROWS", strings.TrimSuffix(strings.Repeat(tuple+", ", len(chunk)), ", "), 1)
			if len(chunk) == rowsPerStatement {
				full = q
			}
		}
		args = args[:0]
		for _, r := range chunk {
			args = append(args, r...)
		}
		if _, err := tx.Statement.ConnPool.ExecContext(tx.Statement.Context, q, args...); err != nil {
			return err
		}
	}
	return nil
}

// nullable maps an absent optional ID to SQL NULL.
func nullable(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

const (
	upsertSourceRef = `INSERT INTO source_refs (id, kind, path, content_hash, account_id, chat_id, message_id, target_id, observed_at, revision)
		VALUES VALUES_ROWS
		ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, path = excluded.path, content_hash = excluded.content_hash,
			account_id = excluded.account_id, chat_id = excluded.chat_id, message_id = excluded.message_id,
			target_id = excluded.target_id, observed_at = excluded.observed_at, revision = excluded.revision`
	upsertPerson = `INSERT INTO people (id, name, context, evidence_ids, revision, created_at, updated_at) VALUES VALUES_ROWS
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, context = excluded.context, evidence_ids = excluded.evidence_ids,
			revision = excluded.revision, updated_at = excluded.updated_at`
	// A re-published draft is live again (unsettled, unless its reply went
	// out: that stays settled); the owner's edit stays in draft_edits.
	upsertDraft = `INSERT INTO reply_drafts (id, person_id, account_id, chat_id, reply_to_message_id, source_message_revision, reason,
			candidates, evidence_ids, revision, created_at, updated_at, publisher, published_run_id) VALUES VALUES_ROWS
		ON CONFLICT (id) DO UPDATE SET person_id = excluded.person_id, account_id = excluded.account_id, chat_id = excluded.chat_id,
			reply_to_message_id = excluded.reply_to_message_id, source_message_revision = excluded.source_message_revision,
			reason = excluded.reason, candidates = excluded.candidates, evidence_ids = excluded.evidence_ids,
			revision = excluded.revision, updated_at = excluded.updated_at, retracted_at = NULL, retract_reason = '',
			settled_at = (SELECT MAX(s.updated_at) FROM sends s WHERE s.draft_id = excluded.id AND s.status = 'sent')`
	// Re-publishing withdraws a retraction; closed_at then follows the owner's
	// state alone (completed, skipped, dismissed), which a publication never writes.
	upsertActivity = `INSERT INTO activities (id, kind, title, detail, person_id, parent_id, draft_id, occurrence_key, section, rank,
			reason, payload, evidence_ids, revision, created_at, updated_at, publisher, published_run_id) VALUES VALUES_ROWS
		ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, title = excluded.title, detail = excluded.detail,
			person_id = excluded.person_id, parent_id = excluded.parent_id, draft_id = excluded.draft_id,
			occurrence_key = excluded.occurrence_key, section = excluded.section, rank = excluded.rank, reason = excluded.reason,
			payload = excluded.payload, evidence_ids = excluded.evidence_ids, revision = excluded.revision,
			updated_at = excluded.updated_at, retracted_at = NULL, retract_reason = '',
			closed_at = (SELECT s.updated_at FROM activity_states s WHERE s.activity_id = activities.id
				AND s.state IN ('completed', 'partial', 'skipped', 'dismissed'))`
)

// apply writes the publication inside t at the revision t bumped and
// touches what it changed. It never writes owner-owned tables. A new
// activity or draft records publisher and r's run as the publication that
// first published it (what a run's work became, run_fates.go); the
// upserts never change that on a re-publication.
func apply(r *contract.Result, t *txn, publisher string) error {
	tx, rev, now := t.DB, t.rev, t.now
	rows := make([][]any, 0, len(r.SourceRefs))
	for _, s := range r.SourceRefs {
		observed, _ := time.Parse(time.RFC3339Nano, s.ObservedAt)
		rows = append(rows, []any{s.ID, s.Kind, deref(s.Path), deref(s.ContentHash), deref(s.AccountID), deref(s.ChatID),
			deref(s.MessageID), deref(s.TargetID), observed.UTC(), rev})
	}
	if err := execRows(tx, upsertSourceRef, rows); err != nil {
		return err
	}
	if b := r.Brief; b != nil {
		row := Brief{ID: 1, Date: b.Date, TimeZone: b.TimeZone, Text: b.Text, EvidenceIDs: evidenceText(b.EvidenceIDs), Revision: rev, UpdatedAt: now}
		if err := tx.Save(&row).Error; err != nil {
			return err
		}
		t.read = false // the owner's day is read anew from this brief
		t.touch("brief")
	}
	rows = rows[:0]
	for _, p := range r.People {
		rows = append(rows, []any{p.ID, p.Name, p.Context, evidenceText(p.EvidenceIDs), rev, now, now})
		t.touch("person:" + p.ID)
	}
	if err := execRows(tx, upsertPerson, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, d := range r.ReplyDrafts {
		rows = append(rows, []any{d.ID, nullable(d.PersonID), d.AccountID, d.ChatID, deref(d.ReplyToMessageID), d.SourceMessageRevision,
			d.Reason, jsonText(d.Candidates), evidenceText(d.EvidenceIDs), rev, now, now, publisher, r.RunID})
		t.touch("draft:" + d.ID)
	}
	if err := execRows(tx, upsertDraft, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, a := range r.Activities {
		var draftID any
		if rp, ok := a.BoundPayload().(*contract.ReplyPayload); ok {
			draftID = rp.DraftID
		}
		var section, reason string
		var rank int64
		if rec := a.Recommendation; rec != nil {
			section, rank, reason = rec.Section, rec.Rank, deref(rec.Reason)
		}
		rows = append(rows, []any{a.ID, a.Kind, a.Title, deref(a.Detail), nullable(a.PersonID), nullable(a.ParentID), draftID,
			deref(a.OccurrenceKey), section, rank, reason, jsonText(a.BoundPayload()), evidenceText(a.EvidenceIDs), rev, now, now, publisher, r.RunID})
		t.touch("activity:" + a.ID)
	}
	if err := execRows(tx, upsertActivity, rows); err != nil {
		return err
	}
	for _, rt := range r.Retractions {
		table, prefix := "activities", "activity:"
		updates := map[string]any{"retracted_at": now, "retract_reason": deref(rt.Reason), "revision": rev, "updated_at": now}
		if rt.Kind == "replyDraft" {
			table, prefix = "reply_drafts", "draft:"
			updates["settled_at"] = now
		} else {
			updates["closed_at"] = gorm.Expr("COALESCE(closed_at, ?)", now)
		}
		if err := tx.Table(table).Where("id = ?", rt.ID).Updates(updates).Error; err != nil {
			return err
		}
		t.touch(prefix + rt.ID)
		// A draft and its reply activity leave Home and Messages together.
		var linked []string
		if rt.Kind == "replyDraft" {
			if err := tx.Model(&Activity{}).Where("draft_id = ? AND retracted_at IS NULL", rt.ID).Pluck("id", &linked).Error; err != nil {
				return err
			}
			if err := tx.Model(&Activity{}).Where("id IN ?", linked).Updates(map[string]any{"retracted_at": now, "retract_reason": "its draft was retracted",
				"revision": rev, "updated_at": now, "closed_at": gorm.Expr("COALESCE(closed_at, ?)", now)}).Error; err != nil {
				return err
			}
			for _, id := range linked {
				t.touch("activity:" + id)
			}
			continue
		}
		if err := tx.Model(&Activity{}).Where("id = ? AND draft_id IS NOT NULL", rt.ID).Pluck("draft_id", &linked).Error; err != nil {
			return err
		}
		if err := tx.Model(&ReplyDraft{}).Where("id IN ? AND retracted_at IS NULL", linked).Updates(map[string]any{"retracted_at": now,
			"retract_reason": "its reply activity was retracted", "revision": rev, "updated_at": now, "settled_at": now}).Error; err != nil {
			return err
		}
		for _, id := range linked {
			t.touch("draft:" + id)
		}
	}
	if err := completeRequests(r, t); err != nil {
		return err
	}
	if err := applyRoutines(r, t); err != nil {
		return err
	}
	return consumeObservations(r, t)
}

func decodeJSON(text string, v any) error {
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return fmt.Errorf("stored JSON: %w", err)
	}
	return nil
}
