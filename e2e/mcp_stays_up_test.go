package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// mcpWire is a `hearth mcp` process spoken to line by line, as a host
// that writes whatever it likes would.
type mcpWire struct {
	t       *testing.T
	stdin   io.WriteCloser
	answers chan string
	stderr  *strings.Builder
}

// rpcAnswer is one JSON-RPC response line.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

// startMCPWire starts `hearth mcp` against an address nothing listens on:
// the protocol itself never calls hearth, so no server is needed.
func startMCPWire(t *testing.T) *mcpWire {
	t.Helper()
	cmd := exec.Command(hearthBin, "mcp", "--url", "http://"+freeAddr(t))
	cmd.Env = cleanEnv("HEARTH_TOKEN=hearth_unused")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	w := &mcpWire{t: t, stdin: stdin, answers: make(chan string, 16), stderr: &strings.Builder{}}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	go func() {
		defer close(w.answers)
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		for lines.Scan() {
			w.answers <- lines.Text()
		}
	}()
	init := w.exchange(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	if init.Error != nil || !strings.Contains(string(init.Result), `"serverInfo"`) {
		t.Fatalf("initialize: %s", init.raw)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *mcpWire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.stdin, line+"\n"); err != nil {
		w.t.Fatalf("writing %.80q: %v (hearth mcp exited?) %s", line, err, w.stderr)
	}
}

// next is the next line hearth mcp writes. The minute only turns a
// silent server into a failure instead of a hung test.
func (w *mcpWire) next(after string) rpcAnswer {
	w.t.Helper()
	var line string
	select {
	case l, ok := <-w.answers:
		if !ok {
			w.t.Fatalf("no answer after %.80q: hearth mcp exited: %s", after, w.stderr)
		}
		line = l
	case <-time.After(time.Minute):
		w.t.Fatalf("no answer after %.80q within a minute: %s", after, w.stderr)
	}
	a := rpcAnswer{raw: line}
	if err := json.Unmarshal([]byte(line), &a); err != nil {
		w.t.Fatalf("answer %.200q: %v", line, err)
	}
	return a
}

func (w *mcpWire) exchange(line string) rpcAnswer {
	w.t.Helper()
	w.send(line)
	return w.next(line)
}

// nested is value wrapped in depth JSON arrays.
func nested(depth int, value string) string {
	return strings.Repeat("[", depth) + value + strings.Repeat("]", depth)
}

// TestMCPRefusesEveryBadLineAndGoesOnServing sends `hearth mcp` each kind
// of line a host or a broken pipe can produce and wants, for each, the
// JSON-RPC 2.0 error that names the fault (with the line's id where it can
// be read), and then a request served: one bad line costs that line alone.
func TestMCPRefusesEveryBadLineAndGoesOnServing(t *testing.T) {
	t.Parallel()
	w := startMCPWire(t)
	// The SDK decodes a message nested at most 1000 deep; the message's own
	// object and params are two of those levels.
	atLimit := `{"jsonrpc":"2.0","id":30,"method":"ping","params":{"_meta":{"a":` + nested(997, "1") + `}}}`
	for _, c := range []struct {
		name, line, id string
		code           int
		says           string
	}{
		{"not JSON", `hello`, "null", -32700, "not JSON"},
		{"a truncated object", `{"jsonrpc":"2.0","id":1,"method":"initialize",`, "null", -32700, "not JSON"},
		{"an empty batch", `[]`, "null", -32600, "batches"},
		{"a batch of one", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, "null", -32600, "batches"},
		{"a number", `42`, "null", -32600, "one JSON-RPC object"},
		{"a method that is no string", `{"jsonrpc":"2.0","id":7,"method":5}`, "7", -32600, "invalid request"},
		{"nested 1001 deep", `{"jsonrpc":"2.0","id":21,"method":"ping","params":{"_meta":{"a":` + nested(998, "1") + `}}}`, "21", -32600, "nested 1001 deep"},
		{"nested 5000 deep in arguments", `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"get_context","arguments":{"a":` + nested(5000, "1") + `}}}`, `"deep"`, -32600, "at most 1000"},
		// Past encoding/json's own bound of 10000: still a nesting fault,
		// not "not JSON", and still one line.
		{"nested 20000 deep", `{"jsonrpc":"2.0","id":22,"method":"ping","params":` + nested(20000, "1") + `}`, "null", -32600, "at most 1000"},
		{"unbalanced and deep", nested(20000, "1")[:30000], "null", -32600, "at most 1000"},
		{"a fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "null", -32600, "an id is a string or an integer"},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null", -32600, "an id is a string or an integer"},
		{"an over-long line", `{"jsonrpc":"2.0","id":23,"method":"ping","params":{"_meta":{"a":"` + strings.Repeat("x", 16<<20) + `"}}}`, "null", -32600, "at most 16777216 bytes"},
	} {
		a := w.exchange(c.line)
		if a.Error == nil || a.Error.Code != c.code || string(a.ID) != c.id || !strings.Contains(a.Error.Message, c.says) {
			t.Errorf("%s: answered %.300s; want error %d with id %s saying %q", c.name, a.raw, c.code, c.id, c.says)
		}
		if ping := w.exchange(`{"jsonrpc":"2.0","id":"after","method":"ping"}`); ping.Error != nil || string(ping.ID) != `"after"` {
			t.Fatalf("after %s: ping answered %.300s", c.name, ping.raw)
		}
	}
	if a := w.exchange(atLimit); a.Error != nil || string(a.ID) != "30" {
		t.Errorf("a message nested exactly 1000 deep: %.300s; want it served", a.raw)
	}

	// A request with a null id would be taken for a notification and never
	// answered (MCP forbids a null id): the refusal must come before the
	// answer to the ping sent after it.
	w.send(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)
	w.send(`{"jsonrpc":"2.0","id":31,"method":"ping"}`)
	if a := w.next("a null id"); a.Error == nil || a.Error.Code != -32600 || string(a.ID) != "null" || !strings.Contains(a.Error.Message, "an id is a string or an integer") {
		t.Errorf("a request with a null id: answered %.300s; want error -32600", a.raw)
		if string(a.ID) != "31" {
			w.next("a null id")
		}
	} else if a := w.next("a ping"); string(a.ID) != "31" {
		t.Errorf("the ping after a null id: %.300s", a.raw)
	}
	list := w.exchange(`{"jsonrpc":"2.0","id":32,"method":"tools/list"}`)
	if list.Error != nil || !strings.Contains(string(list.Result), `"publish_result"`) {
		t.Fatalf("tools/list after the bad lines: %.300s", list.raw)
	}
}
