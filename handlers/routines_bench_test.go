package handlers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/models"
)

// benchRoutines and benchDays size the Routines page benchmark: a year of
// occurrences of 20 routines, each tried as revision 1 for 180 days and
// then as revision 2 until today.
const (
	benchRoutines = 20
	benchDays     = 365
	benchSwitch   = 180
)

// routinesHistory is the benchmark's database, built once per run through
// the models API (about 7,300 recorded outcomes; it takes a while).
var routinesHistory = appTemplate("routines-history", buildRoutineHistory)

func benchRoutineDef(i int, revision int64) map[string]any {
	trigger := map[string]any{"kind": "daily", "timeOfDay": fmt.Sprintf("%02d:00", 6+i%12)}
	if i%4 == 3 {
		trigger = map[string]any{"kind": "weekly", "days": []any{1, 3, 5}}
	}
	steps := []any{
		map[string]any{"id": "weigh", "title": "Weigh in", "kind": "measurement", "required": true, "payload": map[string]any{"metric": "weight", "unit": "kg"}},
		map[string]any{"id": "stretch", "title": "Stretch", "kind": "task", "required": true, "payload": map[string]any{}},
	}
	if revision == 1 {
		steps = append(steps, map[string]any{"id": "water", "title": "Drink water", "kind": "task", "required": false, "payload": map[string]any{}})
	}
	return map[string]any{"id": fmt.Sprintf("routine-%02d", i), "revision": revision, "title": fmt.Sprintf("Routine %d", i),
		"purpose": "A benchmark routine", "trigger": trigger, "steps": steps, "completionRule": map[string]any{"kind": "all-required"},
		"status": "candidate", "evidenceIds": []any{"life-routines"}}
}

// buildRoutineHistory publishes the routines, tries revision 1 from a year
// ago and revision 2 from day 180, and records every planned day's outcome
// through "I did it yesterday" (a twentieth of the days left without a record).
func buildRoutineHistory(ctx context.Context, s *models.Store, clock *storetest.Clock) error {
	if err := s.SetOwnerPassphrase(ctx, ownerPassphrase); err != nil {
		return err
	}
	start := testNow.AddDate(0, 0, -benchDays)
	clock.Set(start)
	pub := minimalPublication("routines", 0)
	pub["sourceRefs"] = []any{map[string]any{"id": "life-routines", "kind": "life", "path": "areas/routines.md",
		"contentHash": "sha256:" + fmt.Sprintf("%064x", 9), "observedAt": start.Format(time.RFC3339)}}
	pub["brief"] = map[string]any{"date": start.Format(time.DateOnly), "timeZone": "Europe/Berlin", "text": "A year ago.", "evidenceIds": []any{}}
	var defs []any
	for i := range benchRoutines {
		defs = append(defs, benchRoutineDef(i, 1), benchRoutineDef(i, 2))
	}
	pub["routineDefinitions"] = defs
	body, err := jsonBytes(pub)
	if err != nil {
		return err
	}
	decoded, err := contract.DecodePublication(body)
	if err != nil {
		return err
	}
	if _, _, err := s.Publish(ctx, "bench", decoded); err != nil {
		return err
	}
	record := func(from, to int) error {
		for i := range benchRoutines {
			id := fmt.Sprintf("routine-%02d", i)
			for day := from; day < to; day++ {
				date := start.AddDate(0, 0, day).Format(time.DateOnly)
				cmd := models.PastOutcomeCommand{RoutineID: id, Date: date, Outcome: models.OutcomeCompleted}
				switch (day + i) % 20 {
				case 0:
					continue // no record
				case 1:
					cmd.Outcome = models.OutcomeSkipped
				case 2:
					cmd.Outcome = models.OutcomePartial
				case 3:
					cmd.Outcome, cmd.Reason = models.OutcomeNotApplicable, "travelling"
				}
				if err := s.RecordPastOutcome(ctx, cmd); err != nil && !errorsIsInvalid(err) {
					return fmt.Errorf("%s %s: %w", id, date, err)
				}
			}
		}
		return nil
	}
	trial := func(revision int64, days int) error {
		for i := range benchRoutines {
			tr, err := s.StartTrial(ctx, models.TrialCommand{RoutineID: fmt.Sprintf("routine-%02d", i), Revision: revision, WindowDays: 90})
			if err != nil {
				return err
			}
			for left := days - 90; left > 0; left -= 90 {
				if err := s.ExtendTrial(ctx, tr.ID, min(left, 90)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := trial(1, benchSwitch); err != nil {
		return err
	}
	clock.Set(start.AddDate(0, 0, benchSwitch))
	if err := record(0, benchSwitch); err != nil {
		return err
	}
	if err := trial(2, benchDays-benchSwitch+30); err != nil {
		return err
	}
	clock.Set(testNow)
	if err := record(benchSwitch, benchDays); err != nil {
		return err
	}
	if _, err := s.EnsureOccurrences(ctx); err != nil {
		return err
	}
	// Today's occurrences of the daily routines are skipped, so feedback can follow.
	for i := 0; i < benchRoutines; i += 4 {
		if _, err := s.SetActivityState(ctx, fmt.Sprintf("hearth:routine-%02d@%s", i, testDate), models.StateSkipped, "", ""); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkRoutinesRender measures the Routines page rendered from the
// database with 20 routines and a year of recorded occurrences, by its
// Server-Timing:
//   - steady: nothing changed between requests (a second device, a reload);
//   - after-commit: each request follows a commit on one routine (feedback
//     on today's occurrence), as when an open page reloads live after an
//     owner's action: the other routines' counts come from the memo;
//   - first-render: the first request of a freshly opened store, which
//     counts every routine's whole year (as after a restart).
func BenchmarkRoutinesRender(b *testing.B) {
	ctx := context.Background()
	page := func(base string, _ int) string { return base + "/routines" }
	b.Run("steady", func(b *testing.B) {
		ta := newTestApp(b, withTemplate(routinesHistory))
		cookie := ta.login()
		reportLatencies(b, ta.listen(), cookie, page, nil)
	})
	b.Run("after-commit", func(b *testing.B) {
		ta := newTestApp(b, withTemplate(routinesHistory))
		cookie := ta.login()
		if r := ta.get("/routines", "", cookie); r.status != http.StatusOK {
			b.Fatalf("GET /routines: %s", r)
		}
		reportLatencies(b, ta.listen(), cookie, page, func(i int) {
			routine := fmt.Sprintf("routine-%02d@%s", (i*4)%benchRoutines, testDate) // the daily routines: i%4 != 3
			if err := ta.store.RecordFeedback(ctx, routine, []string{"easy", "hard"}[i%2], ""); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("first-render", func(b *testing.B) {
		client := &http.Client{}
		var server []time.Duration
		for b.Loop() {
			b.StopTimer()
			ta := newTestApp(b, withTemplate(routinesHistory))
			cookie := ta.login()
			base := ta.listen()
			b.StartTimer()
			_, took := fetchTimed(b, client, base+"/routines", cookie, nil)
			server = append(server, took)
		}
		reportPercentiles(b, "server", server)
	})
}

func jsonBytes(d doc) ([]byte, error) { return json.Marshal(d) }

func errorsIsInvalid(err error) bool { return errors.Is(err, models.ErrInvalidInput) }
