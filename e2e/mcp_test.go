package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCPSessionOverStdioReadsTheContextAndPublishes(t *testing.T) {
	t.Parallel()
	srv := startServerEnv(t, nil, "--demo")
	cmd := exec.Command(hearthBin, "mcp", "--url", srv.URL, "--credential-file", filepath.Join(srv.DataDir, "agent.token"))
	cmd.Env = cleanEnv()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	tools, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "get_context,list_requests,post_observations,publish_result" {
		t.Fatalf("tools %v: want exactly the four API tools, no SQL, shell or file tool", names)
	}
	call := func(name string, args any) (string, bool) {
		t.Helper()
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}

	text, isErr := call("get_context", map[string]any{})
	var ac agentContext
	if isErr || json.Unmarshal([]byte(text), &ac) != nil || ac.Revision < 1 {
		t.Fatalf("get_context: %v %s", isErr, text[:min(len(text), 300)])
	}
	pub := newPublication("mcp-run-1", ac.Revision, 2)
	var result map[string]any
	json.Unmarshal(pub.Body, &result)
	text, isErr = call("publish_result", map[string]any{"result": result, "dryRun": true})
	if isErr || !strings.Contains(text, `"dryRun":true`) {
		t.Fatalf("dry run: %v %s", isErr, text)
	}
	if after, _ := call("get_context", map[string]any{}); !strings.Contains(after, `"revision":`+jsonInt(ac.Revision)+`,`) {
		t.Fatal("a dry run changed the revision")
	}
	text, isErr = call("publish_result", map[string]any{"result": result})
	if isErr || !strings.Contains(text, `"runId":"mcp-run-1"`) || !strings.Contains(text, `"revision":`+jsonInt(ac.Revision+1)) {
		t.Fatalf("publish: %v %s", isErr, text)
	}
	// The same bytes again: a replay, not a second publication; stale: the API's 409.
	if text, isErr = call("publish_result", map[string]any{"result": result}); isErr || !strings.Contains(text, `"revision":`+jsonInt(ac.Revision+1)) {
		t.Fatalf("replay: %v %s", isErr, text)
	}
	stale := newPublication("mcp-run-2", ac.Revision, 1)
	json.Unmarshal(stale.Body, &result)
	if text, isErr = call("publish_result", map[string]any{"result": result}); !isErr || !strings.Contains(text, "revision_conflict") {
		t.Fatalf("stale publish: %v %s", isErr, text)
	}
	if text, isErr = call("list_requests", map[string]any{}); isErr || !strings.Contains(text, `"items"`) {
		t.Fatalf("list_requests: %v %s", isErr, text)
	}
	obs := map[string]any{"source": "mail:work", "ref": "m1", "changeType": "created", "actor": "agent",
		"payload": map[string]any{"kind": "mail", "providerId": "work", "raw": map[string]any{"subject": "hi"}}}
	if text, isErr = call("post_observations", map[string]any{"observations": []any{obs, obs}}); isErr || !strings.Contains(text, `"created":1`) || !strings.Contains(text, `"duplicate":1`) {
		t.Fatalf("post_observations: %v %s", isErr, text)
	}

	// get_context is compact unless asked for full: the pending observation
	// is left out, with a cursor that reads it.
	var compact, full struct {
		Observations struct {
			Items      []json.RawMessage `json:"items"`
			Truncated  bool              `json:"truncated"`
			NextCursor string            `json:"nextCursor"`
		} `json:"observations"`
	}
	text, isErr = call("get_context", map[string]any{})
	if isErr || json.Unmarshal([]byte(text), &compact) != nil || len(compact.Observations.Items) != 0 || !compact.Observations.Truncated {
		t.Fatalf("get_context by default is not compact: %v, %d observations, truncated %v", isErr, len(compact.Observations.Items), compact.Observations.Truncated)
	}
	text, isErr = call("get_context", map[string]any{"full": true})
	if isErr || json.Unmarshal([]byte(text), &full) != nil || len(full.Observations.Items) != 1 || full.Observations.Truncated {
		t.Fatalf("get_context full: %v, %d observations, truncated %v", isErr, len(full.Observations.Items), full.Observations.Truncated)
	}
	text, isErr = call("get_context", map[string]any{"collection": "observations", "cursor": compact.Observations.NextCursor})
	if isErr || !strings.Contains(text, `"observationId"`) {
		t.Fatalf("the compact cursor does not read the observations: %v %s", isErr, text)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
