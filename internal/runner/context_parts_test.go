package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// denseContext is a context whose collections are as token-dense as the
// context's JSON gets (short IDs, timestamps, numbers, enums): activity
// decisions and measurements, hundreds of each, beside a long brief and
// an empty, truncated collection.
func denseContext(decisions, measurements int) []byte {
	var b strings.Builder
	b.WriteString(`{"revision":4711,"generatedAt":"2026-12-04T05:00:00Z","brief":{"date":"2026-12-04","timeZone":"Europe/Berlin","text":"`)
	b.WriteString(strings.Repeat("Ana asked about the hike on Saturday; the gym moved its hours. ", 20))
	b.WriteString(`","evidenceIds":["life-1"],"revision":4700,"updatedAt":"2026-12-04T04:59:00Z"},"today":{"date":"2026-12-04","timeZone":"Europe/Berlin"},`)
	b.WriteString(`"activityDecisions":{"items":[`)
	for i := range decisions {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"activityId":"task-%03d","state":"completed","previous":"open","cause":"owner","at":"2026-12-0%dT0%d:1%d:2%dZ","revision":%d}`, i+1, i, 1+i%3, i%10, i%6, i%10, 1000+i)
	}
	b.WriteString(`],"truncated":false},"measurements":{"items":[`)
	for i := range measurements {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"activityId":"weigh-%d","metric":"weight","value":7%d.%d,"unit":"kg","at":"2026-11-%02dT06:0%d:00Z"}`, i, i%10, i%7, 1+i%28, i%10)
	}
	b.WriteString(`],"truncated":true,"nextCursor":"c2.eyJyIjo0NzExLCJjIjoibWVhc3VyZW1lbnRzIiwibyI6NTAwfQ"},"sends":{"items":[],"truncated":true,"nextCursor":"c2.x"},`)
	b.WriteString(`"lastPublication":{"runId":"daily-brief-9-1","jobKey":"daily-brief","revision":4700}}`)
	return []byte(b.String())
}

func TestTheContextIsWrittenAsPartsEachUnderSixThousandO200kTokens(t *testing.T) {
	ctx := denseContext(400, 300)
	dir := filepath.Join(t.TempDir(), "context")
	if err := writeContextDir(dir, ctx); err != nil {
		t.Fatal(err)
	}
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var index struct {
		Revision int64 `json:"revision"`
		Today    struct {
			Date, TimeZone string
		} `json:"today"`
		LastPublication *struct{ RunID string } `json:"lastPublication"`
		Parts           []contextPart           `json:"parts"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatalf("index.json: %v\n%s", err, raw)
	}
	if index.Revision != 4711 || index.Today.Date != "2026-12-04" || index.Today.TimeZone != "Europe/Berlin" || index.LastPublication == nil {
		t.Fatalf("the index does not carry the context's small fields:\n%s", raw)
	}
	// Every part named by the index exists, is under the bound, and its
	// items, in order, are the collection's.
	var listed []string
	got := map[string][]json.RawMessage{}
	for _, p := range index.Parts {
		if p.File == "" {
			if p.Name != "sends" || p.Items == nil || *p.Items != 0 || p.Truncated == nil || !*p.Truncated {
				t.Fatalf("a part without a file: %+v", p)
			}
			continue
		}
		listed = append(listed, p.File)
		b, err := os.ReadFile(filepath.Join(dir, p.File))
		if err != nil {
			t.Fatal(err)
		}
		n, err := enc.Count(string(b))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes, %d o200k tokens (%.2f bytes a token), index says %d", p.File, len(b), n, float64(len(b))/float64(n), p.Tokens)
		if n > 6000 || len(b) > maxPartBytes {
			t.Errorf("%s is %d o200k tokens, %d bytes: over a part's bound", p.File, n, len(b))
		}
		if p.Tokens < n*3/4 || p.Tokens > n*2 {
			t.Errorf("%s: the index says about %d tokens, it is %d", p.File, p.Tokens, n)
		}
		var c struct {
			Items     []json.RawMessage `json:"items"`
			Truncated bool              `json:"truncated"`
		}
		if p.Name != "brief" {
			if err := json.Unmarshal(b, &c); err != nil || p.Items == nil || len(c.Items) != *p.Items || c.Truncated != *p.Truncated {
				t.Fatalf("%s holds %d items (truncated %v), index says %+v (%v)", p.File, len(c.Items), c.Truncated, p, err)
			}
			got[p.Name] = append(got[p.Name], c.Items...)
		}
	}
	entries, _ := os.ReadDir(dir)
	var files []string
	for _, e := range entries {
		if e.Name() != "index.json" {
			files = append(files, e.Name())
		}
	}
	slices.Sort(files)
	sorted := slices.Sorted(slices.Values(listed))
	if !slices.Equal(files, sorted) {
		t.Fatalf("the dir holds %v, the index lists %v", files, sorted)
	}
	if !slices.Contains(listed, "activityDecisions.2.json") || !slices.Contains(listed, "brief.json") {
		t.Fatalf("want the long collection in pages and the long brief apart: %v", listed)
	}
	var whole map[string]struct {
		Items []json.RawMessage `json:"items"`
	}
	json.Unmarshal(ctx, &whole)
	for _, name := range []string{"activityDecisions", "measurements"} {
		if len(got[name]) != len(whole[name].Items) {
			t.Fatalf("%s: the parts hold %d items, the context %d", name, len(got[name]), len(whole[name].Items))
		}
		for i := range got[name] {
			if string(got[name][i]) != string(whole[name].Items[i]) {
				t.Fatalf("%s item %d differs: %s vs %s", name, i, got[name][i], whole[name].Items[i])
			}
		}
	}
}

func TestAnItemLargerThanAPartIsAPageAlone(t *testing.T) {
	big := `{"observationId":"obs-1","payload":{"raw":{"text":"` + strings.Repeat("x", maxPartBytes) + `"}}}`
	ctx := `{"revision":1,"observations":{"items":[{"observationId":"obs-0"},` + big + `,{"observationId":"obs-2"}],"truncated":false}}`
	files, err := contextParts([]byte(ctx))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"obs-0", "obs-1", "obs-2"} {
		b := files[fmt.Sprintf("observations.%d.json", i+1)]
		if !strings.Contains(string(b), want) || strings.Count(string(b), "observationId") != 1 {
			t.Fatalf("page %d: want %s alone, got %.200s", i+1, want, b)
		}
	}
}

func TestAContextThatIsNotAnObjectOrNamesNoFileIsRefused(t *testing.T) {
	for _, ctx := range []string{`[]`, `"context"`, `{"revision":1,"../escape":{"items":[],"truncated":false}}`, `{"revision":1,"a/b":2}`, `{"revision":`} {
		if files, err := contextParts([]byte(ctx)); err == nil {
			t.Errorf("%s: want an error, got files %v", ctx, files)
		}
	}
}

// A top-level list that is not a collection (ownerItems, rhythms, voice,
// sendsLater) can outgrow a part too: it is paged like a collection, every
// item kept, rather than written as one file Codex would cut.
func TestALongTopLevelListIsPagedLikeACollection(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"revision":1,"ownerItems":[`)
	const n = 200
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"own-%03d","text":"%s","addedBy":"owner","createdAt":"2026-12-04T08:00:00Z","updatedAt":"2026-12-04T08:00:00Z"}`, i, strings.Repeat("call Ana about the trail ", 4))
	}
	b.WriteString(`]}`)
	files, err := contextParts([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for name, f := range files {
		if len(f) > maxPartBytes {
			t.Errorf("%s is %d bytes, over a part's %d", name, len(f), maxPartBytes)
		}
		if strings.HasPrefix(name, "ownerItems") {
			var p struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(f, &p); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			seen += len(p.Items)
		}
	}
	if seen != n {
		t.Errorf("the parts hold %d of the list's %d items", seen, n)
	}
}
