package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hearth/models/strictjson"
)

// Publication errors.
var (
	// ErrIdempotencyConflict means the runId was used with a different payload.
	ErrIdempotencyConflict = errors.New("idempotency conflict")
)

// RevisionConflictError means expectedRevision was stale.
type RevisionConflictError struct{ Expected, Current int64 }

func (e *RevisionConflictError) Error() string {
	return fmt.Sprintf("revision conflict: expected %d, current %d", e.Expected, e.Current)
}

// PublishReceipt acknowledges an accepted publication.
type PublishReceipt struct {
	RunID      string    `json:"runId"`
	Revision   int64     `json:"revision"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// Publish validates and applies one agent publication atomically. Replayed
// is true when an identical earlier publication's receipt is returned.
// Errors: *strictjson.SyntaxError, *ValidationError, ErrIdempotencyConflict,
// *RevisionConflictError; anything else is transient.
func (s *Store) Publish(ctx context.Context, publisher string, body []byte) (receipt PublishReceipt, replayed bool, err error) {
	r, parseErr := ParseResult(body)
	var syntax *strictjson.SyntaxError
	if errors.As(parseErr, &syntax) {
		return PublishReceipt{}, false, parseErr
	}
	hash, err := strictjson.Hash(body)
	if err != nil {
		return PublishReceipt{}, false, &strictjson.SyntaxError{Msg: err.Error()}
	}
	// A shape error without a readable runId cannot be a replay.
	if parseErr != nil && !idPattern.MatchString(r.RunID) {
		return PublishReceipt{}, false, parseErr
	}
	var invalid *ValidationError
	if parseErr != nil {
		invalid = parseErr.(*ValidationError)
	} else {
		v := &validator{}
		r.validateShape(v)
		if len(v.errs) > 0 {
			invalid = &ValidationError{Errors: v.errs}
		}
	}

	var changed []string
	err = s.write(ctx, func(tx *gorm.DB) error {
		// Replay is checked before validation and the revision so a retry
		// still succeeds after later edits.
		var prior Receipt
		err := tx.Where("publisher = ? AND run_id = ?", publisher, r.RunID).Limit(1).Find(&prior).Error
		if err != nil {
			return err
		}
		if prior.RunID != "" {
			if prior.PayloadHash != hash {
				return ErrIdempotencyConflict
			}
			receipt = PublishReceipt{RunID: prior.RunID, Revision: prior.Revision, ReceivedAt: prior.ReceivedAt}
			replayed = true
			return nil
		}
		if invalid != nil {
			return invalid
		}
		if errs, err := r.resolveReferences(tx); err != nil {
			return err
		} else if len(errs) > 0 {
			return &ValidationError{Errors: errs}
		}
		var current int64
		if err := tx.Raw("SELECT revision FROM workspace WHERE id = 1").Scan(&current).Error; err != nil {
			return err
		}
		if current != r.ExpectedRevision {
			return &RevisionConflictError{Expected: r.ExpectedRevision, Current: current}
		}
		now := s.clock()
		rev, err := bumpRevision(tx, now)
		if err != nil {
			return err
		}
		changed, err = r.apply(tx, rev, now)
		if err != nil {
			return err
		}
		rc := Receipt{Publisher: publisher, RunID: r.RunID, JobKey: r.JobKey, PayloadHash: hash, Revision: rev, ReceivedAt: now}
		if err := tx.Create(&rc).Error; err != nil {
			return err
		}
		receipt = PublishReceipt{RunID: r.RunID, Revision: rev, ReceivedAt: now}
		return nil
	})
	if err != nil {
		return PublishReceipt{}, false, classify("publish", err)
	}
	if !replayed {
		s.notify(receipt.Revision, changed)
	}
	return receipt, replayed, nil
}

// classify wraps storage failures with a layer prefix but leaves contract
// errors (which handlers map to 4xx) untouched.
func classify(op string, err error) error {
	var invalid *ValidationError
	var conflict *RevisionConflictError
	switch {
	case errors.As(err, &invalid), errors.As(err, &conflict),
		errors.Is(err, ErrIdempotencyConflict), errors.Is(err, ErrNotFound), errors.Is(err, ErrInvalidInput):
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
func (r *Result) resolveReferences(tx *gorm.DB) ([]strictjson.FieldError, error) {
	v := &validator{}
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
	pubActs := map[string]*ActivityIn{}
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
		if rp, ok := a.payload.(*ReplyPayload); ok && !pubDrafts[rp.DraftID] {
			drafts = append(drafts, refCheck{path + "/payload/draftId", rp.DraftID})
		}
	}
	for i, d := range r.ReplyDrafts {
		path := fmt.Sprintf("/replyDrafts/%d", i)
		addEvidence(path+"/evidenceIds", d.EvidenceIDs)
		if d.PersonID != nil && !pubPeople[*d.PersonID] {
			people = append(people, refCheck{path + "/personId", *d.PersonID})
		}
	}
	for i, c := range r.CompletedRequests {
		addEvidence(fmt.Sprintf("/completedRequests/%d/sourceRefIds", i), c.SourceRefIDs)
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
				v.add(c.path, fmt.Sprintf("unknown %s %q: not in this publication nor stored earlier", check.what, c.id),
					fmt.Sprintf("the ID of a %s in this publication or stored earlier", check.what), quoteFound(c.id))
			}
		}
	}
	if err := r.resolveParents(tx, v, pubActs); err != nil {
		return nil, err
	}
	if err := r.resolveRetractions(tx, v, pubActs, pubDrafts); err != nil {
		return nil, err
	}
	for i, c := range r.CompletedRequests {
		// The request inbox does not exist yet, so no request can be completed.
		v.add(fmt.Sprintf("/completedRequests/%d/requestId", i), fmt.Sprintf("unknown request %q", c.RequestID),
			"the ID of a pending owner request", quoteFound(c.RequestID))
	}
	return v.errs, nil
}

type storedParent struct {
	ID       string
	Kind     string
	ParentID *string
}

// resolveParents checks each parentId names a routine and that following
// parents from any published activity never returns to it.
func (r *Result) resolveParents(tx *gorm.DB, v *validator, pub map[string]*ActivityIn) error {
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
			v.add(path, fmt.Sprintf("unknown activity %q: not in this publication nor stored earlier", *a.ParentID),
				"the ID of a routine activity", quoteFound(*a.ParentID))
			continue
		}
		if kind != KindRoutine {
			v.add(path, fmt.Sprintf("parent %q is a %s, not a routine", *a.ParentID, kind), "the ID of a routine activity", quoteFound(*a.ParentID))
			continue
		}
		seen := map[string]bool{a.ID: true}
		for cur := a.ParentID; cur != nil; {
			if seen[*cur] {
				v.add(path, fmt.Sprintf("parent chain of %q loops back through %q", a.ID, *cur), "a parent chain without cycles", quoteFound(*a.ParentID))
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

func (r *Result) resolveRetractions(tx *gorm.DB, v *validator, acts map[string]*ActivityIn, drafts map[string]bool) error {
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
			v.add(path, fmt.Sprintf("%s %q is both published and retracted here", what, rt.ID), "an ID not upserted in the same publication", quoteFound(rt.ID))
		case !found:
			v.add(path, fmt.Sprintf("unknown %s %q: nothing to retract", what, rt.ID), fmt.Sprintf("the ID of a stored %s", what), quoteFound(rt.ID))
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

func upsert(tx *gorm.DB, rows any, columns ...string) error {
	return tx.Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "id"}},
		DoUpdates: clause.AssignmentColumns(columns),
	}).Create(rows).Error
}

// apply writes the publication at revision rev and returns what changed.
// It never touches owner-owned tables.
func (r *Result) apply(tx *gorm.DB, rev int64, now time.Time) ([]string, error) {
	var changed []string
	if len(r.SourceRefs) > 0 {
		rows := make([]SourceRef, len(r.SourceRefs))
		for i, s := range r.SourceRefs {
			observed, _ := time.Parse(time.RFC3339Nano, s.ObservedAt)
			rows[i] = SourceRef{ID: s.ID, Kind: s.Kind, Path: deref(s.Path), ContentHash: deref(s.ContentHash),
				AccountID: deref(s.AccountID), ChatID: deref(s.ChatID), MessageID: deref(s.MessageID), TargetID: deref(s.TargetID),
				ObservedAt: observed.UTC(), Revision: rev}
		}
		if err := upsert(tx, rows, "kind", "path", "content_hash", "account_id", "chat_id", "message_id", "target_id", "observed_at", "revision"); err != nil {
			return nil, err
		}
	}
	if b := r.Brief; b != nil {
		row := Brief{ID: 1, Date: b.Date, TimeZone: b.TimeZone, Text: b.Text, EvidenceIDs: evidenceText(b.EvidenceIDs), Revision: rev, UpdatedAt: now}
		if err := tx.Save(&row).Error; err != nil {
			return nil, err
		}
		changed = append(changed, "brief")
	}
	if len(r.People) > 0 {
		rows := make([]Person, len(r.People))
		for i, p := range r.People {
			rows[i] = Person{ID: p.ID, Name: p.Name, Context: p.Context, EvidenceIDs: evidenceText(p.EvidenceIDs), Revision: rev, CreatedAt: now, UpdatedAt: now}
			changed = append(changed, "person:"+p.ID)
		}
		if err := upsert(tx, rows, "name", "context", "evidence_ids", "revision", "updated_at"); err != nil {
			return nil, err
		}
	}
	if len(r.ReplyDrafts) > 0 {
		rows := make([]ReplyDraft, len(r.ReplyDrafts))
		for i, d := range r.ReplyDrafts {
			rows[i] = ReplyDraft{ID: d.ID, PersonID: d.PersonID, AccountID: d.AccountID, ChatID: d.ChatID,
				ReplyToMessageID: deref(d.ReplyToMessageID), SourceMessageRevision: d.SourceMessageRevision, Reason: d.Reason,
				Candidates: jsonText(d.Candidates), EvidenceIDs: evidenceText(d.EvidenceIDs), Revision: rev, CreatedAt: now, UpdatedAt: now}
			changed = append(changed, "draft:"+d.ID)
		}
		// A re-published draft is live again; the owner's edit stays in draft_edits.
		if err := tx.Clauses(clause.OnConflict{
			Columns: []clause.Column{{Name: "id"}},
			DoUpdates: clause.Set{
				{Column: clause.Column{Name: "person_id"}, Value: gorm.Expr("excluded.person_id")},
				{Column: clause.Column{Name: "account_id"}, Value: gorm.Expr("excluded.account_id")},
				{Column: clause.Column{Name: "chat_id"}, Value: gorm.Expr("excluded.chat_id")},
				{Column: clause.Column{Name: "reply_to_message_id"}, Value: gorm.Expr("excluded.reply_to_message_id")},
				{Column: clause.Column{Name: "source_message_revision"}, Value: gorm.Expr("excluded.source_message_revision")},
				{Column: clause.Column{Name: "reason"}, Value: gorm.Expr("excluded.reason")},
				{Column: clause.Column{Name: "candidates"}, Value: gorm.Expr("excluded.candidates")},
				{Column: clause.Column{Name: "evidence_ids"}, Value: gorm.Expr("excluded.evidence_ids")},
				{Column: clause.Column{Name: "revision"}, Value: gorm.Expr("excluded.revision")},
				{Column: clause.Column{Name: "updated_at"}, Value: gorm.Expr("excluded.updated_at")},
				{Column: clause.Column{Name: "retracted_at"}, Value: nil},
				{Column: clause.Column{Name: "retract_reason"}, Value: ""},
			},
		}).Create(&rows).Error; err != nil {
			return nil, err
		}
	}
	if len(r.Activities) > 0 {
		rows := make([]Activity, len(r.Activities))
		for i, a := range r.Activities {
			row := Activity{ID: a.ID, Kind: a.Kind, Title: a.Title, Detail: deref(a.Detail), PersonID: a.PersonID, ParentID: a.ParentID,
				OccurrenceKey: deref(a.OccurrenceKey), Payload: jsonText(a.payload), EvidenceIDs: evidenceText(a.EvidenceIDs),
				Revision: rev, CreatedAt: now, UpdatedAt: now}
			if rp, ok := a.payload.(*ReplyPayload); ok {
				row.DraftID = &rp.DraftID
			}
			if rec := a.Recommendation; rec != nil {
				row.Section, row.Rank, row.Reason = rec.Section, rec.Rank, deref(rec.Reason)
			}
			rows[i] = row
			changed = append(changed, "activity:"+a.ID)
		}
		// Re-publishing withdraws a retraction, but a closed_at the owner set
		// (completed, skipped, dismissed) is recomputed from the owner's state.
		if err := tx.Clauses(clause.OnConflict{
			Columns: []clause.Column{{Name: "id"}},
			DoUpdates: clause.Set{
				{Column: clause.Column{Name: "kind"}, Value: gorm.Expr("excluded.kind")},
				{Column: clause.Column{Name: "title"}, Value: gorm.Expr("excluded.title")},
				{Column: clause.Column{Name: "detail"}, Value: gorm.Expr("excluded.detail")},
				{Column: clause.Column{Name: "person_id"}, Value: gorm.Expr("excluded.person_id")},
				{Column: clause.Column{Name: "parent_id"}, Value: gorm.Expr("excluded.parent_id")},
				{Column: clause.Column{Name: "draft_id"}, Value: gorm.Expr("excluded.draft_id")},
				{Column: clause.Column{Name: "occurrence_key"}, Value: gorm.Expr("excluded.occurrence_key")},
				{Column: clause.Column{Name: "section"}, Value: gorm.Expr("excluded.section")},
				{Column: clause.Column{Name: "rank"}, Value: gorm.Expr("excluded.rank")},
				{Column: clause.Column{Name: "reason"}, Value: gorm.Expr("excluded.reason")},
				{Column: clause.Column{Name: "payload"}, Value: gorm.Expr("excluded.payload")},
				{Column: clause.Column{Name: "evidence_ids"}, Value: gorm.Expr("excluded.evidence_ids")},
				{Column: clause.Column{Name: "revision"}, Value: gorm.Expr("excluded.revision")},
				{Column: clause.Column{Name: "updated_at"}, Value: gorm.Expr("excluded.updated_at")},
				{Column: clause.Column{Name: "retracted_at"}, Value: nil},
				{Column: clause.Column{Name: "retract_reason"}, Value: ""},
				{Column: clause.Column{Name: "closed_at"}, Value: gorm.Expr(
					"(SELECT s.updated_at FROM activity_states s WHERE s.activity_id = activities.id AND s.state IN ('completed', 'skipped', 'dismissed'))")},
			},
		}).Create(&rows).Error; err != nil {
			return nil, err
		}
	}
	for _, rt := range r.Retractions {
		table, prefix := "activities", "activity:"
		updates := map[string]any{"retracted_at": now, "retract_reason": deref(rt.Reason), "revision": rev, "updated_at": now}
		if rt.Kind == "replyDraft" {
			table, prefix = "reply_drafts", "draft:"
		} else {
			updates["closed_at"] = gorm.Expr("COALESCE(closed_at, ?)", now)
		}
		if err := tx.Table(table).Where("id = ?", rt.ID).Updates(updates).Error; err != nil {
			return nil, err
		}
		changed = append(changed, prefix+rt.ID)
	}
	return changed, nil
}

func decodeJSON(text string, v any) error {
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return fmt.Errorf("stored JSON: %w", err)
	}
	return nil
}
