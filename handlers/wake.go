package handlers

import (
	"context"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/models"
)

// wakeStore hands dirty jobs and due schedules to a runner.
type wakeStore interface {
	TakeWakes(ctx context.Context) ([]models.Wake, error)
	NextWakeAt(ctx context.Context) (time.Time, bool, error)
	DirtyChanged() <-chan struct{}
	DueSchedules(ctx context.Context, now time.Time) (models.DueReport, error)
}

// Long-poll bounds of GET /api/agent-wake.
const (
	defaultWakeWait = 30 * time.Second
	maxWakeWait     = 2 * time.Minute
)

// wakeAnswer carries job keys and reasons only, never text to execute:
// due schedules are named, their prompts are read when a run claims them.
type wakeAnswer struct {
	Jobs      []models.Wake `json:"jobs"`
	Schedules []dueSchedule `json:"schedules"`
	TimedOut  bool          `json:"timedOut"`
}

// dueSchedule is a schedule whose occurrence is due now.
type dueSchedule struct {
	ScheduleID string    `json:"scheduleId"`
	Job        string    `json:"job"`
	DueAt      time.Time `json:"dueAt"`
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
		due, err := s.store.DueSchedules(ctx, s.store.Now())
		if err != nil {
			return err
		}
		scheds := []dueSchedule{}
		for _, d := range due.Due {
			scheds = append(scheds, dueSchedule{ScheduleID: d.ScheduleID, Job: d.Job, DueAt: d.DueAt})
		}
		if len(wakes) > 0 || len(scheds) > 0 {
			return c.JSON(wakeAnswer{Jobs: append([]models.Wake{}, wakes...), Schedules: scheds})
		}
		left := time.Until(deadline)
		if left <= 0 {
			return c.JSON(wakeAnswer{Jobs: []models.Wake{}, Schedules: scheds, TimedOut: true})
		}
		// A schedule comes due on the clock: look again within a minute.
		left = min(left, time.Minute)
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
