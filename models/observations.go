package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/strictjson"
)

// Bounds of an observation (issue 11; docs/agent-api.md, Observations).
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

var (
	sourcePattern          = regexp.MustCompile(SourcePattern)
	visiblePattern         = regexp.MustCompile(VisiblePattern)
	observationKindPattern = regexp.MustCompile(ObservationKindPattern)
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

// observationBatchIn is POST /api/observations/batch. Items are bound one
// by one so that one bad item refuses only itself.
type observationBatchIn struct {
	Observations []strictjson.Raw `json:"observations"`
}

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

// ObservationReceipt is the 200 answer to a recorded observation.
type ObservationReceipt struct {
	Action        string `json:"action"`
	ContentHash   string `json:"contentHash"`
	ObservationID int64  `json:"observationId"`
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

// ObservationOutcome is one item of a batch: a receipt, or the error the
// single POST would have answered (*ValidationError, *DuplicateObservationError).
type ObservationOutcome struct {
	Receipt ObservationReceipt
	Err     error
}

// ObservationView is a pending observation as the agent context lists it.
type ObservationView struct {
	ObservationID int64                  `json:"observationId"`
	Source        string                 `json:"source"`
	Ref           string                 `json:"ref"`
	ChangeType    string                 `json:"changeType"`
	Actor         string                 `json:"actor"`
	Payload       ObservationPayloadView `json:"payload"`
	ContentHash   string                 `json:"contentHash"`
	ReceivedAt    time.Time              `json:"receivedAt"`
}

// ObservationPayloadView is the stored payload; Raw is its canonical JSON.
type ObservationPayloadView struct {
	Kind       string          `json:"kind"`
	ProviderID string          `json:"providerId"`
	Raw        json.RawMessage `json:"raw"`
}

func (o Observation) view() ObservationView {
	return ObservationView{ObservationID: o.ID, Source: o.Source, Ref: o.Ref, ChangeType: o.ChangeType, Actor: o.Actor,
		Payload:     ObservationPayloadView{Kind: o.Kind, ProviderID: o.ProviderID, Raw: json.RawMessage(o.Raw)},
		ContentHash: o.ContentHash, ReceivedAt: o.ReceivedAt}
}

// checkedObservation is a valid observation with what hearth computed from it.
type checkedObservation struct {
	in   ObservationIn
	raw  []byte // canonical payload.raw
	hash string
}

// RecordObservation stores one observation posted by credentialID. Errors:
// *strictjson.SyntaxError (400), *ValidationError (422),
// *DuplicateObservationError (409); anything else is transient.
func (s *Store) RecordObservation(ctx context.Context, credentialID string, body []byte) (ObservationReceipt, error) {
	var in ObservationIn
	_, err := strictjson.DecodeAndHash(body, &in) // DecodeAndHash refuses a body JCS cannot represent
	var shape *strictjson.ShapeError
	switch {
	case errors.As(err, &shape):
		return ObservationReceipt{}, &ValidationError{Errors: hashHints(shape.Errors, "")}
	case err != nil:
		return ObservationReceipt{}, err
	}
	obs, err := checkObservation(in, "")
	if err != nil {
		return ObservationReceipt{}, err
	}
	var rc ObservationReceipt
	err = s.write(ctx, func(tx *gorm.DB) error {
		rc, err = recordObservation(tx, obs, credentialID, s.clock())
		return err
	})
	var dup *DuplicateObservationError
	if errors.As(err, &dup) {
		return ObservationReceipt{}, dup
	}
	if err != nil {
		return ObservationReceipt{}, classify("record observation", err)
	}
	return rc, nil
}

// RecordObservations stores a batch in one transaction. Each item stands
// alone, as if posted singly in order: its outcome is a receipt or the
// error the single POST would answer, and its dedup sees the items before
// it. Errors refuse the whole batch: *strictjson.SyntaxError and
// *ValidationError of the envelope (not an object, unknown fields, over
// MaxObservationBatch items); anything else is transient and writes nothing.
func (s *Store) RecordObservations(ctx context.Context, credentialID string, body []byte) ([]ObservationOutcome, error) {
	var batch observationBatchIn
	_, err := strictjson.DecodeAndHash(body, &batch)
	var shape *strictjson.ShapeError
	switch {
	case errors.As(err, &shape):
		return nil, &ValidationError{Errors: shape.Errors}
	case err != nil:
		return nil, err
	}
	v := &validator{}
	if !v.count("/observations", len(batch.Observations), MaxObservationBatch) {
		return nil, &ValidationError{Errors: v.errs}
	}
	outcomes := make([]ObservationOutcome, len(batch.Observations))
	checked := make([]checkedObservation, len(batch.Observations))
	for i, raw := range batch.Observations {
		prefix := fmt.Sprintf("/observations/%d", i)
		var in ObservationIn
		if err := raw.Bind(&in); err != nil {
			if errors.As(err, &shape) {
				outcomes[i].Err = &ValidationError{Errors: hashHints(shape.Errors, prefix)}
				continue
			}
			return nil, fmt.Errorf("models: record observations: %w", err)
		}
		checked[i], outcomes[i].Err = checkObservation(in, prefix)
	}
	err = s.write(ctx, func(tx *gorm.DB) error {
		now := s.clock()
		for i := range outcomes {
			if outcomes[i].Err != nil {
				continue
			}
			rc, err := recordObservation(tx, checked[i], credentialID, now)
			var dup *DuplicateObservationError
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
		return nil, classify("record observations", err)
	}
	return outcomes, nil
}

// hashHints rewords the unknown-field error for a hash field at the top of
// an observation or its payload: the agent must learn that hearth computes
// it, not just that the field is unknown. A hash inside raw is provider data.
func hashHints(errs []strictjson.FieldError, prefix string) []strictjson.FieldError {
	for i, e := range errs {
		parent, name := e.Path[:max(strings.LastIndex(e.Path, "/"), 0)], e.Path[strings.LastIndex(e.Path, "/")+1:]
		if !strings.HasPrefix(e.Message, "unknown field") || (parent != prefix && parent != prefix+"/payload") ||
			!strings.Contains(strings.ToLower(name), "hash") {
			continue
		}
		errs[i].Message = fmt.Sprintf("hearth computes contentHash itself from (source, payload) and returns it; do not send %q", name)
		errs[i].Expected = "no hash field"
	}
	return errs
}

// checkObservation validates bounds and computes the canonical raw and the
// content hash; paths are prefixed with the item's place in a batch.
func checkObservation(in ObservationIn, p string) (checkedObservation, error) {
	v := &validator{}
	if len(in.Source) > MaxSourceLen || !sourcePattern.MatchString(in.Source) {
		v.add(p+"/source", "invalid source", fmt.Sprintf("integration:scope like beeper:whatsapp-demo: a key of [a-z0-9_-] starting with a letter (1-32), ':', then [A-Za-z0-9._:@-]; at most %d characters", MaxSourceLen), quoteFound(in.Source))
	}
	if len(in.Ref) > MaxRefLen || !visiblePattern.MatchString(in.Ref) {
		v.add(p+"/ref", "invalid ref", fmt.Sprintf("the provider's stable ID: 1-%d printable ASCII characters, no spaces", MaxRefLen), quoteFound(in.Ref))
	}
	v.enum(p+"/changeType", in.ChangeType, ChangeTypes)
	switch in.Actor {
	case ActorAgent:
	case "user":
		v.add(p+"/actor", `actor "user" is refused: observations record what the agent's fetchers saw; the owner's own actions reach hearth through its pages`, `"agent"`, quoteFound(in.Actor))
	default:
		v.add(p+"/actor", "unknown value", `"agent"`, quoteFound(in.Actor))
	}
	if !observationKindPattern.MatchString(in.Payload.Kind) {
		v.add(p+"/payload/kind", "invalid kind", "1-32 characters of [a-z0-9_-] starting with a letter, like mail, calendar, notion, message", quoteFound(in.Payload.Kind))
	}
	if len(in.Payload.ProviderID) > MaxProviderIDLen || !visiblePattern.MatchString(in.Payload.ProviderID) {
		v.add(p+"/payload/providerId", "invalid providerId", fmt.Sprintf("the provider account's ID: 1-%d printable ASCII characters, no spaces", MaxProviderIDLen), quoteFound(in.Payload.ProviderID))
	}
	var raw []byte
	if !in.Payload.Raw.IsObject() {
		v.add(p+"/payload/raw", "raw must be a JSON object", "object", "another JSON value")
	} else {
		var err error
		// Exact integers: a provider's 19-digit ID must neither be stored
		// rounded nor hash like a neighbouring one.
		if raw, err = in.Payload.Raw.CanonicalExact(); err != nil {
			return checkedObservation{}, err // unreachable after DecodeAndHash, which refuses such bodies
		}
		if len(raw) > MaxObservationRawBytes {
			v.add(p+"/payload/raw", fmt.Sprintf("too large: %d bytes in canonical form", len(raw)),
				fmt.Sprintf("at most %d bytes (RFC 8785 canonical form); send a compact subset", MaxObservationRawBytes), fmt.Sprintf("%d bytes", len(raw)))
		}
	}
	if len(v.errs) > 0 {
		return checkedObservation{}, &ValidationError{Errors: v.errs}
	}
	hash, err := ContentHash(in.Source, in.Payload.Kind, in.Payload.ProviderID, raw)
	if err != nil {
		return checkedObservation{}, err
	}
	return checkedObservation{in: in, raw: raw, hash: hash}, nil
}

// ContentHash is an observation's dedup key: "sha256:" + hex of the SHA-256
// of the RFC 8785 canonical form of {"source": …, "payload": {"kind": …,
// "providerId": …, "raw": …}}, except that integers beyond 2^53 count by
// their decimal digits (strictjson.HashExact). changeType and actor are not
// part of it.
func ContentHash(source, kind, providerID string, raw json.RawMessage) (string, error) {
	type payload struct {
		Kind       string          `json:"kind"`
		ProviderID string          `json:"providerId"`
		Raw        json.RawMessage `json:"raw"`
	}
	b, err := json.Marshal(struct {
		Source  string  `json:"source"`
		Payload payload `json:"payload"`
	}{source, payload{kind, providerID, raw}})
	if err != nil {
		return "", err
	}
	return strictjson.HashExact(b)
}

// recordObservation dedups against the latest stored version of (source,
// ref), whatever its status, and otherwise appends a new version.
func recordObservation(tx *gorm.DB, o checkedObservation, credentialID string, now time.Time) (ObservationReceipt, error) {
	var latest []Observation
	if err := tx.Select("id, content_hash, status, consumed_run_id").Where("source = ? AND ref = ?", o.in.Source, o.in.Ref).
		Order("id DESC").Limit(1).Find(&latest).Error; err != nil {
		return ObservationReceipt{}, err
	}
	action := ActionCreated
	if len(latest) > 0 {
		if l := latest[0]; l.ContentHash == o.hash {
			return ObservationReceipt{}, &DuplicateObservationError{ObservationID: l.ID, ContentHash: l.ContentHash, Status: l.Status, ConsumedRunID: l.ConsumedRunID}
		}
		action = ActionModified
	}
	row := Observation{Source: o.in.Source, Ref: o.in.Ref, ChangeType: o.in.ChangeType, Actor: o.in.Actor, Kind: o.in.Payload.Kind,
		ProviderID: o.in.Payload.ProviderID, Raw: string(o.raw), ContentHash: o.hash, Status: ObservationPending,
		CredentialID: credentialID, ReceivedAt: now}
	if err := tx.Create(&row).Error; err != nil {
		return ObservationReceipt{}, err
	}
	return ObservationReceipt{Action: action, ContentHash: o.hash, ObservationID: row.ID}, nil
}

// observationPage lists pending observations by id, oldest first. A page
// ends early, after at least one item, once its raw payloads pass
// MaxObservationPageRawBytes.
func observationPage(tx *gorm.DB, from cursor) (Page[ObservationView], error) {
	var afterID int64
	if from.after != "" {
		afterID, _ = strconv.ParseInt(from.after, 10, 64) // decodeCursor checked it
	}
	var rows []Observation
	// Pinned to the partial index of pending observations, its status
	// written into the SQL (a bound one cannot use it): otherwise SQLite
	// walked every observation ever kept from the cursor on (363,189 after
	// five seeded years) to find the few pending.
	if err := tx.Table("observations INDEXED BY observations_pending").Where("status = '"+ObservationPending+"' AND id > ?", afterID).Order("id").Limit(ContextPageSize + 1).Find(&rows).Error; err != nil {
		return Page[ObservationView]{}, err
	}
	views := make([]ObservationView, len(rows))
	size := 0
	for i, r := range rows {
		views[i] = r.view()
		if size += len(r.Raw); i > 0 && i < ContextPageSize && size > MaxObservationPageRawBytes {
			return Page[ObservationView]{Items: views[:i], Truncated: true,
				NextCursor: encodeCursor(CollectionObservations, from.revision, fmt.Sprint(views[i-1].ObservationID))}, nil
		}
	}
	return page(CollectionObservations, from, views, func(v ObservationView) string { return fmt.Sprint(v.ObservationID) }), nil
}

// validateConsumed checks the shape of consumedObservations.
func (r *Result) validateConsumed(v *validator) {
	if !v.count("/consumedObservations", len(r.ConsumedObservations), MaxConsumedObservations) {
		return
	}
	seen := map[int64]bool{}
	for i, id := range r.ConsumedObservations {
		path := fmt.Sprintf("/consumedObservations/%d", i)
		switch {
		case id < 1:
			v.add(path, "not an observation ID", "an observationId from the agent context (integer >= 1)", fmt.Sprint(id))
		case seen[id]:
			v.add(path, "duplicate observation ID in this publication", "unique IDs", fmt.Sprint(id))
		}
		seen[id] = true
	}
}

// resolveConsumed checks each cited observation exists and is still pending.
func (r *Result) resolveConsumed(tx *gorm.DB, v *validator) error {
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
			v.add(path, fmt.Sprintf("unknown observation %d", id), "the observationId of a pending observation", fmt.Sprint(id))
		case o.Status != ObservationPending:
			v.add(path, fmt.Sprintf("observation %d was already consumed by run %q", id, o.ConsumedRunID),
				"the observationId of a pending observation", o.Status)
		}
	}
	return nil
}

// consumeObservations marks the cited observations consumed by this publication.
func (r *Result) consumeObservations(t *txn) error {
	if len(r.ConsumedObservations) == 0 {
		return nil
	}
	tx, rev, now := t.DB, t.rev, t.now
	for chunk := range slices.Chunk(r.ConsumedObservations, 500) {
		if err := tx.Model(&Observation{}).Where("id IN ? AND status = ?", chunk, ObservationPending).Updates(map[string]any{
			"status": ObservationConsumed, "consumed_run_id": r.RunID, "consumed_revision": rev, "consumed_at": now,
		}).Error; err != nil {
			return err
		}
	}
	for _, id := range r.ConsumedObservations {
		t.touch(fmt.Sprintf("observation:%d", id))
	}
	return nil
}
