package handlers

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/models"
)

// observationsStore records what fetchers saw.
type observationsStore interface {
	RecordObservation(ctx context.Context, credentialID string, obs contract.Observation) (contract.ObservationReceipt, error)
	RecordObservations(ctx context.Context, credentialID string, batch []contract.DecodedObservation) ([]models.ObservationOutcome, error)
}

// observationsHandlers record what fetchers post.
type observationsHandlers struct {
	*Server
	store observationsStore
}

// observationRejected is the message of a 422 for one observation.
const observationRejected = "the observation was rejected; nothing was stored. Fix every error listed and post again"

// observationRefusal maps an observation's contract error to the status and
// envelope the single POST answers; ok is false for any other error.
func observationRefusal(err error) (status int, e contract.ObservationItemError, ok bool) {
	var invalid *contract.ValidationError
	var dup *contract.DuplicateObservationError
	switch {
	case errors.As(err, &invalid):
		return fiber.StatusUnprocessableEntity, contract.ObservationItemError{Code: "invalid_request", Message: observationRejected, Details: fiber.Map{"errors": invalid.Errors}}, true
	case errors.As(err, &dup):
		msg := "an identical payload is already pending for this (source, ref); nothing was written"
		if dup.Status == contract.ObservationConsumed {
			msg = "an identical payload for this (source, ref) was already consumed by a publication; nothing was written"
		}
		return fiber.StatusConflict, contract.ObservationItemError{Code: "duplicate", Message: msg, Details: dup}, true
	}
	return 0, contract.ObservationItemError{}, false
}

// postObservation is POST /api/observations: 200 with the action and the
// content hash hearth computed, 409 duplicate, 422 invalid_request.
func (s *observationsHandlers) postObservation(c *fiber.Ctx) error {
	return apiWrite(c, writeSpec{invalidCode: "invalid_request", invalidMessage: observationRejected,
		refuse: func(c *fiber.Ctx, err error) error {
			if status, e, ok := observationRefusal(err); ok {
				return apiError(c, status, e.Code, e.Message, e.Details)
			}
			return err
		}},
		func(body []byte) (contract.ObservationReceipt, int, error) {
			obs, err := contract.DecodeObservation(body)
			if err != nil {
				return contract.ObservationReceipt{}, 0, err
			}
			receipt, err := s.store.RecordObservation(c.UserContext(), identityOf(c).agent.ID, obs)
			return receipt, fiber.StatusOK, err
		})
}

// postObservations is POST /api/observations/batch: up to 500 observations
// in one transaction, answered per item with what the single POST would say.
func (s *observationsHandlers) postObservations(c *fiber.Ctx) error {
	return apiWrite(c, writeSpec{invalidCode: "invalid_request", invalidMessage: "the batch was rejected; nothing was stored. Fix every error listed and post again"},
		func(body []byte) (contract.ObservationBatchAnswer, int, error) {
			batch, err := contract.DecodeObservationBatch(body)
			if err != nil {
				return contract.ObservationBatchAnswer{}, 0, err
			}
			outcomes, err := s.store.RecordObservations(c.UserContext(), identityOf(c).agent.ID, batch)
			if err != nil {
				return contract.ObservationBatchAnswer{}, 0, err
			}
			answer, err := batchAnswerOf(outcomes)
			return answer, fiber.StatusOK, err
		})
}

// batchAnswerOf answers each outcome as the single POST would; an error
// that is no refusal fails the whole answer.
func batchAnswerOf(outcomes []models.ObservationOutcome) (contract.ObservationBatchAnswer, error) {
	results := make([]contract.ObservationBatchItem, len(outcomes))
	var counts contract.ObservationBatchCounts
	for i, o := range outcomes {
		results[i] = contract.ObservationBatchItem{Index: i, Status: fiber.StatusOK}
		if status, e, ok := observationRefusal(o.Err); ok {
			results[i].Status, results[i].Error = status, &e
			if status == fiber.StatusConflict {
				counts.Duplicate++
			} else {
				counts.Invalid++
			}
			continue
		}
		if o.Err != nil {
			return contract.ObservationBatchAnswer{}, o.Err
		}
		results[i].Action, results[i].ContentHash, results[i].ObservationID = o.Receipt.Action, o.Receipt.ContentHash, o.Receipt.ObservationID
		if o.Receipt.Action == contract.ActionCreated {
			counts.Created++
		} else {
			counts.Modified++
		}
	}
	return contract.ObservationBatchAnswer{Results: results, Counts: counts}, nil
}
