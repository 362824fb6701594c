// Package mcpserver is `hearth mcp`: an MCP server on stdio whose tools call
// hearth's HTTP API with the agent's own credential and whose resources are
// the contract's JSON Schemas.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"hearth/internal/apiclient"
	"hearth/internal/contract"
	"hearth/internal/contract/schema"
)

// mcpTool is one tool `hearth mcp` offers. Each calls hearth's HTTP API with
// the agent's own credential, so it is validated by the same services and
// answers what the API answers; there is no SQL, shell or file tool, and no
// store of its own.
type mcpTool struct {
	tool *mcp.Tool
	// rules checks what the schema cannot say: arguments that depend on
	// each other. It runs after the schema check passed.
	rules func(args mcpArgs) []argError
	call  func(c mcpClient, args mcpArgs) (apiclient.Response, error)
}

// mcpArgs are a call's arguments, checked against the tool's input schema.
type mcpArgs map[string]json.RawMessage

// has reports whether the argument name was given.
func (a mcpArgs) has(name string) bool { _, ok := a[name]; return ok }

// boolean is a checked boolean argument, or def when not given.
func (a mcpArgs) boolean(name string, def bool) bool {
	raw, ok := a[name]
	if !ok {
		return def
	}
	return string(raw) == "true"
}

// str is a checked string argument, or "" when not given.
func (a mcpArgs) str(name string) string {
	var s string
	json.Unmarshal(a[name], &s)
	return s
}

var (
	trueHint  = true
	falseHint = false
)

// mcpTools are built once: the publication and observation schemas are
// parsed from the committed documents.
var mcpTools = []mcpTool{
	{
		tool: &mcp.Tool{Name: "get_context", Title: "Read hearth's agent context",
			Description: "Read hearth's agent context (GET /api/agent-context), compact unless compact is false (or full is true): brief, people, open activities with the owner's state, live reply drafts, pending requests, running trials and open occurrences; a collection that left items out says truncated with a nextCursor that reads it all (settled activities, measurements, sends, observations, routine metrics). With collection (and cursor), read a page of one collection instead.",
			InputSchema: objectSchema(map[string]any{
				"compact":    map[string]any{"type": "boolean", "default": true, "description": "the compact context (default); false reads every collection in full (larger)"},
				"full":       map[string]any{"type": "boolean", "default": false, "description": "the same as compact: false; kept for older callers"},
				"collection": map[string]any{"type": "string", "enum": contract.ContextCollections, "description": "a collection to page instead of the whole context"},
				"cursor":     map[string]any{"type": "string", "description": "the nextCursor that collection gave; leave out for its first page"},
			}, nil),
			OutputSchema: contextOutputSchema(),
			Annotations:  &mcp.ToolAnnotations{Title: "Read hearth's agent context", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &falseHint}},
		rules: func(a mcpArgs) []argError {
			var errs []argError
			if a.has("compact") && a.has("full") && a.boolean("compact", true) == a.boolean("full", false) {
				errs = append(errs, argError{Path: "", Message: fmt.Sprintf("arguments compact and full contradict (compact:%s, full:%s): compact:false is the full context; give one of them", a["compact"], a["full"])})
			}
			if a.has("collection") {
				// A host that fills in schema defaults sends compact:true and
				// full:false with every call; only asking for more is refused.
				if !a.boolean("compact", true) {
					errs = append(errs, argError{Path: "/compact", Message: "argument compact: a collection page is always whole; leave compact:false out with collection"})
				}
				if a.boolean("full", false) {
					errs = append(errs, argError{Path: "/full", Message: "argument full: a collection page is always whole; leave full:true out with collection"})
				}
			} else if a.has("cursor") {
				errs = append(errs, argError{Path: "/cursor", Message: "argument cursor: give collection too, the collection whose nextCursor it is"})
			}
			return errs
		},
		call: func(c mcpClient, a mcpArgs) (apiclient.Response, error) {
			switch {
			case a.has("collection"):
				return c.call("GET", "/api/agent-context/"+url.PathEscape(a.str("collection"))+"?cursor="+url.QueryEscape(a.str("cursor")), nil)
			// Compact by default: a typical day's full context is a fifth
			// larger, and what it adds is history the agent can page in.
			case a.boolean("compact", true) && !a.boolean("full", false):
				return c.call("GET", "/api/agent-context?compact=true", nil)
			}
			return c.call("GET", "/api/agent-context", nil)
		},
	},
	{
		tool: &mcp.Tool{Name: "publish_result", Title: "Publish a result to hearth",
			Description:  "Publish a result (POST /api/agent-results). result is the publication; its schema is this tool's result property (also the resource hearth://schema/agent-result.json), and hearth checks more than the schema says (references between items, listed in its description). Set dryRun to validate fully and see what would change without writing. A retry with the same runId and bytes is a replay; a revision_conflict means read the context again and publish with a new runId. A refusal is a tool error carrying hearth's envelope; its JSON Pointers are into result.",
			InputSchema:  resultInputSchema(),
			OutputSchema: publishOutputSchema(),
			// A replay of the same runId and bytes changes nothing; a
			// publication can retract and replace what earlier ones wrote.
			Annotations: &mcp.ToolAnnotations{Title: "Publish a result to hearth", DestructiveHint: &trueHint, IdempotentHint: true, OpenWorldHint: &falseHint}},
		call: func(c mcpClient, a mcpArgs) (apiclient.Response, error) {
			path := "/api/agent-results"
			if a.boolean("dryRun", false) {
				path += "?dryRun=true"
			}
			return c.call("POST", path, a["result"])
		},
	},
	{
		tool: &mcp.Tool{Name: "list_requests", Title: "List the owner's requests",
			Description:  "List the owner's requests (pending, and those settled in the last 14 days) from the agent context.",
			InputSchema:  objectSchema(map[string]any{"cursor": map[string]any{"type": "string", "description": "the nextCursor of the previous page"}}, nil),
			OutputSchema: requestsOutputSchema(),
			Annotations:  &mcp.ToolAnnotations{Title: "List the owner's requests", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &falseHint}},
		call: func(c mcpClient, a mcpArgs) (apiclient.Response, error) {
			return c.call("GET", "/api/agent-context/requests?cursor="+url.QueryEscape(a.str("cursor")), nil)
		},
	},
	{
		tool: &mcp.Tool{Name: "post_observations", Title: "Record observations in hearth",
			Description:  "Record what fetchers saw (POST /api/observations/batch, up to 500): each {source, ref, changeType, actor: \"agent\", payload {kind, providerId, raw}} (the resource hearth://schema/agent-observation.json); hearth computes the content hash and answers per item created, modified, duplicate or invalid.",
			InputSchema:  observationsInputSchema(),
			OutputSchema: observationsOutputSchema(),
			// The same batch again is answered duplicate item by item.
			Annotations: &mcp.ToolAnnotations{Title: "Record observations in hearth", DestructiveHint: &falseHint, IdempotentHint: true, OpenWorldHint: &falseHint}},
		call: func(c mcpClient, a mcpArgs) (apiclient.Response, error) {
			body, _ := json.Marshal(map[string]json.RawMessage{"observations": a["observations"]})
			return c.call("POST", "/api/observations/batch", body)
		},
	},
}

func objectSchema(props map[string]any, required []string) map[string]any {
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if required != nil {
		s["required"] = required
	}
	return s
}

// embeddedSchema is committed schema document name made a property's
// schema: without $schema and $id (the tool's input schema is the
// document), and with its $defs returned to go to the input schema's root,
// where the document's "#/$defs/…" references then resolve.
func embeddedSchema(name string) (prop, defs map[string]any) {
	b, ok := schema.Committed(name)
	if !ok {
		panic("mcp: no committed schema " + name)
	}
	if err := json.Unmarshal(b, &prop); err != nil {
		panic("mcp: schema " + name + ": " + err.Error())
	}
	defs, _ = prop["$defs"].(map[string]any)
	delete(prop, "$schema")
	delete(prop, "$id")
	delete(prop, "$defs")
	return prop, defs
}

// resultInputSchema is publish_result's input: result is the whole
// publication schema, so an MCP-only agent need not guess.
func resultInputSchema() map[string]any {
	result, defs := embeddedSchema("agent-result.json")
	s := objectSchema(map[string]any{
		"result": result,
		"dryRun": map[string]any{"type": "boolean", "default": false, "description": "validate fully and report what would change; write nothing"},
	}, []string{"result"})
	s["$defs"] = defs
	return s
}

// observationsInputSchema is post_observations' input: a list of
// observations as the observation schema says.
func observationsInputSchema() map[string]any {
	item, defs := embeddedSchema("agent-observation.json")
	s := objectSchema(map[string]any{
		"observations": map[string]any{"type": "array", "items": item, "maxItems": contract.MaxObservationBatch},
	}, []string{"observations"})
	s["$defs"] = defs
	return s
}

// argError is one refused argument, shaped like hearth's own field errors.
type argError struct {
	Path     string `json:"path"`
	Message  string `json:"message"`
	Expected string `json:"expected,omitempty"`
	Found    string `json:"found,omitempty"`
}

// checkArgs checks a call's arguments against the tool's input schema at
// the top level: every name declared, every type and enum as declared,
// every required one given, list lengths within bounds. What a result or
// an observation holds is hearth's to check: its answer (JSON Pointers,
// per item for observations) says more than a schema validator would.
func checkArgs(s map[string]any, raw json.RawMessage) (mcpArgs, []argError) {
	args := mcpArgs{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, []argError{{Message: "arguments: want an object of named arguments, found " + jsonKind(raw), Expected: "object", Found: jsonKind(raw)}}
		}
	}
	props, _ := s["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	given := make([]string, 0, len(args))
	for name := range args {
		given = append(given, name)
	}
	slices.Sort(given)

	var errs []argError
	for _, name := range given {
		prop, ok := props[name].(map[string]any)
		if !ok {
			msg := fmt.Sprintf("unknown argument %q", name)
			if near := nearest(name, names); near != "" {
				msg += " (did you mean " + near + "?)"
			} else {
				msg += "; the arguments are " + strings.Join(names, ", ")
			}
			errs = append(errs, argError{Path: "/" + name, Message: msg, Expected: strings.Join(names, ", "), Found: name})
			continue
		}
		errs = append(errs, checkArg(name, prop, args[name])...)
	}
	for _, name := range requiredOf(s) {
		if !args.has(name) {
			errs = append(errs, argError{Path: "/" + name, Message: "argument " + name + ": required"})
		}
	}
	return args, errs
}

// checkArg checks one argument's type, enum and item count.
func checkArg(name string, prop map[string]any, raw json.RawMessage) []argError {
	want, _ := prop["type"].(string)
	found := jsonKind(raw)
	if want != "" && kindOf(raw) != want {
		return []argError{{Path: "/" + name, Message: fmt.Sprintf("argument %s: want %s, found %s", name, article(want), found), Expected: want, Found: kindOf(raw)}}
	}
	if enum := enumOf(prop); enum != nil {
		var v string
		json.Unmarshal(raw, &v)
		if !slices.Contains(enum, v) {
			msg := fmt.Sprintf("argument %s: want one of %s; found %q", name, strings.Join(enum, ", "), v)
			if near := nearest(v, enum); near != "" {
				msg += " (did you mean " + near + "?)"
			}
			return []argError{{Path: "/" + name, Message: msg, Expected: strings.Join(enum, ", "), Found: v}}
		}
	}
	if want == "array" {
		var items []json.RawMessage
		json.Unmarshal(raw, &items)
		if max, ok := prop["maxItems"].(int); ok && len(items) > max {
			return []argError{{Path: "/" + name, Message: fmt.Sprintf("argument %s: at most %d items, found %d", name, max, len(items))}}
		}
	}
	return nil
}

func requiredOf(s map[string]any) []string {
	switch r := s["required"].(type) {
	case []string:
		return r
	case []any:
		var out []string
		for _, v := range r {
			if name, ok := v.(string); ok {
				out = append(out, name)
			}
		}
		return out
	}
	return nil
}

func enumOf(prop map[string]any) []string {
	e, _ := prop["enum"].([]string)
	return e
}

// kindOf is the JSON Schema type of a well-formed JSON value.
func kindOf(raw json.RawMessage) string {
	switch s := strings.TrimLeft(string(raw), " \t\r\n"); {
	case s == "":
		return ""
	case s[0] == '{':
		return "object"
	case s[0] == '[':
		return "array"
	case s[0] == '"':
		return "string"
	case s[0] == 't' || s[0] == 'f':
		return "boolean"
	case s[0] == 'n':
		return "null"
	}
	return "number"
}

// jsonKind names a JSON value's type for a message: "a string", "null".
func jsonKind(raw json.RawMessage) string {
	if k := kindOf(raw); k != "null" {
		return article(k)
	}
	return "null"
}

func article(kind string) string {
	if kind == "object" || kind == "array" {
		return "an " + kind
	}
	return "a " + kind
}

// nearest is the candidate a mistyped name most likely meant: the same but
// for case, or within a third of its length in edits; "" when none is.
func nearest(name string, candidates []string) string {
	best, bestDist := "", len(name)/3+1
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			return c
		}
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// toolFailure is a tool error's body (contract.ToolFailure, whose schema
// every tool's output schema admits beside its answers).
type toolFailure contract.ToolFailure

// result is the tool error: a first line for a reader, then the failure as
// JSON (also the structured content) for a program.
func (f toolFailure) result() *mcp.CallToolResult {
	b, _ := json.Marshal(f)
	head := f.Code + ": " + f.Message
	if f.Status != 0 {
		head = fmt.Sprintf("HTTP %d %s", f.Status, head)
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: head + "\n" + string(b)}}, StructuredContent: json.RawMessage(b)}
}

func argumentFailure(errs []argError) toolFailure {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Message
	}
	details, _ := json.Marshal(map[string]any{"errors": errs})
	return toolFailure{Code: "invalid_arguments", Message: strings.Join(msgs, "; "), Details: details}
}

// apiFailure is a non-2xx answer from hearth as a tool error: its envelope
// as it came, so the model can correct itself.
func apiFailure(tool string, r apiclient.Response) toolFailure {
	env := r.Err().Envelope
	if env.Code == "" {
		return toolFailure{Status: r.Status, Code: "unreadable_answer", Message: fmt.Sprintf("hearth answered HTTP %d with a body that is not its error envelope: %.300q", r.Status, r.Body)}
	}
	f := toolFailure{Status: r.Status, Code: env.Code, Message: env.Message, Details: env.Details, RequestID: env.RequestID}
	if tool == "publish_result" {
		f.Argument = "result" // the body hearth read, so its JSON Pointers are into result
	}
	return f
}

// mcpClient calls hearth's API.
type mcpClient struct{ api *apiclient.Client }

// call is one request; only a transport failure is an error.
func (c mcpClient) call(method, path string, body []byte) (apiclient.Response, error) {
	return c.api.Do(context.Background(), method, path, body)
}

// schemaResource is the MCP resource URI of a committed schema document.
func schemaResource(name string) string { return "hearth://schema/" + name }

// newMCPServer builds the MCP server whose tools call hearth at base and
// whose resources are the contract's JSON Schemas.
func newMCPServer(c mcpClient) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hearth", Title: "hearth", Version: "1"}, &mcp.ServerOptions{
		Instructions: "hearth is the owner's day: read get_context, reason, then publish_result (dryRun first if unsure). The publication's JSON Schema is publish_result's result property and the resource " + schemaResource("agent-result.json") + ".",
	})
	for _, t := range mcpTools {
		srv.AddTool(t.tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, errs := checkArgs(t.tool.InputSchema.(map[string]any), req.Params.Arguments)
			if errs == nil && t.rules != nil {
				errs = t.rules(args)
			}
			if errs != nil {
				return argumentFailure(errs).result(), nil
			}
			resp, err := t.call(c, args)
			if err != nil {
				// Only a transport failure: hearth did not answer.
				return toolFailure{Code: "unavailable", Message: "hearth at " + c.api.Base() + " is unreachable: " + err.Error()}.result(), nil
			}
			if resp.Status >= 400 {
				return apiFailure(t.tool.Name, resp).result(), nil
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(resp.Body)}}}
			if json.Valid(resp.Body) {
				res.StructuredContent = json.RawMessage(resp.Body)
			}
			return res, nil
		})
	}
	for _, name := range schema.Names() {
		body, _ := schema.Committed(name)
		uri := schemaResource(name)
		srv.AddResource(&mcp.Resource{URI: uri, Name: name, MIMEType: "application/schema+json", Size: int64(len(body)),
			Description: "JSON Schema 2020-12 of the agent contract, as GET /api/schema/" + name + " serves it"},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/schema+json", Text: string(body)}}}, nil
			})
	}
	return srv
}

// Serve serves the MCP tools, calling hearth through api, on in and out
// until ctx ends or the client disconnects.
func Serve(ctx context.Context, api *apiclient.Client, in io.Reader, out io.Writer) error {
	return newMCPServer(mcpClient{api: api}).Run(ctx, mcpStdio{in: in, out: out})
}
