package models

import (
	"context"

	"hearth/internal/contract"
)

// Tests that build the JSON an agent would post hand it to the store as
// the API does: decoded and checked by internal/contract, then the service.

// createRequest stores an owner request's JSON.
func createRequest(s *Store, ctx context.Context, body []byte) (contract.RequestView, bool, error) {
	in, hash, err := contract.DecodeRequest(body)
	if err != nil {
		return contract.RequestView{}, false, err
	}
	return s.CreateRequest(ctx, in, hash)
}

// createSchedule creates a schedule from its JSON.
func createSchedule(s *Store, ctx context.Context, actor Actor, body []byte) (ScheduleReceipt, bool, error) {
	in, hash, err := contract.DecodeSchedule(body)
	if err != nil {
		return ScheduleReceipt{}, false, err
	}
	return s.CreateSchedule(ctx, actor, in, hash)
}

// postObservation records one observation's JSON.
func postObservation(s *Store, ctx context.Context, credentialID string, body []byte) (contract.ObservationReceipt, error) {
	obs, err := contract.DecodeObservation(body)
	if err != nil {
		return contract.ObservationReceipt{}, err
	}
	return s.RecordObservation(ctx, credentialID, obs)
}

// postObservationBatch records a batch's JSON.
func postObservationBatch(s *Store, ctx context.Context, credentialID string, body []byte) ([]ObservationOutcome, error) {
	batch, err := contract.DecodeObservationBatch(body)
	if err != nil {
		return nil, err
	}
	return s.RecordObservations(ctx, credentialID, batch)
}

// publish publishes a publication's JSON.
func publish(s *Store, ctx context.Context, publisher string, body []byte) (contract.PublishReceipt, bool, error) {
	pub, err := contract.DecodePublication(body)
	if err != nil {
		return contract.PublishReceipt{}, false, err
	}
	return s.Publish(ctx, publisher, pub)
}

// dryRun dry-runs a publication's JSON.
func dryRun(s *Store, ctx context.Context, publisher string, body []byte) (contract.DryRunReport, error) {
	pub, err := contract.DecodePublication(body)
	if err != nil {
		return contract.DryRunReport{}, err
	}
	return s.PublishDryRun(ctx, publisher, pub)
}
