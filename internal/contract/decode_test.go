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

// TestHearthObservationIsCheckedAndHashedAsAPostedOne: what the watch
// records is held to the same bounds as what an agent posts, and the same
// content hashes alike whoever recorded it, so the two dedup each other.
func TestHearthObservationIsCheckedAndHashedAsAPostedOne(t *testing.T) {
	posted, err := DecodeObservation([]byte(`{"source":"beeper:acc","ref":"m1","changeType":"created","actor":"agent",
		"payload":{"kind":"message","providerId":"acc","raw":{"text":"hi","id":1234567890123456789,"chatId":"c"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	made, err := HearthObservation(Observation{Source: "beeper:acc", Ref: "m1", ChangeType: ChangeCreated, Kind: "message", ProviderID: "acc",
		Raw: []byte(`{ "chatId": "c", "id": 1234567890123456789, "text": "hi" }`)})
	if err != nil {
		t.Fatal(err)
	}
	if made.Actor != ActorHearth || posted.Actor != ActorAgent {
		t.Errorf("actors: made %q, posted %q", made.Actor, posted.Actor)
	}
	if string(made.Raw) != `{"chatId":"c","id":1234567890123456789,"text":"hi"}` || string(made.Raw) != string(posted.Raw) {
		t.Errorf("raw: made %s, posted %s", made.Raw, posted.Raw)
	}
	if made.ContentHash == "" || made.ContentHash != posted.ContentHash {
		t.Errorf("hashes: made %q, posted %q", made.ContentHash, posted.ContentHash)
	}

	for name, o := range map[string]Observation{
		"a source outside the pattern": {Source: "beeper:acc one", Ref: "m1", ChangeType: ChangeCreated, Kind: "message", ProviderID: "acc", Raw: []byte(`{}`)},
		"raw not an object":            {Source: "beeper:acc", Ref: "m1", ChangeType: ChangeCreated, Kind: "message", ProviderID: "acc", Raw: []byte(`["hi"]`)},
		"raw over the bound": {Source: "beeper:acc", Ref: "m1", ChangeType: ChangeCreated, Kind: "message", ProviderID: "acc",
			Raw: []byte(`{"text":"` + strings.Repeat("x", MaxObservationRawBytes) + `"}`)},
	} {
		var invalid *ValidationError
		if _, err := HearthObservation(o); !errors.As(err, &invalid) {
			t.Errorf("%s: %v, want a validation error", name, err)
		}
	}
	if _, err := HearthObservation(Observation{Source: "beeper:acc", Ref: "m1", ChangeType: ChangeCreated, Kind: "message", ProviderID: "acc", Raw: []byte(`{`)}); err == nil {
		t.Error("raw that is not JSON was accepted")
	}
}

// TestDecodeObservationBatchKeepsEachItemsRefusalToItself: a bad item is
// refused alone, with its place in its paths; the envelope refuses all.
func TestDecodeObservationBatchKeepsEachItemsRefusalToItself(t *testing.T) {
	good := `{"source":"mail:work","ref":"m1","changeType":"created","actor":"agent","payload":{"kind":"mail","providerId":"work","raw":{}}}`
	items, err := DecodeObservationBatch([]byte(`{"observations":[` + good + `,{"source":"mail:work","contentHash":"x"},` + good + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].Invalid != nil || items[2].Invalid != nil || items[0].Observation.ContentHash == "" {
		t.Fatalf("items: %+v", items)
	}
	if bad := items[1].Invalid; bad == nil || !strings.HasPrefix(bad.Errors[0].Path, "/observations/1/") {
		t.Fatalf("the bad item: %+v", items[1])
	}
	for _, body := range []string{`{"observations":[],"extra":1}`, `[]`, `{"observations":[` + strings.Repeat(good+",", MaxObservationBatch) + good + `]}`} {
		var invalid *ValidationError
		if _, err := DecodeObservationBatch([]byte(body)); !errors.As(err, &invalid) {
			t.Errorf("%.40s…: %v, want the envelope refused", body, err)
		}
	}
}
