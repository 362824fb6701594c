package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/beeperflow"
)

// homeAfterCommitBound is the most statements Home's render after a commit
// may run: the count reached, the owner's session read included (38 before
// Home read its run notice in its own transaction and the waiting list
// stopped looking open activities up among the items set aside; 36 before
// the waiting list asked once which of its usually empty kinds have items;
// 31 before the revision, brief and newest publication were one read; 29
// before the run notice asked once whether it has anything to say; 24
// before Home's own read asked whether a routine occurrence of today is
// missing, in the statement that reads the event routines' buttons,
// instead of a transaction of its own before it).
const homeAfterCommitBound = 22

// TestHomeRenderedAfterACommitRunsAtMostItsBoundOfStatements: after an
// owner's decision, the next full Home (a page cache miss) runs at most
// homeAfterCommitBound SQL statements from the request to the rendered
// page, and still shows the decision and the rest of Home.
func TestHomeRenderedAfterACommitRunsAtMostItsBoundOfStatements(t *testing.T) {
	var rec statements
	ta, cookie := homeApp(t, withStatements(&rec))
	if r := ta.get("/", "", cookie); r.status != http.StatusOK {
		t.Fatalf("first Home: %s", r)
	}
	r := ta.form("/activities/book-bike-service/state", url.Values{"state": {"completed"}}, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("complete: %s", r)
	}
	var home response
	ran := rec.during(func() { home = ta.get("/", "", cookie) })
	if home.status != http.StatusOK {
		t.Fatalf("Home after the commit: %s", home)
	}
	doc := home.doc(t)
	has(t, doc, `li[data-row][data-id="book-bike-service"][data-state="completed"]`)
	has(t, doc, `li[data-row][data-id="morning-routine-`+testDate+`"] form[action="/activities/stretch-`+testDate+`/state"]`)
	has(t, doc, `[data-testid="first-action"][data-id="weigh-in-`+testDate+`"]`)
	has(t, doc, `[data-testid="undo-dock"] form[action^="/decisions/"]`)
	has(t, doc, `li[data-row][data-id="reply-ana-hike"]`)
	t.Logf("Home after a commit ran %d statements", len(ran))
	if len(ran) > homeAfterCommitBound {
		t.Errorf("Home after a commit ran %d statements, want at most %d:\n%s", len(ran), homeAfterCommitBound, strings.Join(ran, "\n"))
	}
}

// TestAHeldOwnReplyForLaterWaitsOnTheOwnerOnHome: the owner's own reply
// for later, held because the chat moved on, is among what waits on the
// owner on Home, with the chat's title; once sent by the owner's own
// reply elsewhere it is not (Home reads the owner's sends for later once,
// for its own list and for Waiting on you).
func TestAHeldOwnReplyForLaterWaitsOnTheOwnerOnHome(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	form := ta.ownLaterForm(cookie, "On my way, see you at 8")
	if resp := ta.post(anaPath+"/send-later", form, cookie); resp.status != http.StatusSeeOther {
		t.Fatalf("send later answered %s", resp)
	}
	sc, ok, err := ta.store.ScheduledSendByKey(context.Background(), form.Get("sendKey"))
	if err != nil || !ok {
		t.Fatalf("the schedule: %v %v", ok, err)
	}
	key := fmt.Sprintf(`[data-testid="waiting-needs"] [data-key="held-send:%d"]`, sc.ID)
	if n := ta.get("/", "", cookie).doc(t).Find(key).Length(); n != 0 {
		t.Fatalf("a reply for later that waits for its time already waits on the owner")
	}
	fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: "@ana:beeper.local", Text: "Running late, 9 instead?"})
	ta.clock.Set(sc.DueAt)
	if n, err := beeperflow.SendDue(context.Background(), ta.store, ta.beeper.Client); err != nil || n != 0 {
		t.Fatalf("at its time %d went (%v), want it held", n, err)
	}
	item := has(t, ta.get("/", "", cookie).doc(t), key)
	if !strings.Contains(item.Text(), "Your own reply in") || !strings.Contains(item.Text(), "was held") {
		t.Errorf("the held reply waits as %q", item.Text())
	}
}
