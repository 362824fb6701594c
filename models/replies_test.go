package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/storetest"
)

// replyFixture is sendFixture with the store's clock, for owed replies;
// the fake Beeper reads the same clock, so messages injected later carry
// later times.
func replyFixture(t *testing.T, wrap func(*beepertest.Fake) http.Handler) (*Store, *storetest.Clock, *beepertest.Fake, *beeper.Client) {
	t.Helper()
	s, now := newTestStore(t)
	b := beepertest.Start(t, wrap, beepertest.WithClock(now.Now))
	publishAnaReply(t, s)
	return s, now, b.Fake, b.Client
}

func latestSend(t *testing.T, s *Store, draftID string) Send {
	t.Helper()
	sd, ok, err := s.LatestSend(context.Background(), draftID)
	if err != nil || !ok {
		t.Fatalf("latest send of %s: %v, %v", draftID, ok, err)
	}
	return sd
}

func contextDraft(t *testing.T, ac AgentContext, id string) DraftView {
	t.Helper()
	for _, d := range ac.ReplyDrafts.Items {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no draft %s in the context", id)
	return DraftView{}
}

func TestASendBeeperAcceptedButFailsForGoodEndsFailedWithBeepersMessage(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	fake.HoldSends(true)
	send, err := s.ConfirmSend(ctx, client, confirm("key-1"))
	if err != nil || send.Status != SendPending || !send.Accepted() || !strings.Contains(send.Error, "Beeper is still sending it") {
		t.Fatalf("a send Beeper holds at PENDING: %+v, %v; want pending, still sending", send, err)
	}
	// While Beeper is still trying, the draft is never offered for a second send.
	if _, err := s.ConfirmSend(ctx, client, confirm("key-2")); !errors.Is(err, ErrSendInFlight) {
		t.Fatalf("a second send while Beeper is still trying: %v", err)
	}
	// Nor does it turn unknown (inviting "it was not sent") after the deadline or a restart.
	if _, err := s.RecoverInterruptedSends(ctx); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != SendPending {
		t.Fatalf("after a restart the accepted send is %s", sd.Status)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusFailPermanent, "Blocked by the recipient"); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SettleAcceptedSends(ctx, client, beepertest.AnaChatID); err != nil || n != 1 {
		t.Fatalf("settling: %d, %v", n, err)
	}
	sd := latestSend(t, s, "draft-ana")
	if sd.Status != SendFailed || !strings.Contains(sd.Error, "Blocked by the recipient") {
		t.Fatalf("after FAIL_PERMANENT: %+v; want failed with Beeper's message", sd)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State == StateCompleted {
		t.Fatal("a send Beeper failed completed the reply")
	}
	if n := len(fake.Sends()); n != 1 {
		t.Fatalf("Beeper got %d messages", n)
	}
}

func TestASendBeeperAcceptedIsSettledSentByTheWatchOnceDelivered(t *testing.T) {
	s, now, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	watch := s.NewBeeperWatch(client, WatchOptions{})
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	fake.HoldSends(true)
	send, err := s.ConfirmSend(ctx, client, confirm("key-1"))
	if err != nil || !send.Accepted() {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusFailRetriable, "Waiting for the phone"); err != nil {
		t.Fatal(err)
	}
	now.Advance(time.Hour) // long past the send deadline: still not unknown
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != SendPending || !strings.Contains(sd.Error, "Waiting for the phone") {
		t.Fatalf("while Beeper retries: %+v", sd)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusSuccess, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != SendSent || sd.Error != "" {
		t.Fatalf("after SUCCESS: %+v", sd)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateCompleted {
		t.Fatalf("reply after delivery: %+v", a.UserState)
	}
}

func TestASettledAcceptedSendKeepsTheRevisionWhenNothingChanged(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	fake.HoldSends(true)
	if _, err := s.ConfirmSend(ctx, client, confirm("key-1")); err != nil {
		t.Fatal(err)
	}
	before := mustRevision(t, s)
	// A page that settles on every view must not reload itself forever.
	if n, err := s.SettleAcceptedSends(ctx, client, ""); err != nil || n != 0 || mustRevision(t, s) != before {
		t.Fatalf("settling an unchanged send: %d, %v, revision %d → %d", n, err, before, mustRevision(t, s))
	}
}

func TestSettlingAcceptedSendsCostsNoQueryWhileNoneIsPending(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	settle := func(chatID string) int {
		t.Helper()
		n, err := s.SettleAcceptedSends(ctx, client, chatID)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var reads int // statements on the reader pool
	s.rdb.Callback().Query().Before("gorm:query").Register("count-reader-queries", func(*gorm.DB) { reads++ })
	settle("") // may look once
	reads, calls := 0, fake.Requests()
	// Every Messages and conversation page settles first: with nothing
	// pending and nothing committed since, that is neither a query nor a call.
	settle("")
	settle(beepertest.AnaChatID)
	if reads != 0 || fake.Requests() != calls {
		t.Fatalf("settling with none pending: %d queries, %d Beeper calls", reads, fake.Requests()-calls)
	}
	// A send Beeper accepts later is still found, and settled once it fails.
	fake.HoldSends(true)
	send, err := s.ConfirmSend(ctx, client, confirm("key-1"))
	if err != nil || !send.Accepted() {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, send.PendingMessageID, beeper.StatusFailPermanent, "Blocked"); err != nil {
		t.Fatal(err)
	}
	if n := settle(beepertest.TomasChatID); n != 0 {
		t.Fatalf("settling Tomas's chat changed %d sends of Ana's", n)
	}
	if n := settle(beepertest.AnaChatID); n != 1 || latestSend(t, s, "draft-ana").Status != SendFailed {
		t.Fatalf("settling Ana's chat changed %d; the send is %+v", n, latestSend(t, s, "draft-ana"))
	}
	settle("")
	reads = 0
	if settle(""); reads != 0 {
		t.Fatalf("settling after the last accepted send settled: %d queries", reads)
	}
}

func TestOwnReplyIsSentOnceReplacesTheDraftAndTheAgentReadsIt(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	ctx := context.Background()
	own := SendCommand{SendKey: "own-1", ChatID: beepertest.AnaChatID, Body: "I'll call you tonight.", SourceMessageRevision: "3"}
	for range 2 { // a double tap: one message
		send, err := s.ConfirmSend(ctx, client, own)
		if err != nil || send.Status != SendSent || !send.Own() || send.AccountID != beepertest.AccountID {
			t.Fatalf("own reply %+v, %v", send, err)
		}
	}
	if sends := fake.Sends(); len(sends) != 1 || sends[0].Text != "I'll call you tonight." || sends[0].ReplyToMessageID != "" {
		t.Fatalf("Beeper got %+v", sends)
	}
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ac.Sends.Items) != 1 || !ac.Sends.Items[0].OwnReply || ac.Sends.Items[0].DraftID != "" || ac.Sends.Items[0].Status != SendSent {
		t.Fatalf("the context's sends %+v", ac.Sends.Items)
	}
	o := contextDraft(t, ac, "draft-ana").Outcome
	if o == nil || o.Kind != DraftReplaced || o.Text != "I'll call you tonight." || o.SendKey != "own-1" {
		t.Fatalf("draft outcome %+v, want replaced by the own reply", o)
	}
	if d := ac.ReplyDecisions.Items; len(d) != 1 || d[0].Decision != ActionOwnReply || d[0].DraftID != "draft-ana" || d[0].SendKey != "own-1" {
		t.Fatalf("reply decisions %+v", d)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateCompleted || a.UserState.Note != "answered with your own reply" {
		t.Fatalf("the draft's reply activity %+v", a.UserState)
	}
}

func TestOwnReplyToAChatThatMovedOnIsStaleAndSendsNothing(t *testing.T) {
	s, _, fake, client := replyFixture(t, nil)
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Never mind, see you there")
	_, err := s.ConfirmSend(context.Background(), client, SendCommand{SendKey: "own-1", ChatID: beepertest.AnaChatID, Body: "Ok!", SourceMessageRevision: "3"})
	var stale *StaleDraftError
	if !errors.As(err, &stale) || len(fake.Sends()) != 0 {
		t.Fatalf("got %v with %d sends", err, len(fake.Sends()))
	}
}

func TestDraftOutcomeSaysSentAsWrittenOrSentAfterAnEdit(t *testing.T) {
	for _, tc := range []struct {
		name, body, kind, candidate, text string
	}{
		{"written", "Saturday works!", DraftSentAsWritten, "c0", ""},
		{"edited", "Saturday works, 8am!", DraftSentEdited, "", "Saturday works, 8am!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, _, client := replyFixture(t, nil)
			cmd := confirm("key-1")
			cmd.Body = tc.body
			if _, err := s.ConfirmSend(context.Background(), client, cmd); err != nil {
				t.Fatal(err)
			}
			ac, err := s.AgentContext(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			o := contextDraft(t, ac, "draft-ana").Outcome
			if o == nil || o.Kind != tc.kind || o.CandidateID != tc.candidate || o.Text != tc.text || o.SendKey != "key-1" {
				t.Fatalf("outcome %+v, want %s %q %q", o, tc.kind, tc.candidate, tc.text)
			}
		})
	}
}

// owedFixture reads Beeper once through the watch, so hearth knows each
// chat's last message: Tomas wrote last 28 h ago, Ana 1 h ago.
func owedFixture(t *testing.T) (*Store, *storetest.Clock, *beepertest.Fake, *beeper.Client, *BeeperWatch) {
	t.Helper()
	s, now, fake, client := replyFixture(t, nil)
	w := s.NewBeeperWatch(client, WatchOptions{})
	if _, err := w.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, now, fake, client, w
}

func owedChats(t *testing.T, s *Store) []string {
	t.Helper()
	owed, err := s.OwedReplies(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, o := range owed {
		ids = append(ids, o.ChatID)
	}
	return ids
}

func TestOwedRepliesListUnansweredChatsOldestFirstWithTheirDraft(t *testing.T) {
	s, now, _, client, _ := owedFixture(t)
	if got := owedChats(t, s); strings.Join(got, ",") != beepertest.TomasChatID {
		t.Fatalf("owed at first: %v, want only Tomas (28 h; Ana waited 1 h)", got)
	}
	now.Advance(24 * time.Hour)
	owed, err := s.OwedReplies(context.Background())
	if err != nil || len(owed) != 2 || owed[0].ChatID != beepertest.TomasChatID || owed[1].ChatID != beepertest.AnaChatID {
		t.Fatalf("a day later: %+v, %v; want Tomas then Ana", owed, err)
	}
	ana := owed[1]
	if ana.Title != "Ana Okafor" || !strings.Contains(ana.LastText, "what time should we meet") || len(ana.Drafts) != 1 || ana.Drafts[0].ID != "draft-ana" {
		t.Fatalf("Ana's owed reply %+v", ana)
	}
	if len(owed[0].Drafts) != 0 {
		t.Fatalf("Tomas has drafts %+v", owed[0].Drafts)
	}
	// Answering leaves the list at once, before the watch sees the message.
	if _, err := s.ConfirmSend(context.Background(), client, confirm("key-1")); err != nil {
		t.Fatal(err)
	}
	if got := owedChats(t, s); strings.Join(got, ",") != beepertest.TomasChatID {
		t.Fatalf("after answering Ana: %v", got)
	}
}

func TestOwedRepliesReadTheirDraftsInOneGoHoweverManyChatsAreOwed(t *testing.T) {
	s, now, fake, client := replyFixture(t, nil)
	fake.AddChat("!max:beeper.local", "Max", "Lunch next week?")
	fake.AddChat("!lea:beeper.local", "Lea", "Did you get my letter?")
	if _, err := s.NewBeeperWatch(client, WatchOptions{}).Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
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
				if err := tx.Create(&chatWatch{ChatID: id, AccountID: beepertest.AccountID, LastSortKey: "1", LastIncomingSortKey: "1",
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

func TestNoReplyNeededDeclinesTheDraftUntilSomeoneWritesAgain(t *testing.T) {
	s, now, fake, _, w := owedFixture(t)
	ctx := context.Background()
	now.Advance(24 * time.Hour)
	if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: beepertest.AnaChatID, AccountID: beepertest.AccountID}); err != nil {
		t.Fatal(err)
	}
	if got := owedChats(t, s); strings.Join(got, ",") != beepertest.TomasChatID {
		t.Fatalf("owed after no reply needed: %v", got)
	}
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if o := contextDraft(t, ac, "draft-ana").Outcome; o == nil || o.Kind != DraftDeclined {
		t.Fatalf("draft outcome %+v, want declined", o)
	}
	if d := ac.ReplyDecisions.Items; len(d) != 1 || d[0].Decision != ActionNoReplyNeeded || d[0].ChatID != beepertest.AnaChatID {
		t.Fatalf("reply decisions %+v", d)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateDismissed {
		t.Fatalf("the reply activity %+v", a.UserState)
	}
	// A new message from Ana is owed again once it has waited.
	now.Advance(time.Minute)
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Actually, one more thing")
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	now.Advance(25 * time.Hour)
	if got := owedChats(t, s); !strings.Contains(strings.Join(got, ","), beepertest.AnaChatID) {
		t.Fatalf("a new message after no reply needed is not owed: %v", got)
	}
}

func TestRemindLaterHidesAnOwedReplyUntilItsDate(t *testing.T) {
	s, now, _, _, _ := owedFixture(t)
	ctx := context.Background()
	today := testNow.Format(time.DateOnly)
	for _, bad := range []string{today, "2026-13-01", ""} {
		if _, err := s.RemindLater(ctx, ChatDecision{ChatID: beepertest.TomasChatID, Until: bad}); !errors.Is(err, ErrInvalidInput) {
			t.Fatalf("remind on %q: %v, want ErrInvalidInput", bad, err)
		}
	}
	if _, err := s.RemindLater(ctx, ChatDecision{ChatID: beepertest.TomasChatID, Until: "2026-10-01"}); err != nil {
		t.Fatal(err)
	}
	if got := owedChats(t, s); len(got) != 0 {
		t.Fatalf("owed with a reminder ahead: %v", got)
	}
	now.Set(time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC))
	owed, err := s.OwedReplies(ctx)
	if err != nil || len(owed) == 0 || owed[0].ChatID != beepertest.TomasChatID || owed[0].RemindedFor != "2026-10-01" {
		t.Fatalf("on the reminder's day: %+v, %v", owed, err)
	}
}

func TestRemindLaterDefersTheDraftsReplyToThatDate(t *testing.T) {
	s, _, _, _, _ := owedFixture(t)
	if _, err := s.RemindLater(context.Background(), ChatDecision{ChatID: beepertest.AnaChatID, Until: "2026-10-02"}); err != nil {
		t.Fatal(err)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateDeferred || a.UserState.Until != "2026-10-02" {
		t.Fatalf("reply activity %+v", a.UserState)
	}
}

func TestHandOffOpensBeeperWithTheTextAndIsNeverASend(t *testing.T) {
	s, now, fake, client, _ := owedFixture(t)
	ctx := context.Background()
	now.Advance(24 * time.Hour)
	if _, err := s.HandOffToBeeper(ctx, client, HandOff{ChatID: beepertest.AnaChatID, DraftID: "draft-ana", Form: WordingForm{Body: "Let me check and get back to you"}}); err != nil {
		t.Fatal(err)
	}
	if f := fake.Focuses(); len(f) != 1 || f[0].ChatID != beepertest.AnaChatID || f[0].DraftText != "Let me check and get back to you" {
		t.Fatalf("Beeper was focused with %+v", f)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("a hand-off sent a message")
	}
	if _, ok, _ := s.LatestSend(ctx, "draft-ana"); ok {
		t.Fatal("a hand-off was recorded as a send")
	}
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d := contextDraft(t, ac, "draft-ana")
	if d.Outcome == nil || d.Outcome.Kind != DraftHandedOff || d.Outcome.Text != "Let me check and get back to you" {
		t.Fatalf("draft outcome %+v", d.Outcome)
	}
	if d.OwnerEdit == nil || d.OwnerEdit.Body != "Let me check and get back to you" {
		t.Fatalf("the handed-off text is not kept as the owner's edit: %+v", d.OwnerEdit)
	}
	if a, _ := findActivity(t, s, "reply-ana"); a.UserState.State != StateWaiting {
		t.Fatalf("reply activity %+v", a.UserState)
	}
	// Still owed until the watch sees the owner's message: a hand-off is not an answer.
	owed, err := s.OwedReplies(ctx)
	if err != nil || len(owed) != 2 || owed[1].HandedOffAt == nil {
		t.Fatalf("owed after a hand-off: %+v, %v", owed, err)
	}
}

func TestHandOffThatBeeperRefusesRecordsNothing(t *testing.T) {
	s, _, fake, client, _ := owedFixture(t)
	fake.FailNext(http.StatusInternalServerError, 1)
	if _, err := s.HandOffToBeeper(context.Background(), client, HandOff{ChatID: beepertest.AnaChatID, DraftID: "draft-ana", Form: WordingForm{Body: "x"}}); err == nil {
		t.Fatal("a refused focus succeeded")
	}
	ac, _ := s.AgentContext(context.Background())
	if len(ac.ReplyDecisions.Items) != 0 || contextDraft(t, ac, "draft-ana").Outcome != nil {
		t.Fatalf("a refused hand-off was recorded: %+v", ac.ReplyDecisions.Items)
	}
}

func TestChosenWordingNeverOverwritesAnEdit(t *testing.T) {
	d := DraftView{Candidates: []CandidateIn{{ID: "warm", Body: "Warm words"}, {ID: "brief", Body: "Brief"}}}
	for _, tc := range []struct {
		name string
		f    WordingForm
		body string
		kept string
	}{
		{"untouched, another candidate chosen (no JavaScript)", WordingForm{Body: "Warm words", Candidate: "brief", ShownBody: "Warm words", ShownCandidate: "warm"}, "Brief", ""},
		{"edited, same candidate", WordingForm{Body: "My words", Candidate: "warm", ShownBody: "Warm words", ShownCandidate: "warm"}, "My words", ""},
		{"edited and another candidate chosen: the edit stays, the review asks", WordingForm{Body: "My words", Candidate: "brief", ShownBody: "Warm words", ShownCandidate: "warm"}, "My words", "brief"},
		{"JavaScript put the candidate in", WordingForm{Body: "Brief", Candidate: "brief", ShownBody: "Warm words", ShownCandidate: "warm"}, "Brief", ""},
		{"form line ends", WordingForm{Body: "a\r\nb", Candidate: "warm", ShownBody: "a\nb", ShownCandidate: "warm"}, "a\nb", ""},
		{"a form that does not say what it showed", WordingForm{Body: "Text", Candidate: "brief"}, "Text", ""},
	} {
		w := d.ChosenWording(tc.f)
		kept := ""
		if w.Kept != nil {
			kept = w.Kept.ID
		}
		if w.Body != tc.body || kept != tc.kept {
			t.Errorf("%s: %q (kept %q), want %q (kept %q)", tc.name, w.Body, kept, tc.body, tc.kept)
		}
	}
}

func TestCompactContextKeepsTheOwnersRecentReplyDecisions(t *testing.T) {
	s, now, _, _, _ := owedFixture(t)
	ctx := context.Background()
	if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: beepertest.TomasChatID}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemindLater(ctx, ChatDecision{ChatID: beepertest.AnaChatID, Until: "2026-10-09"}); err != nil {
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
	page, err := s.ContextPage(ctx, CollectionReplyDecisions, ac.ReplyDecisions.NextCursor)
	if err != nil || len(page.(Page[ReplyDecisionView]).Items) != 2 {
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

func TestAMutedChatIsNeverOwed(t *testing.T) {
	s, now, fake, _, w := owedFixture(t)
	now.Advance(time.Minute)
	fake.Incoming(beepertest.GroupChatID, "@jules:beeper.local", "Anyone for Sunday?") // the crew chat is muted
	if _, err := w.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	now.Advance(48 * time.Hour)
	for _, id := range owedChats(t, s) {
		if id == beepertest.GroupChatID {
			t.Fatal("a muted chat is owed")
		}
	}
}

// noPendingLookups answers 404 to GET /v1/chats/{chat}/messages/{id}, as
// Beeper versions that cannot look a message up by its pending ID do.
func noPendingLookups(fake *beepertest.Fake) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Count(strings.TrimPrefix(r.URL.EscapedPath(), "/v1/chats/"), "/") == 2 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"code":"NOT_FOUND","message":"message not found"}`))
			return
		}
		fake.ServeHTTP(w, r)
	})
}

func TestABeeperThatCannotLookUpPendingIDsIsReadByTheChat(t *testing.T) {
	s, _, fake, client := replyFixture(t, noPendingLookups)
	ctx := context.Background()
	fake.HoldSends(true)
	send, err := s.ConfirmSend(ctx, client, confirm("key-1"))
	if err != nil || !send.Accepted() {
		t.Fatalf("send %+v, %v", send, err)
	}
	if _, err := s.SettleAcceptedSends(ctx, client, ""); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != SendPending || !strings.Contains(sd.Error, "still sending") {
		t.Fatalf("found in the chat, still PENDING: %+v", sd)
	}
	msgs := fake.Messages(beepertest.AnaChatID)
	if _, err := fake.SetSendStatus(beepertest.AnaChatID, msgs[len(msgs)-1].ID, beeper.StatusSuccess, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SettleAcceptedSends(ctx, client, ""); err != nil {
		t.Fatal(err)
	}
	if sd := latestSend(t, s, "draft-ana"); sd.Status != SendSent {
		t.Fatalf("after SUCCESS, read by the chat: %+v", sd)
	}
}

func TestASendBeeperAcceptedButNeverShowsBecomesUnknownForTheOwnerToCheck(t *testing.T) {
	// Beeper cannot look the pending ID up, and its message lists leave the owner's messages out.
	hideOwn := func(fake *beepertest.Fake) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/messages") {
				noPendingLookups(fake).ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			fake.ServeHTTP(rec, r)
			var page map[string]any
			json.Unmarshal(rec.Body.Bytes(), &page)
			var kept []any
			for _, it := range page["items"].([]any) {
				if mine, _ := it.(map[string]any)["isSender"].(bool); !mine {
					kept = append(kept, it)
				}
			}
			page["items"] = kept
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(page)
		})
	}
	s, now, fake, client := replyFixture(t, hideOwn)
	ctx := context.Background()
	fake.HoldSends(true)
	if _, err := s.ConfirmSend(ctx, client, confirm("key-1")); err != nil {
		t.Fatal(err)
	}
	s.SettleAcceptedSends(ctx, client, "")
	if sd := latestSend(t, s, "draft-ana"); sd.Status != SendPending {
		t.Fatalf("just after the send: %+v", sd)
	}
	now.Advance(acceptedGrace + time.Minute)
	s.SettleAcceptedSends(ctx, client, "")
	sd := latestSend(t, s, "draft-ana")
	if sd.Status != SendUnknown || !strings.Contains(sd.Error, "does not show it") {
		t.Fatalf("long after: %+v; want unknown, for the owner to check", sd)
	}
	if _, err := s.MarkSendNotSent(ctx, "key-1"); err != nil {
		t.Fatal(err)
	}
}
