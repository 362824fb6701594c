package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hearth/beeper/beepertest"
)

func TestContinueInBeeperPutsTheTextInBeepersComposerAndSaysSo(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := has(t, ta.get(anaPath, "", cookie).doc(t), `#draft-draft-ana-hike form[action$="/review"]`)
	if b := form.Find(testID("hand-off")).Text(); b != "Continue in Beeper" {
		t.Fatalf("the hand-off button reads %q", b)
	}
	resp := ta.post(anaPath+"/hand-off", formOf(form, url.Values{"body": {"Let me check my calendar"}}), cookie)
	if resp.status != http.StatusSeeOther {
		t.Fatalf("hand off answered %s", resp)
	}
	if got := fake.Composer(beepertest.AnaChatID); got != "Let me check my calendar" {
		t.Fatalf("Beeper's composer holds %q", got)
	}
	d := ta.get(resp.header.Get("Location"), "", cookie).doc(t)
	if s := has(t, d, testID("handed-off")); s.AttrOr("data-into", "") != "composer" || !strings.Contains(s.Text(), "message field") || !strings.Contains(s.Text(), "takes its text back out") {
		t.Fatalf("the page says %q", s.Text())
	}
}

func TestContinueInBeeperOverTheOwnersTypingIsRefusedAndOffersTheTextToCopy(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	fake.Type(beepertest.AnaChatID, "Something I was typing")
	form := has(t, ta.get(anaPath, "", cookie).doc(t), `#draft-draft-ana-hike form[action$="/review"]`)
	resp := ta.post(anaPath+"/hand-off", formOf(form, url.Values{"body": {"Let me check my calendar"}}), cookie)
	if resp.status != http.StatusConflict {
		t.Fatalf("hand off over the owner's typing answered %s, want 409", resp)
	}
	if got := fake.Composer(beepertest.AnaChatID); got != "Something I was typing" {
		t.Fatalf("the owner's text became %q", got)
	}
	d := resp.doc(t)
	if msg := has(t, d, `#draft-draft-ana-hike `+testID("editor-error")).Text(); !strings.Contains(msg, "already has text") || !strings.Contains(msg, "left it alone") {
		t.Fatalf("the refusal says %q", msg)
	}
	body := has(t, d, `#draft-draft-ana-hike textarea[name="body"]`)
	copyButton := has(t, d, `#draft-draft-ana-hike `+testID("copy-text"))
	if body.Text() != "Let me check my calendar" || copyButton.AttrOr("data-copy", "") != body.AttrOr("id", "-") {
		t.Fatalf("the editor holds %q and the copy button copies #%s", body.Text(), copyButton.AttrOr("data-copy", ""))
	}
	if d.Find(testID("handed-off")).Length() != 0 || len(fake.Focuses()) != 0 {
		t.Fatal("a refused hand-off is shown as handed off, or opened Beeper")
	}
}

func TestContinueInBeeperOnAnOlderBeeperOpensTheChatWithTheTextAndSaysSo(t *testing.T) {
	ta, cookie, fake := messagesApp(t, beepertest.WithoutChatUpdate())
	composer := has(t, ta.get(tomasPath, "", cookie).doc(t), `[data-testid="composer"] form`)
	resp := ta.post(tomasPath+"/hand-off", formOf(composer, url.Values{"body": {"Will do"}}), cookie)
	if resp.status != http.StatusSeeOther {
		t.Fatalf("hand off answered %s", resp)
	}
	if f := fake.Focuses(); len(f) != 1 || f[0].DraftText != "Will do" {
		t.Fatalf("Beeper was focused with %+v", f)
	}
	d := ta.get(resp.header.Get("Location"), "", cookie).doc(t)
	if s := has(t, d, testID("handed-off")); s.AttrOr("data-into", "") != "focus" || !strings.Contains(s.Text(), "This Beeper version") {
		t.Fatalf("the page says %q", s.Text())
	}
}
