package models

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
)

func TestTheAgentContextCarriesCoverageGapsAndLeavesThemOutWhenThereWasNone(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(ac); strings.Contains(string(b), "coverageGaps") {
		t.Fatal("a context with no gap names coverageGaps: the empty list costs tokens")
	}
	rev := ac.Revision
	from := now.Now()
	s.RecordWatchFailure(errors.New("beeper: unavailable"), contract.CoverageUnreachable)
	s.RecordWatchFailure(errors.New("beeper: unavailable"), contract.CoverageUnreachable)
	ac, err = s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ac.CoverageGaps) != 1 || ac.CoverageGaps[0].To != nil || !ac.CoverageGaps[0].From.Equal(from) || ac.Revision == rev {
		t.Fatalf("while Beeper is away: %+v at revision %d (before %d); want one open gap, a new revision", ac.CoverageGaps, ac.Revision, rev)
	}
	contextValidates(t, ac)
	now.Advance(2 * time.Hour)
	cur, err := s.WatchCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordWatch(ctx, cur, WatchRead{Newest: ptr(now.Now()), Job: "messages"}); err != nil {
		t.Fatal(err)
	}
	ac, _ = s.AgentContext(ctx)
	if len(ac.CoverageGaps) != 1 || ac.CoverageGaps[0].To == nil || !ac.CoverageGaps[0].To.Equal(now.Now()) {
		t.Fatalf("after Beeper came back: %+v", ac.CoverageGaps)
	}
	contextValidates(t, ac)
	// A gap older than the context's window is left out.
	now.Advance((CoverageDays + 1) * 24 * time.Hour)
	if ac, _ = s.AgentContext(ctx); len(ac.CoverageGaps) != 0 {
		t.Fatalf("a gap %d days old is still carried: %+v", CoverageDays+1, ac.CoverageGaps)
	}
}

func TestAFailureOfHearthsOwnOpensNoCoverageGapInTheStore(t *testing.T) {
	s, _ := newTestStore(t)
	s.RecordWatchFailure(errors.New("models: watch: database is locked"), "")
	if gaps, err := s.CoverageGaps(context.Background(), time.Time{}); err != nil || len(gaps) != 0 {
		t.Fatalf("gaps %+v, %v", gaps, err)
	}
}
