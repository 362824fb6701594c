package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"hearth/models"
)

func TestDemoWaitingListShowsFourKindsAndWhatFinished(t *testing.T) {
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
	for _, k := range []string{models.WaitReply, models.WaitTask, models.WaitProposal, models.WaitRun} {
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
	if len(v.WithAgent) != 1 || !strings.HasPrefix(v.WithAgent[0].Detail, "read by daily-brief ") {
		t.Errorf("the correction with the agent: %+v", v.WithAgent)
	}
	n, err := store.HomeRunNotice(context.Background(), models.CostPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Failed != nil {
		t.Errorf("the demo's Home says a run failed: %+v (the brief run after it succeeded)", n.Failed)
	}
}
