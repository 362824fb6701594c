package contract

import "testing"

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
