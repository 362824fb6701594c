package models

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
)

func waitingOf(t *testing.T, s *Store) WaitingView {
	t.Helper()
	v, err := s.Waiting(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func waitingKeys(items []WaitingItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Key)
	}
	return out
}

func waitingItem(t *testing.T, items []WaitingItem, key string) WaitingItem {
	t.Helper()
	for _, it := range items {
		if it.Key == key {
			return it
		}
	}
	t.Fatalf("no %s among %v", key, waitingKeys(items))
	return WaitingItem{}
}

// finishRun starts and finishes a run of job with outcome.
func finishRun(t *testing.T, s *Store, id, job, outcome string) {
	t.Helper()
	startRun(t, s, "r", contract.RunStartIn{RunID: id, Job: job, Trigger: contract.TriggerManual}, 0)
	if _, err := s.FinishRun(context.Background(), "r", id, contract.RunFinishIn{Outcome: outcome}); err != nil {
		t.Fatal(err)
	}
}

// everyWaitingKind arranges one item of each kind that needs the owner: a
// task, a reply draft, a routine proposal, a held send for later, a held
// schedule and a run that needs a look; and one note of the owner's.
func everyWaitingKind(t *testing.T) (*Store, func(time.Duration)) {
	t.Helper()
	s, clock := routineStore(t)
	ctx := context.Background()
	d := draft("d-ana", "Saturday works!")
	reply := map[string]any{"id": "reply-ana", "kind": "reply", "title": "Answer Ana", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "d-ana"}}
	mustPublish(t, s, newPub("run-items", mustRevision(t, s)).Add("activities", task("t1"), reply).Add("replyDrafts", d).
		Add("reviews", review("rv-1", "morning", 1)))
	sc, err := s.ScheduleSend(ctx, SendTarget{DraftID: "d-ana", ChatID: "chat-1", AccountID: "acc"},
		ScheduleCommand{SendCommand: SendCommand{SendKey: "later-1", DraftID: "d-ana", ChatID: "chat-1", Body: "Saturday works!", SourceMessageRevision: "10"},
			DueAt: clock.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if _, _, err := s.ClaimScheduledSend(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.HoldScheduledSend(ctx, sc.ID, "Ana wrote again since you confirmed"); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "brief", "at": clock.Now().Add(time.Hour).Format(time.RFC3339)}))
	if err := s.db.Exec(`UPDATE schedules SET state = 'quarantined', state_reason = 'changed', state_changed_at = ? WHERE id = 'brief'`, clock.Now().UTC()).Error; err != nil {
		t.Fatal(err)
	}
	finishRun(t, s, "run-lost", "messages", contract.RunUnknown)
	if _, _, err := createRequest(s, ctx, []byte(`{"requestId":"req-note","kind":"note","text":"Ana moved to Hamburg"}`)); err != nil {
		t.Fatal(err)
	}
	return s, clock.Advance
}

func TestWaitingGathersEveryKindThatNeedsTheOwnerInOneList(t *testing.T) {
	s, _ := everyWaitingKind(t)
	v := waitingOf(t, s)
	want := []string{"activity:t1", "activity:reply-ana", "proposal:rv-1/p1", "proposal:rv-1/p2", "schedule:brief", "run:run-lost"}
	got := waitingKeys(v.Needs)
	for _, k := range want {
		if !slices.Contains(got, k) {
			t.Errorf("needs you lacks %s: %v", k, got)
		}
	}
	held := slices.IndexFunc(v.Needs, func(it WaitingItem) bool { return it.Kind == WaitHeldSend })
	if held < 0 {
		t.Fatalf("no held send among %v", got)
	}
	if h := v.Needs[held]; h.DraftID != "d-ana" || !strings.Contains(h.Detail, "Ana wrote again") {
		t.Errorf("held send %+v does not say why it was held", h)
	}
	if len(v.WithAgent) != 1 || v.WithAgent[0].Key != "request:req-note" {
		t.Errorf("with the agent: %v, want the owner's note", waitingKeys(v.WithAgent))
	}
	for i := 1; i < len(v.Needs); i++ {
		if v.Needs[i].Since.Before(v.Needs[i-1].Since) {
			t.Errorf("needs you is not oldest first: %v", got)
		}
	}
	home, err := s.Home(context.Background(), costpolicy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) <= WaitingOnHome {
		t.Fatalf("the list has %d items: too few to see Home show only its oldest %d", len(got), WaitingOnHome)
	}
	if oldest := got[:WaitingOnHome]; !slices.Equal(waitingKeys(home.Waiting.Needs), oldest) {
		t.Errorf("Home's list %v is not the list's %d oldest %v", waitingKeys(home.Waiting.Needs), WaitingOnHome, oldest)
	}
	if home.Waiting.Count() != len(got) {
		t.Errorf("Home counts %d waiting, the list holds %d", home.Waiting.Count(), len(got))
	}
	all, err := s.HomeWithAllWaiting(context.Background(), costpolicy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(waitingKeys(all.Waiting.Needs), got) || all.Waiting.Count() != len(got) {
		t.Errorf("Home with all of it lists %v, the list %v", waitingKeys(all.Waiting.Needs), got)
	}
}

func TestWaitingLeavesWhatTheOwnerSettledOrDecided(t *testing.T) {
	s, _ := everyWaitingKind(t)
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "t1", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DecideProposal(ctx, ProposalDecision{RequestID: "dec-1", ReviewID: "rv-1", ProposalID: "p1", Decision: "reject"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ResolveRun(ctx, "run-lost"); err != nil {
		t.Fatal(err)
	}
	v := waitingOf(t, s)
	for _, gone := range []string{"activity:t1", "proposal:rv-1/p1", "run:run-lost"} {
		if slices.Contains(waitingKeys(v.Needs), gone) || slices.Contains(waitingKeys(v.Aside), gone) {
			t.Errorf("%s still waits after the owner decided it: %v", gone, waitingKeys(v.Needs))
		}
	}
	if !slices.Contains(waitingKeys(v.Needs), "proposal:rv-1/p2") {
		t.Errorf("the undecided proposal left too: %v", waitingKeys(v.Needs))
	}
}

func TestLaterNeverDropsAnItemItComesBackAtItsTime(t *testing.T) {
	s, advance := everyWaitingKind(t)
	ctx := context.Background()
	before := waitingOf(t, s)
	all := func(v WaitingView) []string {
		k := append(waitingKeys(v.Needs), waitingKeys(v.Aside)...)
		slices.Sort(k)
		return k
	}
	now := s.clock()
	if err := s.SetAside(ctx, "run:run-lost", now.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	home, err := s.Home(ctx, costpolicy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	day := home.Day
	if _, err := s.SetActivityState(ctx, "t1", StateDeferred, day.Tomorrow, ""); err != nil {
		t.Fatal(err)
	}
	v := waitingOf(t, s)
	if !slices.Equal(all(v), all(before)) {
		t.Fatalf("Later changed what is listed: %v, before %v", all(v), all(before))
	}
	for _, k := range []string{"run:run-lost", "activity:t1"} {
		if slices.Contains(waitingKeys(v.Needs), k) {
			t.Errorf("%s set aside is still in needs you", k)
		}
		it := waitingItem(t, v.Aside, k)
		if it.Until == nil || !it.Until.After(now) {
			t.Errorf("%s set aside without the time it comes back: %+v", k, it)
		}
	}
	advance(3*time.Hour + time.Minute)
	v = waitingOf(t, s)
	waitingItem(t, v.Needs, "run:run-lost")
	waitingItem(t, v.Aside, "activity:t1")
	advance(day.End.Sub(s.clock()) + time.Minute)
	v = waitingOf(t, s)
	waitingItem(t, v.Needs, "activity:t1")
	if len(v.Aside) != 0 || !slices.Equal(all(v), all(before)) {
		t.Errorf("after their times: aside %v, all %v, want %v", waitingKeys(v.Aside), all(v), all(before))
	}
	advance(40 * 24 * time.Hour)
	if v = waitingOf(t, s); !slices.Equal(all(v), all(before)) {
		t.Errorf("forty days on, the list lost items: %v, want %v", all(v), all(before))
	}
}

func TestLaterRefusesAPastTimeAndWhatIsNotWaiting(t *testing.T) {
	s, _ := everyWaitingKind(t)
	ctx := context.Background()
	now := s.clock()
	for _, tc := range []struct {
		name  string
		key   string
		until time.Time
		want  error
	}{
		{"a time already past", "run:run-lost", now.Add(-time.Minute), ErrInvalidInput},
		{"an activity (deferred by its own control)", "activity:t1", now.Add(time.Hour), ErrNotWaiting},
		{"the owner's own request", "request:req-note", now.Add(time.Hour), ErrNotWaiting},
		{"a key that names nothing", "run:nope", now.Add(time.Hour), ErrNotWaiting},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.SetAside(ctx, tc.key, tc.until); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if v := waitingOf(t, s); len(v.Aside) != 0 {
				t.Fatalf("a refused Later set aside %v", waitingKeys(v.Aside))
			}
		})
	}
}

func TestFinishedNeverShowsAnItemThatNeedsTheOwner(t *testing.T) {
	s, _ := everyWaitingKind(t)
	ctx := context.Background()
	if _, _, err := createRequest(s, ctx, []byte(`{"requestId":"req-done","kind":"note","text":"Ana likes tea"}`)); err != nil {
		t.Fatal(err)
	}
	p := newPub("run-done", mustRevision(t, s))
	p["completedRequests"] = []any{map[string]any{"requestId": "req-done", "sourceRefIds": []any{"life-1"}}}
	mustPublish(t, s, p)
	v := waitingOf(t, s)
	if got := waitingKeys(v.Finished); !slices.Equal(got, []string{"request:req-done"}) {
		t.Fatalf("finished %v, want only the completed request", got)
	}
	open := map[string]bool{}
	for _, it := range slices.Concat(v.Needs, v.Aside, v.WithAgent) {
		open[it.Key] = true
	}
	for _, it := range v.Finished {
		if open[it.Key] {
			t.Errorf("%s is both finished and waiting", it.Key)
		}
	}
	if slices.Contains(waitingKeys(v.WithAgent), "request:req-done") || !slices.Contains(waitingKeys(v.WithAgent), "request:req-note") {
		t.Errorf("with the agent %v: the pending note stays, the completed one leaves", waitingKeys(v.WithAgent))
	}
}

func TestARequestsOutcomeAppearsOnceARunCompletesIt(t *testing.T) {
	s, advance := everyWaitingKind(t)
	it := waitingItem(t, waitingOf(t, s).WithAgent, "request:req-note")
	if it.Detail != "no run has read it yet" {
		t.Errorf("before any run: %q", it.Detail)
	}
	advance(time.Minute)
	finishRun(t, s, "run-read", "messages", contract.RunSucceeded)
	it = waitingItem(t, waitingOf(t, s).WithAgent, "request:req-note")
	if !strings.HasPrefix(it.Detail, "read by messages ") || !strings.HasSuffix(it.Detail, ", not done yet") {
		t.Errorf("after a run that did not do it: %q", it.Detail)
	}
	advance(time.Minute)
	p := newPub("run-brief", mustRevision(t, s))
	p["completedRequests"] = []any{map[string]any{"requestId": "req-note", "sourceRefIds": []any{"life-1"}}}
	mustPublish(t, s, p)
	v := waitingOf(t, s)
	if slices.Contains(waitingKeys(v.WithAgent), "request:req-note") {
		t.Fatalf("the completed note is still with the agent")
	}
	done := waitingItem(t, v.Finished, "request:req-note")
	day := DayOf(s.clock(), mustZone(t, "America/New_York"))
	want := "done by daily-brief " + s.clock().In(day.Zone).Format("15:04") + ": recorded in Ana (people/ana.md)"
	if done.Detail != want || done.Title != "Ana moved to Hamburg" {
		t.Errorf("finished %q: %q, want %q", done.Title, done.Detail, want)
	}
}

func TestACancelledRequestIsFinishedAsCancelledByYouForAWeek(t *testing.T) {
	s, advance := everyWaitingKind(t)
	if _, err := s.CancelRequest(context.Background(), "req-note"); err != nil {
		t.Fatal(err)
	}
	v := waitingOf(t, s)
	if slices.Contains(waitingKeys(v.WithAgent), "request:req-note") {
		t.Fatalf("the cancelled note is still with the agent: %v", waitingKeys(v.WithAgent))
	}
	if got := waitingKeys(v.Finished); !slices.Equal(got, []string{"request:req-note"}) {
		t.Fatalf("finished %v, want the cancelled note", got)
	}
	if it := v.Finished[0]; it.Detail != "cancelled by you" || it.Title != "Ana moved to Hamburg" || !it.Since.Equal(s.clock()) {
		t.Errorf("finished %q: %q since %v, want %q since the cancel (%v)", it.Title, it.Detail, it.Since, "cancelled by you", s.clock())
	}
	advance(7*24*time.Hour + time.Minute)
	if v := waitingOf(t, s); slices.Contains(waitingKeys(v.Finished), "request:req-note") {
		t.Errorf("a week after the cancel it is still in Finished: %v", waitingKeys(v.Finished))
	}
}

// TestWaitingStopsReadingProposalsOnceEveryOneIsDecided: a routine review
// stays stored for ever, but once the owner decided each of its proposals
// the list's proposal read is skipped, until one is open again; with one
// still open it is read.
func TestWaitingStopsReadingProposalsOnceEveryOneIsDecided(t *testing.T) {
	s, _ := everyWaitingKind(t)
	ctx := context.Background()
	proposalsPresent := func() bool {
		t.Helper()
		var some waitingKinds
		if err := s.Read(ctx, func(tx *gorm.DB) error {
			var err error
			some, err = waitingKindsPresent(tx, s.clock())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return some.proposals
	}
	for i, p := range []string{"p1", "p2"} {
		if !proposalsPresent() {
			t.Fatalf("with %s still open the proposals are skipped", p)
		}
		if _, err := s.DecideProposal(ctx, ProposalDecision{RequestID: "dec-" + itoa(int64(i)), ReviewID: "rv-1", ProposalID: p, Decision: "reject"}); err != nil {
			t.Fatal(err)
		}
	}
	if proposalsPresent() {
		t.Errorf("every proposal is decided, yet the list still reads the reviews on every Home")
	}
}
