package demo

import (
	"sync"
	"time"
)

// Clock is serve's one clock (and the seeder's): the store reads the
// time from it, and handlers and the Beeper watch read it from the store.
// It is the real time, moved by Offset (which only HEARTH_TEST_NOW sets),
// except while the demo writes its history, when it stands at the moment
// being written, so every row is dated as if the owner had used hearth for
// eight weeks.
type Clock struct {
	// Offset moves the real time; it is set before the clock is shared.
	Offset time.Duration

	mu sync.Mutex
	at time.Time
}

// Now is the moment being written, else the (offset) real time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return time.Now().Add(c.Offset)
	}
	return c.at
}

func (c *Clock) set(t time.Time) {
	c.mu.Lock()
	c.at = t
	c.mu.Unlock()
}
