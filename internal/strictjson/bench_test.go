package strictjson

import (
	"fmt"
	"strings"
	"testing"
)

// benchRef, benchActivity and benchResult mirror the shape of a hearth
// publication (contract.Result) so the benchmark binds what production binds.
type benchRef struct {
	ID         string  `json:"id"`
	Kind       string  `json:"kind"`
	ObservedAt string  `json:"observedAt"`
	Path       *string `json:"path"`
}

type benchRecommendation struct {
	Section string  `json:"section"`
	Rank    int64   `json:"rank"`
	Reason  *string `json:"reason"`
}

type benchActivity struct {
	ID             string               `json:"id"`
	Kind           string               `json:"kind"`
	Title          string               `json:"title"`
	Detail         *string              `json:"detail"`
	EvidenceIDs    []string             `json:"evidenceIds"`
	PersonID       *string              `json:"personId"`
	Recommendation *benchRecommendation `json:"recommendation"`
	Payload        Raw                  `json:"payload"`
}

type benchResult struct {
	RunID            string          `json:"runId"`
	JobKey           string          `json:"jobKey"`
	ExpectedRevision int64           `json:"expectedRevision"`
	GeneratedAt      string          `json:"generatedAt"`
	SourceRefs       []benchRef      `json:"sourceRefs"`
	Activities       []benchActivity `json:"activities"`
}

// benchBody is a ~22 KB publication of 100 activities, the size hearth's
// publish budget is set against.
func benchBody() []byte {
	var sb strings.Builder
	sb.WriteString(`{"runId":"run-1","jobKey":"daily","expectedRevision":3,"generatedAt":"2025-06-01T07:00:00Z",`)
	sb.WriteString(`"sourceRefs":[{"id":"life-1","kind":"life-file","observedAt":"2025-06-01T06:59:00Z","path":"notes/today.md"},`)
	sb.WriteString(`{"id":"life-2","kind":"life-file","observedAt":"2025-06-01T06:59:30Z","path":"notes/plan.md"}],"activities":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteByte(',')
		}
		id := fmt.Sprintf("r1-a%d", i)
		fmt.Fprintf(&sb, `{"id":%q,"kind":"task","title":"Task %s","detail":"Some detail about what to do and why, as an agent would write it.","evidenceIds":["life-1"],"recommendation":{"section":"focus","rank":%d},"payload":{}}`, id, id, i)
	}
	sb.WriteString(`]}`)
	return []byte(sb.String())
}

// BenchmarkDecodeAndHash times what Publish needs from this package: a strict
// bind into typed structs plus the canonical hash for the idempotency check.
// Before the single-pass scanner this took Decode followed by Hash: 2.7-3.0 ms
// (best-median), 1.16 MB and 39,642 allocations per op on the 2-core dev
// machine; DecodeAndHash took 0.14-0.18 ms, 74 KB and 129 allocations.
func BenchmarkDecodeAndHash(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var r benchResult
		if _, err := DecodeAndHash(body, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecode times parsing and binding alone.
func BenchmarkDecode(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var r benchResult
		if err := Decode(body, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHash times parsing and hashing alone.
func BenchmarkHash(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Hash(body); err != nil {
			b.Fatal(err)
		}
	}
}
