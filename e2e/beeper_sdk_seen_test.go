package e2e

import (
	"testing"
	"time"

	"hearth/beeper/beepertest"
)

// TestOfficialBeeperSDKDecodesTheFakesReadReceiptsAndSendStatus has the
// official SDK read the owner's sent message through messages.list and
// messages.search with `seen` in each shape SDK 5 declares and its
// `sendStatus`, and set and clear a composer draft with chats.update; then
// hearth's client reads what the SDK left.
func TestOfficialBeeperSDKDecodesTheFakesReadReceiptsAndSendStatus(t *testing.T) {
	t.Parallel()
	b := beepertest.Start(t, nil)
	var got struct {
		MessageID     string
		RefusedStatus int
	}
	runBeeperSDK(t, b.URL, "beeper_sdk_seen.mjs", "the fake, on read receipts and send status", &got)
	if got.MessageID == "" {
		t.Fatal("the script reported no message")
	}
	m, err := b.Client.Message(t.Context(), beepertest.AnaChatID, got.MessageID)
	if err != nil {
		t.Fatal(err)
	}
	firstSaw := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	// The script left the per-user "seen, time unknown" receipt.
	if at, ok := m.Seen.When(firstSaw); !ok || !at.Equal(firstSaw) {
		t.Errorf("hearth's client reads the receipt the SDK saw as %v, %v; want seen, dated when first read", at, ok)
	}
	if _, ok := m.Delivered(firstSaw); !ok {
		t.Errorf("hearth's client reads the send status the SDK saw (%+v) as not delivered", m.SendStatus)
	}
	if chat, err := b.Client.Chat(t.Context(), beepertest.TomasChatID); err != nil || chat.Draft != nil {
		t.Errorf("Tomas's composer after the SDK cleared it: %+v, %v", chat.Draft, err)
	}
}
