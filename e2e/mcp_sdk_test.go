package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// mcpSDKVersion is the official TypeScript MCP SDK `hearth mcp` is proven against.
const mcpSDKVersion = "1.32.2"

// mcpSDK is the pinned official TypeScript MCP SDK, from npm.
func mcpSDK(t *testing.T) string {
	return npmPackage{name: "@modelcontextprotocol/sdk", version: mcpSDKVersion, cache: "mcp-sdk-" + mcpSDKVersion}.install(t)
}

// contextShape is what the script reports of one get_context result.
type contextShape struct {
	IsError      bool  `json:"isError"`
	Revision     int64 `json:"revision"`
	Observations int   `json:"observations"`
	Truncated    bool  `json:"truncated"`
}

// toolCall is one tool result as the TypeScript script reports it.
type toolCall struct {
	IsError    bool   `json:"isError"`
	Text       string `json:"text"`
	Structured struct {
		Status   int    `json:"status"`
		Code     string `json:"code"`
		Argument string `json:"argument"`
		Details  struct {
			Errors []struct{ Path, Message string } `json:"errors"`
		} `json:"details"`
	} `json:"structured"`
}

func TestOfficialTypeScriptMCPClientDrivesHearthMCP(t *testing.T) {
	t.Parallel()
	sdk := mcpSDK(t)
	srv := startServerEnv(t, nil, "--demo")
	token := readToken(t, filepath.Join(srv.DataDir, "agent.token"))
	client := newAgentClient(srv.URL, token)
	// A pending observation: history the compact context leaves out.
	had := observationCount(t, client.contextJSON(t))
	obs := `{"source":"mail:work","ref":"m1","changeType":"created","actor":"agent","payload":{"kind":"mail","providerId":"work","raw":{"subject":"hi"}}}`
	if status, body, err := client.do(http.MethodPost, "/api/observations", []byte(obs)); err != nil || status != 200 {
		t.Fatalf("observation: status %d, err %v, body %s", status, err, body)
	}
	rev := client.context(t).Revision
	pub := writeFile(t, t.TempDir(), "pub.json", newPublication("ts-run-1", rev, 2).Body, 0o600)
	// The credential under a HOME of the test's own, named with ~/ as an
	// MCP host's configuration names it: no shell expands it on the way.
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".config", "hearth"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".config", "hearth"), "token", []byte(token+"\n"), 0o600)

	script, err := filepath.Abs(filepath.Join("testdata", "mcp_sdk_conformance.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, "node", script)
	node.Dir = t.TempDir()
	node.Env = cleanEnv("HOME="+home, "HEARTH_MCP_SDK_DIR="+sdk, "HEARTH_BIN="+hearthBin, "HEARTH_URL="+srv.URL,
		"HEARTH_CREDENTIAL=~/.config/hearth/token", "HEARTH_PUBLICATION="+pub)
	var stdout, stderr bytes.Buffer
	node.Stdout, node.Stderr = &stdout, &stderr
	if err := node.Run(); err != nil {
		t.Fatalf("the SDK %s could not drive hearth mcp (node %s: %v):\n%s%s", mcpSDKVersion, script, err, stderr.String(), stdout.String())
	}
	var got struct {
		SDKVersion string `json:"sdkVersion"`
		Tools      map[string]struct {
			Title       string `json:"title"`
			Annotations *struct {
				ReadOnlyHint    bool  `json:"readOnlyHint"`
				DestructiveHint *bool `json:"destructiveHint"`
				IdempotentHint  bool  `json:"idempotentHint"`
				OpenWorldHint   *bool `json:"openWorldHint"`
			} `json:"annotations"`
		} `json:"tools"`
		PublishInput struct {
			Required         []string `json:"required"`
			ResultType       string   `json:"resultType"`
			ResultRequired   []string `json:"resultRequired"`
			ResultProperties int      `json:"resultProperties"`
			Defs             int      `json:"defs"`
		} `json:"publishInput"`
		Resources []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
		} `json:"resources"`
		SchemaResource struct {
			MIMEType string   `json:"mimeType"`
			ID       string   `json:"id"`
			Required []string `json:"required"`
		} `json:"schemaResource"`
		Compact, CompactFalse, Full contextShape
		AJV                         struct {
			Accepts              bool `json:"accepts"`
			RefusesMissingResult bool `json:"refusesMissingResult"`
			RefusesWrongJobKey   bool `json:"refusesWrongJobKey"`
		} `json:"ajv"`
		DryRun, Publish, Replay struct {
			IsError bool `json:"isError"`
			Body    struct {
				RunID    string `json:"runId"`
				DryRun   bool   `json:"dryRun"`
				Valid    bool   `json:"valid"`
				Revision int64  `json:"revision"`
			} `json:"body"`
		}
		Typo, MissingResult, WrongType, Contradiction, InvalidResult toolCall
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil || got.SDKVersion != mcpSDKVersion {
		t.Fatalf("the script's summary %q: %v", stdout.String(), err)
	}

	for name, readOnly := range map[string]bool{"get_context": true, "list_requests": true, "publish_result": false, "post_observations": false} {
		tool, ok := got.Tools[name]
		if !ok || tool.Title == "" || tool.Annotations == nil || tool.Annotations.ReadOnlyHint != readOnly ||
			tool.Annotations.OpenWorldHint == nil || *tool.Annotations.OpenWorldHint {
			t.Errorf("%s as the SDK lists it: %+v; want a title, readOnlyHint %v, a closed world", name, tool, readOnly)
		}
	}
	if a := got.Tools["publish_result"].Annotations; a == nil || !a.IdempotentHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("publish_result annotations as the SDK reads them: %+v", a)
	}
	want := committedSchema(t, "agent-result.json")
	var wantRequired []string
	for _, r := range want["required"].([]any) {
		wantRequired = append(wantRequired, r.(string))
	}
	in := got.PublishInput
	if !slices.Equal(in.Required, []string{"result"}) || in.ResultType != "object" || !slices.Equal(in.ResultRequired, wantRequired) ||
		in.ResultProperties != len(want["properties"].(map[string]any)) || in.Defs != len(want["$defs"].(map[string]any)) {
		t.Errorf("publish_result's input schema as the SDK reads it: %+v; want result to be the publication schema (required %v)", in, wantRequired)
	}
	if !got.AJV.Accepts || !got.AJV.RefusesMissingResult || !got.AJV.RefusesWrongJobKey {
		t.Errorf("the SDK's own validator (Ajv) on publish_result's input schema: %+v; want it to accept the publication and refuse the two faults", got.AJV)
	}
	var schemaListed bool
	for _, r := range got.Resources {
		schemaListed = schemaListed || (r.URI == "hearth://schema/agent-result.json" && r.MIMEType == "application/schema+json")
	}
	if !schemaListed || got.SchemaResource.MIMEType != "application/schema+json" || got.SchemaResource.ID != want["$id"] ||
		!slices.Equal(got.SchemaResource.Required, wantRequired) {
		t.Errorf("the schema resource: listed %v, read %+v", got.Resources, got.SchemaResource)
	}

	if c := got.Compact; c.IsError || c.Revision != rev || c.Observations != 0 || !c.Truncated {
		t.Errorf("get_context {}: %+v; want the compact context (the observation left out, truncated)", c)
	}
	for name, c := range map[string]contextShape{"compact:false": got.CompactFalse, "full:true": got.Full} {
		if c != (contextShape{Revision: rev, Observations: had + 1}) {
			t.Errorf("get_context %s: %+v; want the full context with the observation", name, c)
		}
	}
	if d := got.DryRun; d.IsError || !d.Body.DryRun || !d.Body.Valid || d.Body.RunID != "ts-run-1" {
		t.Errorf("dry run: %+v", d)
	}
	if p := got.Publish; p.IsError || p.Body.RunID != "ts-run-1" || p.Body.Revision != rev+1 {
		t.Errorf("publish: %+v; want revision %d", p, rev+1)
	}
	if r := got.Replay; r.IsError || r.Body.Revision != rev+1 {
		t.Errorf("replay: %+v; want the same receipt", r)
	}
	if ac := client.context(t); ac.LastPublication == nil || ac.LastPublication.RunID != "ts-run-1" || ac.Revision != rev+1 {
		t.Errorf("hearth after the SDK's publish: %+v at revision %d", ac.LastPublication, ac.Revision)
	}

	for _, c := range []struct {
		name string
		got  toolCall
		path string
		want string
	}{
		{"a typo", got.Typo, "/dryrun", `unknown argument "dryrun" (did you mean dryRun?)`},
		{"no result", got.MissingResult, "/result", "argument result: required"},
		{"a string for a boolean", got.WrongType, "/compact", "argument compact: want a boolean, found a string"},
		{"compact and full contradict", got.Contradiction, "", "arguments compact and full contradict"},
	} {
		s := c.got.Structured
		if !c.got.IsError || s.Code != "invalid_arguments" || len(s.Details.Errors) != 1 || s.Details.Errors[0].Path != c.path ||
			!strings.Contains(s.Details.Errors[0].Message, c.want) || !strings.Contains(c.got.Text, c.want) {
			t.Errorf("%s: %+v; want a tool error invalid_arguments at %q saying %q", c.name, c.got, c.path, c.want)
		}
		for _, bad := range []string{"unavailable", "415", "unsupported_media_type"} {
			if strings.Contains(c.got.Text, bad) {
				t.Errorf("%s: %q says %q", c.name, c.got.Text, bad)
			}
		}
	}
	if s := got.InvalidResult.Structured; !got.InvalidResult.IsError || s.Status != 422 || s.Code != "invalid_result" || s.Argument != "result" ||
		len(s.Details.Errors) != 1 || s.Details.Errors[0].Path != "/jobKey" {
		t.Errorf("an invalid publication: %+v; want hearth's 422 envelope with /jobKey, into result", got.InvalidResult)
	}
}
