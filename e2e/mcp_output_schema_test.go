package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEveryMCPToolAnswerValidatesAgainstItsOutputSchemaInTheOfficialSDK
// has the official TypeScript SDK list hearth mcp's tools and call each
// (get_context compact, full and every collection; list_requests; a dry
// run and a publish; an observation; two tool errors): callTool checks
// structuredContent, a tool error's too, against the declared outputSchema
// and throws on a mismatch, so every call must come back without one. The negative half proves the check
// bites: the SDK's validator refuses each answer with a property of the
// wrong type or one hearth never sends, and callTool itself throws when a
// server declaring hearth's schemas answers with such a mismatch.
func TestEveryMCPToolAnswerValidatesAgainstItsOutputSchemaInTheOfficialSDK(t *testing.T) {
	t.Parallel()
	sdk := mcpSDK(t)
	srv := startServerEnv(t, nil, "--demo")
	token := readToken(t, filepath.Join(srv.DataDir, "agent.token"))
	client := newAgentClient(srv.URL, token)
	// A pending request, so the requests page is not empty either.
	loginOwner(t, srv.URL).mustPage(http.MethodPost, "/requests", url.Values{"requestId": {"out-req-1"}, "kind": {"note"}, "text": {"Find a dentist"}, "return": {"/"}})
	pub := writeFile(t, t.TempDir(), "pub.json", newPublication("ts-out-1", client.context(t).Revision, 2).Body, 0o600)
	script, err := filepath.Abs(filepath.Join("testdata", "mcp_sdk_output_schema.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, "node", script)
	node.Dir = t.TempDir()
	node.Env = cleanEnv("HEARTH_MCP_SDK_DIR="+sdk, "HEARTH_BIN="+hearthBin, "HEARTH_URL="+srv.URL,
		"HEARTH_CREDENTIAL="+filepath.Join(srv.DataDir, "agent.token"), "HEARTH_PUBLICATION="+pub)
	var stdout, stderr bytes.Buffer
	node.Stdout, node.Stderr = &stdout, &stderr
	if err := node.Run(); err != nil {
		t.Fatalf("node %s: %v\n%s%s", script, err, stderr.String(), stdout.String())
	}
	var got struct {
		SDKVersion string `json:"sdkVersion"`
		Tools      map[string]struct {
			OutputSchemaType *string `json:"outputSchemaType"`
		} `json:"tools"`
		Calls []struct {
			Tool, Label, Text, Thrown string
			IsError, Structured       bool
			Items                     int
		} `json:"calls"`
		Rejects map[string]struct {
			AcceptsReal, RejectsWrongType, RejectsUnknownProperty bool
		} `json:"rejects"`
		FakeServer struct {
			RealAccepted   bool   `json:"realAccepted"`
			RealError      string `json:"realError"`
			MismatchThrown string `json:"mismatchThrown"`
		} `json:"fakeServer"`
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil || got.SDKVersion != mcpSDKVersion {
		t.Fatalf("the script's summary %q: %v", stdout.String(), err)
	}

	if len(got.Tools) != 4 {
		t.Errorf("tools %v: want the four", got.Tools)
	}
	for name, tool := range got.Tools {
		if tool.OutputSchemaType == nil || *tool.OutputSchemaType != "object" {
			t.Errorf("%s declares no outputSchema of type object", name)
		}
	}
	called := map[string]bool{}
	empty := 0
	for _, c := range got.Calls {
		called[c.Tool] = true
		if c.Items == 0 && !c.IsError {
			empty++
		}
		switch {
		case c.Thrown != "":
			t.Errorf("%s (%s): the SDK refused the answer: %s", c.Tool, c.Label, c.Thrown)
		case strings.HasPrefix(c.Label, "error:"):
			if !c.IsError || !c.Structured {
				t.Errorf("%s (%s): isError %v, structuredContent %v: want a tool error with hearth's envelope as structured content", c.Tool, c.Label, c.IsError, c.Structured)
			}
		case c.IsError || !c.Structured:
			t.Errorf("%s (%s): isError %v, structuredContent %v: want a structured answer: %s", c.Tool, c.Label, c.IsError, c.Structured, c.Text)
		}
	}
	// The demo, a request and an observation fill every collection, so item schemas are
	// exercised, not only empty lists.
	if empty > 0 {
		t.Errorf("%d of the answers are empty pages: %+v", empty, got.Calls)
	}
	if len(got.Calls) < 19 {
		t.Errorf("%d calls: want every collection of get_context and every tool", len(got.Calls))
	}
	for name := range got.Tools {
		r, ok := got.Rejects[name]
		if !called[name] || !ok || !r.AcceptsReal || !r.RejectsWrongType || !r.RejectsUnknownProperty {
			t.Errorf("%s: the SDK's validator on its output schema: %+v (checked %v); want the real answer accepted and both mismatches refused", name, r, ok)
		}
	}
	if f := got.FakeServer; !f.RealAccepted || !strings.Contains(f.MismatchThrown, "does not match the tool's output schema") {
		t.Errorf("callTool against a server with hearth's schemas: real answer accepted %v (%s); mismatch threw %q", f.RealAccepted, f.RealError, f.MismatchThrown)
	}
}
