package demo

import (
	"context"

	"hearth/internal/contract"
	"hearth/models"
)

// The demo and the seeder write their publications, requests and
// observations as JSON, as an agent would post them, and hand them to the
// store the way the API does: decoded and checked by the contract first.

// publish stores a publication's JSON. Replayed is true for an identical
// earlier publication.
func publish(ctx context.Context, store *models.Store, publisher string, body []byte) (contract.PublishReceipt, bool, error) {
	pub, err := contract.DecodePublication(body)
	if err != nil {
		return contract.PublishReceipt{}, false, err
	}
	return store.Publish(ctx, publisher, pub)
}

// createRequest stores an owner request's JSON.
func createRequest(ctx context.Context, store *models.Store, body []byte) error {
	in, hash, err := contract.DecodeRequest(body)
	if err != nil {
		return err
	}
	_, _, err = store.CreateRequest(ctx, in, hash)
	return err
}

// recordObservations stores a batch of observations' JSON.
func recordObservations(ctx context.Context, store *models.Store, credentialID string, body []byte) ([]models.ObservationOutcome, error) {
	batch, err := contract.DecodeObservationBatch(body)
	if err != nil {
		return nil, err
	}
	return store.RecordObservations(ctx, credentialID, batch)
}
