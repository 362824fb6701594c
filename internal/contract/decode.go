package contract

import (
	"errors"
	"fmt"
	"regexp"
	"unicode/utf8"

	"hearth/internal/strictjson"
)

// decodeStrict decodes an API body as strictly as a publication: a syntax
// error as *strictjson.SyntaxError, a shape error as *ValidationError.
func decodeStrict(body []byte, v any) error {
	_, err := strictjson.DecodeAndHash(body, v)
	var shape *strictjson.ShapeError
	if errors.As(err, &shape) {
		return &ValidationError{Errors: shape.Errors}
	}
	return err
}

// DecodeRunStart reads POST /api/runs.
func DecodeRunStart(body []byte) (RunStartIn, error) {
	var in RunStartIn
	return in, decodeStrict(body, &in)
}

// DecodeRunFinish reads POST /api/runs/{id}/finish.
func DecodeRunFinish(body []byte) (RunFinishIn, error) {
	var in RunFinishIn
	return in, decodeStrict(body, &in)
}

// DecodeInvocationFinish reads POST /api/runs/{id}/invocations/{n}/finish.
func DecodeInvocationFinish(body []byte) (InvocationFinishIn, error) {
	var in InvocationFinishIn
	return in, decodeStrict(body, &in)
}

// leaseID is LeasePattern, compiled.
var leaseID = regexp.MustCompile(LeasePattern)

// DecodeWakeAck reads POST /api/agent-wake/ack.
func DecodeWakeAck(body []byte) (WakeAck, error) {
	var in WakeAck
	if err := decodeStrict(body, &in); err != nil {
		return in, err
	}
	v := &Validator{}
	if !leaseID.MatchString(in.LeaseID) {
		v.Add("/leaseId", "not a lease ID from GET /api/agent-wake", "32 lowercase hex digits", QuoteFound(in.LeaseID))
	}
	if len(v.Errs) > 0 {
		return in, &ValidationError{Errors: v.Errs}
	}
	return in, nil
}

// DecodeAgentHealth reads POST /api/agent-health and checks its shape.
// Errors: *strictjson.SyntaxError, *ValidationError.
func DecodeAgentHealth(body []byte) (AgentHealthIn, error) {
	var in AgentHealthIn
	if err := decodeStrict(body, &in); err != nil {
		return AgentHealthIn{}, err
	}
	v := &Validator{}
	v.ID("/agent", in.Agent)
	v.Enum("/state", in.State, HealthStates)
	if n := utf8.RuneCountInString(in.Detail); n > MaxHealthDetail {
		v.Add("/detail", fmt.Sprintf("too long: %d characters", n), fmt.Sprintf("at most %d characters", MaxHealthDetail), fmt.Sprintf("%d characters", n))
	}
	if len(v.Errs) > 0 {
		return AgentHealthIn{}, &ValidationError{Errors: v.Errs}
	}
	return in, nil
}

// DecodeRequest reads POST /api/agent-requests and checks its shape, and
// returns it with the canonical hash of the body, which tells a replay of
// its requestId from another request. Errors: *strictjson.SyntaxError,
// *ValidationError.
func DecodeRequest(body []byte) (RequestIn, string, error) {
	var in RequestIn
	hash, err := strictjson.DecodeAndHash(body, &in)
	var shape *strictjson.ShapeError
	switch {
	case errors.As(err, &shape):
		return RequestIn{}, "", &ValidationError{Errors: shape.Errors}
	case err != nil:
		return RequestIn{}, "", err
	}
	v := &Validator{}
	in.Validate(v)
	if len(v.Errs) > 0 {
		return RequestIn{}, "", &ValidationError{Errors: v.Errs}
	}
	return in, hash, nil
}

// DecodeSchedule reads POST /api/schedules and checks its IDs, and returns
// it with the canonical hash of the body, which tells a replay of its
// requestKey from another create. Its timing rule, zone and limits are
// checked by the store, with the schedule rules it owns. Errors:
// *strictjson.SyntaxError, *ValidationError.
func DecodeSchedule(body []byte) (ScheduleIn, string, error) {
	var in ScheduleIn
	hash, err := strictjson.DecodeAndHash(body, &in)
	var shape *strictjson.ShapeError
	switch {
	case errors.As(err, &shape):
		return ScheduleIn{}, "", &ValidationError{Errors: shape.Errors}
	case err != nil:
		return ScheduleIn{}, "", err
	}
	v := &Validator{}
	v.ID("/requestKey", in.RequestKey)
	v.ID("/job", in.Job)
	if in.ID != nil {
		v.ID("/id", *in.ID)
	}
	if len(v.Errs) > 0 {
		return ScheduleIn{}, "", &ValidationError{Errors: v.Errs}
	}
	return in, hash, nil
}

// Publication is a publication as the store takes it: decoded, its shape
// checked and its body's canonical hash computed (CheckResult).
type Publication struct {
	Result Result
	// Hash tells a replay of the runId from another publication.
	Hash string
	// Invalid holds the body's decoding and shape errors, nil when it has
	// none. The store refuses such a publication only after it has looked
	// up the runId's receipt and resolved the references, so one refusal
	// names every problem.
	Invalid *ValidationError
}

// DecodePublication reads POST /api/agent-results. A body that breaks the
// contract is returned with its errors in Invalid, not as an error. Errors:
// *strictjson.SyntaxError, the only thing that leaves nothing to check.
func DecodePublication(body []byte) (Publication, error) {
	r, hash, err := CheckResult(body)
	var invalid *ValidationError
	if err != nil && !errors.As(err, &invalid) {
		return Publication{}, err
	}
	return Publication{Result: r, Hash: hash, Invalid: invalid}, nil
}
