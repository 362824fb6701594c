package models

import (
	"context"
	"fmt"
	"testing"
	"time"

	"hearth/internal/storetest"
)

// BenchmarkPeopleWithAYearOfChats reads People and the agent context with
// 20 people, each with a chat of 2,000 messages (100 conversations of 20
// messages) over the rhythm's year: what the rhythm costs each read.
func BenchmarkPeopleWithAYearOfChats(b *testing.B) {
	s, clock := newTestStore(b)
	ctx := context.Background()
	now := clock.Now()
	const people, conversations, perConversation = 20, 100, 20
	doc := newPub("run-rhythm-bench", 0)
	for p := range people {
		id, chat := fmt.Sprintf("p-%02d", p), fmt.Sprintf("chat-%02d", p)
		d := draft("draft-"+id, "Hello")
		d["personId"], d["chatId"] = id, chat
		doc = doc.Add("people", person(id)).Add("replyDrafts", d)
	}
	mustPublish(b, s, doc)
	for p := range people {
		var history []WatchedMessage
		for c := range conversations {
			start := now.Add(-time.Duration(360-c*3) * rhythmDay)
			for m := range perConversation {
				history = append(history, said(fmt.Sprintf("m-%d-%d", c, m), start.Add(time.Duration(m)*time.Minute), m%2 == 0))
			}
		}
		cur, err := s.WatchCursor(ctx)
		if err != nil {
			b.Fatal(err)
		}
		chat := WatchedChat{ID: fmt.Sprintf("chat-%02d", p), AccountID: "acc", Title: "chat", History: history, HistoryRead: true}
		if _, err := s.RecordWatch(ctx, cur, WatchRead{Job: "messages", Chats: []WatchedChat{chat}}); err != nil {
			b.Fatal(err)
		}
	}
	if v := storetest.Read(b, s.People); !v.People[0].Rhythm.Known {
		b.Fatalf("no rhythm for %s: %+v", v.People[0].Person.ID, v.People[0].Rhythm)
	}
	b.Run("people", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.People(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("context", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.AgentContext(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
