package contract

import "encoding/json"

// ToolFailure is the structured content of a `hearth mcp` tool error:
// hearth's error envelope with the HTTP status it came with (and, for a
// publication, the argument its JSON Pointers are into), or the same shape
// for arguments hearth never saw, without a status.
type ToolFailure struct {
	Status    int             `json:"status,omitempty"`
	Code      string          `json:"code"`
	Message   string          `json:"message"`
	Argument  string          `json:"argument,omitempty"`
	Details   json.RawMessage `json:"details,omitempty"`
	RequestID string          `json:"requestId,omitempty"`
}
