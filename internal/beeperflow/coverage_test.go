package beeperflow

import (
	"context"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/contract"
	"hearth/models/read"
)

func TestBeeperUnreachableForASpanIsOneCoverageGapFromFirstFailureToNextRead(t *testing.T) {
	s, now, _, w := watchFixture(t, time.Minute)
	ctx := context.Background()
	live := w.b
	// Nothing listens on port 1 of loopback: Beeper is closed.
	w.b = beeper.NewClient("http://127.0.0.1:1", "token")
	from := now.Now()
	for range 3 {
		if _, err := w.Tick(ctx); err == nil {
			t.Fatal("a read of a closed Beeper worked")
		}
		now.Advance(time.Minute)
	}
	gaps, err := read.Of(s).CoverageGaps(ctx, from.Add(-time.Hour))
	if err != nil || len(gaps) != 1 || gaps[0].To != nil || !gaps[0].From.Equal(from) || gaps[0].What != contract.CoverageUnreachable {
		t.Fatalf("while Beeper is away: %+v, %v; want one open gap from %s, unreachable", gaps, err, from)
	}
	w.b = live
	back := now.Now()
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	gaps, err = read.Of(s).CoverageGaps(ctx, from.Add(-time.Hour))
	if err != nil || len(gaps) != 1 || gaps[0].To == nil || !gaps[0].To.Equal(back) || !gaps[0].From.Equal(from) {
		t.Fatalf("after Beeper came back: %+v, %v; want one gap %s to %s", gaps, err, from, back)
	}
	now.Advance(time.Minute)
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if again, _ := read.Of(s).CoverageGaps(ctx, from.Add(-time.Hour)); len(again) != 1 {
		t.Fatalf("a read that worked opened a gap: %+v", again)
	}
}

func TestATokenBeeperRefusesIsRecordedAsRefusedNotUnreachable(t *testing.T) {
	s, now, fake, w := watchFixture(t, time.Minute)
	ctx := context.Background()
	fake.SetToken("another-token")
	from := now.Now()
	if _, err := w.Tick(ctx); err == nil {
		t.Fatal("a refused token read")
	}
	gaps, err := read.Of(s).CoverageGaps(ctx, from)
	if err != nil || len(gaps) != 1 || gaps[0].What != contract.CoverageTokenRefused {
		t.Fatalf("gaps %+v, %v: want one, token refused", gaps, err)
	}
	// Beeper then failing in another way is a span of its own.
	fake.SetToken(beepertest.Token)
	fake.FailNext(503, 2) // the read and its retry
	now.Advance(time.Minute)
	if _, err := w.Tick(ctx); err == nil {
		t.Fatal("a 503 read")
	}
	gaps, _ = read.Of(s).CoverageGaps(ctx, from)
	if len(gaps) != 2 || gaps[0].To == nil || gaps[1].What != contract.CoverageBeeperError || gaps[1].To != nil {
		t.Fatalf("gaps %+v: want the refusal closed and a Beeper failure open", gaps)
	}
}

func TestAFailureOfHearthsOwnOpensNoCoverageGap(t *testing.T) {
	if got := unseen(errCursorStuck); got != "" {
		t.Fatalf("a page that would not end is %q, not a gap of Beeper's", got)
	}
	if got := unseen(&beeper.APIError{Status: 429}); got != "" {
		t.Fatalf("a rate limit is %q: it only delays the read", got)
	}
}

func TestABeeperThatAnswersTooLateIsRecordedAsATimeout(t *testing.T) {
	s, now, _, w := watchFixture(t, time.Minute)
	ctx := context.Background()
	// A Beeper of its own, slow, read through a client with a short timeout.
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now))
	w.b = beeper.NewClient(b.URL, beepertest.Token, beeper.WithTimeout(50*time.Millisecond))
	b.Fake.SetDelay(time.Second)
	from := now.Now()
	if _, err := w.Tick(ctx); err == nil {
		t.Fatal("a read past the client's timeout worked")
	}
	gaps, err := read.Of(s).CoverageGaps(ctx, from)
	if err != nil || len(gaps) != 1 || gaps[0].What != contract.CoverageTimeout {
		t.Fatalf("gaps %+v, %v: want one, a timeout", gaps, err)
	}
}

func TestASingleFailedReadThatWorksOnItsRetryIsNoCoverageGap(t *testing.T) {
	s, now, fake, w := watchFixture(t, time.Minute)
	ctx := context.Background()
	from := now.Now()
	fake.FailNext(503, 1)
	if _, err := w.Tick(ctx); err != nil {
		t.Fatalf("a read whose retry worked failed: %v", err)
	}
	if gaps, err := read.Of(s).CoverageGaps(ctx, from.Add(-time.Hour)); err != nil || len(gaps) != 0 {
		t.Fatalf("one failed read was recorded as a coverage gap: %+v, %v", gaps, err)
	}
	if h, _ := s.WatchStatus(ctx); h.Failures != 0 {
		t.Fatalf("one failed read counted against the watch's health: %+v", h)
	}
	// A read that fails on its retry too is a gap, from that read.
	now.Advance(time.Minute)
	fake.FailNext(503, 2)
	if _, err := w.Tick(ctx); err == nil {
		t.Fatal("a read that failed twice was reported as working")
	}
	if gaps, err := read.Of(s).CoverageGaps(ctx, from.Add(-time.Hour)); err != nil || len(gaps) != 1 || gaps[0].What != contract.CoverageBeeperError || !gaps[0].From.Equal(now.Now()) {
		t.Fatalf("after a read that failed twice: %+v, %v; want one Beeper failure from %s", gaps, err, now.Now())
	}
}
