package models

import (
	"context"
	"errors"
	"testing"
)

func measurementCount(t *testing.T, s *Store, activityID string) int64 {
	t.Helper()
	var n int64
	if err := s.db.Model(&Measurement{}).Where("activity_id = ?", activityID).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMeasurementReplayedWithItsClientKeyIsSavedOnce(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	first, err := s.RecordMeasurementOnce(ctx, "ck-weigh-0123456789abcdef", "weigh", 72.4)
	if err != nil {
		t.Fatal(err)
	}
	rev := mustRevision(t, s)
	again, err := s.RecordMeasurementOnce(ctx, "ck-weigh-0123456789abcdef", "weigh", 72.4)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if again.ID != first.ID || again.Revision != first.Revision || again.Value != 72.4 {
		t.Errorf("replay answered %+v, first %+v", again, first)
	}
	if got := mustRevision(t, s); got != rev {
		t.Errorf("replay moved the revision %d -> %d", rev, got)
	}
	if n := measurementCount(t, s, "weigh"); n != 1 {
		t.Errorf("%d measurements after a replay, want 1", n)
	}
}

func TestClientKeyReusedForAnotherActionIsAConflict(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurementOnce(ctx, "ck-same-0123456789abcdef", "weigh", 72.4); err != nil {
		t.Fatal(err)
	}
	rev := mustRevision(t, s)
	if _, err := s.RecordMeasurementOnce(ctx, "ck-same-0123456789abcdef", "weigh", 72.9); !errors.Is(err, ErrClientKeyConflict) {
		t.Errorf("another value under the key: %v", err)
	}
	if _, err := s.SetActivityStateOnce(ctx, "ck-same-0123456789abcdef", "stretch", StateCompleted, "", ""); !errors.Is(err, ErrClientKeyConflict) {
		t.Errorf("another action under the key: %v", err)
	}
	if got := mustRevision(t, s); got != rev {
		t.Errorf("refused actions moved the revision %d -> %d", rev, got)
	}
	if n := measurementCount(t, s, "weigh"); n != 1 {
		t.Errorf("%d measurements, want 1", n)
	}
}

func TestStateReplayedWithItsClientKeyIsANoOpEvenAfterUndo(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	first, err := s.SetActivityStateOnce(ctx, "ck-tick-0123456789abcdef", "focus", StateCompleted, "", "")
	if err != nil {
		t.Fatal(err)
	}
	// The owner changed their mind online; a late replay of the queued tick must not redo it.
	if _, err := s.SetActivityState(ctx, "focus", StateAvailable, "", ""); err != nil {
		t.Fatal(err)
	}
	rev := mustRevision(t, s)
	again, err := s.SetActivityStateOnce(ctx, "ck-tick-0123456789abcdef", "focus", StateCompleted, "", "")
	if err != nil || again.Revision != first.Revision {
		t.Fatalf("replay: %+v %v, first %+v", again, err, first)
	}
	if got := mustRevision(t, s); got != rev {
		t.Errorf("replay moved the revision %d -> %d", rev, got)
	}
	if a, _ := findActivity(t, s, "focus"); a.UserState.State != StateAvailable {
		t.Errorf("replay redid the tick: %+v", a.UserState)
	}
}

func TestActionsWithoutClientKeyRepeatAsBefore(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	for range 2 {
		if _, err := s.RecordMeasurementOnce(ctx, "", "weigh", 72.4); err != nil {
			t.Fatal(err)
		}
	}
	if n := measurementCount(t, s, "weigh"); n != 2 {
		t.Errorf("%d measurements without keys, want 2 (a correction)", n)
	}
}

func TestMalformedClientKeyIsRefused(t *testing.T) {
	s, _ := homeFixture(t)
	for _, key := range []string{"short", "has space in it 0123456789", string(make([]byte, 200))} {
		if _, err := s.RecordMeasurementOnce(context.Background(), key, "weigh", 72.4); !errors.Is(err, ErrInvalidInput) {
			t.Errorf("%q: %v", key, err)
		}
	}
	if n := measurementCount(t, s, "weigh"); n != 0 {
		t.Errorf("%d measurements, want 0", n)
	}
}

func TestFailedActionDoesNotSpendItsClientKey(t *testing.T) {
	s, _ := homeFixture(t)
	ctx := context.Background()
	if _, err := s.RecordMeasurementOnce(ctx, "ck-typo-0123456789abcdef", "weigh", 7000); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("out of range: %v", err)
	}
	// The same key with the same (still invalid) value is refused again, not answered as done.
	if _, err := s.RecordMeasurementOnce(ctx, "ck-typo-0123456789abcdef", "weigh", 7000); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("again: %v", err)
	}
}
