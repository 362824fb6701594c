package demo

import (
	"bytes"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"hearth/internal/contract/schema"
)

func TestDemoPublicationValidatesAgainstTheServedSchema(t *testing.T) {
	body, err := demoResult(time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC), demoZone)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := schema.Committed("agent-result.json")
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("agent-result.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("agent-result.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the demo publication does not validate: %v", err)
	}
}
