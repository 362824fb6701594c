package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
)

// Observation is one stored version of (source, ref).
type Observation struct {
	ID               int64 `gorm:"primaryKey"`
	Source           string
	Ref              string
	ChangeType       string
	Actor            string
	Kind             string
	ProviderID       string
	Raw              string
	ContentHash      string
	Status           string
	ConsumedRunID    string
	ConsumedRevision *int64
	CredentialID     string
	ReceivedAt       time.Time
	ConsumedAt       *time.Time
	// PrunedAt is when retention dropped the payload (Raw is then empty).
	PrunedAt *time.Time
}

// ObservationOutcome is one item of a batch: a receipt, or the error the
// single POST would have answered (*ValidationError, *DuplicateObservationError).
type ObservationOutcome struct {
	Receipt contract.ObservationReceipt
	Err     error
}

func (o Observation) View() contract.ObservationView {
	return contract.ObservationView{ObservationID: o.ID, Source: o.Source, Ref: o.Ref, ChangeType: o.ChangeType, Actor: o.Actor,
		Payload:     contract.ObservationPayloadView{Kind: o.Kind, ProviderID: o.ProviderID, Raw: json.RawMessage(o.Raw)},
		ContentHash: o.ContentHash, ReceivedAt: o.ReceivedAt}
}

// RecordObservation stores one observation posted by credentialID, as
// contract.DecodeObservation checked it. Errors:
// *DuplicateObservationError (409); anything else is transient.
func (s *Store) RecordObservation(ctx context.Context, credentialID string, obs contract.Observation) (contract.ObservationReceipt, error) {
	var (
		rc  contract.ObservationReceipt
		err error
	)
	_, err = s.commit(ctx, func(t *txn) error {
		rc, err = recordObservation(t.DB, obs, credentialID, s.clock())
		return err
	})
	var dup *contract.DuplicateObservationError
	if errors.As(err, &dup) {
		return contract.ObservationReceipt{}, dup
	}
	if err != nil {
		return contract.ObservationReceipt{}, Classify("record observation", err)
	}
	return rc, nil
}

// RecordObservations stores a batch, as contract.DecodeObservationBatch
// decoded it, in one transaction. Each item stands alone, as if posted
// singly in order: its outcome is a receipt or the error the single POST
// would answer (its refusal, or *DuplicateObservationError), and its dedup
// sees the items before it. An error writes nothing and is transient.
func (s *Store) RecordObservations(ctx context.Context, credentialID string, batch []contract.DecodedObservation) ([]ObservationOutcome, error) {
	outcomes := make([]ObservationOutcome, len(batch))
	checked := make([]contract.Observation, len(batch))
	for i, item := range batch {
		checked[i] = item.Observation
		if item.Invalid != nil {
			outcomes[i].Err = item.Invalid
		}
	}
	_, err := s.commit(ctx, func(t *txn) error {
		now := s.clock()
		for i := range outcomes {
			if outcomes[i].Err != nil {
				continue
			}
			rc, err := recordObservation(t.DB, checked[i], credentialID, now)
			var dup *contract.DuplicateObservationError
			switch {
			case errors.As(err, &dup):
				outcomes[i].Err = dup
			case err != nil:
				return err
			default:
				outcomes[i].Receipt = rc
			}
		}
		return nil
	})
	if err != nil {
		return nil, Classify("record observations", err)
	}
	return outcomes, nil
}

// recordObservation dedups against the latest stored version of (source,
// ref), whatever its status, and otherwise appends a new version.
func recordObservation(tx *gorm.DB, o contract.Observation, credentialID string, now time.Time) (contract.ObservationReceipt, error) {
	var latest []Observation
	if err := tx.Select("id, content_hash, status, consumed_run_id").Where("source = ? AND ref = ?", o.Source, o.Ref).
		Order("id DESC").Limit(1).Find(&latest).Error; err != nil {
		return contract.ObservationReceipt{}, err
	}
	action := contract.ActionCreated
	if len(latest) > 0 {
		if l := latest[0]; l.ContentHash == o.ContentHash {
			return contract.ObservationReceipt{}, &contract.DuplicateObservationError{ObservationID: l.ID, ContentHash: l.ContentHash, Status: l.Status, ConsumedRunID: l.ConsumedRunID}
		}
		action = contract.ActionModified
	}
	row := Observation{Source: o.Source, Ref: o.Ref, ChangeType: o.ChangeType, Actor: o.Actor, Kind: o.Kind,
		ProviderID: o.ProviderID, Raw: string(o.Raw), ContentHash: o.ContentHash, Status: contract.ObservationPending,
		CredentialID: credentialID, ReceivedAt: now}
	if err := tx.Create(&row).Error; err != nil {
		return contract.ObservationReceipt{}, err
	}
	return contract.ObservationReceipt{Action: action, ContentHash: o.ContentHash, ObservationID: row.ID}, nil
}

// resolveConsumed checks each cited observation exists and is still pending.
func resolveConsumed(r *contract.Result, tx *gorm.DB, v *contract.Validator) error {
	stored := map[int64]Observation{}
	for chunk := range slices.Chunk(r.ConsumedObservations, 500) {
		var rows []Observation
		if err := tx.Select("id, status, consumed_run_id").Where("id IN ?", chunk).Find(&rows).Error; err != nil {
			return err
		}
		for _, o := range rows {
			stored[o.ID] = o
		}
	}
	for i, id := range r.ConsumedObservations {
		path := fmt.Sprintf("/consumedObservations/%d", i)
		o, ok := stored[id]
		switch {
		case !ok:
			v.Add(path, fmt.Sprintf("unknown observation %d", id), "the observationId of a pending observation", fmt.Sprint(id))
		case o.Status != contract.ObservationPending:
			v.Add(path, fmt.Sprintf("observation %d was already consumed by run %q", id, o.ConsumedRunID),
				"the observationId of a pending observation", o.Status)
		}
	}
	return nil
}

// consumeObservations marks the cited observations consumed by this publication.
func consumeObservations(r *contract.Result, t *txn) error {
	if len(r.ConsumedObservations) == 0 {
		return nil
	}
	tx, rev, now := t.DB, t.rev, t.now
	for chunk := range slices.Chunk(r.ConsumedObservations, 500) {
		if err := tx.Model(&Observation{}).Where("id IN ? AND status = ?", chunk, contract.ObservationPending).Updates(map[string]any{
			"status": contract.ObservationConsumed, "consumed_run_id": r.RunID, "consumed_revision": rev, "consumed_at": now,
		}).Error; err != nil {
			return err
		}
	}
	for _, id := range r.ConsumedObservations {
		t.touch(fmt.Sprintf("observation:%d", id))
	}
	return nil
}
