package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"hearth/internal/contract"
)

// ErrNeedsLogin means the agent's own check found no credential it can
// use: scheduled work was not claimed (no occurrence used, nothing
// counted, no cost) and waits for the next run after a login, under the
// usual catch-up rule; a job the owner asked for is not run.
var ErrNeedsLogin = errors.New("codex is not logged in")

// needsLogin is ErrNeedsLogin with Codex's words and what was held.
type needsLogin struct {
	detail string // Codex's own words
	held   string // what the runner did not do
}

func (e *needsLogin) Error() string {
	return fmt.Sprintf("codex is not logged in (%s): %s; run `codex login` as this user with this CODEX_HOME, or give the runner CODEX_API_KEY (or the configured provider's env_key)",
		e.detail, e.held)
}

func (e *needsLogin) Is(target error) bool { return target == ErrNeedsLogin }

// loginCheckTimeout bounds Codex's own check (`codex doctor`, which also
// probes the provider's endpoints, or `codex login status`).
const loginCheckTimeout = 30 * time.Second

// pinnedDefaultModels is the model each Codex version uses when its
// config names none (`codex doctor` says "<default>"): the one a request
// carries. A version not listed has no known default, so its invocations
// record tokens and no cost.
var pinnedDefaultModels = map[string]string{"0.171.0": "gpt-6.2-sol"}

// doctorReport is the part of `codex doctor --json` the runner reads.
type doctorReport struct {
	CodexVersion string                 `json:"codexVersion"`
	Checks       map[string]doctorCheck `json:"checks"`
}

// doctorCheck is one check of `codex doctor --json`.
type doctorCheck struct {
	Status      string         `json:"status"` // ok, warning, fail
	Summary     string         `json:"summary"`
	Remediation *string        `json:"remediation"`
	Details     map[string]any `json:"details"`
}

// auth is the report's credential check as a login state: ok when Codex
// can authenticate in this CODEX_HOME and environment (a stored login or
// API key, CODEX_API_KEY or OPENAI_API_KEY, or the configured provider's
// env_key); false when the report has no such check.
func (d doctorReport) auth() (state, detail string, ok bool) {
	c, ok := d.Checks["auth.credentials"]
	if !ok || c.Status == "" {
		return "", "", false
	}
	detail = "codex doctor: " + c.Summary
	if c.Status != "fail" {
		return contract.HealthOK, detail, true
	}
	if c.Remediation != nil && *c.Remediation != "" {
		detail += ". " + strings.TrimSuffix(*c.Remediation, ".")
	}
	return contract.HealthNeedsLogin, detail, true
}

// model is the model Codex will use, as the report's config check says:
// "" when it cannot tell.
func (d doctorReport) model() string {
	m, _ := d.Checks["config.load"].Details["model"].(string)
	if m == "<default>" {
		return pinnedDefaultModels[d.CodexVersion]
	}
	return m
}

// checkEnv is the environment Codex's own check runs in: the one `codex
// exec` gets (hearth's token left out), in the runner's CODEX_HOME.
func checkEnv(codexHome string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HEARTH_TOKEN=") && !strings.HasPrefix(kv, "HEARTH_AGENT_CMD=") {
			env = append(env, kv)
		}
	}
	if codexHome != "" {
		env = append(env, "CODEX_HOME="+codexHome)
	}
	return env
}

// doctor runs `codex doctor --json` and reads its report; ok is false
// when this Codex has no such command or its report is unreadable. It
// exits 1 when any check fails, which says nothing about the login, so
// only the report counts. It learns the model Codex uses, for pricing.
func (c *Codex) doctor(ctx context.Context, codexHome string) (doctorReport, bool) {
	cctx, cancel := context.WithTimeout(ctx, loginCheckTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.Bin, "doctor", "--json")
	cmd.Env = checkEnv(codexHome)
	var out bytes.Buffer
	cmd.Stdout = &out
	runGuarded(cmd)
	var rep doctorReport
	if json.Unmarshal(out.Bytes(), &rep) != nil || rep.Checks == nil {
		return doctorReport{}, false
	}
	if m := rep.model(); m != "" {
		c.model = m
	}
	return rep, true
}

// login says whether Codex can authenticate: its own machine-readable
// check where it has one; else the configured provider's env_key when it
// names one, else an API key in the environment, else `codex login
// status`. A ChatGPT login counts until the provider refuses it (an
// invocation's 401/403 reports refused at once).
func (c *Codex) login(ctx context.Context, codexHome string) (state, detail string, err error) {
	if rep, ok := c.doctor(ctx, codexHome); ok {
		if state, detail, ok := rep.auth(); ok {
			return state, detail, nil
		}
	}
	if provider, key := providerKey(codexHome); key != "" {
		if os.Getenv(key) != "" {
			return contract.HealthOK, fmt.Sprintf("the configured provider %s's env_key %s is set", provider, key), nil
		}
		return contract.HealthNeedsLogin, fmt.Sprintf("the configured provider %s's env_key %s is not set", provider, key), nil
	}
	for _, k := range []string{"CODEX_API_KEY", "OPENAI_API_KEY"} {
		if os.Getenv(k) != "" {
			return contract.HealthOK, k + " is set", nil
		}
	}
	return c.loginStatus(ctx, codexHome)
}

// providerKey is the model provider config.toml in codexHome (else
// $CODEX_HOME, else ~/.codex) selects and the environment variable it
// takes its key from: "" when it names none (OpenAI's own credentials) or
// the file does not say.
func providerKey(codexHome string) (provider, envKey string) {
	if codexHome == "" {
		codexHome = os.Getenv("CODEX_HOME")
	}
	if codexHome == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", ""
		}
		codexHome = filepath.Join(home, ".codex")
	}
	var cfg struct {
		ModelProvider  string `toml:"model_provider"`
		ModelProviders map[string]struct {
			EnvKey string `toml:"env_key"`
		} `toml:"model_providers"`
	}
	if _, err := toml.DecodeFile(filepath.Join(codexHome, "config.toml"), &cfg); err != nil {
		return "", ""
	}
	return cfg.ModelProvider, cfg.ModelProviders[cfg.ModelProvider].EnvKey
}

// loginStatus runs `codex login status` in the runner's CODEX_HOME: exit 0
// when a login or an API key is stored, 1 and "Not logged in" otherwise.
// Any other failure (codex missing, a crash) is an error: the check said
// nothing about the login.
func (c *Codex) loginStatus(ctx context.Context, codexHome string) (state, detail string, err error) {
	cctx, cancel := context.WithTimeout(ctx, loginCheckTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.Bin, "login", "status")
	cmd.Env = checkEnv(codexHome)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	runErr := runGuarded(cmd)
	out := buf.Bytes()
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

// checkLogin asks the agent whether it can authenticate and tells hearth;
// with no credential it is a *needsLogin naming held, and nothing may be
// claimed or invoked. Only the Codex preset has a check; another agent
// command is taken as logged in. A check that could not run is logged
// and holds nothing (the run itself will say why it fails).
func (r *Runner) checkLogin(ctx context.Context, held string) error {
	if r.codex == nil {
		return nil
	}
	state, detail, err := r.codex.login(ctx, r.codexHome)
	if err != nil {
		r.log.Warn("could not check the agent's login", "err", err)
		return nil
	}
	r.reportHealth(state, detail)
	if state == contract.HealthNeedsLogin {
		r.log.Warn("codex is not logged in: "+held+"; run `codex login` as this user, or give the runner an API key", "codexHome", r.codexHome, "check", detail)
		return &needsLogin{detail: detail, held: held}
	}
	return nil
}

// learnModel asks Codex which model it uses, for pricing, unless its
// login check already said.
func (r *Runner) learnModel(ctx context.Context) {
	if r.codex != nil && r.codex.model == "" {
		r.codex.doctor(ctx, r.codexHome)
	}
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
