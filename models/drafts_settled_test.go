package models

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// settledDraftsFixture has three drafts of Ana's chat, about one person:
// draft-ana sent, draft-declined declined (no reply needed), draft-live
// waiting; and draft-gone retracted.
func settledDraftsFixture(t *testing.T) (*Store, func(time.Duration)) {
	t.Helper()
	s, clock := replyFixture(t)
	ctx := context.Background()
	// draft-ana goes out.
	target := SendTarget{DraftID: "draft-ana", ChatID: anaChat, AccountID: testAccount}
	send, _, err := s.PendingSend(ctx, target, confirm("key-1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SettleSend(ctx, send.ID, SendSent, "m-sent-1", ""); err != nil {
		t.Fatal(err)
	}
	// draft-declined is declined with the chat's "no reply needed".
	p := newPub("run-2", mustRevision(t, s)).Add("people", person("p-ana"))
	declined := draft("draft-declined", "Maybe later.")
	declined["chatId"], declined["accountId"], declined["personId"] = anaChat, testAccount, "p-ana"
	gone := draft("draft-gone", "Never mind.")
	gone["chatId"], gone["accountId"], gone["personId"] = anaChat, testAccount, "p-ana"
	mustPublish(t, s, p.Add("replyDrafts", declined, gone))
	if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: anaChat, AccountID: testAccount}); err != nil {
		t.Fatal(err)
	}
	// draft-live is published after the decision: it waits for the owner.
	live := draft("draft-live", "See you Saturday.")
	live["chatId"], live["accountId"], live["personId"] = anaChat, testAccount, "p-ana"
	mustPublish(t, s, newPub("run-3", mustRevision(t, s)).Add("replyDrafts", live).
		With("retractions", []any{map[string]any{"kind": "replyDraft", "id": "draft-gone", "reason": "superseded"}}))
	return s, clock.Advance
}

func contextDraftIDs(t *testing.T, s *Store) []string {
	t.Helper()
	ac, err := s.AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range ac.ReplyDrafts.Items {
		ids = append(ids, d.ID)
	}
	return ids
}

func chatDraftIDs(t *testing.T, s *Store) []string {
	t.Helper()
	ds, err := s.ChatDrafts(context.Background(), anaChat)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	return ids
}

func peopleDraftIDs(t *testing.T, s *Store) []string {
	t.Helper()
	v, err := s.People(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range v.People {
		for _, d := range p.Drafts {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// A sent, declined or retracted draft stays where the owner and the agent
// look for it (the context with its outcome, the chat, People) for the
// context's window; after it, only live drafts are read.
func TestSettledDraftsLeaveTheHotReadsAfterTheWindow(t *testing.T) {
	s, advance := settledDraftsFixture(t)
	ctx := context.Background()

	if got, want := contextDraftIDs(t, s), []string{"draft-ana", "draft-declined", "draft-gone", "draft-live"}; !slices.Equal(got, want) {
		t.Fatalf("context drafts just after: %v, want %v", got, want)
	}
	ac, _ := s.AgentContext(ctx)
	if o := contextDraft(t, ac, "draft-ana").Outcome; o == nil || o.Kind != DraftSentEdited {
		t.Fatalf("sent draft's outcome in the window: %+v", o)
	}
	if o := contextDraft(t, ac, "draft-declined").Outcome; o == nil || o.Kind != DraftDeclined {
		t.Fatalf("declined draft's outcome in the window: %+v", o)
	}
	if contextDraft(t, ac, "draft-gone").Retracted == nil {
		t.Fatal("the retracted draft is not marked retracted in the window")
	}
	if got, want := chatDraftIDs(t, s), []string{"draft-ana", "draft-declined", "draft-live"}; !slices.Equal(got, want) {
		t.Fatalf("chat drafts just after: %v, want %v", got, want)
	}
	if got, want := peopleDraftIDs(t, s), []string{"draft-declined", "draft-live"}; !slices.Equal(got, want) {
		t.Fatalf("People drafts just after: %v, want %v", got, want)
	}

	advance(contract.ContextHistory + time.Hour)
	if got, want := contextDraftIDs(t, s), []string{"draft-live"}; !slices.Equal(got, want) {
		t.Fatalf("context drafts after the window: %v, want %v", got, want)
	}
	if got, want := chatDraftIDs(t, s), []string{"draft-live"}; !slices.Equal(got, want) {
		t.Fatalf("chat drafts after the window: %v, want %v", got, want)
	}
	if got, want := peopleDraftIDs(t, s), []string{"draft-live"}; !slices.Equal(got, want) {
		t.Fatalf("People drafts after the window: %v, want %v", got, want)
	}
	// The chat still names its person from its newest draft.
	if names, err := s.ChatPeople(ctx, []string{anaChat}); err != nil || names[anaChat] == "" {
		t.Fatalf("chat people after the window: %v, %v", names, err)
	}
}

// Re-publishing a declined draft makes it live again (the agent offers it
// anew); re-publishing a sent one does not: its reply went out.
func TestRepublishedDraftIsLiveAgainUnlessItsReplyWentOut(t *testing.T) {
	s, advance := settledDraftsFixture(t)
	advance(contract.ContextHistory + time.Hour)
	again := func(id, chat string) map[string]any {
		d := draft(id, "Again.")
		d["chatId"], d["accountId"] = chat, testAccount
		return d
	}
	mustPublish(t, s, newPub("run-4", mustRevision(t, s)).Add("replyDrafts", again("draft-declined", anaChat), again("draft-ana", anaChat)))
	if got, want := contextDraftIDs(t, s), []string{"draft-declined", "draft-live"}; !slices.Equal(got, want) {
		t.Fatalf("context drafts after re-publishing: %v, want %v", got, want)
	}
	d, err := s.ChatDraft(context.Background(), anaChat, "draft-ana")
	if err != nil || d == nil || !d.Sent() {
		t.Fatalf("the sent draft, addressed after the window: %+v, %v", d, err)
	}
	if d, err := s.ChatDraft(context.Background(), tomasChat, "draft-ana"); err != nil || d != nil {
		t.Fatalf("a draft addressed through another chat: %+v, %v", d, err)
	}
}

// Migration 00023 settles the drafts that history already settled.
func TestMigrationSettlesSentDeclinedAndRetractedDrafts(t *testing.T) {
	dir := t.TempDir()
	db := migrateTo(t, dir, 22)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	at := func(h int) string {
		return testNow.Add(time.Duration(h) * time.Hour).UTC().Format("2006-01-02 15:04:05-07:00")
	}
	for _, d := range []struct {
		id, updated, retracted string
	}{{"sent", at(0), ""}, {"declined", at(0), ""}, {"declined-then-republished", at(5), ""}, {"retracted", at(0), at(3)}, {"live", at(0), ""}} {
		var retracted any
		if d.retracted != "" {
			retracted = d.retracted
		}
		exec(`INSERT INTO reply_drafts (id, account_id, chat_id, source_message_revision, reason, candidates, evidence_ids, revision, retracted_at, created_at, updated_at)
			VALUES (?, 'acc', 'chat', '1', 'r', '[]', '[]', 1, ?, ?, ?)`, d.id, retracted, d.updated, d.updated)
	}
	exec(`INSERT INTO sends (send_key, draft_id, account_id, chat_id, body, source_message_revision, status, revision, created_at, updated_at)
		VALUES ('k1', 'sent', 'acc', 'chat', 'b', '1', 'sent', 2, ?, ?)`, at(1), at(2))
	exec(`INSERT INTO reply_actions (chat_id, draft_id, action, revision, created_at) VALUES ('chat', 'declined', 'no-reply-needed', 3, ?), ('chat', 'declined-then-republished', 'no-reply-needed', 3, ?)`, at(4), at(4))
	db.Close()

	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]string{"sent": at(2), "declined": at(4), "declined-then-republished": "", "retracted": at(3), "live": ""}
	for id, w := range want {
		var got sql.NullString
		if err := s.rdb.Raw("SELECT CAST(settled_at AS TEXT) FROM reply_drafts WHERE id = ?", id).Scan(&got).Error; err != nil {
			t.Fatal(err)
		}
		if got.String != w {
			t.Errorf("%s settled at %q, want %q", id, got.String, w)
		}
	}
}

// A chat chip with no Beeper title is named after the person its first
// draft concerns, however many drafts the chat had since.
func TestChatChipIsNamedAfterItsDraftsPerson(t *testing.T) {
	s, _ := newTestStore(t)
	p := newPub("run-1", 0).Add("people", person("p-ana"), person("p-tom"))
	p["sourceRefs"] = append(p["sourceRefs"].([]any), map[string]any{"id": "chat-ref", "kind": "beeper", "accountId": "acc", "chatId": "chat-ana", "observedAt": "2026-09-29T06:58:00Z"})
	for i, who := range []string{"p-ana", "p-tom", "p-tom"} {
		d := draft(fmt.Sprintf("d-%d", i), "Hi.")
		d["chatId"], d["accountId"], d["personId"] = "chat-ana", "acc", who
		p.Add("replyDrafts", d)
	}
	p.Add("activities", storetest.Task("t-1", "chat-ref"))
	mustPublish(t, s, p)
	var chips []EvidenceChip
	if err := s.Read(context.Background(), func(tx *gorm.DB) error {
		var err error
		chips, err = evidenceChips(tx, []string{"chat-ref"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var want string
	s.rdb.Raw("SELECT name FROM people WHERE id = 'p-ana'").Scan(&want)
	if len(chips) != 1 || chips[0].Title != "Chat with "+want {
		t.Fatalf("chips %+v, want the chat named after %q", chips, want)
	}
}
