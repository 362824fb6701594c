//go:build !hearthtest

package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"hearth/internal/cli"
)

// A binary built without the hearthtest tag is the one owners run: a test
// hook left in its environment must stop serve, not move its clock or
// block its writes.
func TestServeRefusesTestHooksInABinaryNotBuiltForTests(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Run("HEARTH_TEST_NOW", func(t *testing.T) {
		t.Setenv("HEARTH_TEST_NOW", "2026-12-04T07:30:00+01:00")
		offset, err := testNow(log)
		if err == nil || !strings.Contains(err.Error(), "hearthtest") {
			t.Fatalf("testNow = %v, %v; want a refusal naming the hearthtest build tag", offset, err)
		}
		if cli.ExitCode(err) != cli.ExitRejected {
			t.Errorf("exit code %d, want %d", cli.ExitCode(err), cli.ExitRejected)
		}
	})
	t.Run("HEARTH_TEST_PAUSE_AT", func(t *testing.T) {
		t.Setenv("HEARTH_TEST_PAUSE_AT", "run-claimed")
		pause, err := testPause(log)
		if err == nil || !strings.Contains(err.Error(), "hearthtest") || pause != nil {
			t.Fatalf("testPause = %v, %v; want a refusal naming the hearthtest build tag", pause != nil, err)
		}
	})
	t.Run("unset", func(t *testing.T) {
		t.Setenv("HEARTH_TEST_NOW", "")
		t.Setenv("HEARTH_TEST_PAUSE_AT", "")
		if offset, err := testNow(log); err != nil || offset != 0 {
			t.Errorf("testNow = %v, %v; want 0, nil", offset, err)
		}
		if pause, err := testPause(log); err != nil || pause != nil {
			t.Errorf("testPause = %v, %v; want nil, nil", pause != nil, err)
		}
	})
}
