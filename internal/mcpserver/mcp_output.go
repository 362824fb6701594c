package mcpserver

import (
	"reflect"
	"slices"
	"strings"

	"hearth/internal/contract"
)

// The tools' output schemas are the committed schemas of the answers
// hearth gives (generated from internal/contract's types by make schema),
// so a tool's structuredContent, which is hearth's answer as it came,
// validates against what the tool declares. A tool error's structured
// content (contract.ToolFailure) is admitted too: clients check it as well.

// contextOutputSchema is get_context's output: the agent context, or a
// page of one of its collections (each collection's page schema is the
// context's own property of that name).
func contextOutputSchema() map[string]any {
	ctx, defs := embeddedSchema("agent-context.json")
	answers := []any{ctx}
	for _, c := range contract.ContextCollections {
		answers = append(answers, contextProperty(ctx, c))
	}
	return outputSchema(answers, defs)
}

// requestsOutputSchema is list_requests' output: a page of requests.
func requestsOutputSchema() map[string]any {
	ctx, defs := embeddedSchema("agent-context.json")
	return outputSchema([]any{contextProperty(ctx, contract.CollectionRequests)}, defs)
}

// publishOutputSchema is publish_result's output: the receipt, or with
// dryRun the report of what would change.
func publishOutputSchema() map[string]any {
	receipt, rdefs := embeddedSchema("agent-result-receipt.json")
	report, ddefs := embeddedSchema("agent-result-dry-run.json")
	return outputSchema([]any{receipt, report}, rdefs, ddefs)
}

// observationsOutputSchema is post_observations' output: the batch answer.
func observationsOutputSchema() map[string]any {
	answer, defs := embeddedSchema("agent-observation-batch-answer.json")
	return outputSchema([]any{answer}, defs)
}

// contextProperty is the schema of the context's property name.
func contextProperty(ctx map[string]any, name string) any {
	props, _ := ctx["properties"].(map[string]any)
	p, ok := props[name]
	if !ok {
		panic("mcp: the agent context schema has no property " + name)
	}
	return p
}

// outputSchema is a tool's output schema: any one of answers, or the tool
// failure, with the $defs they use (from defs, which must agree where
// names meet), under an object schema as MCP wants at the root.
func outputSchema(answers []any, defs ...map[string]any) map[string]any {
	failure, fdefs := embeddedSchema("agent-tool-failure.json")
	all := map[string]any{}
	for _, d := range append(defs, fdefs) {
		for name, def := range d {
			if prev, ok := all[name]; ok && !reflect.DeepEqual(prev, def) {
				panic("mcp: two answer schemas define " + name + " differently")
			}
			all[name] = def
		}
	}
	s := map[string]any{"type": "object", "anyOf": append(answers, failure)}
	if used := usedDefs(s, all); len(used) > 0 {
		s["$defs"] = used
	}
	return s
}

// usedDefs are the definitions of defs that s refers to, directly or
// through other definitions.
func usedDefs(s any, defs map[string]any) map[string]any {
	used := map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				name, local := strings.CutPrefix(ref, "#/$defs/")
				if _, seen := used[name]; local && !seen {
					def, ok := defs[name]
					if !ok {
						panic("mcp: an answer schema refers to " + ref + ", which no document defines")
					}
					used[name] = def
					walk(def)
				}
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(v[k])
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(s)
	return used
}
