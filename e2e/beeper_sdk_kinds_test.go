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

// TestOfficialBeeperSDKReadsEveryMessageKindTheFakeServes has the official
// SDK read a reaction, a notice, a hidden, a deleted and an edited message
// and every kind of media from the fake, as SDK 5 declares them, and
// hearth's client read the same messages as hearth understands them.
func TestOfficialBeeperSDKReadsEveryMessageKindTheFakeServes(t *testing.T) {
	t.Parallel()
	sdk := beeperSDK(t)
	b := beepertest.Start(t, nil, beepertest.WithPageSize(4))
	script, err := filepath.Abs(filepath.Join("testdata", "beeper_sdk_kinds.mjs"))
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
		t.Fatalf("the SDK %s and the fake disagree on message kinds (node %s: %v):\n%s%s", beeperSDKVersion, script, err, stderr.String(), stdout.String())
	}
	var ids map[string]string
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ids); err != nil || len(ids) == 0 {
		t.Fatalf("the script's results %q: %v", stdout.String(), err)
	}

	// hearth's client reads each as hearth must take it: whether it asks
	// for a reply, and what the agent is told it says.
	want := map[string]struct {
		counts bool
		words  string
	}{
		"mine":      {true, "Saturday at 8 works!"},
		"reaction":  {false, "👍"},
		"notice":    {false, "Ana Okafor's security code changed."},
		"hidden":    {false, "an edit event"},
		"deleted":   {false, ""},
		"edited":    {true, "Meet at 8?"},
		"photo":     {true, "a photo"},
		"captioned": {true, "a photo, captioned: The view from the top!"},
		"voice":     {true, "a voice message (0:42)"},
		"video":     {true, "a video (0:13)"},
		"file":      {true, "a file: trail-map.pdf"},
		"sticker":   {true, "a sticker"},
		"location":  {true, "a location: geo:54.18,-4.54"},
	}
	if len(ids) != len(want) {
		t.Errorf("the script made %d shapes, the test knows %d", len(ids), len(want))
	}
	for name, w := range want {
		m, err := b.Client.Message(t.Context(), beepertest.AnaChatID, ids[name])
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if m.Counts() != w.counts || m.Words() != w.words {
			t.Errorf("hearth reads the %s (%s) as counts=%v %q; want counts=%v %q", name, m.Kind(), m.Counts(), m.Words(), w.counts, w.words)
		}
	}
	if m, _ := b.Client.Message(t.Context(), beepertest.AnaChatID, ids["photo"]); len(m.Reactions) != 1 || m.Reactions[0].ReactionKey != "😍" || m.Reactions[0].ParticipantID != beepertest.SelfID {
		t.Errorf("hearth's client reads the photo's reactions as %+v", m.Reactions)
	}
	if m, _ := b.Client.Message(t.Context(), beepertest.AnaChatID, ids["edited"]); m.EditedTimestamp.IsZero() {
		t.Error("hearth's client lost the edit's time")
	}
}
