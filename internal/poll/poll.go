// Package poll is the tests' one way to wait for something another process
// or goroutine does: check it every Interval until it holds or a bound
// passes. The bound only decides when to give up, never whether a test
// passes.
package poll

import (
	"testing"
	"time"
)

// Interval is how often a condition is checked again.
const Interval = 50 * time.Millisecond

// Within checks cond until it holds, for at most timeout (and once at the
// end), and reports whether it held: for callers that fail their own way
// or go on either way.
func Within(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(Interval, left))
	}
}

// Eventually checks until check reports ok, and fails tb with check's
// last why once timeout has passed.
func Eventually(tb testing.TB, timeout time.Duration, check func() (ok bool, why string)) {
	tb.Helper()
	var why string
	if !Within(timeout, func() bool {
		var ok bool
		ok, why = check()
		return ok
	}) {
		tb.Fatalf("not within %s: %s", timeout, why)
	}
}
