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

	"hearth/internal/contract"
	"hearth/internal/strictjson"
)

var (
	sourcePattern          = regexp.MustCompile(contract.SourcePattern)
	visiblePattern         = regexp.MustCompile(contract.VisiblePattern)
	observationKindPattern = regexp.MustCompile(contract.ObservationKindPattern)
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

func (o Observation) view() contract.ObservationView {
	return contract.ObservationView{ObservationID: o.ID, Source: o.Source, Ref: o.Ref, ChangeType: o.ChangeType, Actor: o.Actor,
		Payload:     contract.ObservationPayloadView{Kind: o.Kind, ProviderID: o.ProviderID, Raw: json.RawMessage(o.Raw)},
		ContentHash: o.ContentHash, ReceivedAt: o.ReceivedAt}
}

// checkedObservation is a valid observation with what hearth computed from it.
type checkedObservation struct {
	in   contract.ObservationIn
	raw  []byte // canonical payload.raw
	hash string
}

// RecordObservation stores one observation posted by credentialID. Errors:
// *strictjson.SyntaxError (400), *ValidationError (422),
// *DuplicateObservationError (409); anything else is transient.
func (s *Store) RecordObservation(ctx context.Context, credentialID string, body []byte) (contract.ObservationReceipt, error) {
	var in contract.ObservationIn
	_, err := strictjson.DecodeAndHash(body, &in) // DecodeAndHash refuses a body JCS cannot represent
	var shape *strictjson.ShapeError
	switch {
	case errors.As(err, &shape):
		return contract.ObservationReceipt{}, &contract.ValidationError{Errors: hashHints(shape.Errors, "")}
	case err != nil:
		return contract.ObservationReceipt{}, err
	}
	obs, err := checkObservation(in, "")
	if err != nil {
		return contract.ObservationReceipt{}, err
	}
	var rc contract.ObservationReceipt
	_, err = s.commit(ctx, func(t *txn) error {
		rc, err = recordObservation(t.DB, obs, credentialID, s.clock())
		return err
	})
	var dup *contract.DuplicateObservationError
	if errors.As(err, &dup) {
		return contract.ObservationReceipt{}, dup
	}
	if err != nil {
		return contract.ObservationReceipt{}, classify("record observation", err)
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
	var batch contract.ObservationBatchIn
	_, err := strictjson.DecodeAndHash(body, &batch)
	var shape *strictjson.ShapeError
	switch {
	case errors.As(err, &shape):
		return nil, &contract.ValidationError{Errors: shape.Errors}
	case err != nil:
		return nil, err
	}
	v := &contract.Validator{}
	if !v.Count("/observations", len(batch.Observations), contract.MaxObservationBatch) {
		return nil, &contract.ValidationError{Errors: v.Errs}
	}
	outcomes := make([]ObservationOutcome, len(batch.Observations))
	checked := make([]checkedObservation, len(batch.Observations))
	for i, raw := range batch.Observations {
		prefix := fmt.Sprintf("/observations/%d", i)
		var in contract.ObservationIn
		if err := raw.Bind(&in); err != nil {
			if errors.As(err, &shape) {
				outcomes[i].Err = &contract.ValidationError{Errors: hashHints(shape.Errors, prefix)}
				continue
			}
			return nil, fmt.Errorf("models: record observations: %w", err)
		}
		checked[i], outcomes[i].Err = checkObservation(in, prefix)
	}
	_, err = s.commit(ctx, func(t *txn) error {
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
func checkObservation(in contract.ObservationIn, p string) (checkedObservation, error) {
	v := &contract.Validator{}
	if len(in.Source) > contract.MaxSourceLen || !sourcePattern.MatchString(in.Source) {
		v.Add(p+"/source", "invalid source", fmt.Sprintf("integration:scope like beeper:whatsapp-demo: a key of [a-z0-9_-] starting with a letter (1-32), ':', then [A-Za-z0-9._:@-]; at most %d characters", contract.MaxSourceLen), contract.QuoteFound(in.Source))
	}
	if len(in.Ref) > contract.MaxRefLen || !visiblePattern.MatchString(in.Ref) {
		v.Add(p+"/ref", "invalid ref", fmt.Sprintf("the provider's stable ID: 1-%d printable ASCII characters, no spaces", contract.MaxRefLen), contract.QuoteFound(in.Ref))
	}
	v.Enum(p+"/changeType", in.ChangeType, contract.ChangeTypes)
	switch in.Actor {
	case contract.ActorAgent:
	case "user":
		v.Add(p+"/actor", `actor "user" is refused: observations record what the agent's fetchers saw; the owner's own actions reach hearth through its pages`, `"agent"`, contract.QuoteFound(in.Actor))
	default:
		v.Add(p+"/actor", "unknown value", `"agent"`, contract.QuoteFound(in.Actor))
	}
	if !observationKindPattern.MatchString(in.Payload.Kind) {
		v.Add(p+"/payload/kind", "invalid kind", "1-32 characters of [a-z0-9_-] starting with a letter, like mail, calendar, notion, message", contract.QuoteFound(in.Payload.Kind))
	}
	if len(in.Payload.ProviderID) > contract.MaxProviderIDLen || !visiblePattern.MatchString(in.Payload.ProviderID) {
		v.Add(p+"/payload/providerId", "invalid providerId", fmt.Sprintf("the provider account's ID: 1-%d printable ASCII characters, no spaces", contract.MaxProviderIDLen), contract.QuoteFound(in.Payload.ProviderID))
	}
	var raw []byte
	if !in.Payload.Raw.IsObject() {
		v.Add(p+"/payload/raw", "raw must be a JSON object", "object", "another JSON value")
	} else {
		var err error
		// Exact integers: a provider's 19-digit ID must neither be stored
		// rounded nor hash like a neighbouring one.
		if raw, err = in.Payload.Raw.CanonicalExact(); err != nil {
			return checkedObservation{}, err // unreachable after DecodeAndHash, which refuses such bodies
		}
		if len(raw) > contract.MaxObservationRawBytes {
			v.Add(p+"/payload/raw", fmt.Sprintf("too large: %d bytes in canonical form", len(raw)),
				fmt.Sprintf("at most %d bytes (RFC 8785 canonical form); send a compact subset", contract.MaxObservationRawBytes), fmt.Sprintf("%d bytes", len(raw)))
		}
	}
	if len(v.Errs) > 0 {
		return checkedObservation{}, &contract.ValidationError{Errors: v.Errs}
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
func recordObservation(tx *gorm.DB, o checkedObservation, credentialID string, now time.Time) (contract.ObservationReceipt, error) {
	var latest []Observation
	if err := tx.Select("id, content_hash, status, consumed_run_id").Where("source = ? AND ref = ?", o.in.Source, o.in.Ref).
		Order("id DESC").Limit(1).Find(&latest).Error; err != nil {
		return contract.ObservationReceipt{}, err
	}
	action := contract.ActionCreated
	if len(latest) > 0 {
		if l := latest[0]; l.ContentHash == o.hash {
			return contract.ObservationReceipt{}, &contract.DuplicateObservationError{ObservationID: l.ID, ContentHash: l.ContentHash, Status: l.Status, ConsumedRunID: l.ConsumedRunID}
		}
		action = contract.ActionModified
	}
	row := Observation{Source: o.in.Source, Ref: o.in.Ref, ChangeType: o.in.ChangeType, Actor: o.in.Actor, Kind: o.in.Payload.Kind,
		ProviderID: o.in.Payload.ProviderID, Raw: string(o.raw), ContentHash: o.hash, Status: contract.ObservationPending,
		CredentialID: credentialID, ReceivedAt: now}
	if err := tx.Create(&row).Error; err != nil {
		return contract.ObservationReceipt{}, err
	}
	return contract.ObservationReceipt{Action: action, ContentHash: o.hash, ObservationID: row.ID}, nil
}

// observationPage lists pending observations by id, oldest first. A page
// ends early, after at least one item, once its raw payloads pass
// MaxObservationPageRawBytes.
func observationPage(tx *gorm.DB, from cursor) (contract.Page[contract.ObservationView], error) {
	var afterID int64
	if from.after != "" {
		afterID, _ = strconv.ParseInt(from.after, 10, 64) // decodeCursor checked it
	}
	var rows []Observation
	// Pinned to the partial index of pending observations, its status
	// written into the SQL (a bound one cannot use it): otherwise SQLite
	// walked every observation ever kept from the cursor on (363,189 after
	// five seeded years) to find the few pending.
	if err := tx.Table("observations INDEXED BY observations_pending").Where("status = '"+contract.ObservationPending+"' AND id > ?", afterID).Order("id").Limit(contract.ContextPageSize + 1).Find(&rows).Error; err != nil {
		return contract.Page[contract.ObservationView]{}, err
	}
	views := make([]contract.ObservationView, len(rows))
	size := 0
	for i, r := range rows {
		views[i] = r.view()
		if size += len(r.Raw); i > 0 && i < contract.ContextPageSize && size > contract.MaxObservationPageRawBytes {
			return contract.Page[contract.ObservationView]{Items: views[:i], Truncated: true,
				NextCursor: encodeCursor(contract.CollectionObservations, from.revision, fmt.Sprint(views[i-1].ObservationID))}, nil
		}
	}
	return page(contract.CollectionObservations, from, views, func(v contract.ObservationView) string { return fmt.Sprint(v.ObservationID) }), nil
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
