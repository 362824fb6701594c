package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// Read runs fn in a read transaction on the reader pool: one consistent WAL
// snapshot that runs beside the writer. It is how the read models
// (models/read) read; only a package that may import GORM can pass fn.
func (s *Store) Read(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return s.rdb.WithContext(ctx).Transaction(fn)
}

// readAfterCommit runs fn in a read-only (deferred) transaction on the
// writers' pool: one consistent WAL snapshot, like Read, that takes no lock
// a writer waits for. It is for Home's read, which follows each commit the
// owner makes: SQLite drops every page a connection holds when another
// connection commits, so a reader read again from the file the hundred-odd
// pages Home touches (about 0.15 ms of a 1.4 ms Home, make bench), while
// the connection that made the commit still holds them (database/sql hands
// out the one freed last). It borrows only an idle connection: with none
// it reads on the readers, so Home does not queue behind a write (but for
// losing a race for the last idle one) nor open a connection with nothing
// cached. The writers' connections are not query_only as the readers are;
// Home's read writes nothing (TestHomeReadsOnlySelectBesideAWriteInFlight).
func (s *Store) readAfterCommit(ctx context.Context, fn func(tx *gorm.DB) error) error {
	if s.sqlDB.Stats().Idle == 0 {
		return s.Read(ctx, fn)
	}
	return s.db.WithContext(ctx).Transaction(fn, &sql.TxOptions{ReadOnly: true})
}

func evidenceList(text string) []string {
	if text == "" || text == "[]" {
		return []string{} // Home does not load evidence; skip the decoder
	}
	var ids []string
	if err := json.Unmarshal([]byte(text), &ids); err != nil || ids == nil {
		return []string{}
	}
	return ids
}

func briefView(tx *gorm.DB) (*contract.BriefView, error) {
	var rows []Brief
	if err := tx.Limit(1).Find(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	b := rows[0]
	return &contract.BriefView{Date: b.Date, TimeZone: b.TimeZone, Text: b.Text, EvidenceIDs: evidenceList(b.EvidenceIDs), Revision: b.Revision, UpdatedAt: b.UpdatedAt}, nil
}

// activityRow is an activity joined with the owner's state.
type activityRow struct {
	Activity
	// PersonName is read by Home's queries (scanActivityRows) only.
	PersonName string `gorm:"-"`
	State      *string
	Until      *string
	Note       *string
	StateAt    *time.Time
}

func (r activityRow) view() contract.ActivityView {
	v := contract.ActivityView{ID: r.ID, Kind: r.Kind, Title: r.Title, Detail: r.Detail, EvidenceIDs: evidenceList(r.EvidenceIDs),
		PersonID: deref(r.PersonID), ParentID: deref(r.ParentID), OccurrenceKey: r.OccurrenceKey,
		Payload: json.RawMessage(r.Payload), Revision: r.Revision, UserState: contract.UserStateView{State: StateAvailable}}
	if r.Section != "" {
		v.Recommendation = &contract.RecommendView{Section: r.Section, Rank: r.Rank, Reason: r.Reason}
	}
	if r.RetractedAt != nil {
		v.Retracted = &contract.RetractedView{At: *r.RetractedAt, Reason: r.RetractReason}
	}
	if r.State != nil {
		v.UserState = contract.UserStateView{State: *r.State, Until: deref(r.Until), Note: deref(r.Note), At: r.StateAt}
	}
	return v
}

// draftsWithEdits selects drafts with the owner's edit beside them, in
// draftRow's field order, for scanDraftRows (a test holds that every
// column of ReplyDraft is in it).
func draftsWithEdits(tx *gorm.DB) *gorm.DB {
	return tx.Table("reply_drafts").
		Select("reply_drafts.id, reply_drafts.person_id, reply_drafts.account_id, reply_drafts.chat_id, reply_drafts.reply_to_message_id, " +
			"reply_drafts.source_message_revision, reply_drafts.reason, reply_drafts.candidates, reply_drafts.evidence_ids, reply_drafts.revision, " +
			"reply_drafts.retracted_at, reply_drafts.retract_reason, reply_drafts.settled_at, reply_drafts.created_at, reply_drafts.updated_at, " +
			"draft_edits.body AS edit_body, draft_edits.selected_candidate_id AS edit_selected, draft_edits.updated_at AS edit_at, draft_edits.revision AS edit_revision").
		Joins("LEFT JOIN draft_edits ON draft_edits.draft_id = reply_drafts.id")
}

// scanDraftRows scans what draftsWithEdits selects.
func scanDraftRows(q *gorm.DB) ([]draftRow, error) {
	return scanRows(q, func(r *draftRow) []any {
		return []any{&r.ID, &r.PersonID, &r.AccountID, &r.ChatID, &r.ReplyToMessageID, &r.SourceMessageRevision, &r.Reason, &r.Candidates,
			&r.EvidenceIDs, &r.Revision, &r.RetractedAt, &r.RetractReason, &r.SettledAt, &r.CreatedAt, &r.UpdatedAt,
			&r.EditBody, &r.EditSelected, &r.EditAt, &r.EditRevision}
	})
}

// scanRows runs q and scans each row into a T through the pointers fields
// gives, in the order of q's columns. By hand: GORM's query builder and
// reflective scan cost about 11 µs more a statement (BenchmarkScanRows: 28
// against 17 µs for three rows), and Home's read has a dozen small ones.
func scanRows[T any](q *gorm.DB, fields func(*T) []any) ([]T, error) {
	rows, err := q.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		// Scanned in place: a row scanned apart and appended is copied once more.
		out = append(out, *new(T))
		if err := rows.Scan(fields(&out[len(out)-1])...); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

type draftRow struct {
	ReplyDraft
	EditBody     *string
	EditSelected *string
	EditAt       *time.Time
	EditRevision *int64
}

func (r draftRow) view() contract.DraftView {
	v := contract.DraftView{ID: r.ID, PersonID: deref(r.PersonID), AccountID: r.AccountID, ChatID: r.ChatID, ReplyToMessageID: r.ReplyToMessageID,
		SourceMessageRevision: r.SourceMessageRevision, Reason: r.Reason, EvidenceIDs: evidenceList(r.EvidenceIDs), Revision: r.Revision}
	if err := json.Unmarshal([]byte(r.Candidates), &v.Candidates); err != nil || v.Candidates == nil {
		v.Candidates = []contract.CandidateIn{}
	}
	if r.RetractedAt != nil {
		v.Retracted = &contract.RetractedView{At: *r.RetractedAt, Reason: r.RetractReason}
	}
	if r.EditBody != nil {
		v.OwnerEdit = &contract.OwnerEditView{Body: *r.EditBody, SelectedCandidateID: deref(r.EditSelected), At: *r.EditAt}
		if r.EditRevision != nil {
			v.OwnerEdit.Revision = *r.EditRevision
		}
	}
	return v
}

// publicationAt reads the accepted publication that made revision rev,
// or nil when there is none.
func publicationAt(tx *gorm.DB, rev int64) (*contract.PublicationView, error) {
	var rows []Receipt
	if err := tx.Where("revision = ?", rev).Limit(1).Find(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	r := rows[0]
	return &contract.PublicationView{RunID: r.RunID, JobKey: r.JobKey, Publisher: r.Publisher, Revision: r.Revision, ReceivedAt: r.ReceivedAt}, nil
}

func lastPublication(tx *gorm.DB) (*contract.PublicationView, error) {
	var rows []Receipt
	if err := tx.Order("revision DESC").Limit(1).Find(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	r := rows[0]
	return &contract.PublicationView{RunID: r.RunID, JobKey: r.JobKey, Publisher: r.Publisher, Revision: r.Revision, ReceivedAt: r.ReceivedAt}, nil
}

// ActivityViews scans the activities q selects, each joined with the
// owner's state as activityRow scans them, as the agent's context shows them.
func ActivityViews(q *gorm.DB) ([]contract.ActivityView, error) {
	var rows []activityRow
	if err := q.Scan(&rows).Error; err != nil {
		return nil, err
	}
	views := make([]contract.ActivityView, len(rows))
	for i, r := range rows {
		views[i] = r.view()
	}
	return views, nil
}

// DraftViews scans the drafts q selects, with the owner's edit beside
// them as draftRow scans them, and marks each stale or settled from tx.
func DraftViews(tx, q *gorm.DB) ([]contract.DraftView, error) {
	var rows []draftRow
	if err := q.Scan(&rows).Error; err != nil {
		return nil, err
	}
	views := make([]contract.DraftView, len(rows))
	for i, r := range rows {
		views[i] = r.view()
	}
	if err := markStale(tx, views); err != nil {
		return nil, err
	}
	if err := DraftOutcomes(tx, views); err != nil {
		return nil, err
	}
	return views, nil
}

// ReadBrief reads the brief, nil before the first.
func ReadBrief(tx *gorm.DB) (*contract.BriefView, error) { return briefView(tx) }

// LastPublication reads the newest accepted publication, nil before the first.
func LastPublication(tx *gorm.DB) (*contract.PublicationView, error) { return lastPublication(tx) }

// View is d as the agent's context shows it, without the owner's edit.
func (d ReplyDraft) View() contract.DraftView { return draftRow{ReplyDraft: d}.view() }
