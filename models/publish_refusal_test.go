package models

import (
	"context"
	"errors"
	"slices"
	"testing"

	"hearth/internal/contract"
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
	_, _, err := s.Publish(context.Background(), "cred-test", threeClassFaults().JSON())
	if got := refusedPaths(t, err); !slices.Equal(got, threeClassPaths) {
		t.Fatalf("refused at %q, want %q in one refusal", got, threeClassPaths)
	}
	if mustRevision(t, s) != 0 {
		t.Fatal("a refused publication changed the revision")
	}
}

func TestADryRunNamesTheSameErrorsAsThePublishItStandsFor(t *testing.T) {
	s, _ := newTestStore(t)
	_, err := s.PublishDryRun(context.Background(), "cred-test", threeClassFaults().JSON())
	if got := refusedPaths(t, err); !slices.Equal(got, threeClassPaths) {
		t.Fatalf("dry run refused at %q, want %q", got, threeClassPaths)
	}
}

func TestReferenceErrorsComeBackEvenWithoutAReadableRunID(t *testing.T) {
	s, _ := newTestStore(t)
	p := threeClassFaults().With("runId", 12)
	_, _, err := s.Publish(context.Background(), "cred-test", p.JSON())
	want := []string{"/activities/0/colour", "/activities/1/personId", "/people/0/name", "/runId"}
	if got := refusedPaths(t, err); !slices.Equal(got, want) {
		t.Fatalf("refused at %q, want %q", got, want)
	}
}
