package models

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/strictjson"
)

func TestPublishReplayReturnsOriginalReceiptAfterLaterRevisions(t *testing.T) {
	s, now := newTestStore(t)
	first := newPub("run-1", 0).Add("activities", task("a1"))
	r1 := mustPublish(t, s, first)
	now.Advance(time.Hour)
	mustPublish(t, s, newPub("run-2", r1.Revision).Add("activities", task("a2")))
	if _, err := s.SetActivityState(context.Background(), "a1", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	again, replayed, err := publish(s, context.Background(), "cred-test", first.JSON())
	if err != nil || !replayed {
		t.Fatalf("replay: replayed=%v err=%v", replayed, err)
	}
	if again.Revision != r1.Revision || !again.ReceivedAt.Equal(r1.ReceivedAt) || again.RunID != "run-1" {
		t.Fatalf("replay receipt %+v, want %+v", again, r1)
	}
	if rev := mustRevision(t, s); rev != 3 {
		t.Fatalf("replay changed revision to %d", rev)
	}
}

func TestPublishSameRunIDDifferentContentIsIdempotencyConflict(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-1", 0).Add("activities", task("a1")))
	_, _, err := publish(s, context.Background(), "cred-test", newPub("run-1", 1).Add("activities", task("a2")).JSON())
	if !errors.Is(err, contract.ErrIdempotencyConflict) {
		t.Fatalf("got %v, want idempotency conflict", err)
	}
	if _, ok := findActivity(t, s, "a2"); ok {
		t.Fatal("conflicting publication wrote a2")
	}
}

func TestPublishReceiptsAreScopedToPublisher(t *testing.T) {
	s, _ := newTestStore(t)
	body := newPub("run-1", 0).JSON()
	if _, _, err := publish(s, context.Background(), "cred-a", body); err != nil {
		t.Fatal(err)
	}
	_, replayed, err := publish(s, context.Background(), "cred-b", body)
	var conflict *contract.RevisionConflictError
	if replayed || !errors.As(err, &conflict) {
		t.Fatalf("another publisher's identical run: replayed=%v err=%v, want a revision conflict", replayed, err)
	}
}

func TestPublishStaleRevisionWritesNothing(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-1", 0).Add("activities", task("a1")))
	_, _, err := publish(s, context.Background(), "cred-test", newPub("run-2", 0).Add("activities", task("a2")).JSON())
	var conflict *contract.RevisionConflictError
	if !errors.As(err, &conflict) || conflict.Current != 1 || conflict.Expected != 0 {
		t.Fatalf("got %v, want revision conflict current 1", err)
	}
	if _, ok := findActivity(t, s, "a2"); ok || mustRevision(t, s) != 1 {
		t.Fatal("stale publication wrote something")
	}
	// No receipt was stored: the same runId at the right revision succeeds.
	if _, replayed, err := publish(s, context.Background(), "cred-test", newPub("run-2", 1).Add("activities", task("a2")).JSON()); err != nil || replayed {
		t.Fatalf("retry after conflict: replayed=%v err=%v", replayed, err)
	}
}

func TestPublishDismissedActivityStaysDismissedWhenRepublished(t *testing.T) {
	s, _ := newTestStore(t)
	r := mustPublish(t, s, newPub("run-1", 0).Add("activities", task("a1")))
	if _, err := s.SetActivityState(context.Background(), "a1", StateDismissed, "", "not for me"); err != nil {
		t.Fatal(err)
	}
	changed := task("a1")
	changed["title"] = "Task a1, reworded"
	mustPublish(t, s, newPub("run-2", r.Revision+1).Add("activities", changed))
	a, ok := findActivity(t, s, "a1")
	if !ok {
		t.Fatal("a1 missing from context")
	}
	if a.UserState.State != StateDismissed || a.UserState.Note != "not for me" {
		t.Fatalf("owner state after re-publication: %+v", a.UserState)
	}
	if a.Title != "Task a1, reworded" {
		t.Fatalf("agent fields not updated: %q", a.Title)
	}
}

func TestPublishKeepsOwnerDraftEditBesideNewCandidates(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-1", 0).Add("replyDrafts", draft("d1", "Sure!", "Yes.")))
	if _, err := s.SaveDraftEdit(context.Background(), "d1", "Sure, see you at 8.", "c0"); err != nil {
		t.Fatal(err)
	}
	mustPublish(t, s, newPub("run-2", 2).Add("replyDrafts", draft("d1", "Sounds good!")))
	ac, err := s.AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := ac.ReplyDrafts.Items[0]
	if d.OwnerEdit == nil || d.OwnerEdit.Body != "Sure, see you at 8." {
		t.Fatalf("owner edit lost: %+v", d.OwnerEdit)
	}
	if len(d.Candidates) != 1 || d.Candidates[0].Body != "Sounds good!" {
		t.Fatalf("new candidates not kept: %+v", d.Candidates)
	}
}

func TestPublishRetractionWithdrawsButKeepsOwnerState(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-1", 0).Add("activities", task("a1"), task("a2")))
	if _, err := s.SetActivityState(context.Background(), "a1", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	p := newPub("run-2", 2)
	p["retractions"] = []any{map[string]any{"kind": "activity", "id": "a1", "reason": "done elsewhere"}, map[string]any{"kind": "activity", "id": "a2"}}
	mustPublish(t, s, p)
	a1, _ := findActivity(t, s, "a1")
	a2, _ := findActivity(t, s, "a2")
	if a1.Retracted == nil || a1.Retracted.Reason != "done elsewhere" || a1.UserState.State != StateCompleted {
		t.Fatalf("a1 after retraction: %+v %+v", a1.Retracted, a1.UserState)
	}
	if a2.Retracted == nil {
		t.Fatal("a2 not retracted")
	}
	// Re-publishing a retracted activity brings it back.
	mustPublish(t, s, newPub("run-3", 3).Add("activities", task("a2")))
	if a2, _ = findActivity(t, s, "a2"); a2.Retracted != nil {
		t.Fatal("re-published a2 still retracted")
	}
}

func TestPublishResolvesReferencesAcrossPublications(t *testing.T) {
	s, _ := newTestStore(t)
	routine := map[string]any{"id": "r1", "kind": "routine", "title": "Morning", "evidenceIds": []any{}, "payload": map[string]any{}}
	mustPublish(t, s, newPub("run-1", 0).Add("people", person("p1")).Add("activities", routine).Add("replyDrafts", draft("d1", "hi")))
	step := task("s1")
	step["parentId"] = "r1"
	step["personId"] = "p1"
	reply := map[string]any{"id": "rep1", "kind": "reply", "title": "Reply", "evidenceIds": []any{"life-1"}, "payload": map[string]any{"draftId": "d1"}}
	p := newPub("run-2", 1).Add("activities", step, reply)
	p["sourceRefs"] = []any{} // life-1 was stored by run-1
	mustPublish(t, s, p)
}

func TestPublishRejectsInvalidReferencesWithPaths(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-0", 0).Add("activities", task("t1")))
	routineA := map[string]any{"id": "ra", "kind": "routine", "title": "A", "evidenceIds": []any{}, "parentId": "rb", "payload": map[string]any{}}
	routineB := map[string]any{"id": "rb", "kind": "routine", "title": "B", "evidenceIds": []any{}, "parentId": "ra", "payload": map[string]any{}}
	underTask := task("x1")
	underTask["parentId"] = "t1"
	dangling := task("x2")
	dangling["evidenceIds"] = []any{"nope"}
	dangling["personId"] = "ghost"
	reply := map[string]any{"id": "x3", "kind": "reply", "title": "R", "evidenceIds": []any{}, "payload": map[string]any{"draftId": "no-draft"}}
	p := newPub("run-1", 1).Add("activities", routineA, routineB, underTask, dangling, reply)
	p["retractions"] = []any{map[string]any{"kind": "replyDraft", "id": "never"}}
	p["completedRequests"] = []any{map[string]any{"requestId": "req-1", "sourceRefIds": []any{"life-1"}}}
	_, _, err := publish(s, context.Background(), "cred-test", p.JSON())
	var invalid *contract.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("got %v, want validation error", err)
	}
	want := map[string]string{
		"/activities/0/parentId":         "loops",
		"/activities/1/parentId":         "loops",
		"/activities/2/parentId":         "not a routine",
		"/activities/3/evidenceIds/0":    "unknown source ref",
		"/activities/3/personId":         "unknown person",
		"/activities/4/payload/draftId":  "unknown reply draft",
		"/retractions/0/id":              "nothing to retract",
		"/completedRequests/0/requestId": "unknown request",
	}
	got := map[string]string{}
	for _, e := range invalid.Errors {
		got[e.Path] = e.Message
		if e.Expected == "" || e.Found == "" {
			t.Errorf("%s: error lacks expected/found: %+v", e.Path, e)
		}
	}
	for path, frag := range want {
		if !strings.Contains(got[path], frag) {
			t.Errorf("%s: got %q, want it to mention %q", path, got[path], frag)
		}
	}
	if mustRevision(t, s) != 1 {
		t.Fatal("rejected publication changed the revision")
	}
}

func TestParseResultReportsEveryShapeProblem(t *testing.T) {
	cases := []struct {
		name, path, expected string
		mutate               func(p pub)
	}{
		{"unknown top-level field", "/extra", "", func(p pub) { p["extra"] = 1 }},
		{"missing required array", "/people", "array", func(p pub) { delete(p, "people") }},
		{"bad runId", "/runId", "[A-Za-z0-9._:@-]", func(p pub) { p["runId"] = "run id with spaces" }},
		{"negative revision", "/expectedRevision", ">= 0", func(p pub) { p["expectedRevision"] = -1 }},
		{"bad generatedAt", "/generatedAt", "RFC 3339", func(p pub) { p["generatedAt"] = "yesterday" }},
		{"bad hash", "/sourceRefs/0/contentHash", "64", func(p pub) { p["sourceRefs"].([]any)[0].(map[string]any)["contentHash"] = "sha256:abc" }},
		{"absolute life path", "/sourceRefs/0/path", "relative", func(p pub) { p["sourceRefs"].([]any)[0].(map[string]any)["path"] = "/etc/passwd" }},
		{"dotdot life path", "/sourceRefs/0/path", "relative", func(p pub) { p["sourceRefs"].([]any)[0].(map[string]any)["path"] = "people/../../x.md" }},
		{"unknown zone", "/brief/timeZone", "IANA", func(p pub) {
			p["brief"] = map[string]any{"date": "2026-09-29", "timeZone": "Mars/Olympus", "text": "hi", "evidenceIds": []any{}}
		}},
		{"long title", "/activities/0/title", "at most 200", func(p pub) {
			a := task("a")
			a["title"] = strings.Repeat("x", 201)
			p.Add("activities", a)
		}},
		{"unknown kind", "/activities/0/kind", "task, measurement, reply, routine", func(p pub) {
			a := task("a")
			a["kind"] = "chore"
			p.Add("activities", a)
		}},
		{"unknown payload field", "/activities/0/payload/colour", "", func(p pub) {
			a := task("a")
			a["payload"] = map[string]any{"colour": "red"}
			p.Add("activities", a)
		}},
		{"bad unit", "/activities/0/payload/unit", "kg, lb", func(p pub) {
			a := task("a")
			a["kind"], a["payload"] = "measurement", map[string]any{"metric": "weight", "unit": "stone"}
			p.Add("activities", a)
		}},
		{"too many activities", "/activities", "at most 500", func(p pub) {
			for i := range 501 {
				p.Add("activities", task(strings.Repeat("a", 1+i%3)+string(rune('0'+i%10))))
			}
		}},
		{"null nested", "/activities/0/detail", "", func(p pub) {
			a := task("a")
			a["detail"] = nil
			p.Add("activities", a)
		}},
		{"no candidates", "/replyDrafts/0/candidates", "1-5", func(p pub) { p.Add("replyDrafts", draft("d")) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPub("run-1", 0)
			tc.mutate(p)
			r, err := contract.ParseResult(p.JSON())
			if err == nil {
				v := &contract.Validator{}
				r.ValidateShape(v)
				if len(v.Errs) > 0 {
					err = &contract.ValidationError{Errors: v.Errs}
				}
			}
			var invalid *contract.ValidationError
			if !errors.As(err, &invalid) {
				t.Fatalf("got %v, want validation error", err)
			}
			for _, e := range invalid.Errors {
				if e.Path == tc.path && strings.Contains(e.Expected+e.Message, tc.expected) {
					return
				}
			}
			t.Fatalf("no error at %s mentioning %q in %+v", tc.path, tc.expected, invalid.Errors)
		})
	}
}

func TestParseResultRejectsDuplicateKeysAsSyntax(t *testing.T) {
	_, err := contract.ParseResult([]byte(`{"runId":"a","runId":"b"}`))
	var syntax *strictjson.SyntaxError
	if !errors.As(err, &syntax) {
		t.Fatalf("got %v, want syntax error", err)
	}
}

func TestOwnerActionsIncrementRevision(t *testing.T) {
	s, _ := newTestStore(t)
	weigh := map[string]any{"id": "w", "kind": "measurement", "title": "Weigh in", "evidenceIds": []any{}, "occurrenceKey": "2026-09-29@Europe/Berlin",
		"payload": map[string]any{"metric": "weight", "unit": "kg"}}
	mustPublish(t, s, newPub("run-1", 0).Add("activities", weigh, task("t")).Add("replyDrafts", draft("d", "hi")))
	ctx := context.Background()
	if _, err := s.SetActivityState(ctx, "t", StateDeferred, "2026-09-30", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveDraftEdit(ctx, "d", "hello", ""); err != nil {
		t.Fatal(err)
	}
	first, err := s.RecordMeasurement(ctx, "w", 72.4)
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.RecordMeasurement(ctx, "w", 72.1)
	if err != nil {
		t.Fatal(err)
	}
	if second.SupersedesID == nil || *second.SupersedesID != first.ID {
		t.Fatalf("correction does not supersede: %+v", second)
	}
	if rev := mustRevision(t, s); rev != 5 {
		t.Fatalf("revision %d, want 5 (1 publication + 4 owner actions)", rev)
	}
	if _, err := s.RecordMeasurement(ctx, "w", 4000); !errors.Is(err, ErrInvalidInput) {
		t.Fatalf("out-of-range value: %v", err)
	}
	if _, err := s.SetActivityState(ctx, "missing", StateCompleted, "", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown activity: %v", err)
	}
	if rev := mustRevision(t, s); rev != 5 {
		t.Fatalf("rejected owner actions changed the revision to %d", rev)
	}
}

func TestContextShowsSettledAndLapsedActivitiesForFourteenDaysOnly(t *testing.T) {
	s, now := newTestStore(t)
	dated := task("lapsed")
	dated["occurrenceKey"] = "2026-09-29@Europe/Berlin"
	mustPublish(t, s, newPub("run-1", 0).Add("activities", task("old"), task("open"), dated))
	if _, err := s.SetActivityState(context.Background(), "old", StateCompleted, "", ""); err != nil {
		t.Fatal(err)
	}
	now.Advance(13 * 24 * time.Hour)
	if _, ok := findActivity(t, s, "old"); !ok {
		t.Fatal("activity settled 13 days ago missing")
	}
	if _, ok := findActivity(t, s, "lapsed"); !ok {
		t.Fatal("unfinished occurrence of 13 days ago missing")
	}
	now.Advance(2 * 24 * time.Hour)
	if _, ok := findActivity(t, s, "old"); ok {
		t.Fatal("activity settled 15 days ago still in context")
	}
	if _, ok := findActivity(t, s, "lapsed"); !ok {
		t.Fatal("unfinished occurrence of 15 days ago dropped a day early (zone margin)")
	}
	now.Advance(24 * time.Hour)
	if _, ok := findActivity(t, s, "lapsed"); ok {
		t.Fatal("unfinished occurrence of 16 days ago still in context")
	}
	if _, ok := findActivity(t, s, "open"); !ok {
		t.Fatal("open activity missing")
	}
}

func TestPublishSameRunIDWithShapeErrorIsIdempotencyConflict(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-1", 0).Add("activities", task("a1")))
	changed := newPub("run-1", 0).Add("activities", task("a1"))
	changed["unexpected"] = true
	if _, _, err := publish(s, context.Background(), "cred-test", changed.JSON()); !errors.Is(err, contract.ErrIdempotencyConflict) {
		t.Fatalf("got %v, want idempotency conflict: the receipt is checked before validation", err)
	}
}

func replyTo(id, draftID string) map[string]any {
	return map[string]any{"id": id, "kind": "reply", "title": "Answer", "evidenceIds": []any{}, "payload": map[string]any{"draftId": draftID}}
}

func TestPublishAllowsOneReplyActivityPerDraft(t *testing.T) {
	s, _ := newTestStore(t)
	_, _, err := publish(s, context.Background(), "cred-test", newPub("run-1", 0).Add("replyDrafts", draft("d", "hi")).
		Add("activities", replyTo("a", "d"), replyTo("b", "d")).JSON())
	assertFieldError(t, err, "/activities/1/payload/draftId")
	mustPublish(t, s, newPub("run-2", 0).Add("replyDrafts", draft("d", "hi")).Add("activities", replyTo("a", "d")))
	_, _, err = publish(s, context.Background(), "cred-test", newPub("run-3", 1).Add("activities", replyTo("b", "d")).JSON())
	assertFieldError(t, err, "/activities/0/payload/draftId")
	// Re-publishing the same reply, or moving the draft to a new reply while retracting the old, is fine.
	mustPublish(t, s, newPub("run-4", 1).Add("activities", replyTo("a", "d")))
	mustPublish(t, s, newPub("run-5", 2).Add("activities", replyTo("b", "d")).Add("retractions", map[string]any{"kind": "activity", "id": "a"}))
}

func TestRetractingADraftOrItsReplyWithdrawsBoth(t *testing.T) {
	s, _ := newTestStore(t)
	mustPublish(t, s, newPub("run-1", 0).Add("replyDrafts", draft("d1", "hi"), draft("d2", "yo")).
		Add("activities", replyTo("r1", "d1"), replyTo("r2", "d2")))
	mustPublish(t, s, newPub("run-2", 1).Add("retractions", map[string]any{"kind": "replyDraft", "id": "d1"}, map[string]any{"kind": "activity", "id": "r2"}))
	ac, err := s.AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range ac.Activities.Items {
		if a.Retracted == nil {
			t.Errorf("activity %s still live", a.ID)
		}
	}
	for _, d := range ac.ReplyDrafts.Items {
		if d.Retracted == nil {
			t.Errorf("draft %s still live", d.ID)
		}
	}
	if h := mustHome(t, s); len(h.Sections) != 0 {
		t.Fatalf("Home still lists %v", sectionIDs(h))
	}
	if drafts, _ := s.ChatDrafts(context.Background(), "chat-1"); len(drafts) != 0 {
		t.Fatalf("Messages still lists %+v", drafts)
	}
	// Retracting a draft while publishing its reply is a contradiction.
	mustPublish(t, s, newPub("run-3", 2).Add("replyDrafts", draft("d3", "hey")).Add("activities", replyTo("r3", "d3")))
	_, _, err = publish(s, context.Background(), "cred-test", newPub("run-4", 3).Add("activities", replyTo("r3", "d3")).
		Add("retractions", map[string]any{"kind": "replyDraft", "id": "d3"}).JSON())
	assertFieldError(t, err, "/activities/0/payload/draftId")
}

func TestRepublishingAnActedOnActivityKeepsItsIdentity(t *testing.T) {
	s, _ := newTestStore(t)
	routine := map[string]any{"id": "r", "kind": "routine", "title": "Morning", "evidenceIds": []any{}, "payload": map[string]any{}}
	step := task("step")
	step["occurrenceKey"], step["parentId"] = "2026-09-29@Europe/Berlin", "r"
	mustPublish(t, s, newPub("run-1", 0).Add("activities", routine, step, task("untouched")))
	if _, err := s.SetActivityState(context.Background(), "step", StateSkipped, "", ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		change     func(a map[string]any)
	}{
		{"occurrence key", "/activities/0/occurrenceKey", func(a map[string]any) { a["occurrenceKey"] = "2026-09-30@Europe/Berlin" }},
		{"parent", "/activities/0/parentId", func(a map[string]any) { delete(a, "parentId") }},
		{"kind", "/activities/0/kind", func(a map[string]any) {
			a["kind"], a["payload"] = "measurement", map[string]any{"metric": "weight", "unit": "kg"}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			changed := maps.Clone(step)
			c.change(changed)
			_, _, err := publish(s, context.Background(), "cred-test", newPub("run-"+strings.ReplaceAll(c.name, " ", "-"), 2).Add("activities", changed).JSON())
			assertFieldError(t, err, c.path)
		})
	}
	// Its title may change; an activity nobody acted on may change anything.
	retitled := maps.Clone(step)
	retitled["title"] = "Stretch longer"
	moved := task("untouched")
	moved["occurrenceKey"] = "2026-09-30@Europe/Berlin"
	mustPublish(t, s, newPub("run-ok", 2).Add("activities", retitled, moved))
}

func TestReplyMayCarryAnOccurrenceKey(t *testing.T) {
	s, _ := newTestStore(t)
	r := replyTo("a", "d")
	r["occurrenceKey"] = "2026-09-29@Europe/Berlin"
	mustPublish(t, s, newPub("run-1", 0).Add("replyDrafts", draft("d", "hi")).Add("activities", r))
}

// assertFieldError fails unless err is a *ValidationError naming path.
func assertFieldError(t *testing.T, err error, path string) {
	t.Helper()
	var invalid *contract.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("want a validation error at %s, got %v", path, err)
	}
	for _, e := range invalid.Errors {
		if e.Path == path {
			return
		}
	}
	t.Fatalf("no error at %s: %+v", path, invalid.Errors)
}

func TestContextListsRequestsSettledInTheLastFourteenDays(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	for _, id := range []string{"req-old", "req-done", "req-open"} {
		if _, _, err := createRequest(s, ctx, []byte(`{"requestId":"`+id+`","kind":"note","text":"hi"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CancelRequest(ctx, "req-old"); err != nil {
		t.Fatal(err)
	}
	now.Advance(10 * 24 * time.Hour)
	p := newPub("run-1", mustRevision(t, s))
	p["completedRequests"] = []any{map[string]any{"requestId": "req-done", "sourceRefIds": []any{"life-1"}}}
	mustPublish(t, s, p)
	now.Advance(5 * 24 * time.Hour)
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range ac.Requests.Items {
		got[r.RequestID] = r.Status
	}
	if len(got) != 2 || got["req-done"] != contract.RequestCompleted || got["req-open"] != contract.RequestPending {
		t.Fatalf("context requests %v: want the pending one and the one completed 5 days ago, not the one cancelled 15 days ago", got)
	}
}
