package storetest

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	"hearth/internal/poll"
)

// WaitBlocked returns once some goroutine is parked on a sync.Mutex inside
// the function fn, named as a stack trace names it
// ("hearth/models.(*Store).write"), so the test acts while that goroutine
// is provably held there rather than after a guessed sleep. It fails the
// test if none is within a generous bound.
func WaitBlocked(t testing.TB, fn string) {
	t.Helper()
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		return blockedIn(fn), "no goroutine blocked on a mutex in " + fn
	})
}

// blockedIn reports whether a goroutine waits on a sync.Mutex inside fn.
func blockedIn(fn string) bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		header, frames, _ := strings.Cut(string(g), "\n")
		if strings.Contains(header, "[sync.Mutex.Lock") && strings.Contains(frames, "\n"+fn+"(") {
			return true
		}
	}
	return false
}
