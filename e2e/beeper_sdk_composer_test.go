package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/beeper/beepertest"
)

// TestOfficialSDKChatsUpdateMeetsTheFakesComposerCompareAndSet drives the
// fake's PATCH /v1/chats/{chatID} with the official SDK's chats.update, then
// reads what it left with hearth's own client: both see the same composer.
func TestOfficialSDKChatsUpdateMeetsTheFakesComposerCompareAndSet(t *testing.T) {
	t.Parallel()
	sdk := beeperSDK(t)
	b := beepertest.Start(t, nil)
	script, err := filepath.Abs(filepath.Join("testdata", "beeper_sdk_composer.mjs"))
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
		t.Fatalf("the SDK %s and the fake's composer disagree (node %s: %v):\n%s%s", beeperSDKVersion, script, err, stderr.String(), stdout.String())
	}
	var got struct {
		RefusedStatus int
		Draft         string
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the script's results %q: %v", stdout.String(), err)
	}

	// hearth's client sees the SDK's draft, and is refused over it as the SDK was.
	chat, err := b.Client.Chat(t.Context(), beepertest.AnaChatID)
	if err != nil || chat.Draft == nil || chat.Draft.Text != got.Draft {
		t.Fatalf("hearth's client reads the composer as %+v, %v; the SDK left %q", chat.Draft, err, got.Draft)
	}
	if _, err := b.Client.SetDraft(t.Context(), beepertest.AnaChatID, "From hearth"); err == nil {
		t.Fatal("hearth's client overwrote the SDK's draft")
	}
	if _, err := b.Client.ClearDraft(t.Context(), beepertest.AnaChatID); err != nil {
		t.Fatal(err)
	}
	if chat, err := b.Client.SetDraft(t.Context(), beepertest.AnaChatID, "From hearth"); err != nil || chat.Draft == nil || chat.Draft.Text != "From hearth" {
		t.Fatalf("hearth's client set the emptied composer to %+v, %v", chat.Draft, err)
	}
}
