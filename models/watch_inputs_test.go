package models

import (
	"context"
	"testing"
	"time"
)

// The store's tests hand it what the Beeper watch hands it, as values
// (WatchRead): reading Beeper and choosing what is new is
// internal/beeperflow's, whose tests run it against a fake Beeper over HTTP.

// The chats and people of those values, named as the fake Beeper
// (beeper/beepertest) names them, so a fixture here reads like one there.
const (
	testAccount = "whatsapp-demo"
	ownerID     = "@owner:beeper.local"
	anaID       = "@ana:beeper.local"
	anaChat     = "!ana-okafor:beeper.local"
	tomasChat   = "!tomas-lindqvist:beeper.local"
)

// textMessage is a text message as the watch hands it over: sortKey orders it in
// its chat, and a message from ownerID is the owner's.
func textMessage(id, sortKey, sender, text string, at time.Time) WatchedMessage {
	return WatchedMessage{ID: id, SenderID: sender, Text: text, Timestamp: at, SortKey: sortKey, IsSender: sender == ownerID, Type: "TEXT"}
}

// readChat is a chat of testAccount the watch read, with msgs, oldest first.
func readChat(id, title string, msgs ...WatchedMessage) WatchedChat {
	return WatchedChat{ID: id, AccountID: testAccount, Title: title, Messages: msgs}
}

// beeperAt is Beeper's chats as the watch's first read finds them at now:
// Tomas's, whose last word is his, 28 h before; and Ana's, whose last is
// her question 1 h before (m-ana-3, sort key 3), which
// storetest.AnaReply's draft answers. Each chat with its newest message,
// as a baseline reads it.
func beeperAt(now time.Time) []WatchedChat {
	return []WatchedChat{
		readChat(tomasChat, "Tomas Lindqvist", textMessage("m-tomas-3", "3", "@tomas:beeper.local", "Bookings by phone only, usually a week out.", now.Add(-28*time.Hour))),
		readChat(anaChat, "Ana Okafor", textMessage("m-ana-3", "3", anaID, "And what time should we meet? I'd like an early start.", now.Add(-time.Hour))),
	}
}

// recordBaseline hands the store the watch's first pass over chats; it
// fails the test unless the store records nothing, as a baseline must.
func recordBaseline(t *testing.T, s *Store, chats ...WatchedChat) {
	t.Helper()
	if n := recordPass(t, s, chats...); n != 0 {
		t.Fatalf("the baseline recorded %d messages", n)
	}
}

// recordPass hands the store one pass of the watch that read chats (each
// with its messages new since the last pass) and returns how many the
// store recorded. The pass's newest activity is its newest message.
func recordPass(t *testing.T, s *Store, chats ...WatchedChat) int {
	t.Helper()
	ctx := context.Background()
	cur, err := s.WatchCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read := WatchRead{Chats: chats, Newest: cur.Since, Job: "messages"}
	for _, c := range chats {
		for _, m := range c.Messages {
			if read.Newest == nil || m.Timestamp.After(*read.Newest) {
				read.Newest = &m.Timestamp
			}
		}
	}
	n, err := s.RecordWatch(ctx, cur, read)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
