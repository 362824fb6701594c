package handlers

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/models"
)

// wakeStore hands dirty jobs (leased) and due schedules to a runner.
type wakeStore interface {
	clock
	LeaseWakes(ctx context.Context) ([]contract.Wake, error)
	AckWake(ctx context.Context, leaseID string) error
	NextWakeAt(ctx context.Context) (time.Time, bool, error)
	DirtyChanged() <-chan struct{}
	DueSchedules(ctx context.Context, now time.Time) (contract.DueReport, error)
}

// wakeHandlers hand a runner its wake-ups.
type wakeHandlers struct {
	*Server
	store wakeStore
}

// Long-poll bounds of GET /api/agent-wake.
const (
	defaultWakeWait = 30 * time.Second
	maxWakeWait     = 2 * time.Minute
)

// wakeTimeoutPattern is the only shape ?timeout= takes: plain decimal
// seconds. ParseFloat alone also accepts NaN, Inf, -0, hex and exponents,
// and NaN passed the range check.
var wakeTimeoutPattern = regexp.MustCompile(`^[0-9]{1,3}(\.[0-9]{1,3})?$`)

// wakeAnswer carries job keys and reasons only, never text to execute:
// due schedules are named, their prompts are read when a run claims them.
type wakeAnswer struct {
	Jobs      []contract.Wake `json:"jobs"`
	Schedules []dueSchedule   `json:"schedules"`
	TimedOut  bool            `json:"timedOut"`
}

// dueSchedule is a schedule whose occurrence is due now.
type dueSchedule struct {
	ScheduleID string    `json:"scheduleId"`
	Job        string    `json:"job"`
	DueAt      time.Time `json:"dueAt"`
}

// agentWake long-polls for dirty jobs whose debounce window passed: it
// answers at once when some are due, else when one comes due or is marked,
// else after ?timeout= (seconds, default 30, at most 120) with none. Each
// job comes under a lease: it is cleared by POST /api/agent-wake/ack when
// the run that handles it starts, and offered again if the lease expires
// first. A client that hangs up ends the poll before it leases anything.
func (s *wakeHandlers) agentWake(c *fiber.Ctx) error {
	wait := defaultWakeWait
	if t, ok := c.Queries()["timeout"]; ok {
		secs, err := strconv.ParseFloat(t, 64)
		if !wakeTimeoutPattern.MatchString(t) || err != nil || secs > maxWakeWait.Seconds() {
			return apiError(c, fiber.StatusBadRequest, "bad_request", "timeout is a number of seconds from 0 to 120, like 60 or 0.5", fiber.Map{"found": t})
		}
		wait = time.Duration(secs * float64(time.Second))
	}
	// Store calls take the request's own context: a client leaving mid-query
	// is seen at the next turn, not as a failed query.
	ctx, stop := pollContext(c)
	defer stop()
	rctx := c.UserContext()
	deadline := time.Now().Add(wait)
	for {
		changed := s.store.DirtyChanged() // before the lease, so a mark in between is not missed
		if ctx.Err() != nil {
			return pollEnded(c, ctx)
		}
		wakes, err := s.store.LeaseWakes(rctx)
		if err != nil {
			return err
		}
		due, err := s.store.DueSchedules(rctx, s.store.Now())
		if err != nil {
			return err
		}
		scheds := []dueSchedule{}
		for _, d := range due.Due {
			scheds = append(scheds, dueSchedule{ScheduleID: d.ScheduleID, Job: d.Job, DueAt: d.DueAt})
		}
		if len(wakes) > 0 || len(scheds) > 0 {
			return c.JSON(wakeAnswer{Jobs: append([]contract.Wake{}, wakes...), Schedules: scheds})
		}
		left := time.Until(deadline)
		if left <= 0 {
			return c.JSON(wakeAnswer{Jobs: []contract.Wake{}, Schedules: scheds, TimedOut: true})
		}
		// A schedule comes due on the clock: look again within a minute.
		left = min(left, time.Minute)
		next, ok, err := s.store.NextWakeAt(rctx)
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
		}
		timer.Stop()
	}
}

// ackWake is POST /api/agent-wake/ack {"leaseId"}: the run that handles a
// leased wake-up started, so the marks the lease covered are cleared; marks
// that came later stay dirty. 204 whether or not the lease was still live,
// so a retried ack is harmless.
func (s *wakeHandlers) ackWake(c *fiber.Ctx) error {
	body, ok, err := jsonBody(c)
	if !ok {
		return err
	}
	in, err := contract.DecodeWakeAck(body)
	if err == nil {
		err = s.store.AckWake(c.UserContext(), in.LeaseID)
	}
	if err == nil {
		return c.SendStatus(fiber.StatusNoContent)
	}
	if done, rerr := refusal(c, err, "invalid_request", "the acknowledgement was refused", ""); done {
		return rerr
	}
	if errors.Is(err, models.ErrInvalidInput) {
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", err.Error(), nil)
	}
	return err
}
