package schemagen_test

import (
	"context"

	"hearth/internal/contract"
	"hearth/models"
)

// The server's answer to a body is the contract's decoding and checks,
// then the store's service, as the API takes them.

// createRequest stores an owner request's JSON.
func createRequest(s *models.Store, ctx context.Context, body []byte) (contract.RequestView, bool, error) {
	in, hash, err := contract.DecodeRequest(body)
	if err != nil {
		return contract.RequestView{}, false, err
	}
	return s.CreateRequest(ctx, in, hash)
}

// recordObservation records one observation's JSON.
func recordObservation(s *models.Store, ctx context.Context, credentialID string, body []byte) (contract.ObservationReceipt, error) {
	obs, err := contract.DecodeObservation(body)
	if err != nil {
		return contract.ObservationReceipt{}, err
	}
	return s.RecordObservation(ctx, credentialID, obs)
}

// publish publishes a publication's JSON.
func publish(s *models.Store, ctx context.Context, publisher string, body []byte) (contract.PublishReceipt, bool, error) {
	pub, err := contract.DecodePublication(body)
	if err != nil {
		return contract.PublishReceipt{}, false, err
	}
	return s.Publish(ctx, publisher, pub)
}

// dryRun dry-runs a publication's JSON.
func dryRun(s *models.Store, ctx context.Context, publisher string, body []byte) (contract.DryRunReport, error) {
	pub, err := contract.DecodePublication(body)
	if err != nil {
		return contract.DryRunReport{}, err
	}
	return s.PublishDryRun(ctx, publisher, pub)
}
