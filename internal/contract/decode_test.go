package contract

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeWakeAckRefusesAMalformedLeaseAndUnknownFields(t *testing.T) {
	if _, err := DecodeWakeAck([]byte(`{"leaseId":"nope"}`)); err == nil {
		t.Error("decoded a malformed lease")
	}
	if _, err := DecodeWakeAck([]byte(`{"leaseId":"0123456789abcdef0123456789abcdef","extra":1}`)); err == nil {
		t.Error("decoded an unknown field")
	}
	if in, err := DecodeWakeAck([]byte(`{"leaseId":"0123456789abcdef0123456789abcdef"}`)); err != nil || in.LeaseID != "0123456789abcdef0123456789abcdef" {
		t.Errorf("a well-formed ack: %+v, %v", in, err)
	}
}

func TestDecodeAgentHealthRefusesUnknownStatesFieldsAndLongDetail(t *testing.T) {
	long := strings.Repeat("x", MaxHealthDetail+1)
	for _, body := range []string{
		`{"agent":"codex","state":"asleep","detail":""}`,
		`{"agent":"codex","state":"ok","detail":"","token":"sk-secret"}`,
		`{"agent":"","state":"ok","detail":""}`,
		`{"agent":"codex","state":"ok","detail":"` + long + `"}`,
	} {
		_, err := DecodeAgentHealth([]byte(body))
		var v *ValidationError
		if !errors.As(err, &v) {
			t.Errorf("%.60s…: err %v, want a validation error", body, err)
		}
	}
	in, err := DecodeAgentHealth([]byte(`{"agent":"codex","state":"needs_login","detail":"` + long[1:] + `"}`))
	if err != nil || in != (AgentHealthIn{Agent: "codex", State: HealthNeedsLogin, Detail: long[1:]}) {
		t.Errorf("a report at the bounds: %+v, %v", in, err)
	}
}
