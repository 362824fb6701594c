// Package costpolicy is the daily cost cap's rule: which jobs wait once the
// owner's day has cost (or used) so much, by priority. Pure, no store: the
// store applies it when a run starts and when Home says what waits.
package costpolicy

import (
	"fmt"
	"slices"
)

// Priorities of jobs under the daily cost cap: the cap is a bumper, and a
// job that matters more may go further past it before it waits.
const (
	Low    = "low"
	Normal = "normal"
	High   = "high"
)

// Priorities are the priorities in order, lowest first.
var Priorities = []string{Low, Normal, High}

// DefaultTiers hold low, normal and high priority runs at 100%, 150%
// and 200% of the daily cap.
var DefaultTiers = [3]float64{1, 1.5, 2}

// DefaultJobPriorities are the jobs that are not normal unless configured:
// the morning brief is what the owner reads first.
var DefaultJobPriorities = map[string]string{"daily-brief": High}

// Policy is the daily cost cap for scheduled and watch runs and how far
// past it each priority may go; runs the owner starts always go.
type Policy struct {
	// Cap is USD a day in the owner's day; 0 means no cap.
	Cap float64
	// TokenCap is reported tokens a day in the owner's day, beside Cap,
	// for agents whose cost is not known (a model with no price); 0 means
	// no token cap. The same tiers apply.
	TokenCap int64
	// Tiers are the multiples of Cap at which low, normal and high
	// priority runs are held; all zero means DefaultTiers.
	Tiers [3]float64
	// Jobs maps a job to its priority; a job not named has
	// DefaultJobPriorities' priority, else normal.
	Jobs map[string]string
}

// Priority is job's priority.
func (p Policy) Priority(job string) string {
	if pr, ok := p.Jobs[job]; ok {
		return pr
	}
	if pr, ok := DefaultJobPriorities[job]; ok {
		return pr
	}
	return Normal
}

// tier is priority's multiple of the caps.
func (p Policy) tier(priority string) float64 {
	tiers := p.Tiers
	if tiers == [3]float64{} {
		tiers = DefaultTiers
	}
	return tiers[max(slices.Index(Priorities, priority), 0)]
}

// Limit is the day's reported cost at which runs of priority wait.
func (p Policy) Limit(priority string) float64 {
	return p.Cap * p.tier(priority)
}

// TokenLimit is the day's reported tokens at which runs of priority wait.
func (p Policy) TokenLimit(priority string) float64 {
	return float64(p.TokenCap) * p.tier(priority)
}

// HeldByTokens lists the priorities whose runs wait at tokens reported
// today, lowest first.
func (p Policy) HeldByTokens(tokens float64) []string {
	if p.TokenCap <= 0 {
		return nil
	}
	return heldWhere(func(pr string) bool { return tokens >= p.TokenLimit(pr) })
}

// Held lists the priorities whose runs wait at spent, lowest first.
func (p Policy) Held(spent float64) []string {
	if p.Cap <= 0 {
		return nil
	}
	return heldWhere(func(pr string) bool { return spent >= p.Limit(pr) })
}

// heldWhere lists the priorities that reached their limit, lowest first.
func heldWhere(reached func(priority string) bool) []string {
	var out []string
	for _, pr := range Priorities {
		if reached(pr) {
			out = append(out, pr)
		}
	}
	return out
}

// Check refuses tiers that are not positive and rising, and unknown priorities.
func (p Policy) Check() error {
	if p.Tiers != [3]float64{} && !(p.Tiers[0] > 0 && p.Tiers[0] <= p.Tiers[1] && p.Tiers[1] <= p.Tiers[2]) {
		return fmt.Errorf("cost tiers must be positive and rising (low ≤ normal ≤ high), got %v", p.Tiers)
	}
	for job, pr := range p.Jobs {
		if !slices.Contains(Priorities, pr) {
			return fmt.Errorf("job %s: priority %q is not low, normal or high", job, pr)
		}
	}
	return nil
}
