package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// replyFixture is sendFixture with the store's clock, for owed replies.
func replyFixture(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	s, now := newTestStore(t)
	publishAnaReply(t, s)
	return s, now
}

func contextDraft(t *testing.T, ac contract.AgentContext, id string) contract.DraftView {
	t.Helper()
	return storetest.MustFind(t, "draft", ac.ReplyDrafts.Items, id, func(d contract.DraftView) string { return d.ID })
}

// acceptSend records a send of Ana's draft as Beeper accepting it: the
// claim, then Beeper's pending ID with the send still pending.
func acceptSend(t *testing.T, s *Store, key string) Send {
	t.Helper()
	ctx := context.Background()
	target := SendTarget{DraftID: "draft-ana", ChatID: anaChat, AccountID: testAccount}
	send, created, err := s.PendingSend(ctx, target, confirm(key))
	if err != nil || !created {
		t.Fatalf("claim %+v, %v, %v", send, created, err)
	}
	if send, err = s.SettleSend(ctx, send.ID, SendPending, "m-pending-"+key, "Beeper is still sending it"); err != nil || !send.Accepted() {
		t.Fatalf("accepted %+v, %v", send, err)
	}
	return send
}

// The Beeper half (no call while none is pending) is beeperflow's
// TestSettlingAcceptedSendsCallsBeeperForNoneWhileNoneIsPending.
func TestSettlingAcceptedSendsCostsNoQueryWhileNoneIsPending(t *testing.T) {
	s, _ := replyFixture(t)
	ctx := context.Background()
	accepted := func() int {
		t.Helper()
		rows, err := s.AcceptedSends(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	var reads int // statements on the reader pool
	s.rdb.Callback().Query().Before("gorm:query").Register("count-reader-queries", func(*gorm.DB) { reads++ })
	accepted() // may look once
	reads = 0
	// Every Messages and conversation page settles first: with nothing
	// pending and nothing committed since, that is not a query.
	accepted()
	accepted()
	if reads != 0 {
		t.Fatalf("settling with none pending: %d queries", reads)
	}
	// A send Beeper accepts later is still found, and settled once it fails.
	send := acceptSend(t, s, "key-1")
	if n := accepted(); n != 1 {
		t.Fatalf("accepted sends after one was accepted: %d", n)
	}
	if _, err := s.SettleSend(ctx, send.ID, SendFailed, send.PendingMessageID, "Beeper could not send it: Blocked"); err != nil {
		t.Fatal(err)
	}
	accepted()
	reads = 0
	if accepted(); reads != 0 {
		t.Fatalf("settling after the last accepted send settled: %d queries", reads)
	}
}

// owedFixture takes the watch's baseline of Beeper, so hearth knows each
// chat's last message: Tomas wrote last 28 h ago, Ana 1 h ago.
func owedFixture(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	s, now := replyFixture(t)
	recordBaseline(t, s, beeperAt(now.Now())...)
	return s, now
}

func owedChats(t *testing.T, s *Store) []string {
	t.Helper()
	return storetest.IDs(storetest.Read(t, s.OwedReplies), func(o OwedReply) string { return o.ChatID })
}

func TestOwedRepliesReadTheirDraftsInOneGoHoweverManyChatsAreOwed(t *testing.T) {
	s, now := replyFixture(t)
	recordBaseline(t, s, append(beeperAt(now.Now()),
		readChat("!max:beeper.local", "Max", textMessage("m-max-1", "1", "@max:beeper.local", "Lunch next week?", now.Now())),
		readChat("!lea:beeper.local", "Lea", textMessage("m-lea-1", "1", "@lea:beeper.local", "Did you get my letter?", now.Now())))...)
	var reads int // statements on the reader pool
	count := func(*gorm.DB) { reads++ }
	s.rdb.Callback().Query().Before("gorm:query").Register("count-reader-queries", count)
	s.rdb.Callback().Row().Before("gorm:row").Register("count-reader-rows", count)
	owed := func() (n, queries int) {
		t.Helper()
		reads = 0
		o, err := s.OwedReplies(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(o), reads
	}
	now.Advance(24 * time.Hour) // Tomas and Ana (with her draft) are owed; Max and Lea wrote a day ago exactly
	two, twoQueries := owed()
	now.Advance(time.Hour) // and now Max and Lea too
	four, fourQueries := owed()
	if two != 2 || four != 4 || fourQueries != twoQueries {
		t.Fatalf("%d owed replies took %d queries, %d took %d; want the same for any number", two, twoQueries, four, fourQueries)
	}
}

func TestOwedRepliesKeepToTheirWindowInEveryZoneTheTimeCameIn(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	var want []string
	_, err := s.commit(ctx, func(tx *txn) error {
		for _, zone := range []*time.Location{time.UTC, time.FixedZone("-12", -12*3600), time.FixedZone("+14", 14*3600)} {
			for _, waited := range []time.Duration{OwedWindow - time.Hour, OwedWindow + time.Hour} {
				at := now.Now().Add(-waited).In(zone) // stored as text in its own zone
				id := fmt.Sprintf("!%s-%s:beeper.local", zone, waited)
				if waited < OwedWindow {
					want = append(want, id)
				}
				if err := tx.Create(&chatWatch{ChatID: id, AccountID: testAccount, LastSortKey: "1", LastSaidSortKey: "1", LastIncomingSortKey: "1",
					LastIncomingAt: &at, UpdatedAt: now.Now()}).Error; err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	got := owedChats(t, s)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("owed %v; want the chats waiting just under %s, in every zone: %v", got, OwedWindow, want)
	}
}

func TestRemindLaterHidesAnOwedReplyUntilItsDate(t *testing.T) {
	s, now := owedFixture(t)
	ctx := context.Background()
	today := testNow.Format(time.DateOnly)
	for _, bad := range []string{today, "2026-13-01", ""} {
		if _, err := s.RemindLater(ctx, ChatDecision{ChatID: tomasChat, Until: bad}); !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("remind on %q: %v, want ErrInvalidInput", bad, err)
		}
	}
	if _, err := s.RemindLater(ctx, ChatDecision{ChatID: tomasChat, Until: "2026-10-01"}); err != nil {
		t.Fatal(err)
	}
	if got := owedChats(t, s); len(got) != 0 {
		t.Fatalf("owed with a reminder ahead: %v", got)
	}
	now.Set(time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC))
	owed, err := s.OwedReplies(ctx)
	if err != nil || len(owed) == 0 || owed[0].ChatID != tomasChat || owed[0].RemindedFor != "2026-10-01" {
		t.Fatalf("on the reminder's day: %+v, %v", owed, err)
	}
}

func TestRemindLaterDefersTheDraftsReplyToThatDate(t *testing.T) {
	s, _ := owedFixture(t)
	if _, err := s.RemindLater(context.Background(), ChatDecision{ChatID: anaChat, Until: "2026-10-02"}); err != nil {
		t.Fatal(err)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateDeferred || a.UserState.Until != "2026-10-02" {
		t.Fatalf("reply activity %+v", a.UserState)
	}
}

func TestCompactContextKeepsTheOwnersRecentReplyDecisions(t *testing.T) {
	s, now := owedFixture(t)
	ctx := context.Background()
	if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: tomasChat}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemindLater(ctx, ChatDecision{ChatID: anaChat, Until: "2026-10-09"}); err != nil {
		t.Fatal(err)
	}
	ac, err := s.CompactContext(ctx)
	if err != nil || len(ac.ReplyDecisions.Items) != 2 || ac.ReplyDecisions.Truncated {
		t.Fatalf("compact today: %+v, %v", ac.ReplyDecisions, err)
	}
	now.Advance(3 * 24 * time.Hour)
	ac, err = s.CompactContext(ctx)
	if err != nil || len(ac.ReplyDecisions.Items) != 1 || ac.ReplyDecisions.Items[0].Decision != ActionRemindLater || !ac.ReplyDecisions.Truncated {
		t.Fatalf("compact three days later: %+v, %v; want the reminder ahead, the rest by cursor", ac.ReplyDecisions, err)
	}
	page, err := s.ContextPage(ctx, contract.CollectionReplyDecisions, ac.ReplyDecisions.NextCursor)
	if err != nil || len(page.(contract.Page[contract.ReplyDecisionView]).Items) != 2 {
		t.Fatalf("the full collection by the compact cursor: %+v, %v", page, err)
	}
}

func TestUpgradeKeepsSendsAndLetsAnOwnReplyHaveNoDraft(t *testing.T) {
	dir := t.TempDir()
	db := migrateTo(t, dir, 12)
	for _, q := range []string{
		`INSERT INTO reply_drafts (id, account_id, chat_id, source_message_revision, reason, candidates, evidence_ids, revision, created_at, updated_at)
		 VALUES ('d1', 'acc', 'chat-1', '1', 'r', '[]', '[]', 1, '2026-09-29 07:00:00+00:00', '2026-09-29 07:00:00+00:00')`,
		`INSERT INTO sends (send_key, draft_id, account_id, chat_id, body, source_message_revision, status, revision, created_at, updated_at)
		 VALUES ('k1', 'd1', 'acc', 'chat-1', 'hello', '1', 'sent', 2, '2026-09-29 07:00:00+00:00', '2026-09-29 07:00:00+00:00')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(context.Background(), dir, Options{Clock: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sd, ok, err := s.LatestSend(context.Background(), "d1")
	if err != nil || !ok || sd.SendKey != "k1" || sd.Body != "hello" || sd.Own() {
		t.Fatalf("the send after the upgrade: %+v, %v, %v", sd, ok, err)
	}
	if err := s.db.Exec(`INSERT INTO sends (send_key, draft_id, account_id, chat_id, body, source_message_revision, status, revision, created_at, updated_at)
		VALUES ('k2', NULL, 'acc', 'chat-1', 'mine', '1', 'sent', 3, '2026-09-29 07:00:00+00:00', '2026-09-29 07:00:00+00:00')`).Error; err != nil {
		t.Fatalf("an own reply without a draft: %v", err)
	}
	if err := s.db.Exec(`INSERT INTO sends (send_key, draft_id, account_id, chat_id, body, source_message_revision, status, revision, created_at, updated_at)
		VALUES ('k3', 'no-such-draft', 'acc', 'chat-1', 'x', '1', 'sent', 3, '2026-09-29 07:00:00+00:00', '2026-09-29 07:00:00+00:00')`).Error; err == nil {
		t.Fatal("a send naming a missing draft was stored: the foreign key is gone")
	}
}
