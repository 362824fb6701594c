package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/contract"
	"hearth/internal/poll"
)

// TestServeTakesAReactionNoticeHiddenAndDeletedMessageAsNoneToAnswer runs
// serve's watch over the fake Beeper in its own process: of a reaction, a
// notice, a hidden and a deleted message from Ana and a photo, only the
// photo wakes the messages job, the agent reads it as "a photo", the
// reaction is recorded for it to read, and Messages shows the reaction
// under the message it answers.
func TestServeTakesAReactionNoticeHiddenAndDeletedMessageAsNoneToAnswer(t *testing.T) {
	t.Parallel()
	beeperURL := startFakeBeeper(t)
	srv := startServerEnv(t, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--demo", "--beeper-url", beeperURL,
		"--watch-interval", "200ms", "--wake-debounce", "0s")
	owner := watchHasRead(t, srv.URL)
	agent := newAgentClient(srv.URL, demoToken(t, srv.DataDir))

	const ana = "@ana:beeper.local"
	add := func(m beeper.Message) {
		m.SenderID = ana
		fakeControl(t, beeperURL, beepertest.MessagePath, map[string]any{"chatId": beepertest.AnaChatID, "msg": m})
	}
	add(beeper.Message{ID: "m-react", Type: beeper.TypeReaction, Text: "👍", LinkedMessageID: "m-ana-2"})
	add(beeper.Message{ID: "m-notice", Type: beeper.TypeNotice, Text: "Ana Okafor's security code changed."})
	add(beeper.Message{ID: "m-hidden", Text: "an edit event", IsHidden: true})
	add(beeper.Message{ID: "m-deleted", IsDeleted: true})
	add(beeper.Message{ID: "m-photo", Type: beeper.TypeImage, Attachments: []beeper.Attachment{{Type: beeper.AttachmentImage, FileName: "IMG_0412.jpg"}}})

	texts := map[string]string{}
	if !poll.Within(20*time.Second, func() bool {
		var ac struct {
			Observations struct{ Items []contract.ObservationView } `json:"observations"`
		}
		if err := json.Unmarshal(agent.contextJSON(t), &ac); err != nil {
			t.Fatal(err)
		}
		for _, o := range ac.Observations.Items {
			var raw struct{ Text, Type string }
			json.Unmarshal(o.Payload.Raw, &raw)
			texts[o.Ref] = raw.Type + " " + raw.Text
		}
		return texts["m-photo"] != ""
	}) {
		t.Fatalf("the photo never reached the agent; observations %v\n%s", texts, srv.log.String())
	}
	if texts["m-photo"] != "IMAGE a photo" || texts["m-react"] != "REACTION 👍" {
		t.Errorf("the agent reads the photo as %q and the reaction as %q", texts["m-photo"], texts["m-react"])
	}
	for _, id := range []string{"m-notice", "m-hidden", "m-deleted"} {
		if s, ok := texts[id]; ok {
			t.Errorf("%s reached the agent as %q", id, s)
		}
	}

	status, body, err := agent.do(http.MethodGet, "/api/agent-wake?timeout=5", nil)
	var wake struct{ Jobs []contract.Wake }
	if err != nil || status != http.StatusOK || json.Unmarshal(body, &wake) != nil {
		t.Fatalf("agent-wake: %d %s %v", status, body, err)
	}
	if len(wake.Jobs) != 1 || wake.Jobs[0].Marks != 1 || !strings.HasPrefix(strings.Join(wake.Jobs[0].Reasons, "|"), "1 new message(s)") {
		t.Errorf("wake-ups %+v; want one, for the photo alone", wake.Jobs)
	}

	d := owner.mustPage(http.MethodGet, "/messages/%21ana-okafor:beeper.local", nil)
	if r := d.Find(`[data-testid="message"][data-id="m-ana-2"] [data-testid="reaction"]`); strings.Join(strings.Fields(r.Text()), " ") != "👍 Ana Okafor" {
		t.Errorf("under Ana's second message: %q; want her reaction", r.Text())
	}
	if d.Find(`[data-testid="message"][data-id="m-react"], [data-testid="message"][data-id="m-hidden"]`).Length() != 0 {
		t.Error("the reaction or the hidden message is shown as a message of its own")
	}
}
