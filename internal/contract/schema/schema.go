// Package schema holds the committed JSON Schemas (2020-12) of the agent
// contract, embedded and served by hearth (GET /api/schema/{name}, hearth
// mcp's resources) and given to Codex (the strict form), and turns an
// answer written under the strict form back into a publication
// (FromStrict). It imports no store: internal/contract/schemagen generates
// the files (make schema) from the Go types, and its test keeps them equal.
package schema

import "embed"

// StrictResult is the strict-mode form of agent-result.json: an output
// schema an OpenAI model can be held to (Codex --output-schema sends it as
// text.format {type: json_schema, strict: true}).
const StrictResult = "agent-result.strict.json"

// names are the committed documents in a stable order, the strict form
// included (schemagen's test holds them to what it generates).
var names = []string{"agent-context.json", "agent-observation-batch-answer.json", "agent-observation.json", "agent-request.json",
	"agent-result-dry-run.json", "agent-result-receipt.json", "agent-result.json", StrictResult, "agent-tool-failure.json"}

// Names lists the committed documents in a stable order.
func Names() []string { return append([]string(nil), names...) }

//go:embed *.json
var committed embed.FS

// Committed returns the committed schema document name.
func Committed(name string) ([]byte, bool) {
	b, err := committed.ReadFile(name)
	return b, err == nil
}
