package handlers_test

import (
	"net/url"
	"strings"
	"testing"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

func TestCheckTheChatShowsBeepersRetryThenItsPermanentFailureReason(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	fake.HoldSends(true)
	fake.DropNextSendResponse()
	form := ta.reviewForm(cookie, "See you Saturday!")
	has(t, ta.postPage(anaPath+"/send", form, cookie).doc(t), `[data-testid="send-unknown"]`)
	msgs := fake.Messages(beepertest.AnaChatID)
	pending := msgs[len(msgs)-1].ID
	check := url.Values{"sendKey": {form.Get("sendKey")}}

	if _, err := fake.SetSendStatus(beepertest.AnaChatID, pending, beeper.StatusFailRetriable, "Waiting for the phone"); err != nil {
		t.Fatal(err)
	}
	d := ta.postPage(anaPath+"/reconcile", check, cookie).doc(t)
	if msg := has(t, d, `[data-testid="send-unknown"]`).Text(); !strings.Contains(msg, "Beeper is still trying to send it: Waiting for the phone") {
		t.Fatalf("while Beeper retries: %q", msg)
	}
	if d.Find(`[data-testid="send-failed"]`).Length() != 0 {
		t.Fatal("a retriable failure was shown as failed")
	}

	if _, err := fake.SetSendStatus(beepertest.AnaChatID, pending, beeper.StatusFailPermanent, "Blocked by the recipient"); err != nil {
		t.Fatal(err)
	}
	d = ta.postPage(anaPath+"/reconcile", check, cookie).doc(t)
	if msg := has(t, d, `[data-testid="send-failed"]`).Text(); !strings.Contains(msg, "Beeper could not send it: Blocked by the recipient") {
		t.Fatalf("after FAIL_PERMANENT: %q", msg)
	}
	conv := ta.get(anaPath, "", cookie).doc(t)
	if msg := has(t, conv, `[data-testid="draft-last-failed"]`).Text(); !strings.Contains(msg, "Blocked by the recipient") {
		t.Fatalf("the conversation says: %q", msg)
	}
	has(t, conv, `#draft-draft-ana-hike [data-testid="review"]`)
}
