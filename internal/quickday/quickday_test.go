package quickday

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones of the table, whatever the machine has
)

func at(t *testing.T, zone, local string) (time.Time, *time.Location) {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	now, err := time.ParseInLocation("2006-01-02 15:04", local, loc)
	if err != nil {
		t.Fatal(err)
	}
	return now, loc
}

// 2026-12-04 is a Friday.
func TestTypedDayWordsBecomeDatesInTheOwnersZone(t *testing.T) {
	for _, tc := range []struct {
		name, zone, now, text string
		wantText, wantDay     string
	}{
		{"tomorrow at the end", "Europe/Berlin", "2026-12-04 10:00", "call Ana tomorrow", "call Ana", "2026-12-05"},
		{"tomorrow at the start", "Europe/Berlin", "2026-12-04 10:00", "Tomorrow: call Ana", "call Ana", "2026-12-05"},
		{"tmrw", "Europe/Berlin", "2026-12-04 10:00", "call Ana tmrw", "call Ana", "2026-12-05"},
		{"today", "Europe/Berlin", "2026-12-04 10:00", "buy milk today", "buy milk", "2026-12-04"},
		{"on a weekday", "Europe/Berlin", "2026-12-04 10:00", "dentist on mon", "dentist", "2026-12-07"},
		{"weekday in full, any case", "Europe/Berlin", "2026-12-04 10:00", "dentist Wednesday", "dentist", "2026-12-09"},
		{"tues", "Europe/Berlin", "2026-12-04 10:00", "gym tues", "gym", "2026-12-08"},
		{"thurs", "Europe/Berlin", "2026-12-04 10:00", "gym thurs", "gym", "2026-12-10"},
		{"the same weekday as today is a week on", "Europe/Berlin", "2026-12-04 10:00", "call Ana fri", "call Ana", "2026-12-11"},
		{"the next day's weekday is tomorrow", "Europe/Berlin", "2026-12-04 10:00", "call Ana sat", "call Ana", "2026-12-05"},
		{"day and month", "Europe/Berlin", "2026-12-04 10:00", "send the card 12 Dec", "send the card", "2026-12-12"},
		{"month and day", "Europe/Berlin", "2026-12-04 10:00", "send the card Dec 12", "send the card", "2026-12-12"},
		{"ordinal and full month", "Europe/Berlin", "2026-12-04 10:00", "party on 3rd January", "party", "2027-01-03"},
		{"a day and month already past this year is next year's", "Europe/Berlin", "2026-12-04 10:00", "renew passport 1 Mar", "renew passport", "2027-03-01"},
		{"today's day and month is today", "Europe/Berlin", "2026-12-04 10:00", "pay rent 4 Dec", "pay rent", "2026-12-04"},
		{"with a year", "Europe/Berlin", "2026-12-04 10:00", "visa 5 Jan 2028", "visa", "2028-01-05"},
		{"ISO date", "Europe/Berlin", "2026-12-04 10:00", "visa 2027-02-01", "visa", "2027-02-01"},
		{"no day typed", "Europe/Berlin", "2026-12-04 10:00", "call Ana", "call Ana", ""},
		{"a day word inside the text is the text's", "Europe/Berlin", "2026-12-04 10:00", "ask Ana about Friday's party", "ask Ana about Friday's party", ""},
		{"the sun is not Sunday", "Europe/Berlin", "2026-12-04 10:00", "sit in the sun", "sit in the sun", ""},
		{"a day after on alone stays the text", "Europe/Berlin", "2026-12-04 10:00", "on fri", "on fri", ""},
		{"a day word alone stays the text", "Europe/Berlin", "2026-12-04 10:00", "tomorrow", "tomorrow", ""},
		{"an impossible date is not a day", "Europe/Berlin", "2026-12-04 10:00", "party 31 Feb", "party 31 Feb", ""},
		{"numbers alone are not a date", "Europe/Berlin", "2026-12-04 10:00", "buy 12 eggs", "buy 12 eggs", ""},
		{"spaces are tidied", "Europe/Berlin", "2026-12-04 10:00", "  call   Ana  tomorrow ", "call Ana", "2026-12-05"},

		// The owner's zone decides today: 23:30 in Tokyo is already the next day in UTC terms' zone.
		{"late evening in the owner's zone", "Asia/Tokyo", "2026-12-04 23:30", "call Ana tomorrow", "call Ana", "2026-12-05"},
		{"just after midnight in the owner's zone", "America/Los_Angeles", "2026-12-05 00:10", "call Ana tomorrow", "call Ana", "2026-12-06"},

		// DST weeks. Berlin springs forward on Sun 2026-03-29 (a 23-hour
		// day) and falls back on Sun 2026-10-25 (a 25-hour day).
		{"tomorrow on the night before spring forward", "Europe/Berlin", "2026-03-28 23:30", "call Ana tomorrow", "call Ana", "2026-03-29"},
		{"tomorrow early on the 25-hour day", "Europe/Berlin", "2026-10-25 00:30", "call Ana tomorrow", "call Ana", "2026-10-26"},
		{"tomorrow late on the 23-hour day", "Europe/Berlin", "2026-03-29 23:30", "call Ana tomorrow", "call Ana", "2026-03-30"},
		{"a weekday across fall back", "Europe/Berlin", "2026-10-24 23:30", "call Ana mon", "call Ana", "2026-10-26"},
		{"a weekday across spring forward", "America/New_York", "2026-03-07 23:50", "call Ana mon", "call Ana", "2026-03-09"},
		{"today on the 25-hour day's last hour", "America/New_York", "2026-11-01 23:30", "call Ana today", "call Ana", "2026-11-01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now, loc := at(t, tc.zone, tc.now)
			got := Parse(tc.text, now, loc)
			if got.Text != tc.wantText || got.Day != tc.wantDay {
				t.Errorf("Parse(%q) at %s %s = {%q, %q}, want {%q, %q}", tc.text, tc.now, tc.zone, got.Text, got.Day, tc.wantText, tc.wantDay)
			}
		})
	}
}

func TestDayLabelNamesTheDayFromToday(t *testing.T) {
	for _, tc := range []struct{ today, day, want string }{
		{"2026-12-04", "2026-12-04", "Today"},
		{"2026-12-04", "2026-12-05", "Tomorrow"},
		{"2026-12-04", "2026-12-09", "Wed 9 Dec"},
		{"2026-12-04", "2027-01-03", "Sun 3 Jan 2027"},
		{"2026-12-04", "2026-12-01", "Tue 1 Dec"},
		{"2026-12-04", "not a date", "not a date"},
	} {
		if got := Label(tc.day, tc.today); got != tc.want {
			t.Errorf("Label(%q, %q) = %q, want %q", tc.day, tc.today, got, tc.want)
		}
	}
}
