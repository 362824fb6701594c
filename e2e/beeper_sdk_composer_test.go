package e2e

import (
	"testing"

	"hearth/beeper/beepertest"
)

// TestOfficialSDKChatsUpdateMeetsTheFakesComposerCompareAndSet drives the
// fake's PATCH /v1/chats/{chatID} with the official SDK's chats.update, then
// reads what it left with hearth's own client: both see the same composer.
func TestOfficialSDKChatsUpdateMeetsTheFakesComposerCompareAndSet(t *testing.T) {
	t.Parallel()
	b := beepertest.Start(t, nil)
	var got struct {
		RefusedStatus int
		Draft         string
	}
	runBeeperSDK(t, b.URL, "beeper_sdk_composer.mjs", "the fake's composer", &got)

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
