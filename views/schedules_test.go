package views

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/internal/schedule"
	"hearth/models"
)

const approvedFile = `---
id: morning-brief
job: morning
cron: "30 6 * * 1-5"
zone: Europe/Berlin
limits:
  maxInvocations: 2
  deadline: 5m
notifyOnSuccess: false
---

Write the morning brief from today's calendar.
`

func parseDef(t *testing.T, file string) schedule.Definition {
	t.Helper()
	d, err := schedule.ParseDefinition("morning-brief", []byte(file))
	if err != nil {
		t.Fatalf("ParseDefinition: %v\n%s", err, file)
	}
	return d
}

// TestHeldScheduleChangesReadInWords: each field a changed file can differ
// in reads as the owner reads the schedule's rule, with no cron string,
// field name or raw value.
func TestHeldScheduleChangesReadInWords(t *testing.T) {
	day := models.DayOf(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), time.UTC)
	approved := parseDef(t, approvedFile)
	cases := []struct {
		name     string
		from, to string
		want     changeLine
	}{
		{"timing", `cron: "30 6 * * 1-5"`, `cron: "0 8 * * *"`,
			changeLine{"Timing", "Monday to Friday at 06:30 (Berlin)", "every day at 08:00 (Berlin)"}},
		{"timing with an end", `cron: "30 6 * * 1-5"`, "cron: \"30 6 * * 1-5\"\nendAt: 2027-01-31T00:00:00+01:00",
			changeLine{"Timing", "Monday to Friday at 06:30 (Berlin)", "Monday to Friday at 06:30 (Berlin), until Sat 30 Jan 2027"}},
		{"custom timing", `cron: "30 6 * * 1-5"`, `cron: "*/5 * * * *"`,
			changeLine{"Timing", "Monday to Friday at 06:30 (Berlin)", "on a custom rule (Berlin)"}},
		{"one-off", `cron: "30 6 * * 1-5"`, "at: 2027-01-04T09:00:00+01:00",
			changeLine{"Timing", "Monday to Friday at 06:30 (Berlin)", "once, Mon 4 Jan 2027 08:00"}},
		{"job", "job: morning", "job: evening", changeLine{"Job", "morning", "evening"}},
		{"zone", "zone: Europe/Berlin", "zone: America/New_York", changeLine{"Time zone", "Berlin", "New York"}},
		{"limits", "maxInvocations: 2\n  deadline: 5m", "maxInvocations: 1\n  deadline: 90s",
			changeLine{"Limits", "at most 2 tries, 5 minutes each", "at most 1 try, 90 seconds each"}},
		{"notify", "notifyOnSuccess: false", "notifyOnSuccess: true", changeLine{"Tell me when it succeeds", "no", "yes"}},
		{"prompt", "Write the morning brief from today's calendar.", "Write the evening brief.",
			changeLine{"Prompt", "Write the morning brief from today's calendar.", "Write the evening brief."}},
		{"prompt's later lines", "Write the morning brief from today's calendar.", "Write the morning brief from today's calendar.\nAnd email it.",
			changeLine{"Prompt", "Write the morning brief from today's calendar.", "Write the morning brief from today's calendar. (later lines changed)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := parseDef(t, strings.Replace(approvedFile, tc.from, tc.to, 1))
			var lines []changeLine
			for _, ch := range schedule.Changes(approved, file) {
				lines = append(lines, changeWords(ch, day))
			}
			wanted := []changeLine{tc.want}
			if len(lines) != len(wanted) {
				t.Fatalf("changes = %+v, want %+v", lines, wanted)
			}
			for i := range lines {
				if lines[i] != wanted[i] {
					t.Errorf("change %d = %+v, want %+v", i, lines[i], wanted[i])
				}
			}
		})
	}
}

// TestScheduleRowStateReasonReadsInWords: a restored or ended schedule's
// reason reads in words; the recorded detail, with its UTC instants, is in
// the row's Details.
func TestScheduleRowStateReasonReadsInWords(t *testing.T) {
	day := models.DayOf(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), time.UTC)
	for _, tc := range []struct {
		v      models.ScheduleView
		reason string
		hidden string // what only Details show
		detail string
	}{
		{models.ScheduleView{ID: "b1", Job: "backup", State: "restore_pending", StateReason: "restored", Cron: "0 8 * * *", Zone: "UTC",
			StateDetail: "restored from a backup taken at 2026-11-29T22:00:00Z; check it and approve it again"},
			"restored from a backup; check it and approve it again", "2026-11-29T22:00:00Z", "2026-11-29T22:00:00Z"},
		{models.ScheduleView{ID: "e1", Job: "ended", State: "expired", StateReason: "ended", Cron: "0 8 * * *", Zone: "UTC",
			StateDetail: "its last instant, 2026-11-28T08:00:00Z, was missed by more than 24 h"},
			"no instant is left to run", "2026-11-28T08:00:00Z", "2026-11-28T08:00:00Z"},
		{models.ScheduleView{ID: "c1", Job: "cancelled", State: "cancelled", StateReason: "cancelled", Cron: "0 8 * * *", Zone: "UTC",
			StateDetail: "cancelled by owner"},
			"cancelled by owner", "", "reason cancelled: cancelled by owner"},
	} {
		var b strings.Builder
		if err := scheduleRow(tc.v, day, "").Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		d, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		shown := d.Find(`[data-testid="schedule"]`).Clone()
		shown.Find("details").Remove()
		words := strings.Join(strings.Fields(shown.Text()), " ")
		if got := d.Find(`[data-testid="schedule-reason"]`).Text(); got != tc.reason {
			t.Errorf("%s: reason %q, want %q", tc.v.ID, got, tc.reason)
		}
		if tc.hidden != "" && strings.Contains(words, tc.hidden) {
			t.Errorf("%s: the owner reads %q: %q", tc.v.ID, tc.hidden, words)
		}
		if details := strings.Join(strings.Fields(d.Find(`[data-testid="schedule-detail"]`).Text()), " "); !strings.Contains(details, tc.detail) {
			t.Errorf("%s: Details lack %q: %q", tc.v.ID, tc.detail, details)
		}
	}
}

// TestScheduleRowUnreadableSnapshotReadsInWords: a snapshot that no longer
// reads says so and what the owner can do; the validator's message, with
// its raw value, is in Details.
func TestScheduleRowUnreadableSnapshotReadsInWords(t *testing.T) {
	day := models.DayOf(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), time.UTC)
	v := models.ScheduleView{ID: "far", Job: "j", State: "active", Hold: models.HoldQuarantined, Zone: "UTC",
		Unreadable: "the approved definition cannot be read: at: out of range (found 9999-12-31T12:00:00Z)"}
	var b strings.Builder
	if err := scheduleRow(v, day, "").Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	d, err := goquery.NewDocumentFromReader(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	shown := d.Find(`[data-testid="schedule"]`).Clone()
	shown.Find("details").Remove()
	words := strings.Join(strings.Fields(shown.Text()), " ")
	if got := d.Find(`[data-testid="schedule-unreadable"]`).Text(); got != "It cannot run until it is cancelled, or its file is corrected and approved again." {
		t.Errorf("unreadable: %q", got)
	}
	if strings.Contains(words, "9999") || strings.Contains(words, "at:") {
		t.Errorf("the owner reads the raw message: %q", words)
	}
	if details := d.Find(`[data-testid="schedule-detail"]`).Text(); !strings.Contains(details, v.Unreadable) {
		t.Errorf("Details lack the message: %q", details)
	}
}
