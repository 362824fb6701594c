package storetest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Doc is a JSON request body under construction: a publication (see
// NewPublication), an observation. It is kept as the JSON it will be, not
// as the contract's Go types, so a test can also make it invalid in ways
// those types cannot express.
type Doc map[string]any

// NewPublication is the one publication builder (POST /api/agent-results)
// the tests start from: the smallest valid publication, every required member,
// every array present and empty (the contract refuses null), job "test",
// generated at Start.
func NewPublication(runID string, expectedRevision int64) Doc {
	return Doc{
		"runId": runID, "jobKey": "test", "expectedRevision": expectedRevision,
		"generatedAt": Start.Format(time.RFC3339),
		"sourceRefs":  []any{}, "people": []any{}, "activities": []any{},
		"replyDrafts": []any{}, "retractions": []any{}, "completedRequests": []any{},
	}
}

// With sets the top-level member key to v and returns d.
func (d Doc) With(key string, v any) Doc {
	d[key] = v
	return d
}

// Add appends items to the array member key and returns d.
func (d Doc) Add(key string, items ...map[string]any) Doc {
	list, _ := d[key].([]any)
	for _, it := range items {
		list = append(list, it)
	}
	d[key] = list
	return d
}

// JSON is the document as a request body; it cannot fail for the kit's plain values.
func (d Doc) JSON() []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Sprintf("storetest: doc: %v", err))
	}
	return b
}

// IDs lists the id of each item of the array member key, in order.
func (d Doc) IDs(key string) []string {
	list, _ := d[key].([]any)
	var ids []string
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			id, _ := m["id"].(string)
			ids = append(ids, id)
		}
	}
	return ids
}

// Set puts v at the JSON Pointer pointer (an object member or an existing
// array element).
func (d Doc) Set(t testing.TB, pointer string, v any) {
	t.Helper()
	c, last := d.parent(t, pointer)
	switch c := c.(type) {
	case map[string]any:
		c[last] = v
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(c) {
			t.Fatalf("set %s: bad index %q", pointer, last)
		}
		c[i] = v
	default:
		t.Fatalf("set %s: parent is not a container", pointer)
	}
}

// Del removes the object member at the JSON Pointer pointer.
func (d Doc) Del(t testing.TB, pointer string) {
	t.Helper()
	c, last := d.parent(t, pointer)
	m, ok := c.(map[string]any)
	if !ok {
		t.Fatalf("del %s: parent is not an object", pointer)
	}
	delete(m, last)
}

// parent walks d to the container that holds pointer's last token.
func (d Doc) parent(t testing.TB, pointer string) (container any, last string) {
	t.Helper()
	tokens := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	var cur any = map[string]any(d)
	for _, tok := range tokens[:len(tokens)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				t.Fatalf("pointer %s: bad index %q", pointer, tok)
			}
			cur = c[i]
		default:
			t.Fatalf("pointer %s: %q is not a container", pointer, tok)
		}
	}
	return cur, tokens[len(tokens)-1]
}

// LifeRef is a life source ref to path; its content hash is derived from
// seed, so two refs with different seeds differ.
func LifeRef(id, path string, seed int, observedAt time.Time) map[string]any {
	return map[string]any{"id": id, "kind": "life", "path": path,
		"contentHash": fmt.Sprintf("sha256:%064x", seed), "observedAt": observedAt.UTC().Format(time.RFC3339)}
}

// Task is a task activity titled "Task <id>" citing evidence.
func Task(id string, evidence ...string) map[string]any {
	return map[string]any{"id": id, "kind": "task", "title": "Task " + id, "evidenceIds": anys(evidence), "payload": map[string]any{}}
}

// Person is a person named "Person <id>" citing evidence.
func Person(id string, evidence ...string) map[string]any {
	return map[string]any{"id": id, "name": "Person " + id, "context": "context", "evidenceIds": anys(evidence)}
}

// Draft is a reply draft to chat-1 of account acc with one plain candidate
// per body (c0, c1, ...), citing evidence.
func Draft(id string, bodies []string, evidence ...string) map[string]any {
	cands := []any{}
	for i, b := range bodies {
		cands = append(cands, map[string]any{"id": fmt.Sprintf("c%d", i), "style": "plain", "body": b})
	}
	return map[string]any{"id": id, "accountId": "acc", "chatId": "chat-1", "sourceMessageRevision": "10",
		"reason": "they asked", "candidates": cands, "evidenceIds": anys(evidence)}
}

// anys is ss as a JSON array that is never null.
func anys(ss []string) []any {
	out := make([]any, 0, len(ss))
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}
