package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hearth/internal/contract"
)

func TestObservationPageEndsBeforeOneMiBOfRaw(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	const n, size = 100, 15 << 10 // 1.5 MB of raw in all
	items := make([]any, n)
	for i := range items {
		items[i] = map[string]any{"source": "mail:work", "ref": fmt.Sprintf("m%03d", i), "changeType": "created", "actor": "agent",
			"payload": map[string]any{"kind": "mail", "providerId": "work", "raw": map[string]any{"body": strings.Repeat("x", size)}}}
	}
	body, _ := json.Marshal(map[string]any{"observations": items})
	outcomes, err := postObservationBatch(s, ctx, "cred-test", body)
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outcomes {
		if o.Err != nil {
			t.Fatalf("item %d: %v", i, o.Err)
		}
	}
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	first := ac.Observations
	raw := 0
	for _, o := range first.Items {
		raw += len(o.Payload.Raw)
	}
	if !first.Truncated || first.NextCursor == "" || raw > contract.MaxObservationPageRawBytes || len(first.Items) < 60 {
		t.Fatalf("first page: %d items, %d bytes of raw, truncated %v", len(first.Items), raw, first.Truncated)
	}
	next, err := s.ContextPage(ctx, contract.CollectionObservations, first.NextCursor)
	if err != nil {
		t.Fatal(err)
	}
	rest := next.(contract.Page[contract.ObservationView])
	if rest.Truncated || len(first.Items)+len(rest.Items) != n || rest.Items[0].ObservationID != first.Items[len(first.Items)-1].ObservationID+1 {
		t.Fatalf("second page: %d items from %d, truncated %v", len(rest.Items), rest.Items[0].ObservationID, rest.Truncated)
	}
}
