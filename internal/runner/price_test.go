package runner

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/internal/contract"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestEachOfTheFourTokenKindsIsPricedAtItsOwnRate(t *testing.T) {
	// Distinct powers of ten per kind, so a kind priced at another's rate shows.
	p := Prices{"m": {Input: 1, CachedInput: 10, Output: 100, Reasoning: 1000}}
	for _, c := range []struct {
		name string
		t    codexTokens
		want float64
	}{
		{"input not cached", codexTokens{Input: 1_000_000}, 1},
		{"cached input", codexTokens{Input: 1_000_000, CachedInput: 1_000_000}, 10},
		{"output not reasoning", codexTokens{Output: 1_000_000}, 100},
		{"reasoning", codexTokens{Output: 1_000_000, Reasoning: 1_000_000}, 1000},
		{"all four", codexTokens{Input: 3_000_000, CachedInput: 1_000_000, Output: 5_000_000, Reasoning: 2_000_000}, 2*1 + 1*10 + 3*100 + 2*1000},
		// A part larger than its whole counts as the whole, never a negative remainder.
		{"cached above input", codexTokens{Input: 1_000_000, CachedInput: 2_000_000}, 10},
	} {
		got := p.Cost("m", c.t)
		if got == nil || !near(*got, c.want) {
			t.Errorf("%s: cost %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAModelWithNoPriceRecordsItsTokensAndNoCost(t *testing.T) {
	events := []byte(`{"type":"thread.started","thread_id":"t"}
{"type":"turn.completed","usage":{"input_tokens":1200,"cached_input_tokens":200,"output_tokens":56,"reasoning_output_tokens":7}}
{"type":"turn.completed","usage":{"input_tokens":800,"cached_input_tokens":800,"output_tokens":44,"reasoning_output_tokens":0}}
`)
	for _, model := range []string{"", "a-model-nobody-priced"} {
		u := (&Codex{model: model}).usage(events)
		if u.Tokens == nil || *u.Tokens != 2100 || u.CostUSD != nil {
			t.Fatalf("model %q: tokens %v cost %v: want 2100 tokens and no cost", model, u.Tokens, u.CostUSD)
		}
	}
	u := (&Codex{model: "gpt-6.2-sol"}).usage(events)
	// gpt-6.2-sol: $2 input, $0.10 cached, $10 output and reasoning per 1M.
	want := (1000*2 + 1000*0.10 + 100*10) / 1e6
	if u.Tokens == nil || *u.Tokens != 2100 || u.CostUSD == nil || !near(*u.CostUSD, want) {
		t.Fatalf("gpt-6.2-sol: tokens %v cost %v, want 2100 and $%g", u.Tokens, u.CostUSD, want)
	}
	if u := (&Codex{model: "gpt-6.2-sol"}).usage([]byte(`{"type":"turn.failed","error":{"message":"x"}}`)); u.Tokens != nil || u.CostUSD != nil {
		t.Fatalf("no completed turn: %+v, want no usage at all", u)
	}
}

func TestAPriceFileReplacesAndAddsModelsAndRefusesWhatItCannotRead(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		f := filepath.Join(dir, "prices.json")
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	p, err := LoadPrices(write(`{"takenOn":"2026-12-01","models":{"gpt-6.2-sol":{"input":1,"cachedInput":0.5,"output":4,"reasoning":8},"local-llm":{"input":0,"cachedInput":0,"output":0,"reasoning":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p["gpt-6.2-sol"] != (Price{1, 0.5, 4, 8}) || p["local-llm"] != (Price{}) || p["gpt-6-luna"] != DefaultPrices["gpt-6-luna"] {
		t.Fatalf("prices %+v: want the file's models over the defaults, the others kept", p)
	}
	if DefaultPrices["gpt-6.2-sol"] == (Price{1, 0.5, 4, 8}) {
		t.Fatal("loading a file changed the defaults")
	}
	if got := p.Cost("local-llm", codexTokens{Input: 5}); got == nil || *got != 0 {
		t.Fatalf("a model priced at zero: %v, want a cost of 0 (known), not none", got)
	}
	for body, want := range map[string]string{
		`{"models":{"m":{"input":1,"cachedInput":1,"output":1}}}`:                         "no reasoning price",
		`{"models":{"m":{"input":-1,"cachedInput":1,"output":1,"reasoning":1}}}`:          "input is -1",
		`{"models":{"m":{"input":"2","cachedInput":1,"output":1,"reasoning":1}}}`:         `input is "2"`,
		`{"models":{"m":{"input":1,"cachedInput":1,"output":1,"reasoning":1,"cache":1}}}`: `unknown field "cache"`,
		`{"model":{}}`:  `unknown field "model"`,
		`{"models":{}}`: "no models",
		`{"models":{"m":{"input":1,"cachedInput":1,"output":1,"reasoning":1}}} {}`: "more than one JSON value",
	} {
		if _, err := LoadPrices(write(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one saying %q", body, err, want)
		}
	}
	if p, err := LoadPrices(""); err != nil || len(p) != len(DefaultPrices) {
		t.Fatalf("no file: %v %v, want the defaults", p, err)
	}
}

func TestAnInvocationsCostIsItsTokensAtTheModelCodexSaidItUses(t *testing.T) {
	r, _ := codexRunner(t, "read-only")
	// Codex's own check names the model; the fake's turn is 1200 in (200 cached), 56 out (7 reasoning).
	t.Setenv("FAKE_CODEX_DOCTOR", `{"codexVersion":"0.171.0","checks":{"auth.credentials":{"status":"ok","summary":"auth is configured"},"config.load":{"status":"ok","details":{"model":"<default>"}}}}`)
	r.codex.Prices = Prices{"gpt-6.2-sol": {Input: 1, CachedInput: 2, Output: 3, Reasoning: 4}}
	r.learnModel(context.Background())
	j := runJournal{RunID: "daily-brief-5", PubRunID: "daily-brief-5-1", Job: "daily-brief", Trigger: "manual", Prompt: "Write the brief."}
	_, use, err := r.invoke(context.Background(), j, []byte(`{"revision":1}`), 1)
	want := (1000*1 + 200*2 + 49*3 + 7*4) / 1e6
	if err != nil || use.Tokens == nil || *use.Tokens != 1256 || use.CostUSD == nil || !near(*use.CostUSD, want) {
		t.Fatalf("usage tokens %v cost %v (%v): want 1256 tokens at $%g", use.Tokens, use.CostUSD, err, want)
	}
}

func TestCodexsOwnCheckDecidesTheLogin(t *testing.T) {
	for _, c := range []struct {
		name, doctor, state, detail string
	}{
		{"an API key in the environment", `{"checks":{"auth.credentials":{"status":"ok","summary":"auth is provided by environment"}}}`,
			contract.HealthOK, "codex doctor: auth is provided by environment"},
		{"a provider's env_key", `{"checks":{"auth.credentials":{"status":"ok","summary":"auth is provided by the active model provider"}}}`,
			contract.HealthOK, "codex doctor: auth is provided by the active model provider"},
		{"nothing", `{"checks":{"auth.credentials":{"status":"fail","summary":"no Codex credentials were found","remediation":"Run codex login or provide an API key through a supported auth env var."}}}`,
			contract.HealthNeedsLogin, "codex doctor: no Codex credentials were found. Run codex login or provide an API key through a supported auth env var"},
		{"a provider's env_key missing", `{"checks":{"auth.credentials":{"status":"fail","summary":"active model provider auth env var is missing","remediation":null}}}`,
			contract.HealthNeedsLogin, "codex doctor: active model provider auth env var is missing"},
	} {
		dir := t.TempDir()
		bin := filepath.Join(dir, "codex")
		os.WriteFile(bin, []byte(fakeCodex), 0o700)
		t.Setenv("FAKE_CODEX_DOCTOR", c.doctor)
		state, detail, err := (&Codex{Bin: bin}).login(context.Background(), dir)
		if err != nil || state != c.state || detail != c.detail {
			t.Errorf("%s: %q %q %v, want %q %q", c.name, state, detail, err, c.state, c.detail)
		}
	}
}

func TestWithoutCodexsOwnCheckAnAPIKeyInTheEnvironmentCounts(t *testing.T) {
	dir := t.TempDir()
	// An older Codex: no doctor, and `login status` knows only stored logins.
	bin := filepath.Join(dir, "codex")
	os.WriteFile(bin, []byte("#!/bin/sh\n[ \"$1\" = login ] && { echo 'Not logged in'; exit 1; }\necho \"unknown command $1\" >&2; exit 2\n"), 0o700)
	t.Setenv("CODEX_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	if state, _, err := (&Codex{Bin: bin}).login(context.Background(), dir); err != nil || state != contract.HealthNeedsLogin {
		t.Fatalf("no key: %q %v, want needs_login", state, err)
	}
	t.Setenv("CODEX_API_KEY", "sk-x")
	if state, detail, err := (&Codex{Bin: bin}).login(context.Background(), dir); err != nil || state != contract.HealthOK || detail != "CODEX_API_KEY is set" {
		t.Fatalf("CODEX_API_KEY: %q %q %v, want ok", state, detail, err)
	}
	// A provider with its own env_key takes that key, not OpenAI's.
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("model = \"m\"\nmodel_provider = \"local\"\n\n[model_providers.local]\nname = \"Local\"\nbase_url = \"http://127.0.0.1:1/v1\"\nenv_key = \"LOCAL_KEY\"\n"), 0o600)
	t.Setenv("LOCAL_KEY", "")
	if state, detail, err := (&Codex{Bin: bin}).login(context.Background(), dir); err != nil || state != contract.HealthNeedsLogin || detail != "the configured provider local's env_key LOCAL_KEY is not set" {
		t.Fatalf("a provider's env_key unset: %q %q %v, want needs_login", state, detail, err)
	}
	t.Setenv("LOCAL_KEY", "k")
	if state, _, err := (&Codex{Bin: bin}).login(context.Background(), dir); err != nil || state != contract.HealthOK {
		t.Fatalf("a provider's env_key set: %q %v, want ok", state, err)
	}
}

func TestTheDoctorsModelIsTheConfiguredOneOrTheVersionsDefault(t *testing.T) {
	for _, c := range []struct{ version, model, want string }{
		{"0.171.0", "gpt-6.1-sol", "gpt-6.1-sol"},
		{"0.171.0", "<default>", "gpt-6.2-sol"},
		{"9.9.9", "<default>", ""}, // an unknown version's default is not guessed
	} {
		d := doctorReport{CodexVersion: c.version, Checks: map[string]doctorCheck{"config.load": {Status: "ok", Details: map[string]any{"model": c.model}}}}
		if got := d.model(); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.version, c.model, got, c.want)
		}
	}
}
