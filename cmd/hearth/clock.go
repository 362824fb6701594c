package main

import (
	"sync"
	"time"
)

// serveClock is serve's one clock (and the seeder's): the store reads the
// time from it, and handlers and the Beeper watch read it from the store.
// It is the real time, moved by offset (which only HEARTH_TEST_NOW sets),
// except while the demo writes its history, when it stands at the moment
// being written, so every row is dated as if the owner had used hearth for
// eight weeks.
type serveClock struct {
	mu     sync.Mutex
	at     time.Time
	offset time.Duration
}

// Now is the moment being written, else the (offset) real time.
func (c *serveClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return time.Now().Add(c.offset)
	}
	return c.at
}

func (c *serveClock) set(t time.Time) {
	c.mu.Lock()
	c.at = t
	c.mu.Unlock()
}
