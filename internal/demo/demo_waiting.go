package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hearth/beeper/beepertest"
	"hearth/models"
)

// seedDemoWaiting gives the demo's "waiting on you" list more than the
// day's reply and task: a note and a correction the owner sent last night;
// a brief publication a little later that completed the note (Finished,
// with what it did) and drafted a thank-you to Tomas; and that thank-you,
// confirmed to send later, held because Tomas wrote again (a held send);
// and a review of the retired morning run proposing to try it again (a
// proposal to decide). The correction is still with the agent, and the
// history's sends of the last week are Finished: delivered and seen. It
// records no run, and no review Routines shows unfolded: tests pin the
// demo's Runs and the height of its Routines page.
func seedDemoWaiting(ctx context.Context, store *models.Store, clock *Clock, now time.Time) error {
	loc, err := time.LoadLocation(demoZone)
	if err != nil {
		return err
	}
	today := now.In(loc)
	evening := time.Date(today.Year(), today.Month(), today.Day()-1, 22, 0, 0, 0, loc)
	clock.set(evening)
	if err := createRequest(ctx, store, []byte(`{"requestId":"demo-note-hamburg","kind":"note","text":"Ana is moving to Hamburg in January; Saturday's hike is her goodbye."}`)); err != nil {
		return fmt.Errorf("demo note: %w", err)
	}
	clock.set(evening.Add(time.Minute))
	if err := createRequest(ctx, store, []byte(`{"requestId":"demo-fix-tomas","kind":"crm-edit","entityId":"tomas-lindqvist","entityName":"Tomas Lindqvist","text":"The shop moved","edit":{"field":"context","value":"Neighbour and cycling mechanic. The bike shop moved to Schönhauser Allee."}}`)); err != nil {
		return fmt.Errorf("demo correction: %w", err)
	}
	// Two hours before now (never before the note), so the send for later
	// was due and held an hour before now.
	at := now.Add(-2 * time.Hour)
	if at.Before(evening.Add(2 * time.Minute)) {
		at = evening.Add(2 * time.Minute)
	}
	clock.set(at)
	rev, err := store.Revision(ctx)
	if err != nil {
		return err
	}
	stamp := at.UTC().Format(time.RFC3339)
	const draft, body = "draft-tomas-thanks", "Thanks, I booked the service for next week!"
	pub := map[string]any{
		"runId": "demo-brief-" + today.Format(time.DateOnly), "jobKey": "daily-brief", "expectedRevision": rev, "generatedAt": stamp,
		"sourceRefs": []any{map[string]any{"id": "life-people-ana", "kind": "life", "path": "people/ana-okafor.md",
			"contentHash": "sha256:5b2e0d4f9c8e3b7a6f1d2c0e8b9a4f3d7c5e2b1a0f9d8c7b6a5e4d3c2b1a0f9e", "observedAt": stamp}},
		"people": []any{}, "activities": []any{}, "retractions": []any{},
		"replyDrafts": []any{map[string]any{"id": draft, "personId": "tomas-lindqvist", "accountId": "whatsapp-demo",
			"chatId": beepertest.TomasChatID, "replyToMessageId": "m-tomas-3", "sourceMessageRevision": "3",
			"reason":      "Tomas told you how to book the shop.",
			"candidates":  []any{map[string]any{"id": "booked", "style": "warm", "body": body}},
			"evidenceIds": []any{"life-people-tomas"}}},
		"completedRequests": []any{map[string]any{"requestId": "demo-note-hamburg", "sourceRefIds": []any{"life-people-ana"}}},
		// A proposal to decide, on the retired morning run: Routines keeps a
		// retired routine's card folded, so its review adds nothing to the
		// page's height.
		"reviews": []any{map[string]any{"id": "demo-review-run-" + today.Format(time.DateOnly), "routineId": "morning-run", "revision": 1,
			"window":        map[string]any{"from": today.AddDate(0, 0, -28).Format(time.DateOnly), "to": today.AddDate(0, 0, -1).Format(time.DateOnly)},
			"observations":  []any{},
			"uncertainties": []any{},
			"proposals":     []any{map[string]any{"id": "knee-ok", "text": "Try the morning run again, 3 km on Tuesdays and Saturdays"}},
			"evidenceIds":   []any{"life-health"}}},
	}
	raw, err := json.Marshal(pub)
	if err != nil {
		return err
	}
	if _, _, err := publish(ctx, store, "demo", raw); err != nil {
		return fmt.Errorf("demo brief publication: %w", err)
	}
	cmd := models.SendCommand{SendKey: "demo-later-tomas", DraftID: draft, ChatID: beepertest.TomasChatID, Body: body, SourceMessageRevision: "3"}
	plan, err := store.PrepareSend(ctx, cmd)
	if err != nil {
		return fmt.Errorf("demo send later: %w", err)
	}
	sc, err := store.ScheduleSend(ctx, plan.Target, models.ScheduleCommand{SendCommand: cmd, DueAt: at.Add(time.Hour)})
	if err != nil {
		return fmt.Errorf("demo send later: %w", err)
	}
	clock.set(at.Add(time.Hour))
	if _, _, err := store.ClaimScheduledSend(ctx, sc.ID); err != nil {
		return fmt.Errorf("demo send later: %w", err)
	}
	if _, err := store.HoldScheduledSend(ctx, sc.ID, "a new message arrived in the chat since you confirmed"); err != nil {
		return fmt.Errorf("demo send later: %w", err)
	}
	return nil
}
