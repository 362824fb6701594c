package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpTools are the tools `hearth mcp` offers. Each calls hearth's HTTP API
// with the agent's own credential, so it is validated by the same services
// and answers what the API answers; there is no SQL, shell or file tool,
// and no store of its own.
var mcpTools = []struct {
	tool *mcp.Tool
	call func(c mcpClient, args json.RawMessage) (response, error)
}{
	{
		&mcp.Tool{Name: "get_context", Description: "Read hearth's agent context (GET /api/agent-context), compact unless full is set: brief, people, open activities with the owner's state, live reply drafts, pending requests, running trials and open occurrences; a collection that left items out says truncated with a nextCursor that reads it all (settled activities, measurements, sends, observations, routine metrics). With collection and cursor, read a further page of one collection.",
			InputSchema: objectSchema(map[string]any{
				"collection": map[string]any{"type": "string", "description": "a collection to page (people, activities, replyDrafts, measurements, sends, requests, observations, routineDefinitions, trials, occurrences, routineMetrics, replyDecisions)"},
				"cursor":     map[string]any{"type": "string", "description": "the nextCursor of that collection"},
				"full":       map[string]any{"type": "boolean", "description": "every collection in full (larger), not the compact context"},
			}, nil)},
		func(c mcpClient, args json.RawMessage) (response, error) {
			var in struct {
				Collection, Cursor string
				Full               bool
			}
			if err := decodeArgs(args, &in); err != nil {
				return response{}, err
			}
			// Compact by default: a typical day's full context is a third
			// larger, and what it adds is history the agent can page in.
			path := "/api/agent-context?compact=true"
			switch {
			case in.Collection != "":
				path = "/api/agent-context/" + url.PathEscape(in.Collection) + "?cursor=" + url.QueryEscape(in.Cursor)
			case in.Full:
				path = "/api/agent-context"
			}
			return c.call("GET", path, nil)
		},
	},
	{
		&mcp.Tool{Name: "publish_result", Description: "Publish a result (POST /api/agent-results): the JSON Schema is GET /api/schema/agent-result.json. Set dryRun to validate fully and see what would change without writing. A retry with the same runId and bytes is a replay; a revision_conflict means read the context again and publish with a new runId.",
			InputSchema: objectSchema(map[string]any{
				"result": map[string]any{"type": "object", "description": "the publication"},
				"dryRun": map[string]any{"type": "boolean", "description": "validate and report, write nothing"},
			}, []string{"result"})},
		func(c mcpClient, args json.RawMessage) (response, error) {
			var in struct {
				Result json.RawMessage `json:"result"`
				DryRun bool            `json:"dryRun"`
			}
			if err := decodeArgs(args, &in); err != nil {
				return response{}, err
			}
			path := "/api/agent-results"
			if in.DryRun {
				path += "?dryRun=true"
			}
			return c.call("POST", path, in.Result)
		},
	},
	{
		&mcp.Tool{Name: "list_requests", Description: "List the owner's requests (pending, and those settled in the last 14 days) from the agent context.",
			InputSchema: objectSchema(map[string]any{"cursor": map[string]any{"type": "string"}}, nil)},
		func(c mcpClient, args json.RawMessage) (response, error) {
			var in struct{ Cursor string }
			if err := decodeArgs(args, &in); err != nil {
				return response{}, err
			}
			return c.call("GET", "/api/agent-context/requests?cursor="+url.QueryEscape(in.Cursor), nil)
		},
	},
	{
		&mcp.Tool{Name: "post_observations", Description: "Record what fetchers saw (POST /api/observations/batch, up to 500): each {source, ref, changeType, actor: \"agent\", payload {kind, providerId, raw}}; hearth computes the content hash and answers per item created, modified, duplicate or invalid.",
			InputSchema: objectSchema(map[string]any{
				"observations": map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "maxItems": 500},
			}, []string{"observations"})},
		func(c mcpClient, args json.RawMessage) (response, error) {
			var in struct {
				Observations []json.RawMessage `json:"observations"`
			}
			if err := decodeArgs(args, &in); err != nil {
				return response{}, err
			}
			body, _ := json.Marshal(map[string]any{"observations": in.Observations})
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

func decodeArgs(args json.RawMessage, v any) error {
	if len(args) == 0 {
		return nil
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

// mcpClient calls hearth's API.
type mcpClient struct{ base, token string }

func (c mcpClient) call(method, path string, body []byte) (response, error) {
	return do(method, c.base+path, c.token, body)
}

// newMCPServer builds the MCP server whose tools call hearth at base.
func newMCPServer(c mcpClient) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hearth", Version: "1"}, nil)
	for _, t := range mcpTools {
		call := t.call
		srv.AddTool(t.tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			resp, err := call(c, req.Params.Arguments)
			if err != nil {
				// The tool failed, not the protocol: say so to the model.
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "hearth is unavailable or the call failed: " + err.Error()}}}, nil
			}
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(resp.body)}}}
			if resp.status >= 400 {
				res.IsError = true
				res.Content = []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("HTTP %d: %s", resp.status, resp.body)}}
			} else if json.Valid(resp.body) {
				res.StructuredContent = json.RawMessage(resp.body)
			}
			return res, nil
		})
	}
	return srv
}

// cmdMCP serves the MCP tools over stdio until the client disconnects.
func cmdMCP(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	cf := addClientFlags(fs)
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs(rest); err != nil {
		return err
	}
	base, token, err := cf.endpoint()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newMCPServer(mcpClient{base: base, token: token}).Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
		return &exitError{code: exitUnavailable, err: fmt.Errorf("mcp: %w", err)}
	}
	return nil
}
