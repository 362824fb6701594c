package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"hearth/internal/contract"
	"hearth/models"
)

// seedDemoWaiting gives the demo's "waiting on you" list more than the
// day's reply and task: last night's messages run that ended unknown (a
// run that needs a look), a note and a correction the owner sent, and this
// morning's brief run, which completed the note (Finished, with what it
// did), read the correction without doing it, and reviewed the weekly
// review routine with two proposals to decide. The sends of the history's
// last week are Finished too: delivered and seen.
func seedDemoWaiting(ctx context.Context, store *models.Store, clock *serveClock, now time.Time) error {
	loc, err := time.LoadLocation(demoZone)
	if err != nil {
		return err
	}
	today := now.In(loc)
	evening := time.Date(today.Year(), today.Month(), today.Day()-1, 22, 5, 0, 0, loc)
	date := today.Format(time.DateOnly)
	clock.set(evening)
	if _, _, err := store.CreateRequest(ctx, []byte(`{"requestId":"demo-note-hamburg","kind":"note","text":"Ana is moving to Hamburg in January; Saturday's hike is her goodbye."}`)); err != nil {
		return fmt.Errorf("demo note: %w", err)
	}
	clock.set(evening.Add(5 * time.Minute))
	if _, _, err := store.CreateRequest(ctx, []byte(`{"requestId":"demo-fix-tomas","kind":"crm-edit","entityId":"tomas-lindqvist","entityName":"Tomas Lindqvist","text":"The shop moved","edit":{"field":"context","value":"Neighbour and cycling mechanic. The bike shop moved to Schönhauser Allee."}}`)); err != nil {
		return fmt.Errorf("demo correction: %w", err)
	}
	clock.set(evening.Add(15 * time.Minute))
	lost := contract.RunStartIn{RunID: "demo-messages-" + date, Job: "messages", Trigger: contract.TriggerWatch}
	if _, err := store.StartRun(ctx, "demo-runner", lost, models.CostPolicy{}); err != nil {
		return fmt.Errorf("demo lost run: %w", err)
	}
	clock.set(evening.Add(25 * time.Minute))
	if _, err := store.FinishRun(ctx, "demo-runner", lost.RunID, contract.RunFinishIn{Outcome: contract.RunUnknown,
		Detail: "the runner stopped mid-invocation"}); err != nil {
		return fmt.Errorf("demo lost run: %w", err)
	}
	at := now.Add(-40 * time.Minute)
	if at.Before(evening.Add(30 * time.Minute)) {
		at = evening.Add(30 * time.Minute)
	}
	clock.set(at)
	brief := contract.RunStartIn{RunID: "demo-brief-" + date, Job: "daily-brief", Trigger: contract.TriggerManual}
	if _, err := store.StartRun(ctx, "demo-runner", brief, models.CostPolicy{}); err != nil {
		return fmt.Errorf("demo brief run: %w", err)
	}
	rev, err := store.Revision(ctx)
	if err != nil {
		return err
	}
	pubID := brief.RunID + "-1"
	week := func(days int) string { return today.AddDate(0, 0, days).Format(time.DateOnly) }
	pub := map[string]any{
		"runId": pubID, "jobKey": "daily-brief", "expectedRevision": rev, "generatedAt": at.UTC().Format(time.RFC3339),
		"sourceRefs": []any{map[string]any{"id": "life-people-ana", "kind": "life", "path": "people/ana-okafor.md",
			"contentHash": "sha256:5b2e0d4f9c8e3b7a6f1d2c0e8b9a4f3d7c5e2b1a0f9d8c7b6a5e4d3c2b1a0f9e", "observedAt": at.UTC().Format(time.RFC3339)}},
		"people": []any{}, "activities": []any{}, "replyDrafts": []any{}, "retractions": []any{},
		"completedRequests": []any{map[string]any{"requestId": "demo-note-hamburg", "sourceRefIds": []any{"life-people-ana"}}},
		"reviews": []any{map[string]any{"id": "demo-review-weekly-" + date, "routineId": "weekly-review", "revision": 1,
			"window":        map[string]any{"from": week(-28), "to": week(-1)},
			"observations":  []any{"Done on most Fridays, skipped on the Friday after a late week."},
			"uncertainties": []any{"Four weeks is little to go on."},
			"proposals": []any{
				map[string]any{"id": "sunday-evening", "text": "Move the weekly review to Sunday evening, when Fridays run late"},
				map[string]any{"id": "one-outcome", "text": "Plan one outcome for next week instead of three"},
			},
			"evidenceIds": []any{"life-people-ana"}}},
	}
	body, err := json.Marshal(pub)
	if err != nil {
		return err
	}
	if _, _, err := store.Publish(ctx, "demo", body); err != nil {
		return fmt.Errorf("demo brief publication: %w", err)
	}
	clock.set(at.Add(2 * time.Minute))
	pubRev := rev + 1
	_, err = store.FinishRun(ctx, "demo-runner", brief.RunID, contract.RunFinishIn{Outcome: contract.RunSucceeded,
		PublicationRunID: &pubID, PublicationRevision: &pubRev})
	if err != nil {
		return fmt.Errorf("demo brief run: %w", err)
	}
	return nil
}
