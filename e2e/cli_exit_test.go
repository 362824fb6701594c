package e2e

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/glebarez/go-sqlite" // the "sqlite" database/sql driver, to build an old schema by hand
	"github.com/pressly/goose/v3"

	"hearth/migrations"
	"hearth/models"
)

// TestCLIUsageErrorsExitOne runs every subcommand wrongly: a usage or
// validation error exits 1 (docs/contract.md, CLI exit codes), never 2, which tells a caller that
// retrying later may help. None of them may create the data dir.
func TestCLIUsageErrorsExitOne(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data") // must still not exist afterwards
	pub := writeFile(t, t.TempDir(), "pub.json", newPublication("cli-usage", 0, 1).Body, 0o600)
	// A client that got past its checks would reach nothing here, and exit 2.
	env := []string{"HEARTH_URL=http://" + freeAddr(t), "HEARTH_TOKEN=hearth_unused"}
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"bogus"}, `unknown command "bogus"`},
		{"serve: unknown flag", []string{"serve", "--bogus", "--data", data}, "-bogus"},
		{"serve: stray argument", []string{"serve", "extra", "--addr", "127.0.0.1:0", "--data", data}, `unexpected argument "extra"`},
		{"migrate: stray argument", []string{"migrate", "extra", "--data", data}, `unexpected argument "extra"`},
		{"owner: no subcommand", []string{"owner"}, "passwd or logout-all"},
		{"owner: unknown subcommand", []string{"owner", "chpass", "--data", data}, "passwd or logout-all"},
		{"owner passwd: unknown flag", []string{"owner", "passwd", "--bogus", "--data", data}, "-bogus"},
		{"owner logout-all: stray argument", []string{"owner", "logout-all", "extra", "--data", data}, `unexpected argument "extra"`},
		{"token: no subcommand", []string{"token"}, "create, list or revoke"},
		{"token create: no name", []string{"token", "create", "--data", data}, "--name"},
		{"token create: bad name", []string{"token", "create", "--name", "no spaces", "--data", data}, "credential name"},
		{"token create: unknown scope", []string{"token", "create", "--name", "a", "--scopes", "admin", "--data", data}, "unknown scope"},
		{"token list: stray argument", []string{"token", "list", "extra", "--data", data}, `unexpected argument "extra"`},
		{"token revoke: no ID", []string{"token", "revoke", "--data", data}, "one ID or name"},
		{"backup: no file", []string{"backup", "--data", data}, "one destination FILE"},
		{"backup: two files", []string{"backup", "a.db", "b.db", "--data", data}, "one destination FILE"},
		{"context: stray argument", []string{"context", "extra"}, `unexpected argument "extra"`},
		{"context: unknown flag", []string{"context", "--bogus"}, "-bogus"},
		{"context: URL without scheme", []string{"context", "--url", "localhost:8080"}, "--url"},
		{"context: missing credential file", []string{"context", "--credential-file", filepath.Join(data, "nope")}, "no such file"},
		{"publish: no file", []string{"publish"}, "one FILE"},
		{"publish: missing file", []string{"publish", filepath.Join(data, "nope.json")}, "no such file"},
		{"publish: URL that is not one", []string{"publish", pub, "--url", "not a url"}, "--url"},
		{"fake-beeper: stray argument", []string{"fake-beeper", "extra", "--addr", "127.0.0.1:0"}, `unexpected argument "extra"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := runHearth(t, env, tc.args...)
			wantExit(t, res, 1, "stderr", tc.stderr)
			if res.took > 5*time.Second {
				t.Errorf("took %s: a usage error must not wait for retries", res.took)
			}
		})
	}
	t.Cleanup(func() {
		if _, err := os.Stat(data); !os.IsNotExist(err) {
			t.Errorf("a refused command created the data dir %s (%v)", data, err)
		}
	})
}

func TestCLIHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"--help"}, {"token", "create", "-h"}, {"serve", "--help"}} {
		res := runHearth(t, nil, args...)
		if res.code != 0 || res.stderr == "" {
			t.Errorf("hearth %s: exit %d, stderr %q; want 0 with usage", strings.Join(args, " "), res.code, res.stderr)
		}
	}
}

// TestCLIUnreadableAnswerExitsTwo: a server that answers something other
// than hearth's JSON is unavailable (exit 2), like one that does not answer.
func TestCLIUnreadableAnswerExitsTwo(t *testing.T) {
	t.Parallel()
	notHearth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		w.Write([]byte("<html>not hearth</html>"))
	}))
	t.Cleanup(notHearth.Close)
	env := []string{"HEARTH_URL=" + notHearth.URL, "HEARTH_TOKEN=hearth_unused"}
	wantExit(t, runHearth(t, env, "context"), 2, "stderr", "invalid context response")
	pub := writeFile(t, t.TempDir(), "pub.json", newPublication("cli-unreadable", 0, 1).Body, 0o600)
	wantExit(t, runHearth(t, env, "publish", pub), 2, "stderr", "invalid receipt")

	unreachable := []string{"HEARTH_URL=http://" + freeAddr(t), "HEARTH_TOKEN=hearth_unused"}
	wantExit(t, runHearth(t, unreachable, "context"), 2, "stderr", "unreachable")
}

// TestCLIMigrateUpgradesWhatAdminCommandsRefuse: admin commands refuse a
// database an older hearth made and name a command that exists; `hearth
// migrate` upgrades it, after which they work.
func TestCLIMigrateUpgradesWhatAdminCommandsRefuse(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+models.DatabasePath(data))
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	newest := p.ListSources()[len(p.ListSources())-1].Version
	db.Close()

	wantExit(t, runHearth(t, nil, "token", "list", "--data", data), 1, "stderr", "run hearth migrate")
	res := runHearth(t, nil, "migrate", "--data", data)
	wantExit(t, res, 0, "stdout", "from version 1 to "+strconv.FormatInt(newest, 10))
	wantExit(t, runHearth(t, nil, "token", "list", "--data", data), 0, "stdout", "ID")
	wantExit(t, runHearth(t, nil, "migrate", "--data", data), 0, "stdout", "already at version "+strconv.FormatInt(newest, 10))
}
