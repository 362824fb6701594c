package models

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"hearth/internal/costpolicy"
)

// TestWaitingKeepsTheHundredOldestOpenActivitiesOldestFirst: with more
// tasks open than the list reads, Waiting on you keeps the hundred the
// agent raised first (ties within a publication by ID, not by the order
// the publication listed them), leaves out the settled ones, sets a
// deferred one aside, and lists what needs the owner oldest first.
func TestWaitingKeepsTheHundredOldestOpenActivitiesOldestFirst(t *testing.T) {
	s, clock := routineStore(t)
	ctx := context.Background()
	var first, second []map[string]any
	for i := range 60 {
		first = append(first, task(fmt.Sprintf("a-%03d", i)))
		second = append(second, task(fmt.Sprintf("b-%03d", 59-i))) // listed in reverse
	}
	mustPublish(t, s, newPub("run-first", mustRevision(t, s)).Add("activities", first...))
	clock.Advance(time.Minute)
	mustPublish(t, s, newPub("run-second", mustRevision(t, s)).Add("activities", second...))
	clock.Advance(time.Minute)
	for i := range 5 {
		if _, err := s.SetActivityState(ctx, fmt.Sprintf("a-%03d", i), StateCompleted, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SetActivityState(ctx, "a-010", StateDeferred, "2026-10-09", ""); err != nil {
		t.Fatal(err)
	}
	v := waitingOf(t, s)
	var want []string
	for i := 5; i < 60; i++ {
		want = append(want, fmt.Sprintf("activity:a-%03d", i))
	}
	for i := range 45 {
		want = append(want, fmt.Sprintf("activity:b-%03d", i))
	}
	var got []string
	for _, it := range slices.Concat(v.Needs, v.Aside) {
		if strings.HasPrefix(it.Key, "activity:") {
			got = append(got, it.Key)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("the list holds %d activities %v,\nwant the %d oldest open %v", len(got), got, len(want), want)
	}
	if aside := waitingKeys(v.Aside); !slices.Equal(aside, []string{"activity:a-010"}) {
		t.Errorf("set aside: %v, want the deferred a-010", aside)
	} else if v.Aside[0].Until == nil || v.Aside[0].Until.Format(time.DateOnly) != "2026-10-09" {
		t.Errorf("a-010 comes back at %v, want the start of 2026-10-09", v.Aside[0].Until)
	}
	for i := 1; i < len(v.Needs); i++ {
		if v.Needs[i].Since.Before(v.Needs[i-1].Since) {
			t.Fatalf("needs you is not oldest first at %d: %v", i, waitingKeys(v.Needs))
		}
	}
	if it := waitingItem(t, v.Needs, "activity:b-000"); it.Title != "Task b-000" || it.ActivityID != "b-000" {
		t.Errorf("b-000 reads %+v", it)
	}
}

// TestHomeShowsTheOldestWaitingAndCountsTheRest: Home lists only the
// oldest few of the open activities, with the deferred one still set
// aside, and counts the others that need the owner; Show all lists them.
func TestHomeShowsTheOldestWaitingAndCountsTheRest(t *testing.T) {
	s, clock := routineStore(t)
	ctx := context.Background()
	var tasks []map[string]any
	for i := range 30 {
		tasks = append(tasks, task(fmt.Sprintf("a-%03d", i)))
	}
	mustPublish(t, s, newPub("run-first", mustRevision(t, s)).Add("activities", tasks...))
	clock.Advance(time.Minute)
	if _, err := s.SetActivityState(ctx, "a-001", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetActivityState(ctx, "a-002", StateDeferred, "2026-10-09", ""); err != nil {
		t.Fatal(err)
	}
	home, err := s.Home(ctx, costpolicy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	w := home.Waiting
	want := []string{"activity:a-000", "activity:a-003", "activity:a-004", "activity:a-005", "activity:a-006", "activity:a-007"}
	if got := waitingKeys(w.Needs); !slices.Equal(got, want[:WaitingOnHome]) {
		t.Errorf("Home lists %v, want the %d oldest open %v", got, WaitingOnHome, want[:WaitingOnHome])
	}
	if w.Count() != 28 {
		t.Errorf("Home counts %d waiting (%d listed, %d more), want the 28 open and not set aside", w.Count(), len(w.Needs), w.More)
	}
	if aside := waitingKeys(w.Aside); !slices.Equal(aside, []string{"activity:a-002"}) {
		t.Errorf("set aside on Home: %v, want the deferred a-002", aside)
	}
	all, err := s.HomeWithAllWaiting(ctx, costpolicy.Policy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Waiting.Needs) != 28 || all.Waiting.More != 0 {
		t.Errorf("Show all lists %d and counts %d more, want all 28", len(all.Waiting.Needs), all.Waiting.More)
	}
}
