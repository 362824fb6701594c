package models

import (
	"context"
	"encoding/json"
	"testing"
)

// TestPeopleLinksEachPersonsLiveActivitiesAndDrafts reads People after a
// publication: each person gets their own activities and drafts, and a
// retracted activity is left out.
func TestPeopleLinksEachPersonsLiveActivitiesAndDrafts(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	call, gone, other := task("call-ana"), task("old-ana"), task("lone-task")
	call["personId"], gone["personId"] = "ana", "ana"
	d := draft("draft-ana", "Hi!")
	d["personId"] = "ana"
	mustPublish(t, s, newPub("run-1", 0).Add("people", person("ana"), person("ben")).
		Add("activities", call, gone, other).Add("replyDrafts", d))
	mustPublish(t, s, newPub("run-2", mustRevision(t, s)).Add("retractions", map[string]any{"kind": "activity", "id": "old-ana", "reason": "done"}))

	v, err := s.People(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.Revision != mustRevision(t, s) || len(v.People) != 2 || v.People[0].Person.ID != "ana" || v.People[1].Person.ID != "ben" {
		t.Fatalf("people %+v at revision %d", v.People, v.Revision)
	}
	ana, ben := v.People[0], v.People[1]
	if len(ana.Activities) != 1 || ana.Activities[0].ID != "call-ana" || len(ana.Drafts) != 1 || ana.Drafts[0].ID != "draft-ana" {
		t.Errorf("Ana: activities %+v, drafts %+v", ana.Activities, ana.Drafts)
	}
	if len(ana.Evidence) != 1 || ana.Evidence[0].ID != "life-1" {
		t.Errorf("Ana's evidence %+v", ana.Evidence)
	}
	if len(ben.Activities) != 0 || len(ben.Drafts) != 0 {
		t.Errorf("Ben got someone else's: %+v %+v", ben.Activities, ben.Drafts)
	}
}

// TestWritesMovesWhenAnObservationArrives: an observation bumps no
// revision, so a page cache keyed on the revision alone would not see it;
// Writes moves.
func TestWritesMovesWhenAnObservationArrives(t *testing.T) {
	s, _ := newTestStore(t)
	rev, writes := s.LatestRevision(), s.Writes()
	body, _ := json.Marshal(map[string]any{"source": "mail:work", "ref": "m1", "changeType": "created", "actor": "agent",
		"payload": map[string]any{"kind": "mail", "providerId": "work", "raw": map[string]any{"subject": "Hello"}}})
	if _, err := postObservation(s, context.Background(), "cred-test", body); err != nil {
		t.Fatal(err)
	}
	if s.LatestRevision() != rev {
		t.Fatalf("an observation moved the revision %d -> %d", rev, s.LatestRevision())
	}
	if s.Writes() <= writes {
		t.Fatalf("Writes %d after an observation, %d before", s.Writes(), writes)
	}
	// A refused duplicate writes nothing, so it does not move it.
	writes = s.Writes()
	if _, err := postObservation(s, context.Background(), "cred-test", body); err == nil {
		t.Fatal("duplicate accepted")
	}
	if s.Writes() != writes {
		t.Errorf("a refused duplicate moved Writes %d -> %d", writes, s.Writes())
	}
}
