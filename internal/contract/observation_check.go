package contract

import (
	"encoding/json"
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

// CheckedObservation is a valid observation with what hearth computed from it.
type CheckedObservation struct {
	In   ObservationIn
	Raw  []byte // canonical payload.raw
	Hash string
}

// HashHints rewords the unknown-field error for a hash field at the top of
// an observation or its payload: the agent must learn that hearth computes
// it, not just that the field is unknown. A hash inside raw is provider data.
func HashHints(errs []strictjson.FieldError, prefix string) []strictjson.FieldError {
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

// CheckObservation validates bounds and computes the canonical raw and the
// content hash; paths are prefixed with the item's place in a batch.
func CheckObservation(in ObservationIn, p string) (CheckedObservation, error) {
	v := &Validator{}
	if len(in.Source) > MaxSourceLen || !sourcePattern.MatchString(in.Source) {
		v.Add(p+"/source", "invalid source", fmt.Sprintf("integration:scope like beeper:whatsapp-demo: a key of [a-z0-9_-] starting with a letter (1-32), ':', then [A-Za-z0-9._:@-]; at most %d characters", MaxSourceLen), QuoteFound(in.Source))
	}
	if len(in.Ref) > MaxRefLen || !visiblePattern.MatchString(in.Ref) {
		v.Add(p+"/ref", "invalid ref", fmt.Sprintf("the provider's stable ID: 1-%d printable ASCII characters, no spaces", MaxRefLen), QuoteFound(in.Ref))
	}
	v.Enum(p+"/changeType", in.ChangeType, ChangeTypes)
	switch in.Actor {
	case ActorAgent:
	case "user":
		v.Add(p+"/actor", `actor "user" is refused: observations record what the agent's fetchers saw; the owner's own actions reach hearth through its pages`, `"agent"`, QuoteFound(in.Actor))
	default:
		v.Add(p+"/actor", "unknown value", `"agent"`, QuoteFound(in.Actor))
	}
	if !observationKindPattern.MatchString(in.Payload.Kind) {
		v.Add(p+"/payload/kind", "invalid kind", "1-32 characters of [a-z0-9_-] starting with a letter, like mail, calendar, notion, message", QuoteFound(in.Payload.Kind))
	}
	if len(in.Payload.ProviderID) > MaxProviderIDLen || !visiblePattern.MatchString(in.Payload.ProviderID) {
		v.Add(p+"/payload/providerId", "invalid providerId", fmt.Sprintf("the provider account's ID: 1-%d printable ASCII characters, no spaces", MaxProviderIDLen), QuoteFound(in.Payload.ProviderID))
	}
	var raw []byte
	if !in.Payload.Raw.IsObject() {
		v.Add(p+"/payload/raw", "raw must be a JSON object", "object", "another JSON value")
	} else {
		var err error
		// Exact integers: a provider's 19-digit ID must neither be stored
		// rounded nor hash like a neighbouring one.
		if raw, err = in.Payload.Raw.CanonicalExact(); err != nil {
			return CheckedObservation{}, err // unreachable after DecodeAndHash, which refuses such bodies
		}
		if len(raw) > MaxObservationRawBytes {
			v.Add(p+"/payload/raw", fmt.Sprintf("too large: %d bytes in canonical form", len(raw)),
				fmt.Sprintf("at most %d bytes (RFC 8785 canonical form); send a compact subset", MaxObservationRawBytes), fmt.Sprintf("%d bytes", len(raw)))
		}
	}
	if len(v.Errs) > 0 {
		return CheckedObservation{}, &ValidationError{Errors: v.Errs}
	}
	hash, err := ContentHash(in.Source, in.Payload.Kind, in.Payload.ProviderID, raw)
	if err != nil {
		return CheckedObservation{}, err
	}
	return CheckedObservation{In: in, Raw: raw, Hash: hash}, nil
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
