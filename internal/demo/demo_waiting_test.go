package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/models"
	"hearth/models/read"
)

// The demo's list holds four kinds that need the owner (a reply draft, a
// task, a held send and a routine proposal), what finished on its own, and
// the owner's correction with the agent.
func TestDemoWaitingListShowsFourKindsAndWhatFinishedAndNoRunOrShownReview(t *testing.T) {
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	_, store := demoStore(t, now)
	v, err := store.Waiting(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, it := range v.Needs {
		kinds[it.Kind]++
	}
	for _, k := range []string{models.WaitReply, models.WaitTask, models.WaitHeldSend, models.WaitProposal} {
		if kinds[k] == 0 {
			t.Errorf("the demo's list has no %s: %v", k, kinds)
		}
	}
	var note, sent bool
	for _, it := range v.Finished {
		switch {
		case it.Key == "request:demo-note-hamburg":
			note = strings.HasPrefix(it.Detail, "done by daily-brief ") && strings.Contains(it.Detail, "Ana Okafor's notes")
		case it.Kind == models.WaitSent:
			sent = true
		}
	}
	if !note || !sent {
		t.Errorf("Finished lacks the completed note with what was done (%v) or a delivered reply (%v): %+v", note, sent, v.Finished)
	}
	if len(v.WithAgent) != 1 || v.WithAgent[0].Kind != models.WaitRequest || v.WithAgent[0].Detail != "no run has read it yet" {
		t.Errorf("the correction with the agent: %+v", v.WithAgent)
	}
	// Tests count the demo's runs and pin the height of its Routines page:
	// the list adds no run, and its one review is of the retired routine,
	// whose card Routines keeps folded.
	runs, err := read.Of(store).Runs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.Runs) != 0 {
		t.Errorf("the demo records %d runs, want none", len(runs.Runs))
	}
	routines, err := read.Of(store).Routines(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range routines.Routines {
		if len(r.Reviews) != 0 && (r.ID != "morning-run" || r.Standing != contract.RoutineRetired || len(r.Reviews) != 1) {
			t.Errorf("routine %s (%s) has %d reviews in the demo; want one, of the retired morning run", r.ID, r.Standing, len(r.Reviews))
		}
	}
}
