package models

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"hearth/internal/storetest"
)

// onlyKeys fails unless outs are exactly want, in order.
func onlyKeys(t *testing.T, outs []PushOut, want ...string) {
	t.Helper()
	if got := keys(outs); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("planned %v, want %v", got, want)
	}
}

// subscribedStore is a store at noon UTC with one phone subscribed.
func subscribedStore(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	s, clock := newTestStore(t)
	clock.Set(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC))
	subscribe(t, s, "https://push.example/sub-1")
	return s, clock
}

func TestPushNotifiesARoutineProposalOnceAndClosesItWhenDecided(t *testing.T) {
	s, clock := subscribedStore(t)
	mustPublish(t, s, newPub("run-routine", 0).Add("routineDefinitions", routineDef("morning", 1)))
	clock.Advance(time.Minute)
	mustPublish(t, s, newPub("run-review", mustRevision(t, s)).With("sourceRefs", []any{}).Add("reviews", review("rv-1", "morning", 1)))
	outs := plan(t, s)
	onlyKeys(t, outs, "proposal:rv-1/p1", "proposal:rv-1/p2")
	if p := outs[0].Payload; p.URL != "/routines#review-rv-1" || p.Body != "Drop the stretch on weekends" || p.Tag != "proposal:rv-1/p1" {
		t.Errorf("payload %+v", p)
	}
	for _, o := range outs {
		if err := s.SettlePush(context.Background(), o.Key, true, nil); err != nil {
			t.Fatal(err)
		}
	}
	onlyKeys(t, plan(t, s))
	clock.Advance(30 * time.Minute)
	if _, err := s.DecideProposal(context.Background(), ProposalDecision{RequestID: "req-p1", ReviewID: "rv-1", ProposalID: "p1", Decision: DecisionAdopt}); err != nil {
		t.Fatal(err)
	}
	closes := plan(t, s)
	onlyKeys(t, closes, "close:proposal:rv-1/p1")
	if p := closes[0].Payload; !p.Close || p.Tag != "proposal:rv-1/p1" {
		t.Errorf("close payload %+v", p)
	}
	onlyKeys(t, plan(t, s))
	if row := pushRow(t, s, "proposal:rv-1/p1"); row.DecidedAt == nil || row.ClosedAt == nil {
		t.Errorf("row %+v, want decided and closed", row)
	}
}

// heldSend schedules the reply of draftID (published with replyItem) for
// later and holds it, as the watch does when the chat moved on.
func heldSend(t *testing.T, s *Store, clock *storetest.Clock, draftID string) ScheduledSend {
	t.Helper()
	ctx := context.Background()
	sc, err := s.ScheduleSend(ctx, SendTarget{DraftID: draftID, ChatID: "chat-" + draftID, AccountID: "acc"},
		ScheduleCommand{SendCommand: SendCommand{SendKey: "key-" + draftID, DraftID: draftID, ChatID: "chat-" + draftID, Body: "Saturday works!"},
			DueAt: clock.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if _, claimed, err := s.ClaimScheduledSend(ctx, sc.ID); err != nil || !claimed {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	if sc, err = s.HoldScheduledSend(ctx, sc.ID, "a new message arrived in the chat since you confirmed"); err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestPushNotifiesAHeldSendOnceAndClosesItWhenTheReplyIsSettled(t *testing.T) {
	s, clock := subscribedStore(t)
	publishItems(t, s, clock, "run-1", replyItem("r-1", "d-1"))
	// The owner looked at the draft: only the hold is new.
	if err := s.SettlePush(context.Background(), plan(t, s)[0].Key, true, nil); err != nil {
		t.Fatal(err)
	}
	sc := heldSend(t, s, clock, "d-1")
	outs := plan(t, s)
	key := "held-send:" + itoa(sc.ID)
	onlyKeys(t, outs, key)
	if p := outs[0].Payload; p.URL != "/messages/chat-d-1" || strings.Contains(p.Body, "Saturday works") {
		t.Errorf("payload %+v: want the conversation, and no message text", p)
	}
	if err := s.SettlePush(context.Background(), key, true, nil); err != nil {
		t.Fatal(err)
	}
	onlyKeys(t, plan(t, s))
	declineReply(t, s, "d-1")
	onlyKeys(t, plan(t, s), "close:activity:r-1", "close:"+key)
	onlyKeys(t, plan(t, s))
}

func TestPushNotifiesEachHoldOfAScheduleOnce(t *testing.T) {
	s, now := newTestStore(t)
	subscribe(t, s, "https://push.example/sub-1")
	mustCreate(t, s, opsActor, schedBody("k", map[string]any{"id": "q", "cron": "0 8 * * *", "zone": "UTC"}))
	p := filepath.Join(s.defs.DefinitionsDir(), "q.md")
	original, _ := os.ReadFile(p)
	now.Set(testNow.Add(time.Hour + time.Minute))
	must(t, os.WriteFile(p, append(append([]byte{}, original...), []byte("Also email everyone.\n")...), 0o600))
	mustClaim(t, s, "q")
	outs := plan(t, s)
	if len(outs) != 1 || !strings.HasPrefix(outs[0].Key, "schedule:q@") || outs[0].Payload.URL != "/schedules#schedule-q" {
		t.Fatalf("planned %+v, want the held schedule q", outs)
	}
	first := outs[0].Key
	if err := s.SettlePush(context.Background(), first, true, nil); err != nil {
		t.Fatal(err)
	}
	onlyKeys(t, plan(t, s))
	now.Advance(time.Minute)
	v := mustView(t, s, "q")
	if _, err := s.ApproveSchedule(context.Background(), "q", v.File.Fingerprint); err != nil {
		t.Fatal(err)
	}
	onlyKeys(t, plan(t, s), "close:"+first)
	// Held again later: a new hold, notified once more.
	now.Advance(time.Hour)
	must(t, os.WriteFile(p, original, 0o600))
	mustClaim(t, s, "q")
	again := plan(t, s)
	if len(again) != 1 || again[0].Key == first || !strings.HasPrefix(again[0].Key, "schedule:q@") {
		t.Fatalf("planned %v, want the new hold", keys(again))
	}
}

func TestPushClosesADecidedItemsNotificationOnceAndNeverNotifiesItAgain(t *testing.T) {
	s, clock := pushStore(t)
	publishItems(t, s, clock, "run-new", replyItem("new-reply", "d-new"))
	outs := plan(t, s)
	onlyKeys(t, outs, "activity:new-reply")
	// Decided while the push was still going out: closed once it went.
	declineReply(t, s, "d-new")
	onlyKeys(t, plan(t, s))
	if err := s.SettlePush(context.Background(), "activity:new-reply", true, nil); err != nil {
		t.Fatal(err)
	}
	closes := plan(t, s)
	onlyKeys(t, closes, "close:activity:new-reply")
	if p := closes[0].Payload; !p.Close || p.Tag != "activity:new-reply" || p.URL != "/activities/new-reply" {
		t.Errorf("close payload %+v", p)
	}
	if err := s.SettlePush(context.Background(), closes[0].Key, true, nil); err != nil {
		t.Fatal(err)
	}
	onlyKeys(t, plan(t, s))
	if row := pushRow(t, s, "activity:new-reply"); row.Status != PushSent || row.ClosedAt == nil {
		t.Errorf("row %+v, want sent and closed", row)
	}
}

func TestPushNeverClosesAnItemThatWasNotShown(t *testing.T) {
	s, clock := pushStore(t)
	publishItems(t, s, clock, "run-new", task("new-task"))
	onlyKeys(t, plan(t, s)) // muted: the owner ignores tasks
	if _, err := s.SetActivityState(context.Background(), "new-task", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	onlyKeys(t, plan(t, s))
}

func TestADigestIsClosedOnlyOnceEveryItemInItIsDecided(t *testing.T) {
	s, clock := pushStore(t)
	clock.Set(time.Date(2026, 9, 29, 23, 30, 0, 0, time.UTC))
	publishItems(t, s, clock, "run-night", replyItem("n-1", "d-n1"), replyItem("n-2", "d-n2"))
	onlyKeys(t, plan(t, s))
	clock.Set(time.Date(2026, 9, 30, 7, 0, 0, 0, time.UTC))
	outs := plan(t, s)
	if len(outs) != 1 || !strings.HasPrefix(outs[0].Key, "digest:") {
		t.Fatalf("planned %v, want the digest", keys(outs))
	}
	digest := outs[0].Key
	if err := s.SettlePush(context.Background(), digest, true, nil); err != nil {
		t.Fatal(err)
	}
	declineReply(t, s, "d-n1")
	onlyKeys(t, plan(t, s))
	declineReply(t, s, "d-n2")
	closes := plan(t, s)
	onlyKeys(t, closes, "close:"+digest)
	if p := closes[0].Payload; !p.Close || p.Tag != digest {
		t.Errorf("close payload %+v", p)
	}
	onlyKeys(t, plan(t, s))
}

func TestPushKeepsWhyAsTheKindAndTheMedianNotAsWords(t *testing.T) {
	s, clock := pushStore(t)
	publishItems(t, s, clock, "run-new", replyItem("new-reply", "d-new"), task("new-task"))
	plan(t, s)
	sent := pushRow(t, s, "activity:new-reply")
	if sent.Basis != BasisUsual || sent.MedianSeconds != 40*60 || sent.Judged != 1 || sent.Reason != "" {
		t.Errorf("sent row %+v, want basis usual, a 40-minute median of 1 item, and no words", sent)
	}
	muted := pushRow(t, s, "activity:new-task")
	if muted.Basis != BasisIgnored || muted.Judged != 1 || muted.Reason != "" {
		t.Errorf("muted row %+v, want basis ignored of 1 item, and no words", muted)
	}
}

func TestPushLearnsANewKindFromHowSoonTheOwnerDecided(t *testing.T) {
	s, clock := subscribedStore(t)
	mustPublish(t, s, newPub("run-routine", 0).Add("routineDefinitions", routineDef("morning", 1)))
	rv := review("rv-1", "morning", 1)
	mustPublish(t, s, newPub("run-review", mustRevision(t, s)).With("sourceRefs", []any{}).Add("reviews", rv))
	outs := plan(t, s)
	if row := pushRow(t, s, "proposal:rv-1/p1"); row.Basis != BasisNew || row.Status != PushSending {
		t.Fatalf("first proposal %+v, want sent as new", row)
	}
	for _, o := range outs {
		must(t, s.SettlePush(context.Background(), o.Key, true, nil))
	}
	// Left for two days: the owner does not act on proposals within a day.
	clock.Advance(2 * 24 * time.Hour)
	rv2 := review("rv-2", "morning", 1)
	mustPublish(t, s, newPub("run-review-2", mustRevision(t, s)).With("sourceRefs", []any{}).Add("reviews", rv2))
	onlyKeys(t, plan(t, s))
	if row := pushRow(t, s, "proposal:rv-2/p1"); row.Status != PushMuted || row.Basis != BasisIgnored || row.Judged != 2 {
		t.Errorf("later proposal %+v, want muted: none of 2 acted on within a day", row)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
