package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/beeper/beepertest"
	"hearth/internal/contract"
	"hearth/internal/poll"
)

// followedWords is how Messages says what became of a sent reply once it
// was delivered, seen and answered.
var followedWords = regexp.MustCompile(`^Delivered · Seen \d\d:\d\d · answered \d\d:\d\d \((under a minute|\d+ min)\)$`)

// TestServeFollowsASentReplyToSeenAndAnswered sends the demo's reply to Ana
// through the real binary and the fake Beeper in its own process, has the
// fake report it seen, has Ana react to it and then answer, and reads what
// Messages, People and the agent context say of it.
func TestServeFollowsASentReplyToSeenAndAnswered(t *testing.T) {
	t.Parallel()
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL,
		"--watch-interval", "200ms", "--wake-debounce", "0s")
	owner := watchHasRead(t, srv.URL)
	agent := newAgentClient(srv.URL, demoToken(t, srv.DataDir))

	const conv = "/messages/%21ana-okafor:beeper.local"
	review := owner.mustPage(http.MethodPost, conv+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {"Saturday works, see you at the trailhead at 8."}})
	confirm := hiddenFields(review, `form[action$="/send"]`)
	if d := owner.mustPage(http.MethodPost, conv+"/send", confirm); d.Find(`[data-testid="send-sent"]`).Length() != 1 {
		t.Fatalf("the send did not go out:\n%s", srv.log.String())
	}
	send := func() contract.SendView {
		var ac struct {
			Sends       struct{ Items []contract.SendView } `json:"sends"`
			ChatReplies []contract.ChatRepliesView          `json:"chatReplies"`
		}
		if err := json.Unmarshal(agent.contextJSON(t), &ac); err != nil {
			t.Fatal(err)
		}
		for _, s := range ac.Sends.Items {
			if s.SendKey == confirm.Get("sendKey") {
				return s
			}
		}
		t.Fatalf("the send is not in the context")
		return contract.SendView{}
	}
	sent := send()

	// Ana's network reports the reply read, with its time.
	seenAt := time.Now().UTC().Truncate(time.Millisecond)
	fakeControl(t, beeperURL, beepertest.SeenPath, map[string]any{"chatId": beepertest.AnaChatID, "messageId": sent.PendingMessageID, "seen": seenAt})
	if !poll.Within(20*time.Second, func() bool { f := send().Followed; return f != nil && f.SeenAt != nil }) {
		t.Fatalf("the read receipt never reached hearth\n%s", srv.log.String())
	}
	// A reaction to the reply is no answer; Ana's words are.
	fakeControl(t, beeperURL, beepertest.MessagePath, map[string]any{"chatId": beepertest.AnaChatID,
		"msg": map[string]any{"id": "m-react-sent", "senderID": "@ana:beeper.local", "type": "REACTION", "text": "👍", "linkedMessageID": sent.PendingMessageID}})
	if !poll.Within(20*time.Second, func() bool {
		var ac struct {
			Observations struct{ Items []contract.ObservationView } `json:"observations"`
		}
		json.Unmarshal(agent.contextJSON(t), &ac)
		for _, o := range ac.Observations.Items {
			if o.Ref == "m-react-sent" {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the reaction never reached hearth\n%s", srv.log.String())
	}
	if f := send().Followed; f.AnsweredAt != nil {
		t.Fatalf("a reaction answered the reply: %+v", f)
	}
	injectMessage(t, beeperURL, "Perfect, see you there!")
	if !poll.Within(20*time.Second, func() bool { return send().Followed.AnsweredAt != nil }) {
		t.Fatalf("the answer never reached hearth\n%s", srv.log.String())
	}

	f := send().Followed
	if f.DeliveredAt == nil || !f.SeenAt.Equal(seenAt) || f.AnsweredAt.Before(*f.SeenAt) || f.AnsweredAfterMinutes == nil || send().Origin != "edited" {
		t.Errorf("the context's send: followed %+v, origin %q; want delivered, seen at %v, answered after it, an edited draft", f, send().Origin, seenAt)
	}
	var ac struct {
		ChatReplies []contract.ChatRepliesView `json:"chatReplies"`
	}
	json.Unmarshal(agent.contextJSON(t), &ac)
	var ana *contract.ChatRepliesView
	for i := range ac.ChatReplies {
		if ac.ChatReplies[i].ChatID == beepertest.AnaChatID {
			ana = &ac.ChatReplies[i]
		}
	}
	// The demo's own reply to Ana was sent as drafted and answered; this one was edited.
	if ana == nil || ana.Sent != 2 || ana.Answered != 2 || ana.PersonID != "ana-okafor" || ana.MedianMinutes == nil ||
		!slices.Contains(ana.ByOrigin, contract.OriginRepliesView{Origin: "edited", Sent: 1, Answered: 1}) {
		t.Errorf("the context's replies of Ana's chat: %+v; want 2 sent, 2 answered (one edited), with a median", ana)
	}

	words := strings.Join(strings.Fields(owner.mustPage(http.MethodGet, conv, nil).Find(`#draft-draft-ana-hike [data-testid="send-followed"]`).Text()), " ")
	if !followedWords.MatchString(words) {
		t.Errorf("Messages says %q under the sent reply; want %s", words, followedWords)
	}
	people := owner.mustPage(http.MethodGet, "/people", nil)
	if got := strings.Join(strings.Fields(people.Find(`#person-ana-okafor [data-testid="person-replies"]`).Text()), " "); !strings.HasPrefix(got, "Answered 2 of 2 replies (100%) in 90 days, typically within ") {
		t.Errorf("People says of Ana %q; want her reply rate and typical time", got)
	}
}
