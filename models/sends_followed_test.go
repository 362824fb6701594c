package models

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

const followChat = "chat-follow"

// followFixture publishes person-ana and her draft, draft-follow, in
// followChat (candidate c0 "Saturday works!"), and sets the watch's baseline.
func followFixture(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	s, clock := newTestStore(t)
	d := draft("draft-follow", "Saturday works!")
	d["chatId"], d["personId"] = followChat, "person-ana"
	mustPublish(t, s, newPub("run-follow", 0).Add("people", person("person-ana")).Add("replyDrafts", d))
	watchMessages(t, s) // the baseline: records nothing
	return s, clock
}

// sendFollowed confirms body (of draft-follow, or an own reply when
// draftID is empty) and settles it sent as Beeper message msgID.
func sendFollowed(t *testing.T, s *Store, key, draftID, body, msgID string) Send {
	t.Helper()
	ctx := context.Background()
	cmd := SendCommand{SendKey: key, DraftID: draftID, ChatID: followChat, Body: body, SourceMessageRevision: "10"}
	plan, err := s.PrepareSend(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Target.AccountID == "" {
		plan.Target.AccountID = "acc"
	}
	sd, _, err := s.PendingSend(ctx, plan.Target, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if sd, err = s.SettleSend(ctx, sd.ID, SendSent, msgID, ""); err != nil {
		t.Fatal(err)
	}
	return sd
}

var watchSeq int

// watchMessages records one watch pass in which followChat shows msgs.
func watchMessages(t *testing.T, s *Store, msgs ...WatchedMessage) {
	t.Helper()
	ctx := context.Background()
	cur, err := s.WatchCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := s.Now()
	chat := WatchedChat{ID: followChat, AccountID: "acc", Title: "Ana"}
	for _, m := range msgs {
		watchSeq++
		m.ID, m.SortKey = fmt.Sprintf("m-%d", watchSeq), fmt.Sprintf("%06d", watchSeq)
		chat.Messages = append(chat.Messages, m)
	}
	if _, err := s.RecordWatch(ctx, cur, WatchRead{Newest: &now, Job: "messages", Chats: []WatchedChat{chat}}); err != nil {
		t.Fatal(err)
	}
}

// fromAna is a message from the other side at at.
func fromAna(text string, at time.Time) WatchedMessage {
	return WatchedMessage{SenderID: "@ana", SenderName: "Ana", Text: text, Timestamp: at, Type: "TEXT"}
}

// reactionFromAna is Ana's reaction at at, as the watch hands it over.
func reactionFromAna(at time.Time) WatchedMessage {
	return WatchedMessage{SenderID: "@ana", Text: "👍", Timestamp: at, Type: messageReaction, Aside: true, LinkedMessageID: "m-sent"}
}

func followedIDs(t *testing.T, s *Store) []int64 {
	t.Helper()
	var ids []int64
	for _, sd := range storetest.Read(t, s.FollowedSends) {
		ids = append(ids, sd.ID)
	}
	return ids
}

func contextSend(t *testing.T, s *Store, key string) contract.SendView {
	t.Helper()
	return storetest.MustFind(t, "send", storetest.Read(t, s.AgentContext).Sends.Items, key, func(v contract.SendView) string { return v.SendKey })
}

func at(t time.Time) *time.Time { return &t }

func TestASentReplyIsFollowedToDeliveredSeenAndAnswered(t *testing.T) {
	s, clock := followFixture(t)
	ctx := context.Background()
	sent := testNow.Add(time.Minute)
	clock.Set(sent)
	sd := sendFollowed(t, s, "key-follow", "draft-follow", "Saturday works!", "m-sent")
	if got := followedIDs(t, s); len(got) != 1 || got[0] != sd.ID {
		t.Fatalf("followed sends %v; want the new send %d", got, sd.ID)
	}

	clock.Set(sent.Add(2 * time.Minute))
	if _, err := s.RecordFollow(ctx, sd.ID, SendFollow{DeliveredAt: at(sent.Add(time.Minute))}); err != nil {
		t.Fatal(err)
	}
	if got := followedIDs(t, s); len(got) != 1 {
		t.Fatalf("delivered but not seen: followed %v; want it still followed", got)
	}
	clock.Set(sent.Add(6 * time.Minute))
	if _, err := s.RecordFollow(ctx, sd.ID, SendFollow{SeenAt: at(sent.Add(5 * time.Minute))}); err != nil {
		t.Fatal(err)
	}
	if got := followedIDs(t, s); len(got) != 0 {
		t.Fatalf("delivered and seen: followed %v; Beeper has nothing more to tell", got)
	}

	clock.Set(sent.Add(30 * time.Minute))
	watchMessages(t, s, fromAna("Great, see you!", sent.Add(23*time.Minute)))

	v := contextSend(t, s, "key-follow")
	f := v.Followed
	if v.Origin != OriginAsDrafted || f == nil {
		t.Fatalf("context send %+v; want origin as-drafted and followed", v)
	}
	if !f.DeliveredAt.Equal(sent.Add(time.Minute)) || !f.SeenAt.Equal(sent.Add(5*time.Minute)) || f.AnsweredAt == nil ||
		!f.AnsweredAt.Equal(sent.Add(23*time.Minute)) || f.AnsweredAfterMinutes == nil || *f.AnsweredAfterMinutes != 23 {
		t.Fatalf("followed %+v; want delivered +1m, seen +5m, answered +23m after 23 minutes", f)
	}
	ac := storetest.Read(t, s.AgentContext)
	if len(ac.ChatReplies) != 1 {
		t.Fatalf("chat replies %+v; want one chat", ac.ChatReplies)
	}
	cr := ac.ChatReplies[0]
	if cr.ChatID != followChat || cr.PersonID != "person-ana" || cr.Sent != 1 || cr.Answered != 1 || cr.MedianMinutes == nil || *cr.MedianMinutes != 23 ||
		len(cr.ByOrigin) != 1 || cr.ByOrigin[0] != (contract.OriginRepliesView{Origin: OriginAsDrafted, Sent: 1, Answered: 1}) {
		t.Fatalf("chat replies %+v; want 1 sent as drafted, answered in 23 minutes, for person-ana", cr)
	}
	compact := storetest.Read(t, s.CompactContext)
	if len(compact.ChatReplies) != 1 || compact.ChatReplies[0].Answered != 1 {
		t.Fatalf("compact context chat replies %+v; want them kept", compact.ChatReplies)
	}
	contextValidates(t, ac)

	people := storetest.Read(t, s.People)
	var ana *PersonEntry
	for i := range people.People {
		if people.People[i].Person.ID == "person-ana" {
			ana = &people.People[i]
		}
	}
	if ana == nil || ana.Replies != (ReplyStats{Sent: 1, Answered: 1, MedianAnswer: 23 * time.Minute}) || ana.Replies.Rate() != 100 {
		t.Fatalf("People's person-ana %+v; want 1 of 1 answered, typically in 23 minutes", ana)
	}
}

func TestAReactionAfterASendIsNotItsAnswer(t *testing.T) {
	s, clock := followFixture(t)
	sent := testNow.Add(time.Minute)
	clock.Set(sent)
	sendFollowed(t, s, "key-follow", "draft-follow", "Saturday works!", "m-sent")
	clock.Set(sent.Add(10 * time.Minute))
	watchMessages(t, s, reactionFromAna(sent.Add(2*time.Minute)))
	if f := contextSend(t, s, "key-follow").Followed; f != nil && f.AnsweredAt != nil {
		t.Fatalf("followed %+v after a reaction; want not answered", f)
	}
	if got := followedIDs(t, s); len(got) != 1 {
		t.Fatalf("followed %v; want the send still followed", got)
	}
	watchMessages(t, s, fromAna("Yes!", sent.Add(9*time.Minute)))
	if f := contextSend(t, s, "key-follow").Followed; f == nil || f.AnsweredAt == nil || !f.AnsweredAt.Equal(sent.Add(9*time.Minute)) {
		t.Fatalf("followed %+v; want answered by the text, not the reaction", f)
	}
}

func TestFollowingStopsAfterTheAnswer(t *testing.T) {
	s, clock := followFixture(t)
	ctx := context.Background()
	sent := testNow.Add(time.Minute)
	clock.Set(sent)
	sd := sendFollowed(t, s, "key-follow", "draft-follow", "Saturday works!", "m-sent")
	clock.Set(sent.Add(time.Hour))
	watchMessages(t, s, fromAna("Sounds good", sent.Add(40*time.Minute)))
	if got := followedIDs(t, s); len(got) != 0 {
		t.Fatalf("followed %v after the answer; want none", got)
	}
	rev := mustRevision(t, s)
	if got, err := s.RecordFollow(ctx, sd.ID, SendFollow{SeenAt: at(sent.Add(50 * time.Minute))}); err != nil || got.SeenAt != nil {
		t.Fatalf("a receipt after the answer: %+v, %v; want nothing recorded", got, err)
	}
	if mustRevision(t, s) != rev {
		t.Fatalf("a receipt after the answer moved the revision")
	}
	watchMessages(t, s, fromAna("And bring water", sent.Add(55*time.Minute)))
	if f := contextSend(t, s, "key-follow").Followed; f == nil || !f.AnsweredAt.Equal(sent.Add(40*time.Minute)) || f.SeenAt != nil {
		t.Fatalf("followed %+v; want the first answer kept and no receipt", f)
	}
}

func TestFollowingStopsAfter14Days(t *testing.T) {
	s, clock := followFixture(t)
	ctx := context.Background()
	sent := testNow.Add(time.Minute)
	clock.Set(sent)
	sd := sendFollowed(t, s, "key-follow", "", "I'll call you tonight.", "m-sent")
	clock.Set(sent.Add(FollowWindow - time.Minute))
	if got := followedIDs(t, s); len(got) != 1 {
		t.Fatalf("13 days later: followed %v; want it still followed", got)
	}
	clock.Set(sent.Add(FollowWindow + time.Minute))
	if got := followedIDs(t, s); len(got) != 0 {
		t.Fatalf("14 days later: followed %v; want none", got)
	}
	if got, err := s.RecordFollow(ctx, sd.ID, SendFollow{DeliveredAt: at(sent.Add(time.Hour))}); err != nil || got.DeliveredAt != nil {
		t.Fatalf("a report after 14 days: %+v, %v; want nothing recorded", got, err)
	}
	watchMessages(t, s, fromAna("Sorry, only saw this now", clock.Now()))
	ac := storetest.Read(t, s.AgentContext)
	if len(ac.ChatReplies) != 1 || ac.ChatReplies[0].Sent != 1 || ac.ChatReplies[0].Answered != 0 || ac.ChatReplies[0].MedianMinutes != nil ||
		ac.ChatReplies[0].ByOrigin[0].Origin != OriginOwnWords {
		t.Fatalf("chat replies %+v; want one own-words reply, never answered", ac.ChatReplies)
	}
}

func TestAnEditedDraftsSendIsCountedAsEdited(t *testing.T) {
	s, clock := followFixture(t)
	clock.Set(testNow.Add(time.Minute))
	sendFollowed(t, s, "key-edit", "draft-follow", "Saturday works, 8am?", "m-sent")
	if v := contextSend(t, s, "key-edit"); v.Origin != OriginEdited || v.Followed != nil {
		t.Fatalf("context send %+v; want origin edited, nothing followed yet", v)
	}
}
