package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// threeClassFaults is a publication with an unknown field, a shape error and
// a reference error, each on a different item.
func threeClassFaults() pub {
	a := task("a1")
	a["colour"] = "red"
	b := task("a2")
	b["personId"] = "ghost"
	p := person("p1")
	p["name"] = ""
	return newPub("run-1", 0).Add("activities", a, b).Add("people", p)
}

var threeClassPaths = []string{"/activities/0/colour", "/activities/1/personId", "/people/0/name"}

func refusedPaths(t *testing.T, err error) []string {
	t.Helper()
	var invalid *contract.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("got %v, want a validation error", err)
	}
	var out []string
	for _, fe := range invalid.Errors {
		out = append(out, fe.Path)
	}
	return out
}

func TestAPublicationFaultyInThreeClassesGetsEveryErrorInOneRefusal(t *testing.T) {
	s, _ := newTestStore(t)
	_, _, err := publish(s, context.Background(), "cred-test", threeClassFaults().JSON())
	if got := refusedPaths(t, err); !slices.Equal(got, threeClassPaths) {
		t.Fatalf("refused at %q, want %q in one refusal", got, threeClassPaths)
	}
	if mustRevision(t, s) != 0 {
		t.Fatal("a refused publication changed the revision")
	}
}

func TestADryRunNamesTheSameErrorsAsThePublishItStandsFor(t *testing.T) {
	s, _ := newTestStore(t)
	_, err := dryRun(s, context.Background(), "cred-test", threeClassFaults().JSON())
	if got := refusedPaths(t, err); !slices.Equal(got, threeClassPaths) {
		t.Fatalf("dry run refused at %q, want %q", got, threeClassPaths)
	}
}

func TestReferenceErrorsComeBackEvenWithoutAReadableRunID(t *testing.T) {
	s, _ := newTestStore(t)
	p := threeClassFaults().With("runId", 12)
	_, _, err := publish(s, context.Background(), "cred-test", p.JSON())
	want := []string{"/activities/0/colour", "/activities/1/personId", "/people/0/name", "/runId"}
	if got := refusedPaths(t, err); !slices.Equal(got, want) {
		t.Fatalf("refused at %q, want %q", got, want)
	}
}

// mutations returns, for every member and element of v at pointer p, the
// document with it removed (members) and with it replaced by a value of
// each other JSON type.
func mutations(t *testing.T, doc pub, v any, p string, out *[]pub) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			mutations(t, doc, x, p+"/"+k, out)
		}
	case []any:
		for i, x := range v {
			mutations(t, doc, x, fmt.Sprintf("%s/%d", p, i), out)
		}
	}
	if p == "" {
		return
	}
	for _, repl := range []any{nil, 42, "x", true, []any{}, map[string]any{}, "delete"} {
		c := clonePub(doc)
		if repl == "delete" {
			if _, ok := parentIsObject(c, p); !ok {
				continue
			}
			c.Del(t, p)
		} else {
			c.Set(t, p, repl)
		}
		*out = append(*out, c)
	}
}

func clonePub(d pub) pub {
	var c pub
	json.Unmarshal(d.JSON(), &c)
	return c
}

func parentIsObject(d pub, p string) (string, bool) {
	i := strings.LastIndexByte(p, '/')
	var cur any = map[string]any(d)
	for _, tok := range strings.Split(p[1:i+1], "/") {
		if tok == "" {
			continue
		}
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			n, _ := strconv.Atoi(tok)
			cur = c[n]
		}
	}
	_, ok := cur.(map[string]any)
	return p[i+1:], ok
}

// TestEveryBrokenMemberIsRefusedInWordsNeverAStoreError breaks each member
// of a publication that uses every collection in turn (removed, or another
// type): reference checks then run on what bound, and must answer a
// refusal (or accept), never fail or panic.
func TestEveryBrokenMemberIsRefusedInWordsNeverAStoreError(t *testing.T) {
	s, _ := newTestStore(t)
	reply := task("reply-1")
	reply["kind"], reply["payload"], reply["personId"] = "reply", map[string]any{"draftId": "d1"}, "p1"
	child := task("child-1")
	child["parentId"] = "a1"
	base := newPub("run-0", 0).Add("activities", task("a1"), reply, child).Add("people", person("p1")).
		Add("replyDrafts", draft("d1", "hi")).Add("routineDefinitions", storetest.Routine("morning", 1)).Add("reviews", review("rv1", "morning", 1)).
		Add("retractions", map[string]any{"kind": "activity", "id": "old-1"}).
		Add("completedRequests", map[string]any{"requestId": "req-1", "sourceRefIds": []any{"life-1"}})
	var all []pub
	var tree any
	json.Unmarshal(base.JSON(), &tree)
	mutations(t, base, tree, "", &all)
	refused := 0
	for i, p := range all {
		p.With("runId", fmt.Sprintf("run-%d", i+1))
		_, _, err := publish(s, context.Background(), "cred-test", p.JSON())
		var invalid *contract.ValidationError
		var conflict *contract.RevisionConflictError
		if err != nil && !errors.As(err, &invalid) && !errors.As(err, &conflict) {
			t.Fatalf("%s: %v", p.JSON(), err)
		}
		if invalid != nil {
			refused++
		}
	}
	if len(all) < 300 || refused < len(all)*3/4 {
		t.Fatalf("%d of %d mutations refused: the test does not break what it means to", refused, len(all))
	}
}
