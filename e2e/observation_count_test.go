package e2e

import (
	"encoding/json"
	"testing"
)

// observationCount counts the observations of a full context. The demo
// records some of its own (a contact's answer the watch saw), so a test
// that posts one counts from what was there.
func observationCount(tb testing.TB, contextJSON []byte) int {
	tb.Helper()
	var ac struct {
		Observations struct {
			Items []json.RawMessage `json:"items"`
		} `json:"observations"`
	}
	decodeJSON(tb, contextJSON, &ac)
	return len(ac.Observations.Items)
}
