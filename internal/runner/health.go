package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"hearth/internal/contract"
)

// ErrNeedsLogin means the agent's own check found no login: scheduled work
// was not claimed (no occurrence used, nothing counted, no cost) and waits
// for the next run after a login, under the usual catch-up rule.
var ErrNeedsLogin = errors.New("codex is not logged in (run `codex login` as this user, with this CODEX_HOME): scheduled work is held")

// loginCheckTimeout bounds `codex login status`, which reads CODEX_HOME
// and makes no network call.
const loginCheckTimeout = 30 * time.Second

// loginStatus runs `codex login status` in the runner's CODEX_HOME: exit 0
// when a login or an API key is configured, 1 and "Not logged in"
// otherwise. Any other failure (codex missing, a crash) is an error: the
// check said nothing about the login.
func (c *Codex) loginStatus(ctx context.Context, codexHome string) (state, detail string, err error) {
	cctx, cancel := context.WithTimeout(ctx, loginCheckTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.Bin, "login", "status")
	cmd.Env = os.Environ()
	if codexHome != "" {
		cmd.Env = append(cmd.Env, "CODEX_HOME="+codexHome)
	}
	out, runErr := cmd.CombinedOutput()
	text := lastLines(string(out), 2)
	var exit *exec.ExitError
	switch {
	case runErr == nil:
		return contract.HealthOK, text, nil
	case errors.As(runErr, &exit) && exit.ExitCode() == 1 && strings.Contains(string(out), "Not logged in"):
		return contract.HealthNeedsLogin, "codex login status: Not logged in", nil
	}
	return "", "", fmt.Errorf("codex login status: %v: %s", runErr, text)
}

// lastLines is the last n non-empty lines of s, without Codex's warnings.
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "WARNING:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep[max(0, len(keep)-n):], " ")
}

// checkLogin asks the agent whether it is logged in, tells hearth, and
// says whether scheduled work may be claimed. Only the Codex preset has a
// check; another agent command is taken as logged in. A check that could
// not run is logged and does not hold work (the run itself will say why
// it fails).
func (r *Runner) checkLogin(ctx context.Context) bool {
	if r.codex == nil {
		return true
	}
	state, detail, err := r.codex.loginStatus(ctx, r.codexHome)
	if err != nil {
		r.log.Warn("could not check the agent's login", "err", err)
		return true
	}
	r.reportHealth(state, detail)
	if state == contract.HealthNeedsLogin {
		r.log.Warn("codex is not logged in: scheduled work is held; run `codex login` as this user", "codexHome", r.codexHome)
		return false
	}
	return true
}

// reportHealth tells hearth what the runner learned about the login. A
// failed report is logged: it changes nothing about the run.
func (r *Runner) reportHealth(state, detail string) {
	body := contract.AgentHealthIn{Agent: "codex", State: state, Detail: truncate(detail, contract.MaxHealthDetail)}
	if err := only2xx(r.api(http.MethodPost, "/api/agent-health", body, nil)); err != nil {
		r.log.Warn("agent health not reported", "state", state, "err", err)
	}
}

// providerRefusal matches the provider's answer to a credential it does
// not accept, as Codex reports it ("401 Unauthorized", "unexpected status
// 403 Forbidden").
var providerRefusal = regexp.MustCompile(`\b(401|403)\b|Unauthorized|Forbidden`)

// authRefused is an invocation the model provider refused for its credential.
type authRefused struct{ err error }

func (e *authRefused) Error() string {
	return e.err.Error() + " (the model provider refused the login)"
}
func (e *authRefused) Unwrap() error { return e.err }
