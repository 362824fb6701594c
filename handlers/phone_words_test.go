package handlers_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"hearth/models"
)

// ownerText is what the owner reads on a page: its text without the
// operator's detail (the details elements marked .tech, one tap away).
func ownerText(d *goquery.Document) string {
	c := goquery.CloneDocument(d)
	c.Find("details.tech, script").Remove()
	return strings.Join(strings.Fields(c.Find("body").Text()), " ")
}

// identifiers are what an owner's page must not show outside the operator's details.
var identifiers = []string{"!ana-okafor:beeper.local", "people/ana-okafor.md", "areas/health.md", "4a4a4a4a", "revision", "evidence refs"}

func TestOwnerPagesNameThingsInWordsNotIdentifiers(t *testing.T) {
	ta, cookie := homeApp(t)
	for _, page := range []string{"/", "/people"} {
		d := ta.get(page, "", cookie).doc(t)
		txt := ownerText(d)
		for _, id := range identifiers {
			if strings.Contains(txt, id) {
				t.Errorf("%s shows %q: %s", page, id, txt)
			}
		}
		// Chips name the person, file or chat and open what they cite.
		ana := has(t, d, `[data-testid="chip"] a[href="/people#person-ana-okafor"]`)
		chat := has(t, d, `[data-testid="chip"] a[href="/messages/%21ana-okafor:beeper.local"]`)
		if text(ana.First()) != "Ana Okafor" || text(chat.First()) != "Chat with Ana Okafor" {
			t.Errorf("%s: chips %q, %q", page, text(ana), text(chat))
		}
		// The operator's detail is one tap away.
		if tech := text(d.Find("details.tech")); !strings.Contains(tech, "people/ana-okafor.md") || !strings.Contains(tech, "!ana-okafor:beeper.local") {
			t.Errorf("%s: operator detail %q", page, tech)
		}
	}
	if txt := ownerText(ta.get("/", "", cookie).doc(t)); !strings.Contains(txt, "Health") {
		t.Errorf("Home names no file title: %s", txt)
	}
}

func TestSchedulesReadAsWordsInTheirZone(t *testing.T) {
	ta := newTestApp(t, withOwner())
	ta.mustPublish(ta.agentToken(), validPublication("run-1", 0).JSON())
	cookie := ta.login()
	ops := ta.agentToken(models.ScopeSchedulesAdmin)
	for _, sc := range []struct{ id, cron, zone string }{
		{"daily", "30 6 * * *", "Europe/Berlin"},
		{"weekdays", "0 18 * * 1-5", "Europe/Berlin"},
		{"monthly", "0 9 1 * *", "UTC"},
	} {
		body := `{"requestKey":"k-` + sc.id + `","id":"` + sc.id + `","job":"brief","cron":"` + sc.cron + `","zone":"` + sc.zone + `","prompt":"Write."}`
		if r := ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, body); r.status != http.StatusCreated {
			t.Fatalf("create %s: %s", sc.id, r)
		}
	}
	d := schedulePage(t, ta, cookie).doc(t)
	txt := ownerText(d)
	for _, want := range []string{"every day at 06:30 (Berlin)", "Monday to Friday at 18:00 (Berlin)", "on day 1 of every month at 09:00 (UTC)"} {
		if !strings.Contains(txt, want) {
			t.Errorf("schedules page lacks %q: %s", want, txt)
		}
	}
	for _, id := range []string{"cron", "30 6 * * *", "1-5"} {
		if strings.Contains(txt, id) {
			t.Errorf("schedules page shows %q: %s", id, txt)
		}
	}
	if tech := text(d.Find(`[data-id="daily"] details.tech`)); !strings.Contains(tech, "30 6 * * *") {
		t.Errorf("the cron string is not one tap away: %q", tech)
	}
}

// TestOwnerSeesEveryTimeInTheirZoneNamedOnce: a schedule kept in UTC shows
// its next time in the owner's zone (Berlin, from the brief), and each page
// that shows times
// names that zone once.
func TestOwnerSeesEveryTimeInTheirZoneNamedOnce(t *testing.T) {
	ta, cookie := homeApp(t)
	ta.mustCreateSchedule(ta.agentToken(models.ScopeSchedulesAdmin), "k", "q") // 08:00 UTC daily
	d := schedulePage(t, ta, cookie).doc(t)
	// 2026-09-29 07:00 UTC: the next 08:00 UTC is 10:00 in Berlin (CEST).
	if next := text(has(t, d, `[data-testid="schedule-next"]`)); !strings.Contains(next, "10:00") || strings.Contains(next, "UTC") {
		t.Errorf("next due %q, want 10:00 in the owner's zone", next)
	}
	for _, page := range []string{"/", "/routines", "/schedules", "/runs"} {
		d := ta.get(page, "", cookie).doc(t)
		zone := d.Find(`[data-testid="zone"]`)
		if zone.Length() != 1 || !strings.Contains(text(zone), "Berlin") {
			t.Errorf("%s: zone named %d times (%q), want once, Berlin", page, zone.Length(), text(zone))
		}
		if n := strings.Count(ownerText(d), "Europe/Berlin"); n > 1 {
			t.Errorf("%s: Europe/Berlin named %d times", page, n)
		}
	}
}

var revisionNumber = regexp.MustCompile(`\br\d+\b`)

// TestRoutinesFirstScreenAnswersHowThisWeekGoes: an active trial shows its
// attainment with the denominator, coverage and strip up front, in words and
// dates like "Tue 29 Sep"; the tables of counts and the legend are behind a
// details element, and no revision number shows.
func TestRoutinesFirstScreenAnswersHowThisWeekGoes(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 14, cookie)
	d := ta.routinesPage(cookie)
	summary := has(t, d, `[data-testid="trial-summary"][data-id="morning"]`)
	if summary.Closest("details").Length() != 0 {
		t.Error("the trial summary is inside a details element")
	}
	// Today, then the summaries, come before the catalog.
	var sections []string
	d.Find(`main > section[data-testid]`).Each(func(_ int, s *goquery.Selection) { sections = append(sections, s.AttrOr("data-testid", "")) })
	if len(sections) < 2 || sections[0] != "today" || sections[1] != "this-week" {
		t.Errorf("the page's sections are %v, want today and this-week first", sections)
	}
	st := text(summary)
	for _, want := range []string{"Routine morning", "0 of 0", "Coverage", "Tue 29 Sep", "day 1 of 14"} {
		if !strings.Contains(st, want) {
			t.Errorf("summary lacks %q: %s", want, st)
		}
	}
	if summary.Find(`[data-testid="outcome-strip"]`).Length() != 1 {
		t.Error("the summary has no strip")
	}
	for _, sel := range []string{`[data-testid="counts"]`, `.legend`, `[data-testid="step-metrics"]`} {
		d.Find(sel).Each(func(_ int, s *goquery.Selection) {
			if s.Closest("details").Length() == 0 {
				t.Errorf("%s is on the first screen, not behind a details element", sel)
			}
		})
	}
	txt := ownerText(d)
	if m := revisionNumber.FindString(txt); m != "" {
		t.Errorf("routines page shows revision number %q: %s", m, txt)
	}
	if strings.Contains(txt, "2026-09-29") {
		t.Errorf("routines page shows an ISO date: %s", txt)
	}
}

func TestMoreListsSchedulesRunsAndLogOut(t *testing.T) {
	ta, cookie := homeApp(t)
	d := ta.get("/more", "", cookie).doc(t)
	has(t, d, `nav a[href="/more"][aria-current="page"]`)
	has(t, d, `[data-testid="more"] a[href="/schedules"]`)
	has(t, d, `[data-testid="more"] a[href="/runs"]`)
	has(t, d, `form[action="/logout"][method="post"] [data-testid="logout"]`)
	// The tabs are the same on every page: five, More among them.
	if n := d.Find(`nav[aria-label="Main"] a`).Length(); n != 5 {
		t.Errorf("%d tabs, want 5", n)
	}
	if r := ta.get("/more", "", nil); r.status != http.StatusSeeOther {
		t.Errorf("GET /more without a session: %s", r)
	}
}

// TestAFailedRunSaysWhatTheOwnerCanDo: Home and Runs say what happened and
// what to do; the agent's error text is the operator's, one tap away.
func TestAFailedRunSaysWhatTheOwnerCanDo(t *testing.T) {
	ta := newTestApp(t, withOwner())
	token := ta.agentToken()
	cookie := ta.login()
	ta.do(agentPost(token, "/api/runs", map[string]any{"runId": "run-1", "job": "morning-brief", "trigger": "manual"}))
	ta.do(agentPost(token, "/api/runs/run-1/invocations", nil))
	if r := ta.do(agentPost(token, "/api/runs/run-1/finish", map[string]any{"outcome": "failed", "detail": "exit status 3"})); r.status != http.StatusOK {
		t.Fatalf("finish: %s", r)
	}
	home := ta.get("/", "", cookie).doc(t)
	if got := text(has(t, home, `[data-testid="run-failed"]`)); strings.Contains(got, "exit status 3") || !strings.Contains(got, "next scheduled run tries again") {
		t.Errorf("Home's notice: %q", got)
	}
	runs := ta.get("/runs", "", cookie).doc(t)
	if got := text(has(t, runs, `[data-testid="last-failure"]`)); strings.Contains(got, "exit status 3") || !strings.Contains(got, "ask for a refresh") {
		t.Errorf("Runs' notice: %q", got)
	}
	if got := text(has(t, runs, `[data-testid="last-failure-detail"]`)); !strings.Contains(got, "exit status 3") {
		t.Errorf("the error is not one tap away: %q", got)
	}
	has(t, runs, `[data-testid="run"][data-id="run-1"] [data-testid="run-advice"]`)
}
