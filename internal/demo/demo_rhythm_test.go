package demo

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/internal/beeperflow"
	"hearth/models"
	"hearth/models/read"
)

func TestTheDemoShowsLenasSteadyRhythmAndJonasDriftingOnceTheWatchHasReadTheirChats(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	clock := &Clock{}
	clock.set(now)
	store, err := models.Open(ctx, t.TempDir(), models.Options{Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	body, err := demoResult(now, demoZone)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := publish(ctx, store, "demo", body); err != nil {
		t.Fatal(err)
	}
	if err := seedDemoHistory(ctx, store, clock, now); err != nil {
		t.Fatal(err)
	}
	clock.set(now)
	srv := httptest.NewServer(Beeper("demo-token", clock.Now))
	t.Cleanup(srv.Close)
	w := beeperflow.NewWatch(store, beeper.NewClient(srv.URL, "demo-token"), beeperflow.WatchOptions{})
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	people, err := read.Of(store).People(ctx)
	if err != nil {
		t.Fatal(err)
	}
	day, talk := 24*time.Hour, 40*time.Minute
	want := map[string]models.PersonRhythm{
		// Gaps of 9, 10, 9, 9, 9, 10 and 11 days (start to start); five of eight started by the owner.
		"jonas-weber": {Conversations: 8, Gaps: 7, Known: true, UsualGap: 9*day - talk, P90Gap: 11*day - talk, OwnerStarted: 5, Silence: 23*day - talk, Drifting: true},
		// Gaps of 5 and 6 days; three of twelve started by the owner.
		"lena-brandt": {Conversations: 12, Gaps: 11, Known: true, UsualGap: 5*day - talk, P90Gap: 6*day - talk, OwnerStarted: 3, Silence: 2*day - talk},
	}
	seen := 0
	for _, p := range people.People {
		w, ok := want[p.Person.ID]
		if !ok {
			if p.Rhythm.Known {
				t.Errorf("%s has a rhythm %+v; the demo gives only Jonas and Lena one", p.Person.ID, p.Rhythm)
			}
			continue
		}
		seen++
		if p.Rhythm != w {
			t.Errorf("%s's rhythm\n got %+v\nwant %+v", p.Person.ID, p.Rhythm, w)
		}
	}
	if seen != len(want) {
		t.Fatalf("People lists %d of the demo's people with a rhythm; want %d", seen, len(want))
	}
	owed, err := store.OwedReplies(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range owed {
		if o.ChatID == demoRhythms[0].chatID || o.ChatID == demoRhythms[1].chatID {
			t.Errorf("the demo owes a reply in %s: its last word is the owner's", o.ChatID)
		}
	}
}
