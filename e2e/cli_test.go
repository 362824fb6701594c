package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/models"
)

// cliAgent runs the client commands against one server with one credential file.
type cliAgent struct {
	url, credFile string
}

// newCLIAgent mints a token on srv's data dir and stores it in a 0600 credential file.
func newCLIAgent(t *testing.T, srv *server) cliAgent {
	t.Helper()
	token := mintToken(t, srv.DataDir)
	return cliAgent{url: srv.URL, credFile: writeFile(t, t.TempDir(), "agent.token", []byte(token+"\n"), 0o600)}
}

// publish runs `hearth publish FILE` with args (such as --json) added.
func (a cliAgent) publish(t *testing.T, pub publication, args ...string) cliResult {
	t.Helper()
	file := writeFile(t, t.TempDir(), pub.RunID+".json", pub.Body, 0o600)
	return runHearth(t, nil, append([]string{"publish", file, "--url", a.url, "--credential-file", a.credFile}, args...)...)
}

// wantExit fails unless res exited with code and stream contains want.
func wantExit(t *testing.T, res cliResult, code int, stream, want string) {
	t.Helper()
	out := res.stdout
	if stream == "stderr" {
		out = res.stderr
	}
	if res.code != code || !strings.Contains(out, want) {
		t.Errorf("exit %d, want %d with %q on %s\nstdout: %s\nstderr: %s", res.code, code, want, stream, res.stdout, res.stderr)
	}
}

func TestPublishCommandExitCodes(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	agent := newCLIAgent(t, srv)
	first := newPublication("cli-first", 0, 3)

	t.Run("first publish exits 0 and says published", func(t *testing.T) {
		res := agent.publish(t, first)
		wantExit(t, res, 0, "stdout", "published cli-first at revision 1")
	})
	t.Run("exact replay exits 0 and says replay", func(t *testing.T) {
		wantExit(t, agent.publish(t, first), 0, "stdout", "replay")
	})
	t.Run("invalid result exits 1 with invalid_result", func(t *testing.T) {
		doc := taskPublicationDoc("cli-invalid", 1, 2)
		doc.Set(t, "/activities/1/kind", "chore")
		res := agent.publish(t, encode(doc))
		wantExit(t, res, 1, "stderr", "invalid_result")
		wantExit(t, res, 1, "stderr", "/activities/1/kind")
	})
	t.Run("stale expectedRevision exits 1 with revision_conflict", func(t *testing.T) {
		wantExit(t, agent.publish(t, newPublication("cli-stale", 0, 1)), 1, "stderr", "revision_conflict")
	})
	t.Run("revoked token exits 1 with unauthorized", func(t *testing.T) {
		token := mintNamedToken(t, srv.DataDir, "cli-revoked")
		if res := runHearth(t, nil, "token", "revoke", "cli-revoked", "--data", srv.DataDir); res.code != 0 {
			t.Fatalf("token revoke: exit %d, stderr %q", res.code, res.stderr)
		}
		revoked := cliAgent{url: srv.URL, credFile: writeFile(t, t.TempDir(), "revoked.token", []byte(token), 0o600)}
		wantExit(t, revoked.publish(t, newPublication("cli-revoked", 1, 1)), 1, "stderr", "unauthorized")
	})
	t.Run("json flag prints exactly one JSON object", func(t *testing.T) {
		res := agent.publish(t, newPublication("cli-json", 1, 2), "--json")
		if res.code != 0 {
			t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
		}
		var got struct {
			receipt
			Replayed bool `json:"replayed"`
		}
		onlyJSONObject(t, res.stdout, &got)
		if got.RunID != "cli-json" || got.Revision != 2 || got.Replayed || got.ReceivedAt.IsZero() {
			t.Errorf("--json receipt %+v, want cli-json at revision 2, not replayed", got)
		}
	})
	t.Run("json flag on an error prints nothing on stdout", func(t *testing.T) {
		res := agent.publish(t, newPublication("cli-json-stale", 0, 1), "--json")
		wantExit(t, res, 1, "stderr", "revision_conflict")
		if res.stdout != "" {
			t.Errorf("stdout %q, want empty: errors go to stderr", res.stdout)
		}
	})
}

// onlyJSONObject decodes out into v and fails unless out is exactly one JSON object.
func onlyJSONObject(t *testing.T, out string, v any) {
	t.Helper()
	if !strings.HasPrefix(strings.TrimSpace(out), "{") {
		t.Fatalf("stdout %q is not a JSON object", out)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout %q: %v", out, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("stdout %q holds more than one JSON value", out)
	}
}

func TestPublishExitsTwoWhenServerUnreachable(t *testing.T) {
	t.Parallel()
	// A port that was just closed refuses connections at once, so the time is
	// the client's retry waits (0.5 + 2 + 5 s): it gave up only after retrying.
	file := writeFile(t, t.TempDir(), "pub.json", newPublication("cli-unreachable", 0, 1).Body, 0o600)
	res := runHearth(t, []string{"HEARTH_URL=http://" + freeAddr(t), "HEARTH_TOKEN=hearth_unused"}, "publish", file)
	wantExit(t, res, 2, "stderr", "unreachable")
	if res.took < 7*time.Second {
		t.Errorf("gave up after %s; want at least the 7.5 s of retry waits", res.took)
	}
}

func TestContextCommandPrintsRevision(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	token := mintToken(t, srv.DataDir)
	if status, body, err := newAgentClient(srv.URL, token).publish(newPublication("ctx-cli", 0, 2).Body); err != nil || status != 201 {
		t.Fatalf("publish: status %d, err %v, body %s", status, err, body)
	}
	// HEARTH_URL and HEARTH_TOKEN are the documented alternative to flags.
	env := []string{"HEARTH_URL=" + srv.URL, "HEARTH_TOKEN=" + token}

	human := runHearth(t, env, "context")
	wantExit(t, human, 0, "stdout", "revision 1")
	wantExit(t, human, 0, "stdout", "ctx-cli-task-000")

	res := runHearth(t, env, "context", "--json")
	if res.code != 0 {
		t.Fatalf("context --json: exit %d, stderr %q", res.code, res.stderr)
	}
	var ac agentContext
	onlyJSONObject(t, res.stdout, &ac)
	if ac.Revision != 1 || len(ac.Activities.Items) != 2 {
		t.Errorf("context --json: revision %d with %d activities, want 1 with 2", ac.Revision, len(ac.Activities.Items))
	}
}

func TestContextCommandReadsCompactUnlessFull(t *testing.T) {
	t.Parallel()
	srv := startServerEnv(t, nil, "--demo")
	token := readToken(t, filepath.Join(srv.DataDir, "agent.token"))
	client := newAgentClient(srv.URL, token)
	// A pending observation is history the compact context leaves out.
	had := observationCount(t, client.contextJSON(t))
	obs := `{"source":"mail:work","ref":"m1","changeType":"created","actor":"agent","payload":{"kind":"mail","providerId":"work","raw":{"subject":"hi"}}}`
	if status, body, err := client.do(http.MethodPost, "/api/observations", []byte(obs)); err != nil || status != 200 {
		t.Fatalf("observation: status %d, err %v, body %s", status, err, body)
	}
	env := []string{"HEARTH_URL=" + srv.URL, "HEARTH_TOKEN=" + token}
	for _, c := range []struct {
		args     []string
		path     string
		human    string
		truncate bool
	}{
		{nil, "/api/agent-context?compact=true", "pending observations: 0 (more:", true},
		{[]string{"--full"}, "/api/agent-context", fmt.Sprintf("pending observations: %d\n", had+1), false},
	} {
		js := runHearth(t, env, append([]string{"context", "--json"}, c.args...)...)
		if js.code != 0 {
			t.Fatalf("context --json %v: exit %d, stderr %q", c.args, js.code, js.stderr)
		}
		_, api, err := client.do(http.MethodGet, c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := generatedAtPattern.ReplaceAllString(js.stdout, `"generatedAt":""`)
		if want := generatedAtPattern.ReplaceAllString(string(api)+"\n", `"generatedAt":""`); got != want {
			t.Errorf("context --json %v is not %s:\n got %s\nwant %s", c.args, c.path, got, want)
		}
		var ac struct {
			Observations struct {
				Truncated bool `json:"truncated"`
			} `json:"observations"`
		}
		decodeJSON(t, []byte(js.stdout), &ac)
		if ac.Observations.Truncated != c.truncate {
			t.Errorf("context --json %v: observations truncated %v, want %v", c.args, ac.Observations.Truncated, c.truncate)
		}
		wantExit(t, runHearth(t, env, append([]string{"context"}, c.args...)...), 0, "stdout", c.human)
	}
}

func TestCredentialFileReadableByOthersIsRefused(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	agent := newCLIAgent(t, srv)
	args := []string{"context", "--url", srv.URL, "--credential-file", agent.credFile}

	if err := os.Chmod(agent.credFile, 0o644); err != nil {
		t.Fatal(err)
	}
	wantExit(t, runHearth(t, nil, args...), 1, "stderr", "group or others")

	if err := os.Chmod(agent.credFile, 0o600); err != nil {
		t.Fatal(err)
	}
	wantExit(t, runHearth(t, nil, args...), 0, "stdout", "revision 0")
}

func TestBackupIsConsistentAndNeverOverwrites(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	token := mintToken(t, srv.DataDir)
	if status, body, err := newAgentClient(srv.URL, token).publish(newPublication("backup", 0, 20).Body); err != nil || status != 201 {
		t.Fatalf("publish: status %d, err %v, body %s", status, err, body)
	}
	dest := filepath.Join(t.TempDir(), "hearth-backup.db")

	// Online: the server keeps running while the copy is taken.
	wantExit(t, runHearth(t, nil, "backup", dest, "--data", srv.DataDir), 0, "stdout", "integrity_check ok")
	if err := models.CheckIntegrity(context.Background(), dest); err != nil {
		t.Fatalf("backup copy: %v", err)
	}
	if info, err := os.Stat(dest); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("backup copy mode %v (%v), want 0600: it holds the owner's data", info.Mode().Perm(), err)
	}
	sum := fileSum(t, dest)

	res := runHearth(t, nil, "backup", dest, "--data", srv.DataDir)
	if res.code == 0 || !strings.Contains(res.stderr, "already exists") {
		t.Errorf("backup onto an existing file: exit %d, stderr %q; want a refusal", res.code, res.stderr)
	}
	if fileSum(t, dest) != sum {
		t.Errorf("a refused backup changed the existing file")
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestServeExitsZeroOnSIGTERM(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	token := mintToken(t, srv.DataDir)
	// A server that has done work (and holds a keep-alive connection) must still stop promptly.
	newAgentClient(srv.URL, token).context(t)
	code, took := srv.terminate(t)
	if code != 0 || took > stopTimeout {
		t.Errorf("serve after SIGTERM: exit %d after %s, want 0 within %s", code, took, stopTimeout)
	}
}

// readToken reads a token file hearth wrote.
func readToken(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
