package models

import (
	"context"
	"testing"
	"time"
)

// A long-poll waits on DirtyChanged; a mark or an ack must close the
// channel it holds, or the poll sleeps until its next look a minute later.
func TestAMarkAndAnAckWakeWhoeverWaitsOnDirtyChanged(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	woken := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(30 * time.Second): // a hang guard: the signal is sent before the call returns
			t.Fatalf("%s did not close the channel a poll waits on", what)
		}
	}
	waiting := s.DirtyChanged()
	mustMark(t, s, "messages", "1 new message in Ana Okafor", 0)
	woken("a mark", waiting)
	leased := mustLease(t, s)
	if len(leased) != 1 {
		t.Fatalf("leased %+v", leased)
	}
	waiting = s.DirtyChanged()
	select {
	case <-waiting:
		t.Fatal("a new wait was woken by a mark that came before it")
	default:
	}
	if err := s.AckWake(ctx, leased[0].LeaseID); err != nil {
		t.Fatal(err)
	}
	woken("an ack", waiting)
}
