package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"text/template"
	"time"

	"hearth/beeper"
	"hearth/internal/beeperflow"
	"hearth/models"
)

// demoZone is the demo owner's time zone.
const demoZone = "Europe/Berlin"

//go:embed demo.json.tmpl
var demoTemplate string

var demoTmpl = template.Must(template.New("demo").Parse(demoTemplate))

// demoResult renders the fictional demo publication for the day of now in zone.
func demoResult(now time.Time, zone string) ([]byte, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, err
	}
	local := now.In(loc)
	var buf bytes.Buffer
	err = demoTmpl.Execute(&buf, map[string]string{
		"Date":     local.Format("2006-01-02"),
		"Zone":     zone,
		"Now":      now.UTC().Format(time.RFC3339),
		"Observed": now.UTC().Add(-10 * time.Minute).Format(time.RFC3339),
	})
	return buf.Bytes(), err
}

// demoHistoryDays is how far back the demo's fictional history reaches.
const demoHistoryDays = 42

// demoSeed fixes the demo's random history, so every fresh demo looks the same
// (relative to its first day).
const demoSeed = 17

// demoClock is the store's clock under --demo: the real time, except while
// the demo writes its history, when it stands at the moment being written,
// so every row is dated as if the owner had used hearth for six weeks.
type demoClock struct {
	mu sync.Mutex
	at time.Time
}

// Now is the moment being written, else the real time.
func (c *demoClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return time.Now()
	}
	return c.at
}

func (c *demoClock) set(t time.Time) {
	c.mu.Lock()
	c.at = t
	c.mu.Unlock()
}

// demoOutbox stands in for Beeper while the history is written: every send
// is accepted and delivered at once.
type demoOutbox struct{}

// Messages reads an empty chat: nothing newer than what the owner saw.
func (demoOutbox) Messages(context.Context, string, beeper.MessagesQuery) (beeper.MessagePage, error) {
	return beeper.MessagePage{}, nil
}

// Message knows no message: a send is settled by Send's answer.
func (demoOutbox) Message(context.Context, string, string) (beeper.Message, error) {
	return beeper.Message{}, beeper.ErrNotFound
}

// Send accepts and delivers at once (no pending ID: sent).
func (demoOutbox) Send(context.Context, string, beeper.SendRequest) (beeper.SendResult, error) {
	return beeper.SendResult{}, nil
}

// demoSends are the fictional replies of the history, sent in turn. None
// goes to Ana's chat: her draft is today's reply, and a send there would
// answer it.
var demoSends = []struct{ chat, body string }{
	{"!tomas-lindqvist:beeper.local", "Thanks for the tip, I'll take the bike in on Thursday."},
	{"!climbing-crew:beeper.local", "Count me in for Tuesday's session."},
	{"!tomas-lindqvist:beeper.local", "The chain is fixed, it runs like new."},
	{"!climbing-crew:beeper.local", "Running ten minutes late, start without me."},
	{"!tomas-lindqvist:beeper.local", "Happy to lend you the pump, it's by the door."},
}

// seedDemoHistory writes six weeks of fictional use through the owner's own
// services, each at its moment by clock: trials of three routines started
// on the first day, most evenings' wind-down done (some partly or skipped,
// with feedback), the weekly review on most Fridays, a start-of-work
// routine on most weekdays with its weigh-in (a slow loss with day-to-day
// noise, no weigh-in at weekends), and a reply sent every few days. The
// history ends yesterday, so today looks as any other morning.
func seedDemoHistory(ctx context.Context, store *models.Store, clock *demoClock, now time.Time) error {
	defer clock.set(time.Time{})
	loc, err := time.LoadLocation(demoZone)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(demoSeed, demoSeed))
	today := now.In(loc)
	at := func(daysAgo, hour, minute int) time.Time {
		return time.Date(today.Year(), today.Month(), today.Day()-daysAgo, hour, minute, 0, 0, loc)
	}
	clock.set(at(demoHistoryDays, 7, 0))
	for _, r := range []string{"evening-wind-down", "start-of-work", "weekly-review"} {
		if _, err := store.StartTrial(ctx, models.TrialCommand{RoutineID: r, Revision: 1, WindowDays: 2 * demoHistoryDays}); err != nil {
			return fmt.Errorf("start trial %s: %w", r, err)
		}
	}
	// The goal the owner set on the first day: the page shows a forecast range.
	if err := store.SetWeightGoal(ctx, &models.WeightGoal{Value: 78, Unit: "kg"}); err != nil {
		return err
	}
	done := func(id string) error {
		_, err := store.SetActivityState(ctx, id, models.StateCompleted, "", "")
		return err
	}
	sent := 0
	for ago := demoHistoryDays; ago >= 1; ago-- {
		day := at(ago, 0, 0)
		date := day.Format(time.DateOnly)
		wd := day.Weekday()
		if wd != time.Saturday && wd != time.Sunday && rng.Float64() < 0.9 {
			clock.set(at(ago, 7, 10+rng.IntN(30)))
			if _, err := store.TriggerEvent(ctx, models.EventStartWork); err != nil {
				return fmt.Errorf("start work %s: %w", date, err)
			}
			occ := models.OccurrenceActivityID(models.OccurrenceID("start-of-work", date+"."+models.EventStartWork))
			if rng.Float64() < 0.92 {
				// 84 kg six weeks ago, losing about 0.4 kg a week, ±0.4 kg of water and salt.
				kg := 84 - 0.06*float64(demoHistoryDays-ago) + 0.4*rng.NormFloat64()
				if _, err := store.RecordMeasurement(ctx, occ+":weigh-in", math.Round(kg*10)/10); err != nil {
					return fmt.Errorf("weigh in %s: %w", date, err)
				}
			}
			if rng.Float64() < 0.85 {
				if err := done(occ + ":plan"); err != nil {
					return err
				}
			}
			if _, err := store.SetActivityState(ctx, occ+":urgent-reply", models.StateDismissed, "", ""); err != nil {
				return err
			}
		}
		if ago%4 == 1 {
			clock.set(at(ago, 12, 30+rng.IntN(20)))
			s := demoSends[sent%len(demoSends)]
			if _, err := beeperflow.ConfirmSend(ctx, store, demoOutbox{}, models.SendCommand{SendKey: "demo-send-" + date, ChatID: s.chat, Body: s.body}); err != nil {
				return fmt.Errorf("send %s: %w", date, err)
			}
			sent++
		}
		if wd == time.Friday && rng.Float64() < 0.75 {
			clock.set(at(ago, 17, 20))
			if _, err := store.EnsureOccurrences(ctx); err != nil {
				return err
			}
			occ := models.OccurrenceActivityID(models.OccurrenceID("weekly-review", date))
			for _, step := range []string{"review-life", "plan-next"} {
				if err := done(occ + ":" + step); err != nil {
					return err
				}
			}
		}
		clock.set(at(ago, 21, 40+rng.IntN(15)))
		if _, err := store.EnsureOccurrences(ctx); err != nil {
			return err
		}
		occID := models.OccurrenceID("evening-wind-down", date)
		occ := models.OccurrenceActivityID(occID)
		switch p := rng.Float64(); {
		case p < 0.68:
			if err := done(occ + ":phone-away"); err != nil {
				return err
			}
			if err := done(occ + ":top-three"); err != nil {
				return err
			}
		case p < 0.82:
			if err := done(occ + ":phone-away"); err != nil {
				return err
			}
			if _, err := store.SetActivityState(ctx, occ+":top-three", models.StateSkipped, "", ""); err != nil {
				return err
			}
		case p < 0.93:
			if _, err := store.SetActivityState(ctx, occ, models.StateSkipped, "", "Late dinner with friends"); err != nil {
				return err
			}
		default:
			continue // not recorded: a gap in the strip
		}
		if rng.Float64() < 0.6 {
			effort := []string{"easy", "ok", "ok", "hard"}[rng.IntN(4)]
			helped := []string{"yes", "yes", "unsure", "no"}[rng.IntN(4)]
			if err := store.RecordFeedback(ctx, occID, effort, helped); err != nil {
				return fmt.Errorf("feedback %s: %w", date, err)
			}
		}
	}
	// Today's occurrences exist before the first page or context read, as
	// on any later start.
	clock.set(now)
	_, err = store.EnsureOccurrences(ctx)
	return err
}
