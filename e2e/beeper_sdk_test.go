package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

// beeperSDKVersion is the official TypeScript SDK hearth's client and fake are proven against.
const beeperSDKVersion = "5.0.0"

// beeperSDK returns the directory holding the pinned @beeper/desktop-api,
// installing it from npm into the user's cache when missing (never into
// the repository). It fails, never skips, when Node, npm or the registry is
// missing: the conformance test is the only check against the real SDK.
func beeperSDK(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("the Beeper SDK cache lives under $HOME: %v", err)
	}
	dir := filepath.Join(home, ".cache", "hearth", "beeper-sdk-"+beeperSDKVersion)
	if sdkInstalled(dir) {
		return dir
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the Beeper SDK conformance test needs %s on PATH (install Node.js 18 or newer): %v", tool, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	// Install beside the cache and rename into place, so a concurrent run
	// or an interrupted install never leaves a half-installed SDK in use.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".beeper-sdk-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"hearth-beeper-sdk","private":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	npm := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", "@beeper/desktop-api@"+beeperSDKVersion)
	npm.Dir = tmp
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm install @beeper/desktop-api@%s (needs the npm registry): %v\n%s", beeperSDKVersion, err, out)
	}
	if !sdkInstalled(tmp) {
		t.Fatalf("npm install left no @beeper/desktop-api %s in %s", beeperSDKVersion, tmp)
	}
	if !sdkInstalled(dir) {
		os.RemoveAll(dir) // a broken earlier install
		if err := os.Rename(tmp, dir); err != nil && !sdkInstalled(dir) {
			t.Fatalf("install the Beeper SDK into %s: %v", dir, err)
		}
	}
	return dir
}

// sdkInstalled reports whether dir holds the pinned SDK version.
func sdkInstalled(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@beeper", "desktop-api", "package.json"))
	if err != nil {
		return false
	}
	var pkg struct{ Version string }
	return json.Unmarshal(b, &pkg) == nil && pkg.Version == beeperSDKVersion
}

func TestOfficialBeeperSDKAgreesWithTheFake(t *testing.T) {
	t.Parallel()
	sdk := beeperSDK(t)
	// Two items a page, so the SDK's own pagination has to follow cursors.
	b := beepertest.Start(t, nil, beepertest.WithPageSize(2))
	script, err := filepath.Abs(filepath.Join("testdata", "beeper_sdk_conformance.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, "node", script)
	node.Env = cleanEnv("BEEPER_BASE_URL="+b.URL, "BEEPER_ACCESS_TOKEN="+beepertest.Token, "HEARTH_BEEPER_SDK_DIR="+sdk)
	var stdout, stderr bytes.Buffer
	node.Stdout, node.Stderr = &stdout, &stderr
	if err := node.Run(); err != nil {
		t.Fatalf("the SDK %s and the fake disagree (node %s: %v):\n%s%s", beeperSDKVersion, script, err, stderr.String(), stdout.String())
	}
	var got struct{ PendingMessageID, FinalMessageID, FailedMessageID, QuickMessageID string }
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil || got.FinalMessageID == "" {
		t.Fatalf("the script's results %q: %v", stdout.String(), err)
	}

	// hearth's own client reads the same state the SDK left behind.
	c := b.Client
	tctx := t.Context()
	for id, want := range map[string]beeper.SendState{got.PendingMessageID: beeper.SendSucceeded, got.FailedMessageID: beeper.SendFailedForGood, got.QuickMessageID: beeper.SendSucceeded} {
		m, err := c.Message(tctx, beepertest.AnaChatID, id)
		if err != nil || m.SendStatus.State() != want {
			t.Errorf("hearth's client reads %s as %+v (%+v), %v; want state %d", id, m, m.SendStatus, err, want)
		}
	}
	if m, _ := c.Message(tctx, beepertest.AnaChatID, got.PendingMessageID); m.ID != got.FinalMessageID {
		t.Errorf("hearth's client resolves the pending ID to %s, the SDK to %s", m.ID, got.FinalMessageID)
	}
	if sends := b.Sends(); len(sends) != 3 || sends[0].ReplyToMessageID != "m-ana-3" {
		t.Errorf("the fake recorded %+v, want the SDK's three sends, once each", sends)
	}
	if f := b.Focuses(); len(f) != 1 || f[0].ChatID != beepertest.AnaChatID || f[0].MessageID != "m-ana-3" || f[0].DraftText != "Finish this on the desktop" {
		t.Errorf("the fake recorded focuses %+v, want the SDK's one focus on Ana's chat with its draft text", f)
	}
	ana, err := c.Chat(tctx, beepertest.AnaChatID)
	if err != nil || ana.UnreadCount != 0 {
		t.Errorf("Ana's chat after the SDK marked it read: %+v, %v", ana, err)
	}
	if tomas, err := c.Chat(tctx, beepertest.TomasChatID); err != nil || tomas.IsArchived {
		t.Errorf("Tomas's chat after the SDK archived and restored it: %+v, %v", tomas, err)
	}
}

// fakeControl posts body to one of the fake Beeper's own control routes (not Beeper's API).
func fakeControl(t *testing.T, beeperURL, path string, body any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, beeperURL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer e2e-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fake control %s: %d", path, resp.StatusCode)
	}
}

func TestServeReadsBeeperBaseURLBeforeTheSDK4Name(t *testing.T) {
	t.Parallel()
	beeperURL := startFakeBeeper(t)
	const text = "Reached through BEEPER_BASE_URL"
	injectMessage(t, beeperURL, text)
	// SDK 4's name points at nothing: only SDK 5's reaches the fake.
	srv := startServerEnv(t, []string{"BEEPER_BASE_URL=" + beeperURL, "BEEPER_DESKTOP_BASE_URL=http://" + freeAddr(t), "BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo")
	owner := loginOwner(t, srv.URL)
	status, d, err := owner.page(http.MethodGet, "/messages/%21ana-okafor:beeper.local", nil)
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK || !strings.Contains(d.Find(`[data-testid="messages"]`).Text(), text) {
		t.Fatalf("Messages answered %d without the message the fake at BEEPER_BASE_URL holds:\n%s", status, d.Text())
	}
}
