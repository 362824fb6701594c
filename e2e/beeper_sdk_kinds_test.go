package e2e

import (
	"testing"

	"hearth/beeper/beepertest"
)

// TestOfficialBeeperSDKReadsEveryMessageKindTheFakeServes has the official
// SDK read a reaction, a notice, a hidden, a deleted and an edited message
// and every kind of media from the fake, as SDK 5 declares them, and
// hearth's client read the same messages as hearth understands them.
func TestOfficialBeeperSDKReadsEveryMessageKindTheFakeServes(t *testing.T) {
	t.Parallel()
	b := beepertest.Start(t, nil, beepertest.WithPageSize(4))
	var ids map[string]string
	runBeeperSDK(t, b.URL, "beeper_sdk_kinds.mjs", "the fake, on message kinds", &ids)
	if len(ids) == 0 {
		t.Fatal("the script reported no messages")
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
