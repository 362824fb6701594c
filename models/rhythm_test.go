package models

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

const rhythmDay = 24 * time.Hour

// said is a message of chat-1 at, from the owner when mine.
func said(id string, at time.Time, mine bool) WatchedMessage {
	return WatchedMessage{ID: id, Timestamp: at, SortKey: fmt.Sprint(at.Unix()), IsSender: mine, Type: "TEXT", Text: "words the rhythm never keeps"}
}

// rhythmHistory is chat-1's history before now: a conversation of two
// messages an hour apart starting at each of starts (days before now),
// the owner first when ownerFirst[i].
func rhythmHistory(now time.Time, starts []int, ownerFirst []bool) []WatchedMessage {
	var out []WatchedMessage
	for i, d := range starts {
		at := now.Add(-time.Duration(d) * rhythmDay)
		out = append(out, said(fmt.Sprintf("h-%d-a", i), at, ownerFirst[i]), said(fmt.Sprintf("h-%d-b", i), at.Add(time.Hour), !ownerFirst[i]))
	}
	return out
}

// readHistory records history as the watch's one read of chat-1's earlier messages.
func readHistory(t *testing.T, s *Store, history []WatchedMessage) {
	t.Helper()
	ctx := context.Background()
	cur, err := s.WatchCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordWatch(ctx, cur, WatchRead{Job: "messages", Chats: []WatchedChat{{ID: "chat-1", AccountID: "acc", Title: "Ana", History: history, HistoryRead: true}}}); err != nil {
		t.Fatal(err)
	}
}

// anaWithChat publishes person ana linked to chat-1 by a draft about her.
func anaWithChat(t *testing.T, s *Store) {
	t.Helper()
	d := draft("draft-ana", "See you Saturday")
	d["personId"] = "ana"
	mustPublish(t, s, newPub("run-rhythm", 0).Add("people", person("ana")).Add("replyDrafts", d))
}

// rhythmOf reads ana's rhythm from People and from the agent context.
func rhythmOf(t *testing.T, s *Store) (PersonRhythm, []contract.PersonRhythmView) {
	t.Helper()
	people := storetest.Read(t, s.People)
	ac := storetest.Read(t, s.AgentContext)
	if len(people.People) != 1 {
		t.Fatalf("people %+v", people.People)
	}
	return people.People[0].Rhythm, ac.Rhythms
}

// Six conversations 8, 9, 9, 10 and 12 days apart (start to start; the
// silences are an hour shorter), the last 23 days ago: usually every 9
// days, drifting now.
var (
	driftingStarts = []int{71, 59, 49, 40, 31, 23}
	driftingOwner  = []bool{true, false, false, true, false, false}
)

func TestARhythmFromSeededHistoryGivesExactFiguresAndSaysDrifting(t *testing.T) {
	s, now := newTestStore(t)
	anaWithChat(t, s)
	history := rhythmHistory(now.Now(), driftingStarts, driftingOwner)
	readHistory(t, s, history)

	r, views := rhythmOf(t, s)
	want := PersonRhythm{Conversations: 6, Gaps: 5, Known: true, UsualGap: 9*rhythmDay - time.Hour, P90Gap: 12*rhythmDay - time.Hour,
		OwnerStarted: 2, Silence: 23*rhythmDay - time.Hour, Drifting: true}
	if r != want {
		t.Fatalf("People's rhythm\n got %+v\nwant %+v", r, want)
	}
	wantView := contract.PersonRhythmView{PersonID: "ana", Conversations: 6, UsualGapDays: 9, P90GapDays: 12, SilenceDays: 23, OwnerStarted: 2, Drifting: true}
	if len(views) != 1 || views[0] != wantView {
		t.Fatalf("the context's rhythms %+v; want [%+v]", views, wantView)
	}
	if compact := storetest.Read(t, s.CompactContext); len(compact.Rhythms) != 1 || compact.Rhythms[0] != wantView {
		t.Fatalf("the compact context's rhythms %+v; want them kept", compact.Rhythms)
	}
	// A message 11 days ago ends the drift: the silence is 11 days, within the 90th percentile.
	readHistory(t, s, []WatchedMessage{said("late", now.Now().Add(-11*rhythmDay), false)})
	if r, views = rhythmOf(t, s); r.Drifting || r.Conversations != 7 || len(views) != 1 || views[0].Drifting || views[0].SilenceDays != 11 {
		t.Fatalf("after a talk 11 days ago: %+v, %+v; want 7 conversations, not drifting", r, views)
	}
}

func TestNoRhythmIsToldBelowFiveGaps(t *testing.T) {
	s, now := newTestStore(t)
	anaWithChat(t, s)
	readHistory(t, s, rhythmHistory(now.Now(), driftingStarts[1:], driftingOwner[1:]))
	r, views := rhythmOf(t, s)
	if r.Known || r.Conversations != 5 || r.Gaps != 4 || r.Drifting {
		t.Fatalf("People's rhythm with four gaps: %+v; want five conversations, nothing known", r)
	}
	if views != nil {
		t.Fatalf("the context carries %+v with four gaps; want nothing", views)
	}
	raw, err := json.Marshal(storetest.Read(t, s.AgentContext))
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	if _, ok := top["rhythms"]; ok {
		t.Fatal("the context has a rhythms key with no rhythm to tell")
	}
}

func TestReactionsNoticesHiddenAndDeletedMessagesNeitherStartNorExtendAConversation(t *testing.T) {
	s, now := newTestStore(t)
	anaWithChat(t, s)
	history := rhythmHistory(now.Now(), driftingStarts, driftingOwner)
	lastEnd := now.Now().Add(-23*rhythmDay + time.Hour)
	aside := func(id string, at time.Time, m WatchedMessage) WatchedMessage {
		m.ID, m.Timestamp = id, at
		return m
	}
	history = append(history,
		// In the middle of a 12-day silence: each would start a conversation.
		aside("reaction", now.Now().Add(-65*rhythmDay), WatchedMessage{Type: "REACTION", Aside: true}),
		aside("notice", now.Now().Add(-64*rhythmDay), WatchedMessage{Type: "NOTICE", Aside: true}),
		aside("hidden", now.Now().Add(-63*rhythmDay), WatchedMessage{Type: "TEXT", Aside: true}),
		aside("deleted", now.Now().Add(-62*rhythmDay), WatchedMessage{Type: "TEXT", Aside: true, Deleted: true}),
		// Five hours after the last conversation: each would extend it.
		aside("late-reaction", lastEnd.Add(5*time.Hour), WatchedMessage{Type: "REACTION", Aside: true}),
		aside("late-deleted", lastEnd.Add(4*time.Hour), WatchedMessage{Type: "TEXT", Deleted: true}),
	)
	readHistory(t, s, history)
	r, _ := rhythmOf(t, s)
	if r.Conversations != 6 || r.Silence != 23*rhythmDay-time.Hour || r.P90Gap != 12*rhythmDay-time.Hour {
		t.Fatalf("rhythm %+v; want the six conversations alone, silent since the last one ended", r)
	}
	// A message that counted when read, deleted since, stops counting.
	readHistory(t, s, []WatchedMessage{said("soon-gone", now.Now().Add(-2*rhythmDay), false)})
	if r, _ = rhythmOf(t, s); r.Conversations != 7 {
		t.Fatalf("rhythm %+v after a new message; want 7 conversations", r)
	}
	gone := said("soon-gone", now.Now().Add(-2*rhythmDay), false)
	gone.Change, gone.Deleted = true, true
	readHistory(t, s, []WatchedMessage{gone})
	if r, _ = rhythmOf(t, s); r.Conversations != 6 || !r.Drifting {
		t.Fatalf("rhythm %+v after the message was deleted; want the six conversations and drifting again", r)
	}
}

func TestARhythmComesFromAChatOnlyThePersonsEvidenceNamesAndKeepsAYear(t *testing.T) {
	s, now := newTestStore(t)
	ref := map[string]any{"id": "beeper-ana", "kind": "beeper", "accountId": "acc", "chatId": "chat-1", "messageId": "h-0-a",
		"observedAt": now.Now().Add(-time.Hour).Format(time.RFC3339)}
	mustPublish(t, s, newPub("run-rhythm", 0).Add("sourceRefs", ref).Add("people", storetest.Person("ana", "life-1", "beeper-ana")))
	readHistory(t, s, rhythmHistory(now.Now(), driftingStarts, driftingOwner))
	if r, _ := rhythmOf(t, s); !r.Known || r.Conversations != 6 {
		t.Fatalf("rhythm by evidence %+v; want six conversations", r)
	}
	// A year on, the oldest conversation (71 days before the start) is
	// gone: four gaps are left, too few to tell.
	now.Advance(RhythmWindow - 70*rhythmDay)
	readHistory(t, s, nil)
	if r, views := rhythmOf(t, s); r.Known || r.Conversations != 5 || views != nil {
		t.Fatalf("rhythm a year on %+v, %+v; want five conversations kept, nothing told", r, views)
	}
	var n int64
	if err := s.rdb.Raw("SELECT COUNT(*) FROM chat_beats").Scan(&n).Error; err != nil || n != 10 {
		t.Fatalf("%d beats kept; want the 10 messages of the last year", n)
	}
}
