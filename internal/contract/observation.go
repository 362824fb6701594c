package contract

import (
	"fmt"

	"hearth/internal/strictjson"
)

// Bounds of an observation (docs/agent-api.md, Observations).
const (
	MaxObservationBatch     = 500
	MaxSourceLen            = 128
	MaxRefLen               = 512
	MaxProviderIDLen        = 256
	MaxObservationRawBytes  = 16 << 10 // canonical bytes of payload.raw
	MaxConsumedObservations = 1000
	// MaxObservationPageRawBytes stops a context page of observations early,
	// so 500 large payloads never make one multi-megabyte context.
	MaxObservationPageRawBytes = 1 << 20
)

// Observation change types, actors, statuses and actions.
const (
	ChangeCreated  = "created"
	ChangeModified = "modified"
	ChangeDeleted  = "deleted"

	ActorAgent = "agent"
	// ActorHearth is kept for observations hearth records itself (a watcher).
	ActorHearth = "hearth"

	ObservationPending  = "pending"
	ObservationConsumed = "consumed"

	ActionCreated  = "created"
	ActionModified = "modified"
)

// ChangeTypes lists what an observation may say happened at the provider.
var ChangeTypes = []string{ChangeCreated, ChangeModified, ChangeDeleted}

// Patterns of an observation's fields, shared with its JSON Schema.
const (
	// SourcePattern is "integration:scope", like beeper:whatsapp-demo or mail:work.
	SourcePattern = `^[a-z][a-z0-9_-]{0,31}:[A-Za-z0-9._:@-]+$`
	// VisiblePattern is provider-side IDs: printable ASCII without spaces,
	// which covers Message-IDs, Matrix event IDs, UUIDs and base64 IDs.
	VisiblePattern = `^[\x21-\x7e]+$`
	// ObservationKindPattern is payload.kind: a label, not an enum.
	ObservationKindPattern = `^[a-z][a-z0-9_-]{0,31}$`
)

// ObservationIn is POST /api/observations: what a fetcher saw at a provider.
// There is no hash field: hearth computes the content hash itself.
type ObservationIn struct {
	Source     string               `json:"source"`
	Ref        string               `json:"ref"`
	ChangeType string               `json:"changeType"`
	Actor      string               `json:"actor"`
	Payload    ObservationPayloadIn `json:"payload"`
}

// ObservationPayloadIn is the provider's item; Raw is any JSON object.
type ObservationPayloadIn struct {
	Kind       string         `json:"kind"`
	ProviderID string         `json:"providerId"`
	Raw        strictjson.Raw `json:"raw"`
}

// ObservationReceipt is the 200 answer to a recorded observation.
type ObservationReceipt struct {
	Action        string `json:"action"`
	ContentHash   string `json:"contentHash"`
	ObservationID int64  `json:"observationId"`
}

// ObservationBatchIn is POST /api/observations/batch. Items are bound one
// by one so that one bad item refuses only itself.
type ObservationBatchIn struct {
	Observations []strictjson.Raw `json:"observations"`
}

// validateConsumed checks the shape of consumedObservations.
func (r *Result) validateConsumed(v *Validator) {
	if !v.Count("/consumedObservations", len(r.ConsumedObservations), MaxConsumedObservations) {
		return
	}
	seen := map[int64]bool{}
	for i, id := range r.ConsumedObservations {
		path := fmt.Sprintf("/consumedObservations/%d", i)
		switch {
		case id < 1:
			v.Add(path, "not an observation ID", "an observationId from the agent context (integer >= 1)", fmt.Sprint(id))
		case seen[id]:
			v.Add(path, "duplicate observation ID in this publication", "unique IDs", fmt.Sprint(id))
		}
		seen[id] = true
	}
}

// ObservationBatchAnswer is the body of POST /api/observations/batch: each
// item answered as the single POST would, and the outcomes summed.
type ObservationBatchAnswer struct {
	Results []ObservationBatchItem `json:"results"`
	Counts  ObservationBatchCounts `json:"counts"`
}

// ObservationBatchItem is one item's outcome in a batch.
type ObservationBatchItem struct {
	Index         int                   `json:"index"`
	Status        int                   `json:"status"`
	Action        string                `json:"action,omitempty"`
	ContentHash   string                `json:"contentHash,omitempty"`
	ObservationID int64                 `json:"observationId,omitempty"`
	Error         *ObservationItemError `json:"error,omitempty"`
}

// ObservationBatchCounts sums a batch's outcomes, for fetchers that report counts.
type ObservationBatchCounts struct {
	Created   int `json:"created"`
	Modified  int `json:"modified"`
	Duplicate int `json:"duplicate"`
	Invalid   int `json:"invalid"`
}

// ObservationItemError is the error of one batch item: the single POST's
// envelope without the requestId, which belongs to the whole batch.
type ObservationItemError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}
