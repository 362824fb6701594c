package contract

import "time"

// Wake is a dirty job handed to a runner, under a lease the runner
// acknowledges when the run that handles it starts.
type Wake struct {
	JobKey         string    `json:"jobKey"`
	Reasons        []string  `json:"reasons"`
	Marks          int       `json:"marks"`
	Since          time.Time `json:"dirtySince"`
	LeaseID        string    `json:"leaseId"`
	LeaseExpiresAt time.Time `json:"leaseExpiresAt"`
}

// LeasePattern is the shape of the lease IDs hearth mints for wake-ups.
const LeasePattern = `^[0-9a-f]{32}$`

// WakeAck is POST /api/agent-wake/ack: the lease of a wake-up whose run started.
type WakeAck struct {
	LeaseID string `json:"leaseId"`
}
