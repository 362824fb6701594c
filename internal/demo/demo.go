// Package demo writes the fictional owner's life that `hearth serve --demo`
// shows and `hearth seed` writes for years: a publication, eight weeks of
// history through the owner's own services, the fake Beeper's chats, and the
// clock that stands at each moment being written.
package demo

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"text/template"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/beeperflow"
	"hearth/internal/contract"
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

// demoHistoryDays is how far back the demo's fictional history reaches:
// eight weeks, so the weight page has at least six whole weeks to compare
// by routine on any weekday.
const demoHistoryDays = 56

// demoSeed fixes the demo's random history, so every fresh demo looks the same
// (relative to its first day).
const demoSeed = 17

// demoOutbox stands in for Beeper while the history is written: every send
// is accepted, delivered at once and read a few minutes later.
type demoOutbox struct{}

// demoMessageID is the Beeper message of every send of the history.
const demoMessageID = "demo-sent"

// Messages reads an empty chat: nothing newer than what the owner saw.
func (demoOutbox) Messages(context.Context, string, beeper.MessagesQuery) (beeper.MessagePage, error) {
	return beeper.MessagePage{}, nil
}

// Message is the owner's sent message: delivered, and seen by the time
// anyone asks again (dated when hearth first reads it).
func (demoOutbox) Message(_ context.Context, chatID, messageID string) (beeper.Message, error) {
	return beeper.Message{ID: messageID, ChatID: chatID, IsSender: true, Seen: beeper.SeenFlag(true),
		SendStatus: &beeper.SendStatus{Status: beeper.StatusSuccess, DeliveredToUsers: []string{"@someone:beeper.local"}}}, nil
}

// Send accepts the message under demoMessageID.
func (demoOutbox) Send(_ context.Context, chatID string, _ beeper.SendRequest) (beeper.SendResult, error) {
	return beeper.SendResult{ChatID: chatID, PendingMessageID: demoMessageID}, nil
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

// seedDemoHistory writes eight weeks of fictional use through the owner's own
// services, each at its moment by clock: trials of three routines started
// on the first day, most evenings' wind-down done (some partly or skipped,
// with feedback), the weekly review on most Fridays, a start-of-work
// routine on most weekdays with its weigh-in (a slow loss with day-to-day
// noise, no weigh-in at weekends), and a reply sent every few days. The
// history ends yesterday, so today looks as any other morning.
func seedDemoHistory(ctx context.Context, store *models.Store, clock *Clock, now time.Time) error {
	defer clock.set(time.Time{})
	loc, err := time.LoadLocation(demoZone)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(demoSeed, demoSeed))
	life := &demoLife{store: store, clock: clock, rng: rng, loc: loc}
	today := now.In(loc)
	first := time.Date(today.Year(), today.Month(), today.Day()-demoHistoryDays, 0, 0, 0, 0, loc)
	clock.set(life.at(first, 7, 0))
	// Reviewed four weeks after today (a review window is at most 90 days).
	if err := life.startTrials(ctx, demoHistoryDays+28); err != nil {
		return err
	}
	// The goal the owner set on the first day: the page shows a forecast range.
	if err := store.SetWeightGoal(ctx, &contract.WeightGoal{Value: 78, Unit: "kg"}); err != nil {
		return err
	}
	sent := 0
	for ago := demoHistoryDays; ago >= 1; ago-- {
		day := time.Date(today.Year(), today.Month(), today.Day()-ago, 0, 0, 0, 0, loc)
		date := day.Format(time.DateOnly)
		// 84 kg eight weeks ago, losing about 0.4 kg a week, ±0.4 kg of water and salt.
		kg := func() float64 { return 84 - 0.06*float64(demoHistoryDays-ago) + 0.4*rng.NormFloat64() }
		if err := life.startWork(ctx, day, kg); err != nil {
			return err
		}
		if ago%4 == 1 {
			s := demoSends[sent%len(demoSends)]
			if err := life.send(ctx, life.at(day, 12, 30+rng.IntN(20)), models.SendCommand{SendKey: "demo-send-" + date, ChatID: s.chat, Body: s.body}); err != nil {
				return err
			}
			sent++
		}
		if err := life.weeklyReview(ctx, day); err != nil {
			return err
		}
		if err := life.voiceDay(ctx, day, ago); err != nil {
			return err
		}
		if err := life.windDown(ctx, day); err != nil {
			return err
		}
	}
	if err := life.beeperAway(ctx, time.Date(today.Year(), today.Month(), today.Day()-2, 0, 0, 0, 0, loc)); err != nil {
		return err
	}
	if err := life.answeredAndHandedOff(ctx, time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, loc)); err != nil {
		return err
	}
	if err := seedDemoWaiting(ctx, store, clock, now); err != nil {
		return err
	}
	// Today's occurrences exist before the first page or context read, as
	// on any later start.
	clock.set(now)
	if err := publishDemoRhythmPeople(ctx, store, now); err != nil {
		return err
	}
	if err := seedDemoPush(ctx, store, clock, now); err != nil {
		return err
	}
	_, err = store.EnsureOccurrences(ctx)
	return err
}

// beeperAway is a night Beeper was closed, from 03:10 to 05:40 of day:
// Runs lists it among what hearth could not see. The read that ends it
// reads no chats and sets no cursor, so the watch still takes its baseline.
func (l *demoLife) beeperAway(ctx context.Context, day time.Time) error {
	l.clock.set(l.at(day, 3, 10))
	l.store.RecordWatchFailure(errors.New("beeper: GET /v1/chats: connection refused"), contract.CoverageUnreachable)
	l.clock.set(l.at(day, 5, 40))
	cur, err := l.store.WatchCursor(ctx)
	if err != nil {
		return err
	}
	_, err = l.store.RecordWatch(ctx, cur, models.WatchRead{Job: "messages"})
	return err
}

// demoRoutines are the routines whose trials the demo's owner runs.
var demoRoutines = []string{"evening-wind-down", "start-of-work", "weekly-review"}

// demoLife writes the demo owner's routine days through the store's own
// services, each at its moment by clock and drawing on rng, so a fixed
// seed is the same life. The demo's history and `hearth seed` share it.
type demoLife struct {
	store *models.Store
	clock *Clock
	rng   *rand.Rand
	loc   *time.Location
}

// at is hour:minute of day (any moment of it) in the owner's zone.
func (l *demoLife) at(day time.Time, hour, minute int) time.Time {
	d := day.In(l.loc)
	return time.Date(d.Year(), d.Month(), d.Day(), hour, minute, 0, 0, l.loc)
}

// startTrials starts (or restarts) the trials of the demo's routines from
// the clock's day, each reviewed after windowDays.
func (l *demoLife) startTrials(ctx context.Context, windowDays int) error {
	for _, r := range demoRoutines {
		if _, err := l.store.StartTrial(ctx, models.TrialCommand{RoutineID: r, Revision: 1, WindowDays: windowDays}); err != nil {
			return fmt.Errorf("start trial %s: %w", r, err)
		}
	}
	return nil
}

func (l *demoLife) done(ctx context.Context, id string) error {
	_, err := l.store.SetActivityState(ctx, id, models.StateCompleted, "", "")
	return err
}

// startWork is most weekdays' start-of-work routine shortly after seven:
// usually a weigh-in of kg() and the plan read, the urgent reply dismissed.
func (l *demoLife) startWork(ctx context.Context, day time.Time, kg func() float64) error {
	rng := l.rng
	date := day.Format(time.DateOnly)
	wd := day.Weekday()
	if wd == time.Saturday || wd == time.Sunday || rng.Float64() >= 0.9 {
		return nil
	}
	l.clock.set(l.at(day, 7, 10+rng.IntN(30)))
	if _, err := l.store.TriggerEvent(ctx, contract.EventStartWork); err != nil {
		return fmt.Errorf("start work %s: %w", date, err)
	}
	occ := models.OccurrenceActivityID(models.OccurrenceID("start-of-work", date+"."+contract.EventStartWork))
	if rng.Float64() < 0.92 {
		if _, err := l.store.RecordMeasurement(ctx, occ+":weigh-in", math.Round(kg()*10)/10); err != nil {
			return fmt.Errorf("weigh in %s: %w", date, err)
		}
	}
	if rng.Float64() < 0.85 {
		if err := l.done(ctx, occ+":plan"); err != nil {
			return err
		}
	}
	_, err := l.store.SetActivityState(ctx, occ+":urgent-reply", models.StateDismissed, "", "")
	return err
}

// send confirms one reply at moment at through the in-process outbox, and
// follows it as the watch would: delivered and seen six minutes on.
func (l *demoLife) send(ctx context.Context, at time.Time, cmd models.SendCommand) error {
	l.clock.set(at)
	if _, err := beeperflow.ConfirmSend(ctx, l.store, demoOutbox{}, cmd); err != nil {
		return fmt.Errorf("send %s: %w", cmd.SendKey, err)
	}
	// The watch's next pass, a few minutes on, finds it delivered and seen.
	l.clock.set(at.Add(6 * time.Minute))
	if _, err := beeperflow.FollowSends(ctx, l.store, demoOutbox{}); err != nil {
		return fmt.Errorf("follow %s: %w", cmd.SendKey, err)
	}
	return nil
}

// weeklyReview is the weekly review on most Fridays at 17:20.
func (l *demoLife) weeklyReview(ctx context.Context, day time.Time) error {
	if day.Weekday() != time.Friday || l.rng.Float64() >= 0.75 {
		return nil
	}
	l.clock.set(l.at(day, 17, 20))
	if _, err := l.store.EnsureOccurrences(ctx); err != nil {
		return err
	}
	occ := models.OccurrenceActivityID(models.OccurrenceID("weekly-review", day.Format(time.DateOnly)))
	for _, step := range []string{"review-life", "plan-next"} {
		if err := l.done(ctx, occ+":"+step); err != nil {
			return err
		}
	}
	return nil
}

// busyWeek says whether day falls in one of the owner's busy weeks: every
// other week, counted from a fixed Monday so the same date is always the
// same kind of week.
func busyWeek(day time.Time) bool {
	d := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
	return int(d.Sub(time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)).Hours()/24)/7%2 == 1
}

// windDown is the evening wind-down at about 21:45, often with feedback.
// In a calm week it is done every evening but Saturday, which goes as any
// evening may: done, partly, skipped with a note, or not recorded at all
// (a gap in the strip). In a busy week Monday to Thursday are never done,
// so the week is not kept (5 of 7 days) and a calm week always is: the
// weight page has both kinds of week to compare.
func (l *demoLife) windDown(ctx context.Context, day time.Time) error {
	rng := l.rng
	date := day.Format(time.DateOnly)
	l.clock.set(l.at(day, 21, 40+rng.IntN(15)))
	if _, err := l.store.EnsureOccurrences(ctx); err != nil {
		return err
	}
	occID := models.OccurrenceID("evening-wind-down", date)
	occ := models.OccurrenceActivityID(occID)
	p := rng.Float64()
	wd := day.Weekday()
	if busy := busyWeek(day); busy && wd >= time.Monday && wd <= time.Thursday {
		p = 0.68 + 0.32*p // anything but done
	} else if !busy && wd != time.Saturday {
		p = 0
	}
	switch {
	case p < 0.68:
		if err := l.done(ctx, occ+":phone-away"); err != nil {
			return err
		}
		if err := l.done(ctx, occ+":top-three"); err != nil {
			return err
		}
	case p < 0.82:
		if err := l.done(ctx, occ+":phone-away"); err != nil {
			return err
		}
		if _, err := l.store.SetActivityState(ctx, occ+":top-three", models.StateSkipped, "", ""); err != nil {
			return err
		}
	case p < 0.93:
		if _, err := l.store.SetActivityState(ctx, occ, models.StateSkipped, "", "Late dinner with friends"); err != nil {
			return err
		}
	default:
		return nil // not recorded: a gap in the strip
	}
	if rng.Float64() < 0.6 {
		effort := []string{"easy", "ok", "ok", "hard"}[rng.IntN(4)]
		helped := []string{"yes", "yes", "unsure", "no"}[rng.IntN(4)]
		if err := l.store.RecordFeedback(ctx, occID, effort, helped); err != nil {
			return fmt.Errorf("feedback %s: %w", date, err)
		}
	}
	return nil
}

// Beeper is the fake Beeper of the demo: its fictional chats, and the
// owner's heart on Ana's hike invitation, shown under it; a reaction
// answers nothing, so her question about the time is still owed.
func Beeper(token string, now func() time.Time) *beepertest.Fake {
	f := beepertest.New(token, beepertest.WithClock(now))
	f.Add(beepertest.AnaChatID, beeper.Message{SenderID: beepertest.SelfID, Type: beeper.TypeReaction, Text: "❤️", LinkedMessageID: "m-ana-1"})
	addDemoRhythmChats(f, now())
	f.Type(beepertest.GroupChatID, demoHandOffText)
	return f
}
