package handlers_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"hearth/models"
)

func TestHomeAndMessagesSayWhenTheWatchKeepsFailing(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	ctx := context.Background()
	cur, err := ta.store.WatchCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := ta.clock.Now()
	if _, err := ta.store.RecordWatch(ctx, cur, models.WatchRead{Newest: &at, Job: "messages"}); err != nil {
		t.Fatal(err)
	}
	if got := has(t, ta.get("/messages", "", cookie).doc(t), `[data-testid="watch-status"]`); got.AttrOr("data-ok", "") != "true" {
		t.Fatalf("a healthy watch: %q", got.Text())
	}
	ta.store.RecordWatchFailure(errors.New("models: watch: database is locked"), "")
	status := has(t, ta.get("/messages", "", cookie).doc(t), `[data-testid="watch-status"]`)
	if status.AttrOr("data-ok", "") != "false" || !strings.Contains(status.Text(), "database is locked") {
		t.Fatalf("after a failed pass Messages says %q (ok %q)", status.Text(), status.AttrOr("data-ok", ""))
	}
	if n := ta.get("/", "", cookie).doc(t).Find(`[data-testid="watch-failing"]`).Length(); n != 0 {
		t.Fatal("Home raised the alarm over one failed pass")
	}
	for range models.WatchFailingAfter - 1 {
		ta.store.RecordWatchFailure(errors.New("models: watch: database is locked"), "")
	}
	ta.clock.Advance(time.Minute) // Home is cached per minute; the watch's health does not bump the revision
	if got := has(t, ta.get("/", "", cookie).doc(t), `[data-testid="watch-failing"]`).Text(); !strings.Contains(got, "new messages are not being seen") {
		t.Fatalf("Home's notice: %q", got)
	}
}
