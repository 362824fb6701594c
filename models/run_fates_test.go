package models

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"hearth/internal/contract"
)

// runPublishing starts a manual run of job by cred-test (the publisher
// mustPublish uses), publishes p as its first invocation (p's runId must
// be runID-1; nil publishes nothing), reports the invocation with cost
// (nil: the agent reported none) and finishes the run.
func runPublishing(t *testing.T, s *Store, runID, job string, cost *float64, p pub) {
	t.Helper()
	ctx := context.Background()
	startRun(t, s, "cred-test", contract.RunStartIn{RunID: runID, Job: job, Trigger: contract.TriggerManual}, 0)
	if _, err := s.StartInvocation(ctx, "cred-test", runID); err != nil {
		t.Fatal(err)
	}
	pubRun := runID + "-1"
	outcome, finish := contract.InvocationPublished, contract.RunFinishIn{Outcome: contract.RunSucceeded, PublicationRunID: &pubRun}
	if p != nil {
		rc := mustPublish(t, s, p)
		finish.PublicationRevision = &rc.Revision
	} else {
		outcome, finish = contract.InvocationFailed, contract.RunFinishIn{Outcome: contract.RunFailed, Detail: "the agent exited with status 1"}
	}
	if _, err := s.FinishInvocation(ctx, "cred-test", runID, 1, contract.InvocationFinishIn{PublicationRunID: pubRun, Outcome: outcome, CostUSD: cost}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishRun(ctx, "cred-test", runID, finish); err != nil {
		t.Fatal(err)
	}
}

// chatDraft is a draft in its own chat (owner decisions are per chat)
// with candidates "As written" (c0) and "Other" (c1).
func chatDraft(id string) map[string]any {
	d := draft(id, "As written", "Other")
	d["chatId"] = "chat-" + id
	return d
}

// sendDraft sends body from draft id as the owner's confirmed send does.
func sendDraft(t *testing.T, s *Store, id, body string) {
	t.Helper()
	sendIn(t, s, SendCommand{SendKey: "send-" + id, DraftID: id, ChatID: "chat-" + id, Body: body, SourceMessageRevision: "10"})
}

func sendIn(t *testing.T, s *Store, cmd SendCommand) {
	t.Helper()
	ctx := context.Background()
	plan, err := s.PrepareSend(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	sd, _, err := s.PendingSend(ctx, plan.Target, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SettleSend(ctx, sd.ID, SendSent, "m-"+cmd.SendKey, ""); err != nil {
		t.Fatal(err)
	}
}

func runFates(t *testing.T, s *Store, runID string) contract.WorkFates {
	t.Helper()
	v, err := s.Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f, ok := v.Fates[runID]
	if !ok {
		t.Fatalf("no fates for run %s: %+v", runID, v.Fates)
	}
	return f
}

func costOf(f *float64) string {
	if f == nil {
		return "none"
	}
	return fmt.Sprintf("%.4f", *f)
}

func TestARunsDraftsFollowWhatTheOwnerDidWithEachExactly(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	p := newPub("run-a-1", 0)
	for _, id := range []string{"written", "edited", "replaced", "declined", "handed", "open", "withdrawn", "pending"} {
		p.Add("replyDrafts", chatDraft(id))
	}
	p.Add("activities", map[string]any{"id": "reply-edited", "kind": "reply", "title": "Answer", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "edited"}})
	cost := 0.5
	runPublishing(t, s, "run-a", "messages", &cost, p)

	sendDraft(t, s, "written", "As written")
	// Edit then send: sent after an edit, whatever the editor saved first.
	if _, err := s.SaveDraftEdit(ctx, "edited", "My own words", "c0"); err != nil {
		t.Fatal(err)
	}
	sendDraft(t, s, "edited", "My own words")
	// The owner's own reply in the chat replaces its draft.
	sendIn(t, s, SendCommand{SendKey: "own-1", ChatID: "chat-replaced", Body: "I wrote this myself", SourceMessageRevision: "10"})
	if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: "chat-declined", AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
	plan, err := s.PrepareHandOff(ctx, HandOff{ChatID: "chat-handed", DraftID: "handed", Form: WordingForm{Body: "As written"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordHandOff(ctx, plan); err != nil {
		t.Fatal(err)
	}
	// A send still pending is not a fate yet.
	pend, err := s.PrepareSend(ctx, SendCommand{SendKey: "send-pending", DraftID: "pending", ChatID: "chat-pending", Body: "As written", SourceMessageRevision: "10"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.PendingSend(ctx, pend.Target, SendCommand{SendKey: "send-pending", DraftID: "pending", ChatID: "chat-pending", Body: "As written", SourceMessageRevision: "10"}); err != nil {
		t.Fatal(err)
	}
	// The agent withdrawing its draft is not the owner declining it.
	mustPublish(t, s, newPub("later-1", mustRevision(t, s)).Add("retractions", map[string]any{"kind": "replyDraft", "id": "withdrawn", "reason": "moot"}))

	got := runFates(t, s, "run-a")
	want := contract.WorkFates{Job: "messages", Runs: 1, Drafts: 8, SentAsWritten: 1, SentEdited: 1, Replaced: 1, Declined: 1, HandedOff: 1,
		DraftsWithdrawn: 1, DraftsOpen: 2, Accepted: 2}
	if got.CostUSD == nil || *got.CostUSD != 0.5 || got.CostPerAcceptedUSD == nil || *got.CostPerAcceptedUSD != 0.25 {
		t.Errorf("cost %s, per accepted item %s; want 0.5000 and 0.2500", costOf(got.CostUSD), costOf(got.CostPerAcceptedUSD))
	}
	got.CostUSD, got.CostPerAcceptedUSD = nil, nil
	if got != want {
		t.Fatalf("fates\n got %+v\nwant %+v", got, want)
	}
}

func TestARunsTasksAndRequestsFollowTheOwnersStates(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	for i := range 2 {
		if _, _, err := createRequest(s, ctx, []byte(fmt.Sprintf(`{"requestId":"req-%d","kind":"note","text":"hi"}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	p := newPub("run-t-1", mustRevision(t, s))
	for _, id := range []string{"done", "skipped", "dismissed", "open", "deferred", "withdrawn"} {
		p.Add("activities", task(id))
	}
	p.Add("completedRequests", map[string]any{"requestId": "req-0", "sourceRefIds": []any{"life-1"}})
	runPublishing(t, s, "run-t", "daily-brief", nil, p)
	for id, state := range map[string]string{"done": StateCompleted, "skipped": StateSkipped, "dismissed": StateDismissed} {
		if _, err := s.SetActivityState(ctx, id, state, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SetActivityState(ctx, "deferred", StateDeferred, "2026-10-05", ""); err != nil {
		t.Fatal(err)
	}
	// A later run re-publishing a task does not take it from the run that introduced it.
	later := newPub("run-u-1", mustRevision(t, s)).Add("activities", task("open")).
		Add("retractions", map[string]any{"kind": "activity", "id": "withdrawn"})
	runPublishing(t, s, "run-u", "daily-brief", nil, later)

	got := runFates(t, s, "run-t")
	want := contract.WorkFates{Job: "daily-brief", Runs: 1, Tasks: 6, Done: 1, Skipped: 1, Dismissed: 1, TasksOpen: 2, TasksWithdrawn: 1, RequestsCompleted: 1, Accepted: 1}
	if got != want {
		t.Fatalf("fates\n got %+v\nwant %+v", got, want)
	}
	// Usage unknown: no cost figure at all, not a zero.
	if got.CostUSD != nil || got.CostPerAcceptedUSD != nil {
		t.Fatalf("a run without reported usage shows a cost: %s, %s", costOf(got.CostUSD), costOf(got.CostPerAcceptedUSD))
	}
	if u := runFates(t, s, "run-u"); u != (contract.WorkFates{Job: "daily-brief", Runs: 1}) {
		t.Fatalf("the re-publishing run: %+v", u)
	}
}

func TestARunThatPublishedNothingHasNoItemsAndItsCostHasNoAcceptedItemToDivide(t *testing.T) {
	s, _ := newTestStore(t)
	cost := 0.2
	runPublishing(t, s, "run-f", "messages", &cost, nil)
	got := runFates(t, s, "run-f")
	if got.CostUSD == nil || *got.CostUSD != 0.2 || got.CostPerAcceptedUSD != nil {
		t.Fatalf("cost %s, per accepted item %s; want 0.2000 and none", costOf(got.CostUSD), costOf(got.CostPerAcceptedUSD))
	}
	got.CostUSD = nil
	if got != (contract.WorkFates{Job: "messages", Runs: 1}) {
		t.Fatalf("fates of a run that published nothing: %+v", got)
	}
}

func jobFatesOf(t *testing.T, list []contract.WorkFates, job string, days int) (contract.WorkFates, bool) {
	t.Helper()
	for _, f := range list {
		if f.Job == job && f.Days == days {
			return f, true
		}
	}
	return contract.WorkFates{}, false
}

func TestJobSumsCountTheRunsOfTheLast7And30DaysAndPriceOnlyRunsThatReportedUsage(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	start := testNow
	// 40 days ago: a brief run outside both windows, the brief job's only one.
	now.Set(start.Add(-40 * 24 * time.Hour))
	runPublishing(t, s, "old", "daily-brief", nil, newPub("old-1", mustRevision(t, s)).Add("activities", task("old-task")))
	// 20 days ago: a messages run with usage, one draft sent as written.
	now.Set(start.Add(-20 * 24 * time.Hour))
	c1 := 0.9
	runPublishing(t, s, "m1", "messages", &c1, newPub("m1-1", mustRevision(t, s)).Add("replyDrafts", chatDraft("d1")))
	sendDraft(t, s, "d1", "As written")
	// 2 days ago: one with usage (two drafts, one sent after an edit, one
	// declined), one without (a draft sent as written).
	now.Set(start.Add(-2 * 24 * time.Hour))
	c2 := 0.3
	runPublishing(t, s, "m2", "messages", &c2, newPub("m2-1", mustRevision(t, s)).Add("replyDrafts", chatDraft("d2"), chatDraft("d3")))
	runPublishing(t, s, "m3", "messages", nil, newPub("m3-1", mustRevision(t, s)).Add("replyDrafts", chatDraft("d4")))
	sendDraft(t, s, "d2", "Edited words")
	if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: "chat-d3", AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
	sendDraft(t, s, "d4", "As written")
	now.Set(start)

	v, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	week, ok := jobFatesOf(t, v.JobFates, "messages", 7)
	if !ok {
		t.Fatalf("no 7-day sum for messages: %+v", v.JobFates)
	}
	month, _ := jobFatesOf(t, v.JobFates, "messages", 30)
	// Priced: m2 alone in 7 days ($0.30 for its one accepted draft); m1 and
	// m2 in 30 days ($1.20 for two). m3 reported no usage: its accepted
	// draft is counted, never priced at zero.
	for _, c := range []struct {
		got               contract.WorkFates
		want              contract.WorkFates
		cost, perAccepted float64
		name              string
	}{
		{week, contract.WorkFates{Job: "messages", Days: 7, Runs: 2, Drafts: 3, SentAsWritten: 1, SentEdited: 1, Declined: 1, Accepted: 2}, 0.3, 0.3, "7 days"},
		{month, contract.WorkFates{Job: "messages", Days: 30, Runs: 3, Drafts: 4, SentAsWritten: 2, SentEdited: 1, Declined: 1, Accepted: 3}, 1.2, 0.6, "30 days"},
	} {
		if c.got.CostUSD == nil || fmt.Sprintf("%.4f", *c.got.CostUSD) != fmt.Sprintf("%.4f", c.cost) ||
			c.got.CostPerAcceptedUSD == nil || fmt.Sprintf("%.4f", *c.got.CostPerAcceptedUSD) != fmt.Sprintf("%.4f", c.perAccepted) {
			t.Errorf("%s: cost %s, per accepted %s; want %.4f and %.4f", c.name, costOf(c.got.CostUSD), costOf(c.got.CostPerAcceptedUSD), c.cost, c.perAccepted)
		}
		c.got.CostUSD, c.got.CostPerAcceptedUSD = nil, nil
		if c.got != c.want {
			t.Errorf("%s\n got %+v\nwant %+v", c.name, c.got, c.want)
		}
	}
	// A job with no run in a window has no sum for it.
	for _, days := range FateWindows {
		if f, ok := jobFatesOf(t, v.JobFates, "daily-brief", days); ok {
			t.Errorf("daily-brief ran 40 days ago, yet has a %d-day sum: %+v", days, f)
		}
	}
	// A week on, the 7-day window is empty for messages; 30 days keeps m2 and m3.
	now.Advance(7 * 24 * time.Hour)
	v, err = s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := jobFatesOf(t, v.JobFates, "messages", 7); ok {
		t.Errorf("a 7-day sum with no run in it: %+v", f)
	}
	if f, _ := jobFatesOf(t, v.JobFates, "messages", 30); f.Runs != 3 || f.Accepted != 3 {
		t.Errorf("30 days a week on: %+v", f)
	}
}

func TestTheAgentContextCarriesEachJobsFatesCompactToo(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	cost := 0.4
	runPublishing(t, s, "m1", "messages", &cost, newPub("m1-1", 0).Add("replyDrafts", chatDraft("d1"), chatDraft("d2")))
	sendDraft(t, s, "d1", "Other")
	runs, err := s.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(context.Context) (contract.AgentContext, error){"full": s.AgentContext, "compact": s.CompactContext} {
		ac, err := read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ac.JobFates) != 2 {
			t.Fatalf("%s context: job fates %+v", name, ac.JobFates)
		}
		week, _ := jobFatesOf(t, ac.JobFates, "messages", 7)
		onPage, _ := jobFatesOf(t, runs.JobFates, "messages", 7)
		if week.Drafts != 2 || week.SentAsWritten != 1 || week.DraftsOpen != 1 || costOf(week.CostPerAcceptedUSD) != "0.4000" {
			t.Fatalf("%s context: %+v", name, week)
		}
		if !reflect.DeepEqual(week, onPage) {
			t.Fatalf("%s context and the Runs page differ:\n%+v\n%+v", name, week, onPage)
		}
	}
}

// A decision about a chat concerns its drafts still open: the owner's own
// reply after declining a draft leaves that draft declined (and records
// nothing more about it), and declining after an own reply leaves the
// replaced draft replaced.
func TestAnOwnerDecisionLeavesDraftsAlreadySettledAsTheyWere(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	runPublishing(t, s, "run-d", "messages", nil, newPub("run-d-1", 0).Add("replyDrafts", chatDraft("declined")).Add("replyDrafts", chatDraft("replaced")))
	if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: "chat-declined", AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
	now.Advance(72 * time.Hour)
	sendIn(t, s, SendCommand{SendKey: "own-1", ChatID: "chat-declined", Body: "Changed my mind", SourceMessageRevision: "10"})
	sendIn(t, s, SendCommand{SendKey: "own-2", ChatID: "chat-replaced", Body: "I wrote this myself", SourceMessageRevision: "10"})
	now.Advance(time.Hour)
	if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: "chat-replaced", AccountID: "acc"}); err != nil {
		t.Fatal(err)
	}
	got := runFates(t, s, "run-d")
	if got.Declined != 1 || got.Replaced != 1 || got.Drafts != 2 {
		t.Errorf("fates %+v; want the declined draft declined and the replaced one replaced", got)
	}
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"declined": DraftDeclined, "replaced": DraftReplaced} {
		d := contextDraft(t, ac, id)
		if d.Outcome == nil || d.Outcome.Kind != want {
			t.Errorf("context: draft %s's outcome %+v, want %s", id, d.Outcome, want)
		}
	}
}

// Dismissing or skipping a draft's reply row on Home is the owner setting
// the draft aside: declined, not still open; an undone dismissal is open.
func TestAReplyRowSetAsideOnHomeCountsItsDraftDeclined(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	p := newPub("run-h-1", 0)
	for _, id := range []string{"dismissed", "skipped", "open"} {
		p.Add("replyDrafts", chatDraft(id)).Add("activities", map[string]any{"id": "reply-" + id, "kind": "reply", "title": "Answer",
			"evidenceIds": []any{}, "payload": map[string]any{"draftId": id}})
	}
	runPublishing(t, s, "run-h", "messages", nil, p)
	for id, state := range map[string]string{"reply-dismissed": StateDismissed, "reply-skipped": StateSkipped} {
		if _, err := s.SetActivityState(ctx, id, state, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	got := runFates(t, s, "run-h")
	if got.Drafts != 3 || got.Declined != 2 || got.DraftsOpen != 1 {
		t.Fatalf("fates %+v; want 2 declined (dismissed, skipped) and 1 open", got)
	}
}
