package upkeep

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// flakyStore fails, panics, then works, counting calls.
type flakyStore struct{ calls atomic.Int64 }

func (f *flakyStore) EnsureOccurrences(context.Context) (int, error) {
	switch f.calls.Add(1) {
	case 1:
		return 0, errors.New("database is locked")
	case 2:
		panic("boom")
	}
	return 1, nil
}

// The ticker runs in a synctest bubble: its clock moves only when every
// goroutine in it waits, so four ticks are four ticks on any machine.
func TestEnsureOccurrencesTickerSurvivesFailuresAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, nil)) // read only after the ticker stopped
		store := &flakyStore{}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			EnsureOccurrencesEvery(ctx, store, 5*time.Millisecond, log)
		}()
		time.Sleep(4*5*time.Millisecond + time.Millisecond)
		synctest.Wait()
		if n := store.calls.Load(); n < 4 {
			t.Fatalf("%d calls after four ticks", n)
		}
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the ticker did not stop with its context")
		}
		out := buf.String()
		for _, want := range []string{"database is locked", "panicked", "routine occurrences instantiated"} {
			if !strings.Contains(out, want) {
				t.Errorf("log lacks %q:\n%s", want, out)
			}
		}
	})
}
