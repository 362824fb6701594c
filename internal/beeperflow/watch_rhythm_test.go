package beeperflow

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/storetest"
	"hearth/models"
	"hearth/models/read"
)

const lenaChatID = "!lena-brandt:beeper.local"

func TestTheWatchReadsAChatsHistoryOnceAndItsQuietMessagesNeitherStartNorExtendAConversation(t *testing.T) {
	ctx := context.Background()
	s, now := newTestStore(t)
	day := 24 * time.Hour
	start := now.Now()
	at := func(daysAgo int) time.Time { return start.Add(-time.Duration(daysAgo) * day) }
	now.Set(at(80))
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now), beepertest.WithPageSize(5))
	lena := "@lena-brandt-member:beeper.local"

	// Six conversations 8, 9, 9, 10 and 12 days apart, two messages an
	// hour apart each; the owner starts the second and the fifth.
	for i, d := range []int{71, 59, 49, 40, 31, 23} {
		first, second := lena, beepertest.SelfID
		if i == 1 || i == 4 {
			first, second = second, first
		}
		now.Set(at(d))
		if i == 0 {
			b.Fake.AddChat(lenaChatID, "Lena Brandt", "Long time! How was the move?")
		} else {
			b.Fake.Add(lenaChatID, beeper.Message{SenderID: first, Text: "Hi again"})
		}
		now.Advance(time.Hour)
		b.Fake.Add(lenaChatID, beeper.Message{SenderID: second, Text: "Good to hear from you"})
		if i == 0 {
			// In the middle of the 12-day silence: each would start a conversation.
			for j, kind := range []string{"reaction", "notice", "hidden", "deleted"} {
				now.Set(at(65 - j))
				m := quietMessages("")[kind]
				m.SenderID = lena
				b.Fake.Add(lenaChatID, m)
			}
		}
	}
	// Five hours after the last conversation: it would extend it.
	now.Advance(5 * time.Hour)
	b.Fake.Add(lenaChatID, beeper.Message{SenderID: lena, Type: beeper.TypeReaction, Text: "👍"})

	now.Set(start)
	ref := map[string]any{"id": "beeper-lena", "kind": "beeper", "accountId": beepertest.AccountID, "chatId": lenaChatID, "messageId": "m-lena",
		"observedAt": start.Add(-time.Minute).Format(time.RFC3339)}
	p := newPub("run-lena", 0).Add("sourceRefs", ref).Add("people", storetest.Person("lena", "life-1", "beeper-lena"))
	mustPublish(t, s, p)

	w := NewWatch(s, b.Client, WatchOptions{})
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	people := storetest.Read(t, read.Of(s).People)
	got := people.People[0].Rhythm
	want := models.PersonRhythm{Conversations: 6, Gaps: 5, Known: true, UsualGap: 9*day - time.Hour, P90Gap: 12*day - time.Hour,
		OwnerStarted: 2, Silence: 23*day - time.Hour, Drifting: true}
	if got != want {
		t.Fatalf("Lena's rhythm after the baseline\n got %+v\nwant %+v", got, want)
	}
	if n := countRows(t, s, "SELECT COUNT(*) FROM beeper_watch WHERE chat_id = ? AND history_read = 1", lenaChatID); n != 1 {
		t.Fatalf("Lena's chat is not marked as read back (%d)", n)
	}
	if n := countRows(t, s, "SELECT COUNT(*) FROM chat_beats WHERE chat_id = ?", lenaChatID); n != 12 {
		t.Fatalf("%d beats of Lena's chat; want her 12 messages that count", n)
	}

	// Her next message is read as any new one, and the history is not read again.
	now.Advance(time.Minute)
	b.Fake.Incoming(lenaChatID, lena, "Coffee next week?")
	before := b.Fake.Requests()
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	// The chat list, one page of Lena's messages (the newest is new, the
	// one before it is not), and nothing else of hers.
	if n := b.Fake.Requests() - before; n > 3 {
		t.Errorf("the second pass made %d requests; the history was read again", n)
	}
	if r := storetest.Read(t, read.Of(s).People).People[0].Rhythm; r.Conversations != 7 || r.Drifting || r.Silence != 0 {
		t.Fatalf("after Lena wrote again: %+v; want 7 conversations, not drifting", r)
	}
}

func TestOnePassReadsBackAtMostTenChatsAndTheRestWhenTheyAreNextActive(t *testing.T) {
	ctx := context.Background()
	s, now := newTestStore(t)
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now))
	for i := range 12 {
		other := beeper.User{ID: fmt.Sprintf("@friend-%d:beeper.local", i), FullName: fmt.Sprintf("Friend %d", i)}
		b.Fake.AddHistory(fmt.Sprintf("!friend-%d:beeper.local", i), other.FullName, other, []beeper.Message{
			{SenderID: other.ID, Text: "Hi", Timestamp: now.Now().Add(-time.Duration(30-i) * time.Hour)},
			{SenderID: beepertest.SelfID, Text: "Hey", Timestamp: now.Now().Add(-time.Duration(30-i)*time.Hour + time.Minute)},
		})
	}
	w := NewWatch(s, b.Client, WatchOptions{})
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, "SELECT COUNT(*) FROM beeper_watch WHERE history_read = 1"); n != historyChatsPerPass {
		t.Fatalf("the first pass read back %d of 15 chats; want %d", n, historyChatsPerPass)
	}
	// The chats it left are read back once they are active again.
	now.Advance(time.Minute)
	for i := range 12 {
		b.Fake.Incoming(fmt.Sprintf("!friend-%d:beeper.local", i), fmt.Sprintf("@friend-%d:beeper.local", i), "Still there?")
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, "SELECT COUNT(*) FROM beeper_watch WHERE history_read = 0 AND chat_id LIKE '!friend-%'"); n != 0 {
		t.Fatalf("%d of the friends' chats are still not read back after they were active", n)
	}
}
