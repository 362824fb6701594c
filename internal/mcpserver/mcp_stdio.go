package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMCPLine bounds one message of `hearth mcp`'s stdin, as the SDK's own
// stdio transport does.
const maxMCPLine = mcp.DefaultMaxLineLength

// mcpStdio is the stdio transport of `hearth mcp`. The SDK's stdio
// transport ends the session at the first line that is not a JSON-RPC
// message; this one answers such a line with the JSON-RPC 2.0 error (parse
// error -32700, invalid request -32600, id null unless the line's own id
// can be read) and hands only well-formed messages on, so one bad line
// costs that line alone.
type mcpStdio struct {
	in  io.Reader
	out io.Writer
}

// Connect implements mcp.Transport.
func (t mcpStdio) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &lineWriter{w: t.out}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(filterMCPLines(t.in, pw, out)) }()
	return (&mcp.IOTransport{Reader: pr, Writer: out}).Connect(ctx)
}

// filterMCPLines copies each well-formed JSON-RPC message of in to good, a
// line each, and answers every other line on out, until in ends.
func filterMCPLines(in io.Reader, good io.Writer, out *lineWriter) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readMCPLine(r)
		if len(line) > 0 || tooLong {
			var refusal []byte
			switch {
			case tooLong:
				refusal = jsonrpcError(nil, -32600, fmt.Sprintf("invalid request: a message is at most %d bytes", maxMCPLine))
			default:
				refusal = malformedMCP(line)
			}
			if refusal != nil {
				if _, werr := out.Write(refusal); werr != nil {
					return werr
				}
			} else if _, werr := good.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// readMCPLine reads one line without its end, trimmed of white space;
// a line over maxMCPLine is read to its end and reported as too long.
func readMCPLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, isPrefix, rerr := r.ReadLine()
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > maxMCPLine {
				line, tooLong = nil, true
			}
		}
		if rerr != nil || !isPrefix {
			return bytes.TrimSpace(line), tooLong, rerr
		}
	}
}

// maxMCPDepth is how deep a message may nest, as the SDK's decoder allows.
const maxMCPDepth = 1000

// malformedMCP is the JSON-RPC error answering line, or nil when line is
// one JSON-RPC message. Batches are refused: MCP 2025-06-18 dropped them,
// and the SDK ends a session that sends one.
func malformedMCP(line []byte) []byte {
	// Depth first: past 10000 levels encoding/json calls the line invalid,
	// and "not JSON" would misname the fault.
	if depth := jsonDepth(line); depth > maxMCPDepth {
		return jsonrpcError(idOf(line), -32600, fmt.Sprintf("invalid request: the message is nested %d deep; at most %d", depth, maxMCPDepth))
	}
	if !json.Valid(line) {
		return jsonrpcError(nil, -32700, "parse error: the message is not JSON")
	}
	if line[0] != '{' {
		return jsonrpcError(nil, -32600, "invalid request: a message is one JSON-RPC object (batches are not supported)")
	}
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	json.Unmarshal(line, &head)
	id := idOf(line)
	// The SDK would take a null id for a notification (never answered)
	// and truncate 1.5 to 1 (answered under another id).
	if head.ID != nil && id == nil {
		return jsonrpcError(nil, -32600, "invalid request: an id is a string or an integer, found "+string(head.ID))
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return jsonrpcError(id, -32600, "invalid request: "+err.Error())
	}
	return nil
}

// idOf is line's id when it can be read and is a string or an integer
// (MCP's rule), else nil: an error answers it, or null.
func idOf(line []byte) json.RawMessage {
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &head) != nil {
		return nil
	}
	var id any
	if json.Unmarshal(head.ID, &id) != nil {
		return nil
	}
	switch id.(type) {
	case string:
		return head.ID
	case float64:
		if !bytes.ContainsAny(head.ID, ".eE") {
			return head.ID
		}
	}
	return nil
}

// jsonDepth is how deeply line's arrays and objects nest, strings skipped;
// it reads malformed lines too, so a deep one is named for its depth.
func jsonDepth(line []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range line {
		switch {
		case inString && escaped:
			escaped = false
		case inString && b == '\\':
			escaped = true
		case inString && b == '"':
			inString = false
		case inString:
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			depth++
			deepest = max(deepest, depth)
		case b == '}' || b == ']':
			depth--
		}
	}
	return deepest
}

// jsonrpcError is a JSON-RPC 2.0 error response line; a nil id is null.
func jsonrpcError(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, message}})
	return append(b, '\n')
}

// lineWriter writes each message whole, so the filter's answers and the
// SDK's never interleave on stdout. It never closes its writer.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close implements io.Closer; stdout stays open.
func (l *lineWriter) Close() error { return nil }
