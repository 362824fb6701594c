package models

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// pushStore is a test store at 12:00 UTC (outside the default quiet hours,
// the owner's zone being UTC with no brief) with four weeks of history:
// a reply draft the owner answered after 40 minutes and a task they never
// touched, both two days old, and one phone subscribed.
func pushStore(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	s, clock := newTestStore(t)
	clock.Set(time.Date(2026, 9, 27, 12, 0, 0, 0, time.UTC))
	publishItems(t, s, clock, "run-hist", replyItem("old-reply", "d-old"), task("old-task"))
	clock.Advance(40 * time.Minute)
	declineReply(t, s, "d-old")
	clock.Set(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC))
	subscribe(t, s, "https://push.example/sub-1")
	return s, clock
}

// replyItem is a reply activity with its draft (to publish with it).
func replyItem(id, draftID string) map[string]any {
	return map[string]any{"id": id, "kind": "reply", "title": "Answer Ana about Saturday's long dinner plans with everyone",
		"evidenceIds": []any{}, "payload": map[string]any{"draftId": draftID}, "_draft": replyDraft(draftID)}
}

// replyDraft is a draft in a chat of its own, chat-<draftID>.
func replyDraft(draftID string) map[string]any {
	d := draft(draftID, "Saturday works!")
	d["chatId"] = "chat-" + draftID
	return d
}

// declineReply is the owner's "no reply needed" on the chat of draftID.
func declineReply(t *testing.T, s *Store, draftID string) {
	t.Helper()
	if _, err := s.DecideNoReplyNeeded(context.Background(), ChatDecision{ChatID: "chat-" + draftID, AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
}

// publishItems publishes activities (and the drafts replyItem attached) at the clock's time.
func publishItems(t *testing.T, s *Store, clock *storetest.Clock, runID string, items ...map[string]any) {
	t.Helper()
	p := newPub(runID, mustRevision(t, s)).With("generatedAt", clock.Now().UTC().Format(time.RFC3339))
	if mustRevision(t, s) != 0 {
		p["sourceRefs"] = []any{}
	}
	for _, it := range items {
		if d, ok := it["_draft"]; ok {
			delete(it, "_draft")
			p.Add("replyDrafts", d.(map[string]any))
		}
		p.Add("activities", it)
	}
	mustPublish(t, s, p)
}

func subscribe(t *testing.T, s *Store, endpoint string) {
	t.Helper()
	key := append([]byte{4}, make([]byte, 64)...)
	if err := s.SavePushSubscription(context.Background(), endpoint, base64.RawURLEncoding.EncodeToString(key),
		base64.RawURLEncoding.EncodeToString(make([]byte, 16))); err != nil {
		t.Fatal(err)
	}
}

func plan(t *testing.T, s *Store) []PushOut {
	t.Helper()
	outs, err := s.PlanPushes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

func pushRow(t *testing.T, s *Store, key string) PushNotification {
	t.Helper()
	v, err := s.Push(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range v.Recent {
		if n.ItemKey == key {
			return n
		}
	}
	t.Fatalf("no notification row %s in %+v", key, v.Recent)
	return PushNotification{}
}

func keys(outs []PushOut) []string {
	var ks []string
	for _, o := range outs {
		ks = append(ks, o.Key)
	}
	return ks
}

func TestPushNotifiesAKindTheOwnerActsOnAndNotOneTheyIgnore(t *testing.T) {
	s, clock := pushStore(t)
	publishItems(t, s, clock, "run-new", replyItem("new-reply", "d-new"), task("new-task"))
	outs := plan(t, s)
	if got := keys(outs); len(got) != 1 || got[0] != "activity:new-reply" {
		t.Fatalf("planned %v, want only activity:new-reply", got)
	}
	p := outs[0].Payload
	if p.Title != "Reply draft to review" || p.URL != "/activities/new-reply" || p.Tag != "activity:new-reply" {
		t.Errorf("payload %+v", p)
	}
	if len([]rune(p.Body)) > pushPreview || strings.Contains(p.Body, "Saturday works") {
		t.Errorf("body %q: want the title cut to %d characters and no draft text", p.Body, pushPreview)
	}
	if len(outs[0].Subscriptions) != 1 {
		t.Errorf("subscriptions %d, want 1", len(outs[0].Subscriptions))
	}
	if r := pushRow(t, s, "activity:new-reply"); r.Basis != BasisUsual || r.MedianSeconds != 40*60 {
		t.Errorf("reply row %+v, want sent as a kind acted on within 40 minutes", r)
	}
	muted := pushRow(t, s, "activity:new-task")
	if muted.Status != PushMuted || muted.Basis != BasisIgnored || muted.Judged != 1 {
		t.Errorf("task row %+v, want muted: none of 1 acted on", muted)
	}
}

func TestPushStartsOnForAKindNeverSeen(t *testing.T) {
	s, clock := newTestStore(t)
	clock.Set(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC))
	subscribe(t, s, "https://push.example/sub-1")
	publishItems(t, s, clock, "run-1", task("t1"))
	if got := keys(plan(t, s)); len(got) != 1 || got[0] != "activity:t1" {
		t.Fatalf("planned %v, want activity:t1", got)
	}
}

func TestPushNeverNotifiesAnItemTwice(t *testing.T) {
	s, clock := pushStore(t)
	publishItems(t, s, clock, "run-new", replyItem("new-reply", "d-new"))
	outs := plan(t, s)
	if len(outs) != 1 {
		t.Fatalf("planned %v", keys(outs))
	}
	if err := s.SettlePush(context.Background(), outs[0].Key, true, nil); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	// A later publication that revises the same item is not a new item.
	r := replyItem("new-reply", "d-new")
	r["title"] = "Answer Ana, revised"
	publishItems(t, s, clock, "run-again", r)
	if again := plan(t, s); len(again) != 0 {
		t.Fatalf("planned again: %v", keys(again))
	}
	if row := pushRow(t, s, "activity:new-reply"); row.Status != PushSent {
		t.Errorf("status %q, want sent", row.Status)
	}
}

func TestPushHoldsQuietHoursForTheMorningDigest(t *testing.T) {
	s, clock := pushStore(t)
	clock.Set(time.Date(2026, 9, 29, 23, 30, 0, 0, time.UTC))
	publishItems(t, s, clock, "run-night", replyItem("night-reply", "d-night"), replyItem("night-done", "d-done"))
	if outs := plan(t, s); len(outs) != 0 {
		t.Fatalf("planned in quiet hours: %v", keys(outs))
	}
	if row := pushRow(t, s, "activity:night-reply"); row.Status != PushHeld || row.QuietStart != "22:00" || row.QuietEnd != "07:00" {
		t.Errorf("row %+v, want held", row)
	}
	// Decided on another device before the morning: never notified.
	clock.Set(time.Date(2026, 9, 30, 6, 0, 0, 0, time.UTC))
	declineReply(t, s, "d-done")
	if outs := plan(t, s); len(outs) != 0 {
		t.Fatalf("planned in quiet hours: %v", keys(outs))
	}
	clock.Set(time.Date(2026, 9, 30, 7, 0, 0, 0, time.UTC))
	outs := plan(t, s)
	if len(outs) != 1 || !strings.HasPrefix(outs[0].Key, "digest:") {
		t.Fatalf("planned %v, want one digest", keys(outs))
	}
	if p := outs[0].Payload; p.Body != "1 reply drafts" || p.URL != "/activities/night-reply" {
		t.Errorf("digest payload %+v", p)
	}
	if row := pushRow(t, s, "activity:night-reply"); row.Status != PushDigested || row.DigestClock != "07:00" {
		t.Errorf("row %+v", row)
	}
	if row := pushRow(t, s, "activity:night-done"); row.Status != PushDropped {
		t.Errorf("decided item %+v, want dropped", row)
	}
	if again := plan(t, s); len(again) != 0 {
		t.Fatalf("digest planned twice: %v", keys(again))
	}
}

func TestPushPlansNothingWithoutASubscriptionOrForABacklog(t *testing.T) {
	s, clock := newTestStore(t)
	clock.Set(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC))
	publishItems(t, s, clock, "run-1", task("before"))
	if outs := plan(t, s); len(outs) != 0 {
		t.Fatalf("planned with no subscription: %v", keys(outs))
	}
	clock.Advance(time.Minute)
	subscribe(t, s, "https://push.example/sub-1")
	publishItems(t, s, clock, "run-2", task("after"))
	if got := keys(plan(t, s)); len(got) != 1 || got[0] != "activity:after" {
		t.Fatalf("planned %v, want only the item after the subscription", got)
	}
}

func TestPushSettleRemovesDeadSubscriptions(t *testing.T) {
	s, clock := pushStore(t)
	subscribe(t, s, "https://push.example/sub-2")
	publishItems(t, s, clock, "run-new", replyItem("new-reply", "d-new"))
	outs := plan(t, s)
	if len(outs) != 1 || len(outs[0].Subscriptions) != 2 {
		t.Fatalf("planned %+v", outs)
	}
	if err := s.SettlePush(context.Background(), outs[0].Key, true, []string{"https://push.example/sub-1"}); err != nil {
		t.Fatal(err)
	}
	subs, err := s.PushSubscriptions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 1 || subs[0].Endpoint != "https://push.example/sub-2" {
		t.Errorf("subscriptions %+v, want only sub-2", subs)
	}
}

func TestPushRefusesMalformedSubscriptionsAndQuietHours(t *testing.T) {
	s, _ := newTestStore(t)
	good := base64.RawURLEncoding.EncodeToString(append([]byte{4}, make([]byte, 64)...))
	auth := base64.RawURLEncoding.EncodeToString(make([]byte, 16))
	for name, c := range map[string][3]string{
		"not a URL":   {"push.example/x", good, auth},
		"file scheme": {"file:///etc/passwd", good, auth},
		"short key":   {"https://push.example/x", auth, auth},
		"short auth":  {"https://push.example/x", good, good},
	} {
		if err := s.SavePushSubscription(context.Background(), c[0], c[1], c[2]); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := s.SetQuietHours(context.Background(), QuietHours{Start: "25:00", End: "07:00"}); err == nil {
		t.Error("quiet hours 25:00 accepted")
	}
}

func TestQuietHoursSpanMidnightAndEqualMeansNone(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 1, 1, h, m, 0, 0, time.UTC) }
	q := QuietHours{Start: "22:00", End: "07:00"}
	for _, c := range []struct {
		t    time.Time
		want bool
	}{{at(21, 59), false}, {at(22, 0), true}, {at(3, 0), true}, {at(6, 59), true}, {at(7, 0), false}} {
		if got := q.Contains(c.t); got != c.want {
			t.Errorf("%s: %v, want %v", c.t.Format("15:04"), got, c.want)
		}
	}
	if (QuietHours{Start: "07:00", End: "07:00"}).Contains(at(7, 0)) {
		t.Error("equal start and end is quiet")
	}
}

func TestPushNotifiesANewRunThatNeedsALookAndMutesRunsLeftForDays(t *testing.T) {
	s, clock := newTestStore(t)
	ctx := context.Background()
	clock.Set(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC))
	subscribe(t, s, "https://push.example/sub-1")
	unknown := func(id string) {
		t.Helper()
		startRun(t, s, "r", contract.RunStartIn{RunID: id, Job: "daily-brief", Trigger: contract.TriggerManual}, 0)
		if _, err := s.FinishRun(ctx, "r", id, contract.RunFinishIn{Outcome: contract.RunUnknown}); err != nil {
			t.Fatal(err)
		}
	}
	unknown("run-a")
	outs := plan(t, s)
	if len(outs) != 1 || outs[0].Key != "run:run-a" {
		t.Fatalf("planned %v, want run:run-a", keys(outs))
	}
	if p := outs[0].Payload; p.Title != "A run needs a look" || p.URL != "/runs#run-run-a" || p.Body != "daily-brief: how it ended is unknown" {
		t.Errorf("payload %+v", p)
	}
	// Never resolved within a day: runs that need a look stop being sent.
	clock.Advance(2 * 24 * time.Hour)
	unknown("run-b")
	if outs := plan(t, s); len(outs) != 0 {
		t.Fatalf("planned %v for a kind the owner leaves for days", keys(outs))
	}
	if row := pushRow(t, s, "run:run-b"); row.Status != PushMuted {
		t.Errorf("run-b %+v, want muted", row)
	}
}
