package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hearth/beeper/beepertest"
	"hearth/models"
)

// demoVoiceSend is one reply of the demo's history that the agent drafted
// and the owner sent in their own way.
type demoVoiceSend struct {
	ago         int // days before today
	draft, sent string
}

// demoVoiceSends are the agent's English drafts to Tomas, a neighbour in
// Berlin, and what the owner sent instead: shorter, in German, without the
// greeting. All are older than the agent context's 14 days of history and
// none is in Ana's chat, so nothing of the demo's recent days (Ana's open
// draft, her chat's replies, the recent sends) changes: they show in
// People's voice line and the context's voice, which read 90 days.
var demoVoiceSends = []demoVoiceSend{
	{38, "Hi Tomas, thanks for the tip about the shop, I'll take the bike in on Thursday.",
		"Danke für den Tipp, ich bringe das Rad am Donnerstag hin."},
	{34, "Hi Tomas! Yes, I can water your plants while you are away, just leave the key with me.",
		"Klar, ich gieße die Pflanzen, lass mir den Schlüssel da."},
	{30, "Hey Tomas, the new brakes work great, thanks again for all your help with them!",
		"Die Bremsen sind super, danke dir!"},
	{26, "Hi Tomas, sure, I can help you carry the sofa up on Sunday afternoon, just tell me when.",
		"Gerne, am Sonntag helfe ich dir mit dem Sofa."},
	{22, "Hi Tomas, I found your spare key under the doormat, shall I bring it over tonight?",
		"Dein Schlüssel lag unter der Fußmatte, ich bring ihn heute Abend vorbei."},
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
			"replyDrafts": []any{map[string]any{"id": draftID, "personId": "tomas-lindqvist", "accountId": beepertest.AccountID, "chatId": beepertest.TomasChatID,
				"sourceMessageRevision": "1", "reason": "Tomas asked and is waiting for an answer.",
				"candidates": []any{map[string]any{"id": "c0", "style": "warm", "body": v.draft}}, "evidenceIds": []any{"life-people-tomas"}}},
			"retractions": []any{}, "completedRequests": []any{},
		})
		if err != nil {
			return err
		}
		if _, _, err := publish(ctx, l.store, "demo", body); err != nil {
			return fmt.Errorf("voice draft %s: %w", date, err)
		}
		if err := l.send(ctx, l.at(day, 18, 25), models.SendCommand{SendKey: "demo-voice-send-" + date, DraftID: draftID, ChatID: beepertest.TomasChatID,
			Body: v.sent, SourceMessageRevision: "1"}); err != nil {
			return err
		}
	}
	return nil
}
