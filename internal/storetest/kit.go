package storetest

import (
	"context"
	"testing"
	"time"
)

// Store is what a Kit opens: a database on a data dir that closes.
type Store interface {
	Path() string
	Close() error
}

// Kit opens one test package's stores: each a copy of one migrated
// template under t.TempDir, with a clock of its own at Start, closed when
// the test ends. The store is opened by a callback (models.Open with
// options O), so the kit imports no store.
type Kit[S Store, O any] struct {
	template Template
	dbFile   func(dataDir string) string
	open     func(ctx context.Context, dataDir string, clock *Clock, opts O) (S, error)
}

// NewKit is the kit named name (unique per test binary): dbFile is where
// a data dir keeps its database (models.DatabasePath), open opens a store
// on a data dir with a clock and options (models.Open). The template is
// open with zero options on an empty dir, closed.
func NewKit[S Store, O any](name string, dbFile func(dataDir string) string, open func(ctx context.Context, dataDir string, clock *Clock, opts O) (S, error)) *Kit[S, O] {
	k := &Kit[S, O]{dbFile: dbFile, open: open}
	k.template = Template{Name: name, Build: func(ctx context.Context, dir string, clock *Clock) (string, error) {
		var zero O
		s, err := open(ctx, dir, clock, zero)
		if err != nil {
			return "", err
		}
		return s.Path(), s.Close()
	}}
	return k
}

// Open opens a copy of the kit's template with opts and a clock at Start
// that the test can move; the store is closed when the test ends.
func (k *Kit[S, O]) Open(t testing.TB, opts O) (S, *Clock) {
	t.Helper()
	dir := t.TempDir()
	k.template.CopyTo(t, k.dbFile(dir))
	clock := NewClock(Start)
	s, err := k.open(context.Background(), dir, clock, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, clock
}

// MustPublish decodes p with decode (contract.DecodePublication), publishes
// it with publish (a store's Publish) as the test credential, and fails the
// test on any error.
func MustPublish[P, R any](t testing.TB, decode func(body []byte) (P, error), publish func(ctx context.Context, publisher string, pub P) (R, bool, error), p Doc) R {
	t.Helper()
	pub, err := decode(p.JSON())
	if err != nil {
		t.Fatalf("decode %v: %v", p["runId"], err)
	}
	r, _, err := publish(context.Background(), "cred-test", pub)
	if err != nil {
		t.Fatalf("publish %v: %v", p["runId"], err)
	}
	return r
}

// Read returns what read (a store's reader, such as Revision or
// AgentContext) reads, failing the test on an error.
func Read[T any](t testing.TB, read func(ctx context.Context) (T, error)) T {
	t.Helper()
	v, err := read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Find returns the item of items whose id (idOf) is id, and whether there is one.
func Find[T any](items []T, id string, idOf func(T) string) (T, bool) {
	for _, it := range items {
		if idOf(it) == id {
			return it, true
		}
	}
	var zero T
	return zero, false
}

// DailyBrief is a valid publication of job daily-brief with one life
// source ref, life-1, and no items: the stores' tests' usual start.
func DailyBrief(runID string, expectedRevision int64) Doc {
	return NewPublication(runID, expectedRevision).
		With("jobKey", "daily-brief").
		With("generatedAt", "2026-09-29T06:59:00Z").
		Add("sourceRefs", LifeRef("life-1", "people/ana.md", 1, Start.Add(-2*time.Minute)))
}

// Routine is a daily routine definition citing life-1 with two steps: a
// required weigh-in and an optional stretch.
func Routine(id string, revision int64) map[string]any {
	return map[string]any{
		"id": id, "revision": revision, "title": "Morning", "purpose": "Start the day steady",
		"trigger": map[string]any{"kind": "daily", "timeOfDay": "07:30"},
		"steps": []any{
			map[string]any{"id": "weigh", "title": "Weigh in", "kind": "measurement", "required": true, "payload": map[string]any{"metric": "weight", "unit": "kg"}},
			map[string]any{"id": "stretch", "title": "Stretch", "kind": "task", "required": false, "payload": map[string]any{}},
		},
		"completionRule": map[string]any{"kind": "all-required"},
		"status":         "candidate",
		"evidenceIds":    []any{"life-1"},
	}
}

// AnaReply is DailyBrief("run-1", 0) with a draft, draft-ana, replying to
// message m-ana-3 of Ana's chat (chatID of accountID) and its reply
// activity, reply-ana.
func AnaReply(chatID, accountID string) Doc {
	d := Draft("draft-ana", []string{"Saturday works!"}, "life-1")
	d["chatId"], d["accountId"], d["replyToMessageId"], d["sourceMessageRevision"] = chatID, accountID, "m-ana-3", "3"
	reply := map[string]any{"id": "reply-ana", "kind": "reply", "title": "Answer Ana", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "draft-ana"}}
	return DailyBrief("run-1", 0).Add("replyDrafts", d).Add("activities", reply)
}

// MustFind is Find failing the test when items holds no id: "no <what>
// <id> in the context".
func MustFind[T any](t testing.TB, what string, items []T, id string, idOf func(T) string) T {
	t.Helper()
	it, ok := Find(items, id, idOf)
	if !ok {
		t.Fatalf("no %s %s in the context", what, id)
	}
	return it
}

// IDs lists idOf of each item, in order (nil for none).
func IDs[T any](items []T, idOf func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, idOf(it))
	}
	return out
}
