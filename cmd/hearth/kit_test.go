package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"hearth/agent"
	"hearth/internal/contract/schema"
)

// kitWords are the words in the kit's backticks that name no property or
// value of the schemas, and why they are true anyway.
var kitWords = map[string]string{
	"chatTitle": "a key of a Beeper message observation's raw (models/beeperwatch.go)", "senderName": "raw",
	"isSender": "raw", "sortKey": "raw", "timestamp": "raw", "type": "raw", "replyTo": "raw",
	"modified": "an observation's changeType (contract.ChangeTypes)", "deleted": "an observation's changeType",
	"pending": "a request's status", "null": "JSON", "true": "JSON", "bool": "JSON",
	"short": "a candidate style, free text", "warm": "a candidate style, free text",
	"parts": "the runner's context/index.json (internal/runner/context_parts.go)", "file": "index.json", "tokens": "index.json",
	"page": "index.json and a page", "pages": "index.json and a page", "collection": "a page of the context dir",
	"available": "a userState's state (models.StateAvailable), the one the compact context leaves out",
}

// TestTheKitNamesOnlyFieldsTheContractHas keeps the job's instructions and
// the prompts true to the contract: every field name they quote in
// backticks (or dotted path of them) is a property or enum value of the
// publication, context or request schema.
func TestTheKitNamesOnlyFieldsTheContractHas(t *testing.T) {
	known := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if p, ok := x.(map[string]any); ok && k == "properties" {
					for name := range p {
						known[name] = true
					}
				}
				if e, ok := x.([]any); ok && k == "enum" {
					for _, val := range e {
						if s, ok := val.(string); ok {
							known[s] = true
						}
					}
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, name := range []string{schema.StrictResult, "agent-context.json", "agent-request.json"} {
		b, _ := schema.Committed(name)
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		walk(doc)
	}
	texts := map[string]string{"job-instructions.md": string(agent.Instructions())}
	for _, job := range agent.Jobs() {
		texts[job], _ = agent.Prompt(job)
	}
	field := regexp.MustCompile(`^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)*$`)
	quoted := regexp.MustCompile("`([^`]+)`")
	checked := 0
	for name, text := range texts {
		for _, m := range quoted.FindAllStringSubmatch(text, -1) {
			if !field.MatchString(m[1]) || strings.HasSuffix(m[1], ".json") || strings.HasSuffix(m[1], ".txt") { // file names
				continue
			}
			for _, part := range strings.Split(m[1], ".") {
				checked++
				if !known[part] && kitWords[part] == "" {
					t.Errorf("%s quotes `%s`: %q is no field or value of the contract", name, m[1], part)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d names checked: the test reads nothing", checked)
	}
}

func TestTheKitHasAPromptForEveryJobTheREADMENames(t *testing.T) {
	want := []string{"daily-brief", "messages", "requests", "routine-review"}
	if got := agent.Jobs(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("kit jobs %v, want %v", got, want)
	}
	for _, job := range want {
		p, _ := agent.Prompt(job)
		if !strings.HasPrefix(p, "# Job: "+job+"\n") || !strings.Contains(p, "Follow AGENTS.md") || !strings.Contains(p, "one JSON publication and nothing else") {
			t.Errorf("%s's prompt does not say its job, point at AGENTS.md and ask for the one publication", job)
		}
	}
	if _, ok := agent.Prompt("../AGENTS"); ok {
		t.Fatal("a job key reads outside prompts/")
	}
}
