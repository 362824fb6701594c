package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	text, isErr = call("get_context", map[string]any{"full": true})
	if isErr {
		t.Fatalf("get_context full: %s", text)
	}
	had := observationCount(t, []byte(text))
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
	if isErr || json.Unmarshal([]byte(text), &full) != nil || len(full.Observations.Items) != had+1 || full.Observations.Truncated {
		t.Fatalf("get_context full: %v, %d observations, truncated %v", isErr, len(full.Observations.Items), full.Observations.Truncated)
	}
	text, isErr = call("get_context", map[string]any{"collection": "observations", "cursor": compact.Observations.NextCursor})
	if isErr || !strings.Contains(text, `"observationId"`) {
		t.Fatalf("the compact cursor does not read the observations: %v %s", isErr, text)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// mcpSession connects the Go SDK's client to a `hearth mcp` process against srv.
func mcpSession(t *testing.T, srv *server) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(hearthBin, "mcp", "--url", srv.URL, "--credential-file", filepath.Join(srv.DataDir, "agent.token"))
	cmd.Env = cleanEnv()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// committedSchema decodes one of the committed JSON Schemas the server serves.
func committedSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "contract", "schema", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	decodeJSON(t, b, &doc)
	return doc
}

func TestMCPToolsDeclareTheResultSchemaAndAnnotations(t *testing.T) {
	t.Parallel()
	session := mcpSession(t, startServerEnv(t, nil, "--demo"))
	tools, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		byName[tool.Name] = tool
		if a := tool.Annotations; a == nil || a.Title == "" || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v, want a title and a closed world (hearth only)", tool.Name, a)
		}
	}
	for name, readOnly := range map[string]bool{"get_context": true, "list_requests": true, "publish_result": false, "post_observations": false} {
		if a := byName[name].Annotations; a == nil || a.ReadOnlyHint != readOnly {
			t.Errorf("%s: readOnlyHint %v, want %v", name, a != nil && a.ReadOnlyHint, readOnly)
		}
	}
	// A replay of the same runId and bytes changes nothing; a publication
	// can retract and replace what earlier ones wrote.
	if a := byName["publish_result"].Annotations; a == nil || !a.IdempotentHint || a.DestructiveHint == nil || !*a.DestructiveHint {
		t.Errorf("publish_result annotations %+v: want idempotent, destructive (retractions)", a)
	}
	if a := byName["post_observations"].Annotations; a == nil || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Errorf("post_observations annotations %+v: want idempotent (duplicates), additive", a)
	}

	var in struct {
		Defs       map[string]any `json:"$defs"`
		Properties struct {
			Result struct {
				Type       string         `json:"type"`
				Required   []string       `json:"required"`
				Properties map[string]any `json:"properties"`
			} `json:"result"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	raw, _ := json.Marshal(byName["publish_result"].InputSchema)
	decodeJSON(t, raw, &in)
	want := committedSchema(t, "agent-result.json")
	var wantRequired []string
	for _, r := range want["required"].([]any) {
		wantRequired = append(wantRequired, r.(string))
	}
	if in.Properties.Result.Type != "object" || strings.Join(in.Properties.Result.Required, ",") != strings.Join(wantRequired, ",") ||
		len(in.Properties.Result.Properties) != len(want["properties"].(map[string]any)) || len(in.Defs) != len(want["$defs"].(map[string]any)) {
		t.Errorf("publish_result's result schema: type %q, required %v, %d properties, %d $defs; want the publication schema's %v, %d, %d",
			in.Properties.Result.Type, in.Properties.Result.Required, len(in.Properties.Result.Properties), len(in.Defs),
			wantRequired, len(want["properties"].(map[string]any)), len(want["$defs"].(map[string]any)))
	}
	if strings.Join(in.Required, ",") != "result" {
		t.Errorf("publish_result requires %v, want [result]", in.Required)
	}

	// The schemas are resources too, byte for byte what GET /api/schema serves.
	resources, err := session.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, r := range resources.Resources {
		listed[r.URI] = r.MIMEType
	}
	for _, name := range []string{"agent-result.json", "agent-observation.json", "agent-result.strict.json"} {
		uri := "hearth://schema/" + name
		if listed[uri] != "application/schema+json" {
			t.Errorf("resource %s listed with MIME type %q (listed: %v)", uri, listed[uri], listed)
			continue
		}
		res, err := session.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		file, _ := os.ReadFile(filepath.Join("..", "internal", "contract", "schema", name))
		if len(res.Contents) != 1 || res.Contents[0].Text != string(file) || res.Contents[0].MIMEType != "application/schema+json" {
			t.Errorf("read %s: %d contents, not the committed schema", uri, len(res.Contents))
		}
	}
}

func TestMCPArgumentErrorsNameTheArgument(t *testing.T) {
	t.Parallel()
	srv := startServerEnv(t, nil, "--demo")
	session := mcpSession(t, srv)
	call := func(name string, args any) (string, bool) {
		t.Helper()
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	text, _ := call("get_context", map[string]any{})
	var ac agentContext
	decodeJSON(t, []byte(text), &ac)
	var result map[string]any
	json.Unmarshal(newPublication("mcp-args-1", ac.Revision, 1).Body, &result)

	for _, c := range []struct {
		name string
		tool string
		args map[string]any
		want []string
	}{
		{"a typo", "publish_result", map[string]any{"result": result, "dryrun": true}, []string{`unknown argument "dryrun"`, "did you mean dryRun?"}},
		{"no result", "publish_result", map[string]any{"dryRun": true}, []string{"argument result: required"}},
		{"a null result", "publish_result", map[string]any{"result": nil}, []string{"argument result", "want an object", "found null"}},
		{"a string for a boolean", "publish_result", map[string]any{"result": result, "dryRun": "yes"}, []string{"argument dryRun", "want a boolean", "found a string"}},
		{"a number for a boolean", "get_context", map[string]any{"full": 1}, []string{"argument full", "want a boolean"}},
		{"compact and full contradict", "get_context", map[string]any{"compact": true, "full": true}, []string{"compact", "full", "contradict"}},
		{"a cursor without its collection", "get_context", map[string]any{"cursor": "x"}, []string{"argument cursor", "collection"}},
		{"an unknown collection", "get_context", map[string]any{"collection": "peple"}, []string{"argument collection", "people"}},
		{"a misspelt cursor", "list_requests", map[string]any{"curser": ""}, []string{`unknown argument "curser"`, "did you mean cursor?"}},
		{"observations not a list", "post_observations", map[string]any{"observations": map[string]any{}}, []string{"argument observations", "want an array", "found an object"}},
	} {
		text, isErr := call(c.tool, c.args)
		text = text[:min(len(text), 400)]
		if !isErr {
			t.Errorf("%s: not a tool error: %s", c.name, text)
		}
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q does not say %q", c.name, text, w)
			}
		}
		for _, bad := range []string{"unavailable", "415", "unsupported_media_type"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s: %q says %q", c.name, text, bad)
			}
		}
	}

	// What hearth refuses comes back as hearth's envelope, JSON Pointers into result.
	result["jobKey"] = 5
	text, isErr := call("publish_result", map[string]any{"result": result, "dryRun": true})
	var env struct {
		Status  int    `json:"status"`
		Code    string `json:"code"`
		Details struct {
			Errors []struct{ Path string } `json:"errors"`
		} `json:"details"`
	}
	if !isErr || json.Unmarshal([]byte(text[strings.Index(text, "\n")+1:]), &env) != nil || env.Status != 422 || env.Code != "invalid_result" ||
		len(env.Details.Errors) == 0 || env.Details.Errors[0].Path != "/jobKey" {
		t.Errorf("an invalid publication: %v %s; want hearth's 422 invalid_result naming /jobKey", isErr, text)
	}
	// compact:false is full, like full:true.
	text, isErr = call("get_context", map[string]any{"compact": false})
	if isErr || !strings.Contains(text, `"revision":`) {
		t.Errorf("compact:false: %v %s", isErr, text)
	}
}

func TestMCPCredentialFileUnderHomeIsExpanded(t *testing.T) {
	t.Parallel()
	srv := startServerEnv(t, nil, "--demo")
	home := t.TempDir()
	token, err := os.ReadFile(filepath.Join(srv.DataDir, "agent.token"))
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(home, ".config", "hearth"), 0o700)
	writeFile(t, filepath.Join(home, ".config", "hearth"), "token", token, 0o600)
	// An MCP client passes the argument as written: no shell expands the ~.
	cmd := exec.Command(hearthBin, "mcp", "--url", srv.URL, "--credential-file", "~/.config/hearth/token")
	cmd.Env = cleanEnv("HOME=" + home)
	cmd.Dir = t.TempDir()
	session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_context", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("get_context with ~/ credential: %v %+v", err, res)
	}

	env := []string{"HOME=" + home}
	for _, c := range []struct{ path, want string }{
		{"~/.config/hearth/missing", filepath.Join(home, ".config", "hearth", "missing")},
		{"~nobody/token", "~user"},
		{"relative/token", "working directory"},
	} {
		res := runHearth(t, env, "mcp", "--url", srv.URL, "--credential-file", c.path)
		wantExit(t, res, 1, "stderr", "--credential-file")
		wantExit(t, res, 1, "stderr", c.want)
	}
}

func TestMCPSaysUnavailableOnlyWhenHearthDoesNotAnswer(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	for _, c := range []struct {
		name, url, token, want string
	}{
		// A revoked or wrong token: hearth answered, with its envelope.
		{"a wrong token", srv.URL, "hearth_wrong", `"status":401`},
		{"no hearth at the URL", "http://" + freeAddr(t), "hearth_unused", `"code":"unavailable"`},
	} {
		cmd := exec.Command(hearthBin, "mcp", "--url", c.url)
		cmd.Env = cleanEnv("HEARTH_TOKEN=" + c.token)
		session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := session.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_context", Arguments: map[string]any{}})
		session.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || !strings.Contains(text, c.want) || strings.Contains(text, "unreachable") != (c.want == `"code":"unavailable"`) {
			t.Errorf("%s: %v %s; want a tool error with %s", c.name, res.IsError, text, c.want)
		}
	}
}

// TestMCPAnswersAMalformedMessageWithAJSONRPCErrorAndGoesOnServing drives
// the real `hearth mcp` over stdio: a line that is not JSON, one that is
// not a JSON-RPC message and an empty batch each get the JSON-RPC 2.0
// error, and the requests after them are served.
func TestMCPAnswersAMalformedMessageWithAJSONRPCErrorAndGoesOnServing(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	cmd := exec.Command(hearthBin, "mcp", "--url", srv.URL)
	cmd.Env = cleanEnv("HEARTH_TOKEN=hearth_unused")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	// Answers arrive on a channel so a silent hearth mcp fails the test
	// instead of hanging it.
	answers := make(chan string, 16)
	go func() {
		defer close(answers)
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			answers <- lines.Text()
		}
	}()
	var last string
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	exchange := func(line string) answer {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("writing %q: %v (hearth mcp exited?)", line, err)
		}
		select {
		case l, ok := <-answers:
			if !ok {
				t.Fatalf("no answer to %q: hearth mcp exited: %s", line, stderr.String())
			}
			last = l
		case <-time.After(time.Minute):
			t.Fatalf("no answer to %q within a minute: %s", line, stderr.String())
		}
		var a answer
		if err := json.Unmarshal([]byte(last), &a); err != nil {
			t.Fatalf("answer %q: %v", last, err)
		}
		return a
	}
	for _, c := range []struct {
		line, id string
		code     int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize",`, "null", -32700},
		{`hello`, "null", -32700},
		{`{"jsonrpc":"2.0","id":7,"method":5}`, "7", -32600},
		{`{"jsonrpc":"2.0"}`, "null", -32600},
		{`[]`, "null", -32600},
		{`42`, "null", -32600},
	} {
		a := exchange(c.line)
		if a.Error == nil || a.Error.Code != c.code || string(a.ID) != c.id {
			t.Errorf("%s: answered %s; want error %d with id %s", c.line, last, c.code, c.id)
		}
	}
	init := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	if init.Error != nil || !strings.Contains(string(init.Result), `"serverInfo"`) {
		t.Fatalf("initialize after malformed messages: %s", last)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if a := exchange(`not json either`); a.Error == nil || a.Error.Code != -32700 {
		t.Fatalf("a malformed line in the session: %s", last)
	}
	list := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if list.Error != nil || !strings.Contains(string(list.Result), `"get_context"`) {
		t.Fatalf("tools/list after a malformed line: %s", last)
	}
}
