package handlers

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
)

// Long-poll bounds of GET /api/agent-wake.
const (
	defaultWakeWait = 30 * time.Second
	maxWakeWait     = 2 * time.Minute
)

// wakeAnswer carries job keys and reasons only, never text to execute.
type wakeAnswer struct {
	Jobs     []models.Wake `json:"jobs"`
	TimedOut bool          `json:"timedOut"`
}

// agentWake long-polls for dirty jobs whose debounce window passed: it
// answers at once when some are due, else when one comes due or is marked,
// else after ?timeout= (seconds, default 30, at most 120) with none. Taking
// a job removes it, so one burst wakes one runner once.
func (s *Server) agentWake(c *fiber.Ctx) error {
	wait := defaultWakeWait
	if t := c.Query("timeout"); t != "" {
		secs, err := strconv.ParseFloat(t, 64)
		if err != nil || secs < 0 || secs > maxWakeWait.Seconds() {
			return apiError(c, fiber.StatusBadRequest, "bad_request", "timeout is 0-120 seconds", fiber.Map{"found": t})
		}
		wait = time.Duration(secs * float64(time.Second))
	}
	ctx := c.UserContext()
	deadline := time.Now().Add(wait)
	for {
		changed := s.store.DirtyChanged() // before the take, so a mark in between is not missed
		wakes, err := s.store.TakeWakes(ctx)
		if err != nil {
			return err
		}
		if len(wakes) > 0 {
			return c.JSON(wakeAnswer{Jobs: wakes})
		}
		left := time.Until(deadline)
		if left <= 0 {
			return c.JSON(wakeAnswer{Jobs: []models.Wake{}, TimedOut: true})
		}
		next, ok, err := s.store.NextWakeAt(ctx)
		if err != nil {
			return err
		}
		if ok {
			left = min(left, max(next.Sub(s.store.Now()), 10*time.Millisecond))
		}
		timer := time.NewTimer(left)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		}
		timer.Stop()
	}
}
