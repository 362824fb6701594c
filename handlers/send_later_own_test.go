package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/beeperflow"
	"hearth/models"
)

// ownLaterForm reviews the owner's own words for Ana's chat, written in
// the composer, and returns the review's "Send later" form set to tomorrow.
func (ta *testApp) ownLaterForm(cookie *http.Cookie, body string) url.Values {
	ta.t.Helper()
	t := ta.t.(*testing.T)
	composer := has(t, ta.get(anaPath, "", cookie).doc(t), `[data-testid="composer"] form`)
	review := ta.postPage(anaPath+"/review", formOf(composer, url.Values{"body": {body}}), cookie).doc(t)
	if review.Find(`[data-testid="review-own"]`).Length() != 1 {
		t.Fatal("the composer's review is not of the owner's own words")
	}
	form := formOf(has(t, review, `form[action$="/send-later"]`), nil)
	if form.Get("draftId") != "" {
		t.Fatalf("an own reply's later form names draft %q", form.Get("draftId"))
	}
	form.Set("day", "tomorrow")
	return form
}

func TestAnOwnReplySentLaterSaysWhenInTheChatOnTheChatListAndOnHomeAndCancelsFromTheList(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := ta.ownLaterForm(cookie, "On my way, see you at 8")
	if resp := ta.post(anaPath+"/send-later", form, cookie); resp.status != http.StatusSeeOther || !strings.HasSuffix(resp.header.Get("Location"), "#compose") {
		t.Fatalf("send later of an own reply answered %s (to %q)", resp, resp.header.Get("Location"))
	}
	if len(fake.Sends()) != 0 {
		t.Fatalf("an own reply for later reached Beeper now: %+v", fake.Sends())
	}
	chat := ta.get(anaPath, "", cookie).doc(t)
	line := has(t, chat, `[data-testid="composer"] [data-testid="scheduled-send"][data-state="scheduled"]`)
	if at := line.Find(`[data-testid="scheduled-at"]`).Text(); !strings.HasSuffix(at, "08:00") || line.Find(`[data-testid="scheduled-body"]`).Text() != "On my way, see you at 8" {
		t.Fatalf("the conversation's own line says %q", line.Text())
	}

	list := ta.get("/messages", "", cookie).doc(t)
	mark := has(t, list, `[data-testid="chat"][data-chat="!ana-okafor:beeper.local"] [data-testid="chat-later"][data-state="scheduled"]`)
	if at := mark.Find(`[data-testid="chat-later-at"]`).Text(); !strings.HasPrefix(at, "Scheduled ") || !strings.HasSuffix(at, "08:00") {
		t.Fatalf("the chat list says %q", at)
	}
	if n := list.Find(`[data-testid="chat"][data-chat!="!ana-okafor:beeper.local"] [data-testid="chat-later"]`).Length(); n != 0 {
		t.Fatalf("%d other chats show a reply for later", n)
	}

	home := ta.get("/", "", cookie).doc(t)
	item := has(t, home, `[data-testid="own-later-item"][data-chat="!ana-okafor:beeper.local"]`)
	if !strings.Contains(item.Text(), "Ana Okafor") || item.Find(`[data-testid="scheduled-cancel"]`).Length() != 1 {
		t.Fatalf("Home's own reply for later: %q", item.Text())
	}

	// A second own reply for the same chat waits behind none: refused.
	second := ta.ownLaterForm(cookie, "Or shall we say 9?")
	if resp := ta.post(anaPath+"/send-later", second, cookie); resp.status != http.StatusConflict {
		t.Fatalf("a second own reply for later answered %s, want 409", resp)
	}

	cancel := formOf(mark, nil)
	resp := ta.post(mark.AttrOr("action", ""), cancel, cookie)
	if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/messages" {
		t.Fatalf("Cancel on the chat list answered %s (to %q)", resp, resp.header.Get("Location"))
	}
	if n := ta.get("/messages", "", cookie).doc(t).Find(`[data-testid="chat-later"]`).Length(); n != 0 {
		t.Fatalf("the chat list still shows %d replies for later after Cancel", n)
	}
	if n := ta.get("/", "", cookie).doc(t).Find(`[data-testid="own-later-item"]`).Length(); n != 0 {
		t.Fatal("Home still shows the cancelled own reply")
	}
	if len(fake.Sends()) != 0 {
		t.Fatalf("something was sent: %+v", fake.Sends())
	}
}

func TestTheChatListAndHomeSayAHeldOwnReplyMovedOnUntilTheOwnerRepliesAgain(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := ta.ownLaterForm(cookie, "On my way, see you at 8")
	if resp := ta.post(anaPath+"/send-later", form, cookie); resp.status != http.StatusSeeOther {
		t.Fatalf("send later answered %s", resp)
	}
	sc, ok, err := ta.store.ScheduledSendByKey(context.Background(), form.Get("sendKey"))
	if err != nil || !ok {
		t.Fatalf("the schedule: %v %v", ok, err)
	}
	fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: "@ana:beeper.local", Text: "Running late, 9 instead?"})
	ta.clock.Set(sc.DueAt)
	if n, err := beeperflow.SendDue(context.Background(), ta.store, ta.beeper.Client); err != nil || n != 0 {
		t.Fatalf("at its time %d went (%v), want it held", n, err)
	}
	list := ta.get("/messages", "", cookie).doc(t)
	held := has(t, list, `[data-testid="chat"][data-chat="!ana-okafor:beeper.local"] [data-testid="chat-later"][data-state="held"]`)
	if !strings.Contains(held.Text(), "the chat moved on") {
		t.Fatalf("the chat list says %q", held.Text())
	}
	home := has(t, ta.get("/", "", cookie).doc(t), `[data-testid="own-later-item"] [data-testid="scheduled-held"]`)
	if !strings.Contains(home.Text(), "The chat moved on: look again") {
		t.Fatalf("Home says %q", home.Text())
	}
	again := home.Find(`[data-testid="scheduled-look-again"]`).AttrOr("href", "")
	composer := has(t, ta.get(strings.Split(again, "#")[0], "", cookie).doc(t), `[data-testid="own-body"]`)
	if composer.Text() != "On my way, see you at 8" {
		t.Fatalf("look again puts %q in the composer", composer.Text())
	}
	// The owner replies in their own words now: the held one is looked at.
	if _, err := beeperflow.ConfirmSend(context.Background(), ta.store, ta.beeper.Client, models.SendCommand{SendKey: "send-now-own-1",
		ChatID: beepertest.AnaChatID, Body: "9 is fine!", SourceMessageRevision: ta.newestSortKey(beepertest.AnaChatID)}); err != nil {
		t.Fatal(err)
	}
	if n := ta.get("/messages", "", cookie).doc(t).Find(`[data-testid="chat-later"]`).Length(); n != 0 {
		t.Fatal("the chat list still shows the held reply after the owner replied")
	}
	if n := ta.get("/", "", cookie).doc(t).Find(`[data-testid="own-later-item"]`).Length(); n != 0 {
		t.Fatal("Home still shows the held reply after the owner replied")
	}
}

func TestTheChatListMarksADraftsReplyForLaterAndOnceHeld(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := ta.laterForm(cookie, "Saturday at 8!")
	form.Set("day", "tomorrow")
	if resp := ta.post(anaPath+"/send-later", form, cookie); resp.status != http.StatusSeeOther {
		t.Fatalf("send later answered %s", resp)
	}
	mark := `[data-testid="chat"][data-chat="!ana-okafor:beeper.local"] [data-testid="chat-later"]`
	if got := has(t, ta.get("/messages", "", cookie).doc(t), mark).AttrOr("data-state", ""); got != models.ScheduleWaiting {
		t.Fatalf("the chat list marks the draft's reply %q", got)
	}
	sc, _, _ := ta.store.ScheduledSendByKey(context.Background(), form.Get("sendKey"))
	fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: "@ana:beeper.local", Text: "Wait, Sunday?"})
	ta.clock.Set(sc.DueAt)
	if _, err := beeperflow.SendDue(context.Background(), ta.store, ta.beeper.Client); err != nil {
		t.Fatal(err)
	}
	held := has(t, ta.get("/messages", "", cookie).doc(t), mark)
	if held.AttrOr("data-state", "") != models.ScheduleHeld || !strings.HasSuffix(held.Find("a").AttrOr("href", ""), "#draft-draft-ana-hike") {
		t.Fatalf("held on the chat list: %q (%s)", held.Text(), held.AttrOr("data-state", ""))
	}
}

// newestSortKey is the sort key of chatID's newest message at the fake.
func (ta *testApp) newestSortKey(chatID string) string {
	ta.t.Helper()
	page, err := ta.beeper.Client.Messages(context.Background(), chatID, beeper.MessagesQuery{})
	if err != nil || len(page.Items) == 0 {
		ta.t.Fatalf("messages of %s: %v", chatID, err)
	}
	newest := page.Items[0].SortKey
	for _, m := range page.Items {
		if m.SortKey.Compare(newest) > 0 {
			newest = m.SortKey
		}
	}
	return string(newest)
}

func TestAnOwnReplyForLaterCancelsFromHomeAndNeverGoes(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := ta.ownLaterForm(cookie, "On my way, see you at 8")
	if resp := ta.post(anaPath+"/send-later", form, cookie); resp.status != http.StatusSeeOther {
		t.Fatalf("send later answered %s", resp)
	}
	cancel := has(t, ta.get("/", "", cookie).doc(t), `[data-testid="own-later-item"] form[data-testid="scheduled-send"]`)
	resp := ta.post(cancel.AttrOr("action", ""), formOf(cancel, nil), cookie)
	if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/" {
		t.Fatalf("Cancel on Home answered %s (to %q)", resp, resp.header.Get("Location"))
	}
	if n := ta.get("/", "", cookie).doc(t).Find(`[data-testid="own-later-item"]`).Length(); n != 0 {
		t.Fatal("Home still lists the cancelled own reply")
	}
	sc, _, _ := ta.store.ScheduledSendByKey(context.Background(), form.Get("sendKey"))
	ta.clock.Set(sc.DueAt)
	if n, err := beeperflow.SendDue(context.Background(), ta.store, ta.beeper.Client); err != nil || n != 0 || len(fake.Sends()) != 0 {
		t.Fatalf("at its time a cancelled own reply: %d went (%v), fake got %+v", n, err, fake.Sends())
	}
}
