package handlers_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/models"
)

// passOK records a watch pass that worked, as the watch does after a read.
func passOK(t *testing.T, ta *testApp) {
	t.Helper()
	ctx := context.Background()
	cur, err := ta.store.WatchCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := ta.clock.Now()
	if _, err := ta.store.RecordWatch(ctx, cur, models.WatchRead{Newest: &at, Job: "messages"}); err != nil {
		t.Fatal(err)
	}
}

var coverageSentence = regexp.MustCompile(`Beeper was not visible from (\d\d:\d\d) to (\d\d:\d\d); replies may be missing\.`)

func TestHomeSaysWhenBeeperWasNotVisibleTodayAndIsQuietWithoutAGap(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	passOK(t, ta)
	if n := ta.get("/", "", cookie).doc(t).Find(`[data-testid="coverage-gap"]`).Length(); n != 0 {
		t.Fatal("Home spoke of a gap when there was none")
	}
	if n := ta.get("/runs", "", cookie).doc(t).Find(`[data-testid="coverage"]`).Length(); n != 0 {
		t.Fatal("Runs listed coverage when there was no gap")
	}
	ta.clock.Advance(time.Minute)
	ta.store.RecordWatchFailure(errors.New("beeper: GET /v1/chats: connection refused"), contract.CoverageUnreachable)
	got := has(t, ta.get("/", "", cookie).doc(t), `[data-testid="coverage-gap"]`).Text()
	if !strings.Contains(got, "Beeper has not been visible since") || !strings.Contains(got, "replies may be missing") {
		t.Fatalf("Home while Beeper is away: %q", got)
	}
	ta.clock.Advance(150 * time.Minute)
	passOK(t, ta)
	got = has(t, ta.get("/", "", cookie).doc(t), `[data-testid="coverage-gap"]`).Text()
	m := coverageSentence.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("Home after Beeper came back: %q", got)
	}
	from, _ := time.Parse("15:04", m[1])
	to, _ := time.Parse("15:04", m[2])
	if d := (to.Sub(from) + 24*time.Hour) % (24 * time.Hour); d != 150*time.Minute {
		t.Fatalf("Home's span %s to %s is %s long, want 2h30m", m[1], m[2], d)
	}
}

func TestRunsListsCoverageGapsInOwnerWordsWithARefusedToken(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	passOK(t, ta)
	ta.store.RecordWatchFailure(errors.New("beeper: GET /v1/chats: 401 Unauthorized: invalid token local-whatsapp_ba_X"), contract.CoverageTokenRefused)
	ta.clock.Advance(10 * time.Minute)
	passOK(t, ta)
	gap := has(t, ta.get("/runs", "", cookie).doc(t), `[data-testid="coverage"] [data-testid="coverage-gap"]`)
	text := gap.Text()
	if gap.AttrOr("data-what", "") != contract.CoverageTokenRefused || !strings.Contains(text, "Beeper refused the token") {
		t.Fatalf("Runs' gap: %q", text)
	}
	for _, leak := range []string{"401", "local-whatsapp", "Unauthorized"} {
		if strings.Contains(text, leak) {
			t.Fatalf("Runs' gap shows %q: %q", leak, text)
		}
	}
}
