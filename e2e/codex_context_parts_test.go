package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"hearth/agent"
)

// readingModel is a scripted Responses endpoint whose model reads the
// context as the kit tells it to, one shell command (Codex's
// exec_command) per turn: the Run section's context dir, index.json
// first and then every part the index lists; without a context dir, the
// context file with one cat. Then it answers with an empty messages
// publication. It keeps every tool output Codex sent back.
type readingModel struct {
	t      *testing.T
	URL    string
	prompt string

	mu       sync.Mutex
	requests int
	problems []string
	outputs  map[string]string // call_id → the tool output Codex sent back
	commands map[string]string // call_id → the command the model ran
}

func startReadingModel(t *testing.T, prompt string) *readingModel {
	m := &readingModel{t: t, prompt: prompt, outputs: map[string]string{}, commands: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(srv.Close)
	m.URL = srv.URL
	return m
}

var (
	runContextDir  = regexp.MustCompile(`(?m)^- context dir: (\S+)`)
	runContextFile = regexp.MustCompile(`(?m)^- context file: (\S+)`)
)

// toolBody is a tool output's text after Codex's header ("Chunk ID",
// "Wall time", "Process exited with code", "Output:").
func toolBody(out string) string {
	if _, body, ok := strings.Cut(out, "\nOutput:\n"); ok {
		return body
	}
	return out
}

func (m *readingModel) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/responses" {
		http.NotFound(w, req)
		return
	}
	body, _ := io.ReadAll(req.Body)
	var in struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var texts []string
	for _, it := range in.Input {
		collectStrings(it, &texts)
	}
	all := strings.Join(texts, "\n")
	// The conversation so far: the model's commands, in order, and what came back.
	var calls []string
	outputs := map[string]string{}
	m.mu.Lock()
	m.requests++
	n := m.requests
	for _, it := range in.Input {
		id, _ := it["call_id"].(string)
		switch it["type"] {
		case "function_call":
			var args struct {
				Cmd string `json:"cmd"`
			}
			a, _ := it["arguments"].(string)
			json.Unmarshal([]byte(a), &args)
			calls = append(calls, id)
			m.commands[id] = args.Cmd
		case "function_call_output":
			out, _ := it["output"].(string)
			outputs[id], m.outputs[id] = out, out
		}
	}
	commands := map[string]string{}
	for k, v := range m.commands {
		commands[k] = v
	}
	if !strings.Contains(all, m.prompt) {
		m.problems = append(m.problems, fmt.Sprintf("request %d does not carry the job's prompt", n))
	}
	m.mu.Unlock()

	next := ""
	dir, file := runContextDir.FindStringSubmatch(all), runContextFile.FindStringSubmatch(all)
	switch {
	case len(calls) == 0 && dir != nil:
		next = "cat " + dir[1] + "/index.json"
	case len(calls) == 0 && file != nil:
		next = "cat " + file[1]
	case len(calls) > 0 && dir != nil:
		var index struct {
			Parts []struct {
				File string `json:"file"`
			} `json:"parts"`
		}
		if err := json.Unmarshal([]byte(toolBody(outputs[calls[0]])), &index); err != nil {
			m.mu.Lock()
			m.problems = append(m.problems, fmt.Sprintf("index.json did not reach the model whole: %v; it got %.400q", err, outputs[calls[0]]))
			m.mu.Unlock()
			break
		}
		read := map[string]bool{}
		for _, id := range calls {
			read[commands[id]] = true
		}
		for _, p := range index.Parts {
			if cmd := "cat " + dir[1] + "/" + p.File; p.File != "" && !read[cmd] {
				next = cmd
				break
			}
		}
	}
	id := fmt.Sprintf("resp_%d", n)
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	if next != "" {
		// The longest wait Codex allows for a command's exit (its default,
		// 10 s, can pass on a busy machine before a sandboxed cat has run,
		// and the model then gets a running session's partial output).
		args, _ := json.Marshal(map[string]any{"cmd": next, "login": false, "yield_time_ms": 30000})
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "function_call", "name": "exec_command",
			"call_id": fmt.Sprintf("call_%d", n), "arguments": string(args)}})
	} else {
		answer := `{"runId":"x","jobKey":"messages","expectedRevision":0,"generatedAt":"` + time.Now().UTC().Format(time.RFC3339) +
			`","sourceRefs":[],"brief":null,"people":[],"activities":[],"replyDrafts":[],"retractions":[],"completedRequests":[],` +
			`"routineDefinitions":null,"reviews":null,"consumedObservations":null}`
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": answer}}}})
	}
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 1000, "output_tokens": 20, "total_tokens": 1020}}})
}

func TestAMessagesRunReadsEveryContextPartWholeThroughCodex(t *testing.T) {
	t.Parallel()
	prompt, _ := agent.Prompt("messages")
	model := startReadingModel(t, strings.TrimSpace(prompt))
	o := newCodexOwner(t, &responses{t: t, URL: model.URL})
	// What hearth answers a full read at this revision: every item of it must reach the model.
	var want map[string]json.RawMessage
	decodeJSON(t, newAgentClient(o.srv.URL, o.token).contextJSON(t), &want)

	res := o.run("--job", "messages")
	model.mu.Lock()
	defer model.mu.Unlock()
	if res.code != 0 || len(model.problems) > 0 {
		t.Fatalf("hearth run --job messages: exit %d, the model's problems %v\n%s", res.code, model.problems, res.stderr)
	}
	if len(model.outputs) == 0 {
		t.Fatal("the model read nothing")
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	// Every tool output came back whole: nothing cut, every part's JSON
	// complete and under 6,000 o200k tokens.
	got := map[string]int{}
	var read []string
	files := map[string]bool{} // the files the model read
	var index map[string]json.RawMessage
	for id, out := range model.outputs {
		cmd := model.commands[id]
		file := cmd[strings.LastIndex(cmd, "/")+1:]
		files[file] = true
		if file == "index.json" {
			json.Unmarshal([]byte(toolBody(out)), &index)
		}
		tokens, _ := enc.Count(toolBody(out))
		read = append(read, fmt.Sprintf("%s (%d o200k tokens)", file, tokens))
		if tokens > 6000 {
			t.Errorf("%q is %d o200k tokens, over a part's 6,000", cmd, tokens)
		}
		if strings.Contains(out, "truncated output") || strings.Contains(out, "tokens truncated") {
			t.Errorf("%q reached the model cut: %.300s", cmd, out)
			continue
		}
		var part struct {
			Collection string            `json:"collection"`
			Items      []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal([]byte(toolBody(out)), &part); err != nil {
			t.Errorf("%q did not reach the model as whole JSON: %v", cmd, err)
			continue
		}
		name := part.Collection
		if name == "" {
			name = strings.TrimSuffix(file, ".json")
		}
		got[name] += len(part.Items)
	}
	slices.Sort(read)
	t.Logf("the model ran %d commands: %v", len(read), read)
	// Every part the index lists was read, and every field of the
	// context is in the index or a part.
	var parts []struct {
		Name string `json:"name"`
		File string `json:"file"`
	}
	if err := json.Unmarshal(index["parts"], &parts); err != nil || len(parts) == 0 {
		t.Fatalf("the model got no index.json with parts (%v); it read %v", err, read)
	}
	inParts := map[string]bool{}
	for _, p := range parts {
		inParts[p.Name] = true
		if p.File != "" && !files[p.File] {
			t.Errorf("the index lists %s, which the model never read", p.File)
		}
	}
	// Every item of every collection reached it.
	for name, raw := range want {
		if index[name] == nil && !inParts[name] {
			t.Errorf("%s is neither in index.json nor a part", name)
		}
		var c struct {
			Items *[]json.RawMessage `json:"items"`
		}
		if json.Unmarshal(raw, &c) != nil || c.Items == nil {
			continue
		}
		if got[name] != len(*c.Items) {
			t.Errorf("%s: %d of its %d items reached the model", name, got[name], len(*c.Items))
		}
	}
}
