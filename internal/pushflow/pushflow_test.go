package pushflow

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/pushflow/pushtest"
	"hearth/internal/storetest"
	"hearth/models"
)

func TestMain(m *testing.M) { storetest.Main(m) }

var kit = storetest.NewKit("pushflow-empty", models.DatabasePath, func(ctx context.Context, dir string, clock *storetest.Clock, opts models.Options) (*models.Store, error) {
	opts.Clock = clock.Now
	return models.Open(ctx, dir, opts)
})

// fixture is a store at noon UTC with a week-old history (a reply draft
// the owner declined within the hour, a task they never touched), VAPID
// keys in its data dir, a push service on loopback subscribed, and a sender.
type fixture struct {
	store   *models.Store
	clock   *storetest.Clock
	service *pushtest.Service
	sender  *Sender
	run     int
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store, clock := kit.Open(t, models.Options{})
	keys, err := LoadKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: store, clock: clock, service: pushtest.New(keys.Public)}
	t.Cleanup(f.service.Close)
	f.sender = New(store, keys, Options{})
	clock.Set(time.Date(2026, 9, 22, 12, 0, 0, 0, time.UTC))
	f.publish(t, reply("old-reply"), storetest.Task("old-task", "life-1"))
	clock.Advance(20 * time.Minute)
	if _, err := store.DecideNoReplyNeeded(context.Background(), models.ChatDecision{ChatID: "chat-old-reply", AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC))
	if err := store.SavePushSubscription(context.Background(), f.service.Endpoint(), f.service.P256dh(), f.service.Auth()); err != nil {
		t.Fatal(err)
	}
	return f
}

// reply is a reply activity id with its draft d-<id> in chat chat-<id>.
func reply(id string) map[string]any {
	return map[string]any{"id": id, "kind": "reply", "title": "Answer Ana about Saturday", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "d-" + id}}
}

func (f *fixture) publish(t *testing.T, items ...map[string]any) {
	t.Helper()
	f.run++
	rev := storetest.Read(t, f.store.Revision)
	p := storetest.DailyBrief("run-"+string(rune('a'+f.run)), rev).With("generatedAt", f.clock.Now().UTC().Format(time.RFC3339))
	if rev != 0 {
		p["sourceRefs"] = []any{}
	}
	for _, it := range items {
		if it["kind"] == "reply" {
			d := storetest.Draft(it["payload"].(map[string]any)["draftId"].(string), []string{"Saturday works!"}, "life-1")
			d["chatId"] = "chat-" + it["id"].(string)
			p.Add("replyDrafts", d)
		}
		p.Add("activities", it)
	}
	storetest.MustPublish(t, contract.DecodePublication, f.store.Publish, p)
}

func (f *fixture) once(t *testing.T) {
	t.Helper()
	if err := f.sender.Once(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func payloads(t *testing.T, s *pushtest.Service) []models.PushPayload {
	t.Helper()
	var out []models.PushPayload
	for _, m := range s.Messages() {
		var p models.PushPayload
		if err := json.Unmarshal(m.Plaintext, &p); err != nil {
			t.Fatalf("payload %q: %v", m.Plaintext, err)
		}
		out = append(out, p)
	}
	return out
}

func TestAPushForAKindTheOwnerActsOnArrivesSignedAndDecryptsOnce(t *testing.T) {
	f := newFixture(t)
	f.publish(t, reply("new-reply"), storetest.Task("new-task", "life-1"))
	f.once(t)
	f.once(t)
	if fails := f.service.Failures(); len(fails) > 0 {
		t.Fatalf("the push service refused: %v", fails)
	}
	got := payloads(t, f.service)
	want := models.PushPayload{Title: "Reply draft to review", Body: "Answer Ana about Saturday", URL: "/activities/new-reply", Tag: "activity:new-reply"}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("pushes %+v, want one %+v (none for the ignored task, never twice)", got, want)
	}
}

func TestQuietHoursHoldAPushUntilTheDigest(t *testing.T) {
	f := newFixture(t)
	f.clock.Set(time.Date(2026, 9, 29, 23, 0, 0, 0, time.UTC))
	f.publish(t, reply("night-reply"))
	f.once(t)
	if got := f.service.Messages(); len(got) != 0 {
		t.Fatalf("pushed in quiet hours: %d", len(got))
	}
	f.clock.Set(time.Date(2026, 9, 30, 7, 1, 0, 0, time.UTC))
	f.once(t)
	got := payloads(t, f.service)
	if len(got) != 1 || got[0].Title != "While you were away: 1 waiting on you" || got[0].URL != "/activities/night-reply" {
		t.Fatalf("pushes %+v, want the digest", got)
	}
}

func TestAGoneSubscriptionIsRemoved(t *testing.T) {
	f := newFixture(t)
	f.service.Answer(http.StatusGone)
	f.publish(t, reply("new-reply"))
	f.once(t)
	subs, err := f.store.PushSubscriptions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 0 {
		t.Fatalf("subscriptions %+v after 410, want none", subs)
	}
	v, err := f.store.Push(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Recent[0].ItemKey != "activity:new-reply" || v.Recent[0].Status != models.PushFailed {
		t.Errorf("row %+v, want failed", v.Recent[0])
	}
}

func TestAPushSignedWithOtherKeysIsRefusedByTheService(t *testing.T) {
	f := newFixture(t)
	other, err := LoadKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f.sender = New(f.store, other, Options{})
	f.publish(t, reply("new-reply"))
	f.once(t)
	if len(f.service.Messages()) != 0 || len(f.service.Failures()) != 1 {
		t.Fatalf("messages %d, failures %v: want the push refused", len(f.service.Messages()), f.service.Failures())
	}
}

func TestVAPIDKeysAreMadeOnceAndKeptOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	first, err := LoadKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	again, err := LoadKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Fatal("a second load made new keys")
	}
	st, err := os.Stat(filepath.Join(dir, KeysFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if err := os.WriteFile(filepath.Join(dir, KeysFile), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKeys(dir); err == nil {
		t.Error("an empty key file was accepted")
	}
}

func TestADecidedItemsNotificationIsClosedUnderTheSameTopic(t *testing.T) {
	f := newFixture(t)
	f.publish(t, reply("new-reply"))
	f.once(t)
	f.clock.Advance(10 * time.Minute)
	if _, err := f.store.DecideNoReplyNeeded(context.Background(), models.ChatDecision{ChatID: "chat-new-reply", AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
	f.once(t)
	f.once(t)
	if fails := f.service.Failures(); len(fails) > 0 {
		t.Fatalf("the push service refused: %v", fails)
	}
	got := payloads(t, f.service)
	want := models.PushPayload{Title: "Done elsewhere", Body: "Decided in hearth", URL: "/activities/new-reply", Tag: "activity:new-reply", Close: true}
	if len(got) != 2 || got[1] != want {
		t.Fatalf("pushes %+v, want the item's and then one close %+v", got, want)
	}
	msgs := f.service.Messages()
	if msgs[0].Topic == "" || msgs[1].Topic != msgs[0].Topic {
		t.Fatalf("topics %q and %q: want the close under the item's topic, so it replaces the item's push while undelivered", msgs[0].Topic, msgs[1].Topic)
	}
	// Another item has a topic of its own.
	f.publish(t, reply("other-reply"))
	f.once(t)
	if msgs := f.service.Messages(); len(msgs) != 3 || msgs[2].Topic == msgs[0].Topic {
		t.Fatalf("messages %+v, want a third under another topic", msgs)
	}
}
