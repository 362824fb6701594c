package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/beeperflow"
	"hearth/models"
)

// The demo's reply that was seen and answered: a draft for Ana three days
// before today, sent as drafted, read six minutes on and answered nineteen
// minutes after it went.
const (
	demoTrailDraft  = "draft-ana-trail"
	demoTrailBody   = "The coast trail on Saturday sounds great, count me in!"
	demoTrailAnswer = "Perfect, I'll check the tide times and send you a start."
)

// demoHandOffText is what the demo's owner handed from a draft of the
// climbing crew into Beeper's composer, the evening before today: the
// demo's Beeper starts with it there (Beeper), as Beeper Desktop keeps
// its composer across hearth's restarts.
const demoHandOffText = "Happy to drive on Thursday: I can take two from Kreuzberg, leaving at 6:15."

// demoBeeperStandIn stands in for Beeper while the history is written, as
// demoOutbox does for the sends: its composer takes any text into an empty
// chat.
type demoBeeperStandIn struct{ demoOutbox }

// Chat is a chat with an empty composer.
func (demoBeeperStandIn) Chat(_ context.Context, chatID string) (beeper.Chat, error) {
	return beeper.Chat{ID: chatID}, nil
}

// SetDraft takes text into the chat's composer, as Beeper reports it back.
func (demoBeeperStandIn) SetDraft(_ context.Context, chatID, text string) (beeper.Chat, error) {
	return beeper.Chat{ID: chatID, Draft: &beeper.ChatDraft{Text: text}}, nil
}

// ClearDraft empties the chat's composer.
func (demoBeeperStandIn) ClearDraft(_ context.Context, chatID string) (beeper.Chat, error) {
	return beeper.Chat{ID: chatID}, nil
}

// Focus opens Beeper on the chat.
func (demoBeeperStandIn) Focus(context.Context, beeper.FocusRequest) (beeper.FocusResult, error) {
	return beeper.FocusResult{Success: true}, nil
}

// answeredAndHandedOff writes, through the services the owner, the agent,
// the runner and the watch use, the demo's reply that was seen and
// answered (three days before today) and its hand-off into Beeper's
// composer (yesterday evening).
func (l *demoLife) answeredAndHandedOff(ctx context.Context, today time.Time) error {
	if err := l.answeredReply(ctx, today.AddDate(0, 0, -3)); err != nil {
		return fmt.Errorf("answered reply: %w", err)
	}
	if err := l.handOff(ctx, today.AddDate(0, 0, -1)); err != nil {
		return fmt.Errorf("hand-off: %w", err)
	}
	return nil
}

// answeredReply is the messages job's draft for Ana at 11:50 of day, the
// owner's send of it as drafted at 12:20, the watch finding it delivered
// and seen at 12:26 and Ana's answer at 12:39, and the runner taking the
// wake-up that answer made.
func (l *demoLife) answeredReply(ctx context.Context, day time.Time) error {
	l.clock.set(l.at(day, 11, 50))
	ref := map[string]any{"id": "beeper-ana-trail", "kind": "beeper", "accountId": beepertest.AccountID, "chatId": beepertest.AnaChatID,
		"messageId": "demo-ana-trail", "observedAt": l.clock.Now().UTC().Add(-5 * time.Minute).Format(time.RFC3339)}
	draft := map[string]any{"id": demoTrailDraft, "personId": "ana-okafor", "accountId": beepertest.AccountID, "chatId": beepertest.AnaChatID,
		"replyToMessageId": "demo-ana-trail", "sourceMessageRevision": "0", "reason": "Ana asked whether you would join the coast trail hike.",
		"candidates": []any{map[string]any{"id": "yes", "style": "warm", "body": demoTrailBody}}, "evidenceIds": []any{"beeper-ana-trail"}}
	reply := map[string]any{"id": "reply-ana-trail", "kind": "reply", "title": "Answer Ana about the coast trail", "personId": "ana-okafor",
		"evidenceIds": []any{"beeper-ana-trail"}, "payload": map[string]any{"draftId": demoTrailDraft}}
	if err := l.publishMessages(ctx, "demo-messages-"+day.Format(time.DateOnly), ref, draft, reply); err != nil {
		return err
	}
	sent := l.at(day, 12, 20)
	if err := l.send(ctx, sent, models.SendCommand{SendKey: "demo-trail-" + day.Format(time.DateOnly), ChatID: beepertest.AnaChatID,
		DraftID: demoTrailDraft, Body: demoTrailBody, SourceMessageRevision: "0"}); err != nil {
		return err
	}
	// Ana's answer, as the watch's pass after it records it. The pass
	// starts from a cursor of that morning and leaves the cursor unset
	// (Newest nil), as the demo's other history does: the history's
	// messages are not the live Beeper's, so the live watch takes its own
	// baseline. Its sort key is below the live chat's, which the baseline
	// then moves the chat to.
	answered := l.at(day, 12, 39)
	l.clock.set(answered.Add(time.Minute))
	morning := l.at(day, 7, 0)
	chat := models.WatchedChat{ID: beepertest.AnaChatID, AccountID: beepertest.AccountID, Title: "Ana Okafor",
		Messages: []models.WatchedMessage{{ID: "demo-ana-tides", SenderID: "@ana:beeper.local", SenderName: "Ana Okafor", Text: demoTrailAnswer,
			Timestamp: answered.UTC(), SortKey: "0", Type: beeper.TypeText}}}
	if _, err := l.store.RecordWatch(ctx, models.WatchCursor{Since: &morning}, models.WatchRead{Chats: []models.WatchedChat{chat}, Job: "messages"}); err != nil {
		return err
	}
	// The runner took the wake-up and the messages job ran.
	l.clock.set(answered.Add(3 * time.Minute))
	wakes, err := l.store.LeaseWakes(ctx)
	if err != nil {
		return err
	}
	for _, w := range wakes {
		if err := l.store.AckWake(ctx, w.LeaseID); err != nil {
			return err
		}
	}
	return nil
}

// handOff is the messages job's draft for the climbing crew at 20:50 of
// day, and the owner's "Continue in Beeper" with it at 21:05.
func (l *demoLife) handOff(ctx context.Context, day time.Time) error {
	l.clock.set(l.at(day, 20, 50))
	ref := map[string]any{"id": "beeper-crew-lift", "kind": "beeper", "accountId": beepertest.AccountID, "chatId": beepertest.GroupChatID,
		"messageId": "m-crew-3", "observedAt": l.clock.Now().UTC().Add(-5 * time.Minute).Format(time.RFC3339)}
	draft := map[string]any{"id": "draft-crew-lift", "accountId": beepertest.AccountID, "chatId": beepertest.GroupChatID,
		"replyToMessageId": "m-crew-3", "sourceMessageRevision": "3", "reason": "Jules is looking for a lift to Thursday's session.",
		"candidates": []any{map[string]any{"id": "drive", "style": "helpful", "body": demoHandOffText}}, "evidenceIds": []any{"beeper-crew-lift"}}
	if err := l.publishMessages(ctx, "demo-messages-"+day.Format(time.DateOnly), ref, draft, nil); err != nil {
		return err
	}
	l.clock.set(l.at(day, 21, 5))
	_, err := beeperflow.HandOffToBeeper(ctx, l.store, demoBeeperStandIn{}, models.HandOff{ChatID: beepertest.GroupChatID, DraftID: "draft-crew-lift",
		Form: models.WordingForm{Body: demoHandOffText, Candidate: "drive"}})
	return err
}

// publishMessages publishes, as the messages job would, one beeper source
// ref and a reply draft, with its reply activity when given.
func (l *demoLife) publishMessages(ctx context.Context, runID string, ref, draft, reply map[string]any) error {
	rev, err := l.store.Revision(ctx)
	if err != nil {
		return err
	}
	activities := []any{}
	if reply != nil {
		activities = append(activities, reply)
	}
	body, err := json.Marshal(map[string]any{"runId": runID, "jobKey": "messages", "expectedRevision": rev,
		"generatedAt": l.clock.Now().UTC().Format(time.RFC3339), "sourceRefs": []any{ref}, "people": []any{}, "activities": activities,
		"replyDrafts": []any{draft}, "retractions": []any{}, "completedRequests": []any{}})
	if err != nil {
		return err
	}
	_, _, err = publish(ctx, l.store, "demo", body)
	return err
}
