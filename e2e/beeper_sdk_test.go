package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
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

// beeperSDK is the pinned official @beeper/desktop-api, from npm.
func beeperSDK(t *testing.T) string {
	return npmPackage{name: "@beeper/desktop-api", version: beeperSDKVersion, cache: "beeper-sdk-" + beeperSDKVersion}.install(t)
}

// runBeeperSDK runs testdata/script with the official SDK against the fake
// Beeper at baseURL and decodes the script's last line into out; a script
// that fails means the SDK and what it drives (named by what) disagree.
func runBeeperSDK(t *testing.T, baseURL, script, what string, out any) {
	t.Helper()
	sdk := beeperSDK(t)
	path, err := filepath.Abs(filepath.Join("testdata", script))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, "node", path)
	node.Env = cleanEnv("BEEPER_BASE_URL="+baseURL, "BEEPER_ACCESS_TOKEN="+beepertest.Token, "HEARTH_BEEPER_SDK_DIR="+sdk)
	var stdout, stderr bytes.Buffer
	node.Stdout, node.Stderr = &stdout, &stderr
	if err := node.Run(); err != nil {
		t.Fatalf("the SDK %s and %s disagree (node %s: %v):\n%s%s", beeperSDKVersion, what, path, err, stderr.String(), stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), out); err != nil {
		t.Fatalf("the script's results %q: %v", stdout.String(), err)
	}
}

func TestOfficialBeeperSDKAgreesWithTheFake(t *testing.T) {
	t.Parallel()
	b := beepertest.Start(t, nil, beepertest.WithPageSize(2))
	var got struct{ PendingMessageID, FinalMessageID, FailedMessageID, QuickMessageID string }
	runBeeperSDK(t, b.URL, "beeper_sdk_conformance.mjs", "the fake", &got)
	if got.FinalMessageID == "" {
		t.Fatal("the script reported no final message")
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
