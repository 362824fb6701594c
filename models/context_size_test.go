package models

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"hearth/internal/contract"
)

// typicalDay publishes the typical day docs/agent-api.md sizes the context
// by: 50 activities, 20 people and 10 reply drafts with realistic text
// lengths, and the owner's morning (10 settled, 3 weights saved).
func typicalDay(t testing.TB) *Store {
	t.Helper()
	s, _ := newTestStore(t)
	ctx := context.Background()
	p := newPub("run-day", 0)
	sentence := "Ana mentioned the gym moved its Saturday hours; she prefers mornings and asked about the hike."
	for i := range 20 {
		pp := person(fmt.Sprintf("person-%02d", i))
		pp["name"], pp["context"] = fmt.Sprintf("Person Number %02d", i), sentence+" "+sentence
		p.Add("people", pp)
	}
	for i := range 10 {
		d := draft(fmt.Sprintf("draft-%02d", i), "Saturday works for me, see you at the trailhead at eight!", "Can we move it to Sunday? Saturday is full.")
		d["personId"] = fmt.Sprintf("person-%02d", i)
		d["reason"] = "They asked a question two days ago and are waiting."
		p.Add("replyDrafts", d)
		p.Add("activities", map[string]any{"id": fmt.Sprintf("reply-%02d", i), "kind": "reply", "title": fmt.Sprintf("Answer Person %02d", i),
			"personId": fmt.Sprintf("person-%02d", i), "evidenceIds": []any{"life-1"}, "payload": map[string]any{"draftId": fmt.Sprintf("draft-%02d", i)},
			"recommendation": map[string]any{"section": "focus", "rank": i, "reason": "Waiting for two days."}})
	}
	for i := range 35 {
		a := task(fmt.Sprintf("task-%02d", i))
		a["title"], a["detail"] = "Book the bike service before the weekend", sentence
		a["recommendation"] = map[string]any{"section": "optional", "rank": i}
		p.Add("activities", a)
	}
	for i := range 5 {
		p.Add("activities", map[string]any{"id": fmt.Sprintf("weigh-%d", i), "kind": "measurement", "title": "Weigh in", "evidenceIds": []any{"life-1"},
			"occurrenceKey": "2026-09-29@Europe/Berlin", "payload": map[string]any{"metric": "weight", "unit": "kg"},
			"recommendation": map[string]any{"section": "routine", "rank": i}})
	}
	p["brief"] = map[string]any{"date": "2026-09-29", "timeZone": "Europe/Berlin", "text": strings.Repeat(sentence+" ", 5), "evidenceIds": []any{"life-1"}}
	mustPublish(t, s, p)
	for i := range 10 {
		if _, err := s.SetActivityState(ctx, fmt.Sprintf("task-%02d", i), StateCompleted, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if _, err := s.RecordMeasurement(ctx, fmt.Sprintf("weigh-%d", i), 72.4); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// o200k is the tokenizer of OpenAI's current models (o200k_base), embedded
// in the module, so the budget is counted in real tokens, offline. bytes/4
// undercounts JSON of IDs and timestamps by about a fifth.
var o200k = sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.O200kBase) })

// contextTokens reads a context and returns its JSON size in bytes and in
// o200k tokens.
func contextTokens(t testing.TB, read func(context.Context) (contract.AgentContext, error)) (int, int) {
	t.Helper()
	ac, err := read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := o200k()
	if err != nil {
		t.Fatal(err)
	}
	n, err := enc.Count(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return len(b), n
}

// Budgets in o200k tokens: the full context under 8,000; the compact one,
// which most jobs read, at most 5,500.
const (
	fullContextBudget    = 8000
	compactContextBudget = 5500
)

func TestATypicalDaysContextFitsItsTokenBudget(t *testing.T) {
	s := typicalDay(t)
	fullBytes, full := contextTokens(t, s.AgentContext)
	compactBytes, compact := contextTokens(t, s.CompactContext)
	t.Logf("typical day (o200k): full %d bytes, %d tokens; compact %d bytes, %d tokens", fullBytes, full, compactBytes, compact)
	if full >= fullContextBudget {
		t.Errorf("a typical day's full context is %d tokens, over the %d budget", full, fullContextBudget)
	}
	if compact > compactContextBudget {
		t.Errorf("a typical day's compact context is %d tokens, over the %d budget", compact, compactContextBudget)
	}
	if compact >= full {
		t.Errorf("compact (%d) is not smaller than full (%d)", compact, full)
	}
}

// sizeQuote is how the docs quote the typical day's context size:
// "full 29.9 KB, 7,984 tokens; compact 22.7 KB, 5,802 tokens" (bold allowed).
var sizeQuote = regexp.MustCompile(`full\s+\**([\d.]+)\s+KB,\s+([\d,]+)\s+tokens\**[;,]\s+compact\s+\**([\d.]+)\s+KB,\s+([\d,]+)\s+tokens`)

// docsTolerance is how far a quoted figure may drift from the measured one
// before the docs must be brought up to date: a few fields' worth.
const docsTolerance = 0.02

func TestTheDocsQuoteTheTypicalDaysContextSizeAsMeasured(t *testing.T) {
	s := typicalDay(t)
	fullBytes, full := contextTokens(t, s.AgentContext)
	compactBytes, compact := contextTokens(t, s.CompactContext)
	kb := func(n int) string { return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) }
	measured := fmt.Sprintf("full %s KB, %s tokens; compact %s KB, %s tokens", kb(fullBytes), thousands(full), kb(compactBytes), thousands(compact))
	for _, doc := range []string{"../docs/agent-api.md", "../docs/figures.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		quotes := sizeQuote.FindAllStringSubmatch(string(b), -1)
		if len(quotes) != 1 {
			t.Errorf("%s quotes the typical day's context size %d times, want once, as %q", doc, len(quotes), measured)
			continue
		}
		q := quotes[0]
		for i, want := range []float64{float64(fullBytes) / 1000, float64(full), float64(compactBytes) / 1000, float64(compact)} {
			got, err := strconv.ParseFloat(strings.ReplaceAll(q[i+1], ",", ""), 64)
			if err != nil || math.Abs(got-want) > docsTolerance*want {
				t.Errorf("%s quotes %q; measured: %q", doc, strings.Join(strings.Fields(q[0]), " "), measured)
				break
			}
		}
	}
}

// thousands writes n with comma separators, as the docs do.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestCompactContextPointsAtWhatItLeftOut(t *testing.T) {
	s := typicalDay(t)
	ctx := context.Background()
	ac, err := s.CompactContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ac.Activities.Items {
		if settled(a.UserState.State) {
			t.Fatalf("compact lists settled activity %s", a.ID)
		}
	}
	if !ac.Activities.Truncated || !ac.Measurements.Truncated || len(ac.Measurements.Items) != 0 {
		t.Fatalf("compact does not say what it left out: activities %v, measurements %v", ac.Activities.Truncated, ac.Measurements.Truncated)
	}
	page, err := s.ContextPage(ctx, contract.CollectionMeasurements, ac.Measurements.NextCursor)
	if err != nil || len(page.(contract.Page[contract.MeasurementView]).Items) != 3 {
		t.Fatalf("re-reading measurements by the compact cursor: %+v, %v", page, err)
	}
	all, err := s.ContextPage(ctx, contract.CollectionActivities, ac.Activities.NextCursor)
	if err != nil || len(all.(contract.Page[contract.ActivityView]).Items) != 50 {
		t.Fatalf("re-reading activities by the compact cursor: %d, %v", len(all.(contract.Page[contract.ActivityView]).Items), err)
	}
}

// BenchmarkTypicalDayContextSize reports the context's size for make bench.
func BenchmarkTypicalDayContextSize(b *testing.B) {
	s := typicalDay(b)
	for b.Loop() {
		fullBytes, full := contextTokens(b, s.AgentContext)
		compactBytes, compact := contextTokens(b, s.CompactContext)
		b.ReportMetric(float64(full), "full-o200k-tokens")
		b.ReportMetric(float64(compact), "compact-o200k-tokens")
		b.ReportMetric(float64(fullBytes), "full-bytes")
		b.ReportMetric(float64(compactBytes), "compact-bytes")
	}
}
