package models

import (
	"context"
	"errors"
	"hearth/internal/contract"
	"testing"
	"time"
)

func TestRecordWatchTakesABaselineThenRecordsNewMessagesAndMarksTheJob(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	chat := WatchedChat{ID: "!ana:beeper.local", AccountID: "acc", Title: "Ana",
		Messages: []WatchedMessage{{ID: "m1", SenderID: "@ana", Text: "hi", Timestamp: now.Now(), SortKey: "9"}}}
	cur, err := s.WatchCursor(ctx)
	if err != nil || cur.Since != nil {
		t.Fatalf("a new store's cursor %+v, %v", cur, err)
	}
	if n, err := s.RecordWatch(ctx, cur, WatchRead{Chats: []WatchedChat{chat}, Newest: ptr(now.Now()), Job: "messages"}); err != nil || n != 0 {
		t.Fatalf("the baseline recorded %d, %v; want nothing", n, err)
	}
	if _, ok, _ := s.NextWakeAt(ctx); ok {
		t.Fatal("the baseline marked a job")
	}
	cur, err = s.WatchCursor(ctx)
	if key, ok := cur.LastSortKey(chat.ID); err != nil || cur.Since == nil || !ok || key != "9" {
		t.Fatalf("the cursor after the baseline %+v (%q, %v), %v", cur, key, ok, err)
	}
	dirty := s.DirtyChanged()
	chat.Messages = []WatchedMessage{{ID: "m2", SenderID: "@ana", Text: "still there?", Timestamp: now.Now(), SortKey: "10"}}
	if n, err := s.RecordWatch(ctx, cur, WatchRead{Chats: []WatchedChat{chat}, Newest: ptr(now.Now()), Job: "messages"}); err != nil || n != 1 {
		t.Fatalf("a new message recorded %d, %v", n, err)
	}
	select {
	case <-dirty:
	default:
		t.Fatal("recording a message did not wake a waiting poll")
	}
	if _, ok, _ := s.NextWakeAt(ctx); !ok {
		t.Fatal("a message from someone else did not mark the job")
	}
	s.RecordWatchFailure(errors.New("beeper: unavailable"), contract.CoverageUnreachable)
	if h, _ := s.WatchStatus(ctx); h.Failures != 1 || h.LastError != "beeper: unavailable" {
		t.Fatalf("health after a failure %+v", h)
	}
}

func TestTheWatchKeepsNoIncomingTimeOutsideTheBound(t *testing.T) {
	far, err := time.Parse(time.RFC3339, "9999-12-31T23:59:59-12:00") // year 10000 in UTC
	if err != nil {
		t.Fatal(err)
	}
	if at := incomingAt(far); at != nil {
		t.Errorf("a timestamp of %v was kept as %v", far, at)
	}
	ok := time.Date(2026, 12, 3, 9, 0, 0, 0, time.FixedZone("", 3600))
	if at := incomingAt(ok); at == nil || !at.Equal(ok) || at.Location() != time.UTC {
		t.Errorf("an ordinary timestamp read as %v", at)
	}
}
