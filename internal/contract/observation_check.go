package contract

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"hearth/internal/strictjson"
)

var (
	sourcePattern          = regexp.MustCompile(SourcePattern)
	visiblePattern         = regexp.MustCompile(VisiblePattern)
	observationKindPattern = regexp.MustCompile(ObservationKindPattern)
)

// Observation is an observation as the store records it: its fields
// checked against the contract, payload.raw in canonical form and the
// content hash computed. DecodeObservation makes one of a posted body,
// HearthObservation of what hearth saw itself.
type Observation struct {
	Source     string
	Ref        string
	ChangeType string
	Actor      string
	Kind       string // payload.kind
	ProviderID string // payload.providerId
	// Raw is payload.raw in canonical form, integers beyond 2^53 kept as
	// their digits (strictjson.CanonicalExact).
	Raw []byte
	// ContentHash is the dedup key of (source, payload): see ContentHash.
	ContentHash string
}

// DecodedObservation is one item of a decoded batch: the observation, or
// the refusal the single POST would answer for it.
type DecodedObservation struct {
	Observation Observation
	Invalid     *ValidationError
}

// DecodeObservation reads POST /api/observations, checks it and computes
// what hearth keeps of it. Errors: *strictjson.SyntaxError,
// *ValidationError.
func DecodeObservation(body []byte) (Observation, error) {
	var in ObservationIn
	_, err := strictjson.DecodeAndHash(body, &in) // DecodeAndHash refuses a body JCS cannot represent
	var shape *strictjson.ShapeError
	switch {
	case errors.As(err, &shape):
		return Observation{}, &ValidationError{Errors: hashHints(shape.Errors, "")}
	case err != nil:
		return Observation{}, err
	}
	return checkObservation(in, "")
}

// DecodeObservationBatch reads POST /api/observations/batch. Each item is
// checked alone, as if posted singly: one that breaks the contract keeps
// its refusal and refuses only itself. Errors refuse the whole batch:
// *strictjson.SyntaxError and *ValidationError of the envelope (not an
// object, unknown fields, over MaxObservationBatch items).
func DecodeObservationBatch(body []byte) ([]DecodedObservation, error) {
	var batch ObservationBatchIn
	_, err := strictjson.DecodeAndHash(body, &batch)
	var shape *strictjson.ShapeError
	switch {
	case errors.As(err, &shape):
		return nil, &ValidationError{Errors: shape.Errors}
	case err != nil:
		return nil, err
	}
	v := &Validator{}
	if !v.Count("/observations", len(batch.Observations), MaxObservationBatch) {
		return nil, &ValidationError{Errors: v.Errs}
	}
	items := make([]DecodedObservation, len(batch.Observations))
	for i, raw := range batch.Observations {
		prefix := fmt.Sprintf("/observations/%d", i)
		var in ObservationIn
		if err := raw.Bind(&in); err != nil {
			if errors.As(err, &shape) {
				items[i].Invalid = &ValidationError{Errors: hashHints(shape.Errors, prefix)}
				continue
			}
			return nil, fmt.Errorf("contract: observation batch: %w", err)
		}
		o, err := checkObservation(in, prefix)
		var invalid *ValidationError
		switch {
		case errors.As(err, &invalid):
			items[i].Invalid = invalid
		case err != nil:
			return nil, fmt.Errorf("contract: observation batch: %w", err)
		}
		items[i].Observation = o
	}
	return items, nil
}

// HearthObservation checks an observation hearth records itself (the
// Beeper watch's messages) as a posted one is checked, but with actor
// hearth, which no client may claim; raw is any JSON object. It returns
// the observation canonical and hashed.
func HearthObservation(o Observation) (Observation, error) {
	v := &Validator{}
	o.Actor = ActorHearth
	o.checkNames(v, "")
	o.checkPayload(v, "")
	raw, err := strictjson.CanonicalExact(o.Raw)
	if err != nil {
		return Observation{}, err
	}
	return o.finish(v, "", raw, len(raw) > 0 && raw[0] == '{')
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

// checkObservation checks a posted observation's bounds and computes its
// canonical raw and content hash; paths are prefixed with the item's place
// in a batch.
func checkObservation(in ObservationIn, p string) (Observation, error) {
	v := &Validator{}
	o := Observation{Source: in.Source, Ref: in.Ref, ChangeType: in.ChangeType, Actor: in.Actor, Kind: in.Payload.Kind, ProviderID: in.Payload.ProviderID}
	o.checkNames(v, p)
	switch in.Actor {
	case ActorAgent:
	case "user":
		v.Add(p+"/actor", `actor "user" is refused: observations record what the agent's fetchers saw; the owner's own actions reach hearth through its pages`, `"agent"`, QuoteFound(in.Actor))
	default:
		v.Add(p+"/actor", "unknown value", `"agent"`, QuoteFound(in.Actor))
	}
	o.checkPayload(v, p)
	if !in.Payload.Raw.IsObject() {
		return o.finish(v, p, nil, false)
	}
	// Exact integers: a provider's 19-digit ID must neither be stored
	// rounded nor hash like a neighbouring one.
	raw, err := in.Payload.Raw.CanonicalExact()
	if err != nil {
		return Observation{}, err // unreachable after DecodeAndHash, which refuses such bodies
	}
	return o.finish(v, p, raw, true)
}

// checkNames checks source, ref and changeType.
func (o *Observation) checkNames(v *Validator, p string) {
	if len(o.Source) > MaxSourceLen || !sourcePattern.MatchString(o.Source) {
		v.Add(p+"/source", "invalid source", fmt.Sprintf("integration:scope like beeper:whatsapp-demo: a key of [a-z0-9_-] starting with a letter (1-32), ':', then [A-Za-z0-9._:@-]; at most %d characters", MaxSourceLen), QuoteFound(o.Source))
	}
	if len(o.Ref) > MaxRefLen || !visiblePattern.MatchString(o.Ref) {
		v.Add(p+"/ref", "invalid ref", fmt.Sprintf("the provider's stable ID: 1-%d printable ASCII characters, no spaces", MaxRefLen), QuoteFound(o.Ref))
	}
	v.Enum(p+"/changeType", o.ChangeType, ChangeTypes)
}

// checkPayload checks payload.kind and payload.providerId.
func (o *Observation) checkPayload(v *Validator, p string) {
	if !observationKindPattern.MatchString(o.Kind) {
		v.Add(p+"/payload/kind", "invalid kind", "1-32 characters of [a-z0-9_-] starting with a letter, like mail, calendar, notion, message", QuoteFound(o.Kind))
	}
	if len(o.ProviderID) > MaxProviderIDLen || !visiblePattern.MatchString(o.ProviderID) {
		v.Add(p+"/payload/providerId", "invalid providerId", fmt.Sprintf("the provider account's ID: 1-%d printable ASCII characters, no spaces", MaxProviderIDLen), QuoteFound(o.ProviderID))
	}
}

// finish checks payload.raw, given in canonical form, refuses the
// observation with every error v holds, or returns it with raw and its
// content hash.
func (o Observation) finish(v *Validator, p string, raw []byte, isObject bool) (Observation, error) {
	switch {
	case !isObject:
		v.Add(p+"/payload/raw", "raw must be a JSON object", "object", "another JSON value")
	case len(raw) > MaxObservationRawBytes:
		v.Add(p+"/payload/raw", fmt.Sprintf("too large: %d bytes in canonical form", len(raw)),
			fmt.Sprintf("at most %d bytes (RFC 8785 canonical form); send a compact subset", MaxObservationRawBytes), fmt.Sprintf("%d bytes", len(raw)))
	}
	if len(v.Errs) > 0 {
		return Observation{}, &ValidationError{Errors: v.Errs}
	}
	hash, err := ContentHash(o.Source, o.Kind, o.ProviderID, raw)
	if err != nil {
		return Observation{}, err
	}
	o.Raw, o.ContentHash = raw, hash
	return o, nil
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
