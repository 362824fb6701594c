package models

import (
	"context"
	"reflect"
	"testing"

	"gorm.io/gorm"
)

// TestScanDraftRowsReadsWhatGORMReadOfEveryColumn: scanDraftRows reads
// draftsWithEdits' columns by position, where GORM read every column of
// reply_drafts by name. For a draft with an owner's edit, a retraction and
// a person, both give the same row: a column ReplyDraft gains and the list
// lacks, or a list out of order, fails here.
func TestScanDraftRowsReadsWhatGORMReadOfEveryColumn(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	p := newPub("drafts-by-hand", mustRevision(t, s))
	p.Add("people", person("p-1"))
	d := draft("d-1", "Sounds good.", "Yes, Saturday.")
	d["personId"] = "p-1"
	p.Add("replyDrafts", d)
	mustPublish(t, s, p)
	if _, err := s.SaveDraftWording(ctx, "d-1", WordingForm{Body: "Yes to Saturday!", Candidate: "c1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Exec(`UPDATE reply_drafts SET retracted_at = updated_at, retract_reason = 'superseded', settled_at = updated_at WHERE id = 'd-1'`).Error; err != nil {
		t.Fatal(err)
	}
	var byHand, byName []draftRow
	if err := s.Read(ctx, func(tx *gorm.DB) error {
		var err error
		if byHand, err = scanDraftRows(draftsWithEdits(tx).Where("reply_drafts.id = ?", "d-1")); err != nil {
			return err
		}
		return tx.Raw(`SELECT reply_drafts.*, draft_edits.body AS edit_body, draft_edits.selected_candidate_id AS edit_selected,
				draft_edits.updated_at AS edit_at, draft_edits.revision AS edit_revision
			FROM reply_drafts LEFT JOIN draft_edits ON draft_edits.draft_id = reply_drafts.id WHERE reply_drafts.id = ?`, "d-1").Scan(&byName).Error
	}); err != nil {
		t.Fatal(err)
	}
	if len(byHand) != 1 || len(byName) != 1 {
		t.Fatalf("read %d by hand and %d by name, want 1 each", len(byHand), len(byName))
	}
	if !reflect.DeepEqual(byHand[0], byName[0]) {
		t.Errorf("by hand:\n  %+v\nby name (every column):\n  %+v", byHand[0], byName[0])
	}
	if byHand[0].EditBody == nil || byHand[0].RetractedAt == nil || byHand[0].PersonID == nil || byHand[0].SettledAt == nil {
		t.Errorf("the draft lacks what the test set: %+v", byHand[0])
	}
}
