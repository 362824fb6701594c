package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hearth/beeper/beepertest"
	"hearth/models"
)

// demoVoiceSend is one reply of the demo's history that the agent drafted
// and the owner sent in their own way: Ana's drafts shortened and without
// the greeting, Tomas's in German.
type demoVoiceSend struct {
	ago                  int // days before today
	person, chat, source string
	draft, sent          string
}

// demoVoiceSends are all older than the agent context's 14 days of
// history, so nothing of the demo's recent days (Ana's open draft, the
// recent sends) changes: they show only in the 90 days People's voice
// line and the context's voice read.
var demoVoiceSends = []demoVoiceSend{
	{38, "ana-okafor", beepertest.AnaChatID, "beeper-ana-chat",
		"Hi Ana! Thursday works for me, shall we meet at the climbing gym at 7?", "Thursday at 7 works, see you at the gym."},
	{36, "tomas-lindqvist", beepertest.TomasChatID, "life-people-tomas",
		"Thanks for the tip about the shop, I'll take the bike in on Thursday.", "Danke für den Tipp, ich bringe das Rad am Donnerstag hin."},
	{34, "ana-okafor", beepertest.AnaChatID, "beeper-ana-chat",
		"Hi Ana, thanks so much for the photos from the hike, they turned out really lovely!", "Thanks for the photos, they're lovely!"},
	{31, "tomas-lindqvist", beepertest.TomasChatID, "life-people-tomas",
		"Yes, I can water your plants while you are away, just leave the key with me.", "Klar, ich gieße die Pflanzen, lass mir einfach den Schlüssel da."},
	{30, "ana-okafor", beepertest.AnaChatID, "beeper-ana-chat",
		"Hey Ana! I'm running about ten minutes late, sorry, start warming up without me.", "Ten minutes late, sorry, start without me."},
	{26, "ana-okafor", beepertest.AnaChatID, "beeper-ana-chat",
		"Hi Ana, congratulations on the new job, that is wonderful news! Let's celebrate soon.", "Congratulations on the new job! Let's celebrate soon."},
	{24, "tomas-lindqvist", beepertest.TomasChatID, "life-people-tomas",
		"The new brakes work great, thanks again for your help with them.", "Die neuen Bremsen sind super, danke dir für die Hilfe!"},
	{20, "ana-okafor", beepertest.AnaChatID, "beeper-ana-chat",
		"Hi Ana, yes, I can bring the spare harness on Saturday, no problem at all.", "Yes, I'll bring the spare harness on Saturday."},
}

// voiceDay is the demo day ago days before today: on a day of
// demoVoiceSends the messages job drafts the reply at 18:00 and the owner
// sends their own version of it at 18:25.
func (l *demoLife) voiceDay(ctx context.Context, day time.Time, ago int) error {
	for _, v := range demoVoiceSends {
		if v.ago != ago {
			continue
		}
		date := day.Format(time.DateOnly)
		l.clock.set(l.at(day, 18, 0))
		rev, err := l.store.Revision(ctx)
		if err != nil {
			return err
		}
		draftID := "draft-voice-" + date
		body, err := json.Marshal(map[string]any{
			"runId": "demo-voice-" + date, "jobKey": "messages", "expectedRevision": rev,
			"generatedAt": l.clock.Now().UTC().Format(time.RFC3339), "sourceRefs": []any{}, "people": []any{}, "activities": []any{},
			"replyDrafts": []any{map[string]any{"id": draftID, "personId": v.person, "accountId": beepertest.AccountID, "chatId": v.chat,
				"sourceMessageRevision": "1", "reason": "They asked and are waiting for an answer.",
				"candidates": []any{map[string]any{"id": "c0", "style": "warm", "body": v.draft}}, "evidenceIds": []any{v.source}}},
			"retractions": []any{}, "completedRequests": []any{},
		})
		if err != nil {
			return err
		}
		if _, _, err := l.store.Publish(ctx, "demo", body); err != nil {
			return fmt.Errorf("voice draft %s: %w", date, err)
		}
		if err := l.send(ctx, l.at(day, 18, 25), models.SendCommand{SendKey: "demo-voice-send-" + date, DraftID: draftID, ChatID: v.chat,
			Body: v.sent, SourceMessageRevision: "1"}); err != nil {
			return err
		}
	}
	return nil
}
