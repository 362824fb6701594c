package contract

// Agent login health, as the runner reports it with POST /api/agent-health.
const (
	HealthOK         = "ok"
	HealthNeedsLogin = "needs_login" // the agent's own check found no login: scheduled work is held
	HealthRefused    = "refused"     // the model provider refused the credential (401/403)
)

// HealthStates are the states a report may name.
var HealthStates = []string{HealthOK, HealthNeedsLogin, HealthRefused}

// MaxHealthDetail bounds a report's detail (the agent's own words).
const MaxHealthDetail = 500

// AgentHealthIn is POST /api/agent-health: what the runner learned about
// its agent's login. It never carries the credential.
type AgentHealthIn struct {
	Agent  string `json:"agent"`
	State  string `json:"state"`
	Detail string `json:"detail"`
}
