package contract

import (
	"errors"
	"fmt"
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

// DuplicateObservationError means the latest stored version of (source, ref)
// already has this content hash; nothing was written.
type DuplicateObservationError struct {
	ObservationID int64  `json:"observationId"`
	ContentHash   string `json:"contentHash"`
	Status        string `json:"status"`
	ConsumedRunID string `json:"consumedRunId,omitempty"`
}

func (e *DuplicateObservationError) Error() string {
	return fmt.Sprintf("duplicate of observation %d (%s)", e.ObservationID, e.Status)
}
