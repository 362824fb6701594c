package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// Request is a stored owner request.
type Request struct {
	RequestID      string `gorm:"primaryKey"`
	Kind           string
	EntityID       string
	EntityName     string
	SourceRevision string
	Text           string
	EditField      string
	EditValue      string
	PayloadHash    string
	Status         string
	CompletedRunID string
	CompletedRefs  string
	Revision       int64
	CreatedAt      time.Time
	UpdatedAt      time.Time
	ReviewID       string
	ProposalID     string
	Decision       string
}

func (r Request) View() contract.RequestView {
	v := contract.RequestView{RequestID: r.RequestID, Kind: r.Kind, EntityID: r.EntityID, EntityName: r.EntityName, SourceRevision: r.SourceRevision, Text: r.Text,
		Status: r.Status, CompletedRunID: r.CompletedRunID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.EditField != "" {
		v.Edit = &contract.EditIn{Field: r.EditField, Value: r.EditValue}
	}
	if r.ReviewID != "" {
		v.Proposal = &contract.ProposalRef{ReviewID: r.ReviewID, ProposalID: r.ProposalID, Decision: r.Decision}
	}
	return v
}

// ErrRequestNotPending means a cancel found the request already settled.
var ErrRequestNotPending = errors.New("the request is no longer pending")

// CreateRequest stores an owner request, decoded and checked by
// contract.DecodeRequest, before it is acknowledged. hash is its body's
// canonical hash: the same requestId with the same hash is a replay
// (created false); with another it is ErrIdempotencyConflict.
func (s *Store) CreateRequest(ctx context.Context, in contract.RequestIn, hash string) (contract.RequestView, bool, error) {
	var row Request
	created := false
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Where("request_id = ?", in.RequestID).Limit(1).Find(&row).Error; err != nil {
			return err
		}
		if row.RequestID != "" {
			if row.PayloadHash != hash {
				return contract.ErrIdempotencyConflict
			}
			return nil
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("request:" + in.RequestID)
		row = Request{RequestID: in.RequestID, Kind: in.Kind, EntityID: deref(in.EntityID), EntityName: deref(in.EntityName), SourceRevision: deref(in.SourceRevision),
			Text: in.Text, PayloadHash: hash, Status: contract.RequestPending, CompletedRefs: "[]", Revision: rev, CreatedAt: t.now, UpdatedAt: t.now}
		if in.Edit != nil {
			row.EditField, row.EditValue = in.Edit.Field, in.Edit.Value
		}
		created = true
		return t.Create(&row).Error
	})
	if err != nil {
		return contract.RequestView{}, false, Classify("create request", err)
	}
	return row.View(), created, nil
}

// CancelRequest cancels a pending request.
func (s *Store) CancelRequest(ctx context.Context, id string) (contract.RequestView, error) {
	var row Request
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Where("request_id = ?", id).Take(&row).Error; err != nil {
			return notFound(err)
		}
		if row.Status != contract.RequestPending {
			return ErrRequestNotPending
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		t.touch("request:" + id)
		row.Status, row.Revision, row.UpdatedAt = contract.RequestCancelled, rev, t.now
		return t.Save(&row).Error
	})
	if err != nil {
		if errors.Is(err, ErrRequestNotPending) {
			return row.View(), err
		}
		return contract.RequestView{}, Classify("cancel request", err)
	}
	return row.View(), nil
}

// resolveCompletions checks completedRequests (docs/contract.md, Owner requests): each names a
// pending request, cites only source refs of this publication, and a
// crm-edit cites a life ref with a content hash.
func resolveCompletions(r *contract.Result, tx *gorm.DB, v *contract.Validator) error {
	refs := map[string]contract.SourceRefIn{}
	for _, s := range r.SourceRefs {
		refs[s.ID] = s
	}
	seen := map[string]bool{}
	for i, c := range r.CompletedRequests {
		path := fmt.Sprintf("/completedRequests/%d", i)
		v.Unique(seen, path+"/requestId", c.RequestID, "completed request")
		var rows []Request
		if err := tx.Where("request_id = ?", c.RequestID).Limit(1).Find(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			v.Add(path+"/requestId", fmt.Sprintf("unknown request %q", c.RequestID), "the ID of a pending owner request", contract.QuoteFound(c.RequestID))
			continue
		}
		if rows[0].Status != contract.RequestPending {
			v.Add(path+"/requestId", fmt.Sprintf("request %q is %s, not pending", c.RequestID, rows[0].Status), "the ID of a pending owner request", rows[0].Status)
		}
		lifeWithHash := false
		for j, id := range c.SourceRefIDs {
			ref, ok := refs[id]
			if !ok {
				v.Add(fmt.Sprintf("%s/sourceRefIds/%d", path, j), fmt.Sprintf("source ref %q is not in this publication", id),
					"the ID of a source ref in this publication's sourceRefs", contract.QuoteFound(id))
				continue
			}
			if ref.Kind == "life" && ref.ContentHash != nil {
				lifeWithHash = true
			}
		}
		// The hash must be in this publication, not new: a correction that
		// was already true in life is completed by citing the file as it is.
		if rows[0].Kind == contract.RequestCRMEdit && !lifeWithHash {
			v.Add(path+"/sourceRefIds", "a crm-edit completion cites the life file it checked",
				"at least one life source ref with a contentHash in this publication", fmt.Sprintf("%d refs, none a life ref", len(c.SourceRefIDs)))
		}
	}
	return nil
}

// completeRequests marks the publication's completed requests done.
func completeRequests(r *contract.Result, t *txn) error {
	tx, rev, now := t.DB, t.rev, t.now
	for _, c := range r.CompletedRequests {
		ids := slices.Clone(c.SourceRefIDs)
		if err := tx.Model(&Request{}).Where("request_id = ? AND status = ?", c.RequestID, contract.RequestPending).Updates(map[string]any{
			"status": contract.RequestCompleted, "completed_run_id": r.RunID, "completed_refs": evidenceText(ids), "revision": rev, "updated_at": now,
		}).Error; err != nil {
			return err
		}
		t.touch("request:" + c.RequestID)
	}
	return nil
}
