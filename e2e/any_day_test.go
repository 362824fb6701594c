package e2e

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// anyDays are the instants TestDemoPagesSayWhatTheDayMeansOnAnyDay sets
// serve's clock to (HEARTH_TEST_NOW), so the date-sensitive pages are
// proved on every day of the week and on both of Berlin's DST change days,
// whatever day the suite runs: Monday to Saturday of the week after the
// autumn change (its eight weeks of history cross it), the spring change
// (Sun 28 March 2027, 02:00 → 03:00), the autumn change (Sun 31 October
// 2027) inside its repeated hour, and a Friday a minute before midnight.
var anyDays = []string{
	"2027-11-01T07:30:00+01:00", "2027-11-02T07:30:00+01:00", "2027-11-03T07:30:00+01:00",
	"2027-11-04T07:30:00+01:00", "2027-11-05T07:30:00+01:00", "2027-11-06T07:30:00+01:00",
	"2027-03-28T07:30:00+02:00", "2027-10-31T02:30:00+01:00", "2027-10-29T23:59:00+02:00",
}

// weekdayCron is the schedule the test adds: the cron rule and the days
// and hour it names, in the demo owner's zone.
const weekdayCron = "0 18 * * 1-5"

func TestDemoPagesSayWhatTheDayMeansOnAnyDay(t *testing.T) {
	t.Parallel()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range anyDays {
		start, err := time.Parse(time.RFC3339, at)
		if err != nil {
			t.Fatal(err)
		}
		day := start.In(loc)
		t.Run(day.Format("Mon_2006-01-02T15:04"), func(t *testing.T) {
			t.Parallel()
			srv := startServerEnv(t, []string{"HEARTH_TEST_NOW=" + at}, "--demo")
			owner := loginOwner(t, srv.URL)
			scheduled := checkRoutinesDay(t, owner, day)
			checkHomeDay(t, owner, day, scheduled)
			checkSchedulesDay(t, srv, owner, day)
		})
	}
}

// checkHomeDay: the brief is dated day, and Home's top-level rows are the
// demo's for day, with one row for each routine that is planned today.
func checkHomeDay(t *testing.T, owner *ownerClient, day time.Time, scheduled []string) {
	t.Helper()
	home := owner.mustPage(http.MethodGet, "/", nil)
	date := day.Format(time.DateOnly)
	dated := home.Find(`.brief-date time`)
	if got, _ := dated.Attr("datetime"); got != date || dated.Text() != day.Format("Monday 2 January") {
		t.Errorf("brief dated %q (%q), want %q (%q)", got, dated.Text(), date, day.Format("Monday 2 January"))
	}
	if brief := home.Find(`[data-testid="brief-text"]`).Text(); !strings.Contains(brief, "Weigh in") {
		t.Errorf("brief %q", brief)
	}
	var rows, routines []string
	home.Find(`#live > section li[data-row]`).Each(func(_ int, s *goquery.Selection) {
		id := s.AttrOr("data-id", "")
		rows = append(rows, id)
		if strings.HasPrefix(id, "hearth:") {
			routines = append(routines, id)
		}
	})
	if want := demoHomeRows(day); !slices.Equal(rows, want) {
		t.Errorf("top-level rows %v, want %v", rows, want)
	}
	var want []string
	for _, id := range scheduled {
		want = append(want, id+"@"+date)
	}
	slices.Sort(routines)
	if !slices.Equal(routines, want) {
		t.Errorf("Home's routine rows %v, want one for each routine Routines plans today: %v", routines, want)
	}
	if chips := home.Find(`[data-testid="chip"]`).Length(); chips != 3 {
		t.Errorf("evidence chips %d, want 3", chips)
	}
}

// checkRoutinesDay: each trial's strip holds only its own weekdays up to
// day, and Routines' Today says "to do" for exactly the timed routines
// whose trial plans day's weekday (returned, sorted), "not today" for the
// others.
func checkRoutinesDay(t *testing.T, owner *ownerClient, day time.Time) []string {
	t.Helper()
	page := owner.mustPage(http.MethodGet, "/routines", nil)
	date := day.Format(time.DateOnly)
	var scheduled []string
	lines := page.Find(`[data-testid="today-routine"]`)
	if lines.Length() == 0 {
		t.Fatal("Routines shows no Today section")
	}
	lines.Each(func(_ int, line *goquery.Selection) {
		id := line.AttrOr("data-id", "")
		card := page.Find(`#routine-` + id)
		days := trialDays(t, card.Find(`[data-testid="active-trial"]`).Text())
		planned := days[day.Weekday()]
		words := line.Find(`[data-testid="today-words"]`).Text()
		timed := !strings.HasPrefix(card.Find(`[data-testid="trigger"]`).Text(), "When ")
		var strip []string
		var badDays []string
		page.Find(`[data-testid="trial-summary"][data-id="` + id + `"] [data-testid="outcome-strip"] [data-date]`).Each(func(_ int, g *goquery.Selection) {
			d := g.AttrOr("data-date", "")
			strip = append(strip, d)
			if when, err := time.Parse(time.DateOnly, d); err != nil || !days[when.Weekday()] || d > date {
				badDays = append(badDays, d)
			}
		})
		if len(strip) == 0 {
			t.Errorf("%s: no outcome strip", id)
		}
		if len(badDays) > 0 {
			t.Errorf("%s: strip days %v are not among its trial's days %v up to %s", id, badDays, days, date)
		}
		switch {
		case !timed:
			// An event's routine is planned when the event happens, not by the day.
		case planned:
			if outcome := line.AttrOr("data-outcome", ""); outcome != "open" || !strings.HasSuffix(words, "to do") {
				t.Errorf("%s on a planned %s: Today says %q (outcome %q), want to do", id, day.Weekday(), words, outcome)
			}
			if strip[len(strip)-1] != date {
				t.Errorf("%s on a planned %s: strip ends %s, want today", id, day.Weekday(), strip[len(strip)-1])
			}
			scheduled = append(scheduled, "hearth:"+id)
		default:
			if !strings.HasPrefix(words, "not today") {
				t.Errorf("%s on an unplanned %s: Today says %q, want not today", id, day.Weekday(), words)
			}
			if strip[len(strip)-1] == date {
				t.Errorf("%s on an unplanned %s: strip holds today", id, day.Weekday())
			}
		}
	})
	slices.Sort(scheduled)
	return scheduled
}

// trialDays reads "Trying … on Mon Wed Fri," or "… on every day," into
// the weekdays it names.
func trialDays(t *testing.T, text string) map[time.Weekday]bool {
	t.Helper()
	_, on, ok := strings.Cut(text, " on ")
	on, _, _ = strings.Cut(on, ",")
	if !ok || on == "" {
		t.Fatalf("active trial %q names no days", text)
	}
	days := map[time.Weekday]bool{}
	for d := time.Sunday; d <= time.Saturday; d++ {
		days[d] = on == "every day" || slices.Contains(strings.Fields(on), d.String()[:3])
	}
	return days
}

// checkSchedulesDay adds a weekday schedule (weekdayCron) and reads on the
// Schedules page when it is next due: today at 18:00 on a weekday, else
// the next Monday, in the owner's zone across a DST change.
func checkSchedulesDay(t *testing.T, srv *server, owner *ownerClient, day time.Time) {
	t.Helper()
	ops := newScheduleCLI(t, srv, "ops", "schedules:admin")
	if res := ops.run(t, "add", "--job", "daily-brief", "--cron", weekdayCron, "--zone", "Europe/Berlin", "--prompt", "The brief.", "--id", "weekdays"); res.code != 0 {
		t.Fatalf("schedule add: exit %d, %s", res.code, res.stderr)
	}
	next := time.Date(day.Year(), day.Month(), day.Day(), 18, 0, 0, 0, day.Location())
	for next.Weekday() == time.Saturday || next.Weekday() == time.Sunday || !next.After(day) {
		next = time.Date(next.Year(), next.Month(), next.Day()+1, 18, 0, 0, 0, day.Location())
	}
	want := next.Format("Mon 2 Jan 15:04")
	if next.Format(time.DateOnly) == day.Format(time.DateOnly) {
		want = "18:00"
	}
	page := owner.mustPage(http.MethodGet, "/schedules", nil)
	row := page.Find(`[data-testid="schedule"][data-id="weekdays"]`)
	if got := row.Find(`[data-testid="schedule-next"]`).Text(); got != want {
		t.Errorf("schedule next due %q on %s, want %q (%s)", got, day.Format("Mon 2 Jan 15:04 MST"), want, next.Format(time.RFC3339))
	}
	if rule := row.Find(`[data-testid="schedule-rule"]`).Text(); rule != "Monday to Friday at 18:00 (Berlin)" {
		t.Errorf("schedule rule %q", rule)
	}
}
