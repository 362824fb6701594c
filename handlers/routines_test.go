package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/internal/contract"
	"hearth/models"
	"hearth/models/read"
)

// routineDefinition is a routine revision as the agent publishes it, citing life-health.
func routineDefinition(id string, revision int64, status string, trigger map[string]any, steps ...map[string]any) map[string]any {
	list := make([]any, len(steps))
	for i, s := range steps {
		list[i] = s
	}
	return map[string]any{"id": id, "revision": revision, "title": "Routine " + id, "purpose": "Purpose of " + id,
		"trigger": trigger, "steps": list, "completionRule": map[string]any{"kind": "all-required"},
		"status": status, "evidenceIds": []any{"life-health"}}
}

func step(id, kind string, required bool, payload map[string]any) map[string]any {
	return map[string]any{"id": id, "title": "Step " + id, "kind": kind, "required": required, "payload": payload}
}

// routineDefinitions are the catalog the tests start from: a daily
// candidate, an event routine with a reply step, a weekly ideal and a
// retired one.
func routineDefinitions() []any {
	return []any{
		routineDefinition("morning", 1, "candidate", map[string]any{"kind": "daily", "timeOfDay": "07:30"},
			step("weigh", "measurement", true, map[string]any{"metric": "weight", "unit": "kg"}), step("stretch", "task", false, map[string]any{})),
		routineDefinition("startup", 1, "candidate", map[string]any{"kind": "event", "event": "start-work"},
			step("plan", "task", true, map[string]any{}), step("answer", "reply", true, map[string]any{"chatId": "!ana-okafor:beeper.local"})),
		routineDefinition("evening", 1, "ideal", map[string]any{"kind": "weekly", "days": []any{1, 3, 5}, "timeOfDay": "21:00"},
			step("read", "task", true, map[string]any{})),
		routineDefinition("old", 1, "retired", map[string]any{"kind": "daily"}, step("walk", "task", true, map[string]any{})),
	}
}

// routineApp is an app with the demo-like publication, the routine
// catalog, and a logged-in owner. Its day is 2026-09-29 (a Tuesday) in Berlin.
func routineApp(t *testing.T) (*testApp, *http.Cookie) {
	t.Helper()
	ta := newTestApp(t, withOwner())
	pub := validPublication("run-1", 0)
	pub["routineDefinitions"] = routineDefinitions()
	ta.mustPublish(ta.agentToken(), pub.JSON())
	return ta, ta.login()
}

// form posts a plain form as the owner (htmx's header when hx).
func (ta *testApp) form(path string, values url.Values, hx bool, cookie *http.Cookie) response {
	ta.t.Helper()
	return ta.ownerRequest(http.MethodPost, path, values, hx, cookie)
}

// try starts a trial of routine@revision on every day for window days.
func (ta *testApp) try(routine string, revision, window int, cookie *http.Cookie) {
	ta.t.Helper()
	v := url.Values{"revision": {fmt.Sprint(revision)}, "windowDays": {fmt.Sprint(window)}}
	for d := 1; d <= 7; d++ {
		v.Add("days", fmt.Sprint(d))
	}
	if r := ta.form("/routines/"+routine+"/trials", v, false, cookie); r.status != http.StatusSeeOther || r.header.Get("Location") != "/routines#routine-"+routine {
		ta.t.Fatalf("try %s: %s (Location %q)", routine, r, r.header.Get("Location"))
	}
}

// routinesPage reads GET /routines and asserts 200.
func (ta *testApp) routinesPage(cookie *http.Cookie) *goquery.Document {
	ta.t.Helper()
	r := ta.get("/routines", "", cookie)
	if r.status != http.StatusOK {
		ta.t.Fatalf("GET /routines: %s", r)
	}
	return parseHTML(ta.t, r)
}

func card(t *testing.T, d *goquery.Document, id string) *goquery.Selection {
	t.Helper()
	return has(t, d, `[data-testid="routine"][data-id="`+id+`"]`)
}

func text(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

func TestRoutinesPageShowsTheCatalogByStandingWithRevisions(t *testing.T) {
	ta, cookie := routineApp(t)
	// Revision 2 of the morning routine drops the stretch; revision 1 stays.
	pub := minimalPublication("run-r2", ta.revision())
	pub["sourceRefs"] = []any{map[string]any{"id": "life-health", "kind": "life", "path": "areas/health.md",
		"contentHash": "sha256:" + strings.Repeat("2c", 32), "observedAt": testNow.Format(time.RFC3339)}}
	pub["routineDefinitions"] = []any{routineDefinition("morning", 2, "candidate", map[string]any{"kind": "daily", "timeOfDay": "07:30"},
		step("weigh", "measurement", true, map[string]any{"metric": "weight", "unit": "kg"}))}
	ta.mustPublish(ta.agentToken(), pub.JSON())

	d := ta.routinesPage(cookie)
	has(t, d, `nav a[href="/routines"][aria-current="page"]`)
	var order []string
	d.Find(`section[data-testid^="standing-"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-testid")
		order = append(order, id)
	})
	if strings.Join(order, ",") != "standing-candidate,standing-ideal,standing-retired" {
		t.Errorf("standing groups %v", order)
	}
	for id, trigger := range map[string]string{"morning": "Daily at 07:30", "startup": "When you start work", "evening": "Weekly Mon Wed Fri at 21:00", "old": "Daily"} {
		if got := text(card(t, d, id).Find(testID("trigger"))); got != trigger {
			t.Errorf("%s trigger %q, want %q", id, got, trigger)
		}
	}
	morning := card(t, d, "morning")
	if n := morning.Find(testID("definition-step")).Length(); n != 1 {
		t.Errorf("current revision shows %d steps, want r2's 1", n)
	}
	has(t, d, `[data-id="morning"] [data-testid="definition-step"][data-step="weigh"] [data-testid="required"]`)
	if got := text(morning.Find(testID("rule"))); got != "Completed when every required step is done." {
		t.Errorf("rule %q", got)
	}
	if chip := text(morning.Find(`[data-testid="chip"][data-kind="life"]`)); chip != "Health" || !strings.Contains(text(morning.Find(testID("evidence-detail"))), "areas/health.md 2c2c2c2c") {
		t.Errorf("source chip %q", chip)
	}
	revs := morning.Find(testID("revision"))
	if revs.Length() != 2 || revs.First().AttrOr("data-revision", "") != "2" || revs.First().Find(testID("current-revision")).Length() != 1 ||
		revs.Last().Find(testID("current-revision")).Length() != 0 || !strings.Contains(text(revs.Last()), "published Tue 29 Sep") {
		t.Errorf("revision history: %s", text(revs))
	}
	if opts := morning.Find(`[data-testid="try-revision"] option`); opts.Length() != 2 || opts.First().AttrOr("value", "") != "2" {
		t.Errorf("try offers %s", text(opts))
	}
	if card(t, d, "old").Find(testID("try-form")).Length() != 0 {
		t.Error("a retired routine offers Try")
	}
	// Weekday boxes start as the definition's days.
	evening := card(t, d, "evening")
	for day, want := range map[int]bool{1: true, 2: false, 3: true, 5: true, 7: false} {
		if got := evening.Find(fmt.Sprintf(`[data-testid="try-day-%d"][checked]`, day)).Length() == 1; got != want {
			t.Errorf("evening day %d checked %v", day, got)
		}
	}
	if v := morning.Find(testID("try-window")).AttrOr("value", ""); v != "14" {
		t.Errorf("review window default %q", v)
	}
	// The page follows commits live, from the revision it was read at.
	if rev := d.Find("body").AttrOr("data-revision", ""); rev != fmt.Sprint(ta.revision()) || d.Find("body").AttrOr("data-events", "") != "/events" {
		t.Errorf("body data-revision %q at revision %d", rev, ta.revision())
	}
	if d.Find(`[style]`).Length() > 0 || d.Find(`script:not([src])`).Length() > 0 {
		t.Error("inline style or script on the Routines page")
	}
}

func TestTryWorkAndCountWithDenominators(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 7, cookie)
	d := ta.routinesPage(cookie)
	has(t, d, `[data-testid="standing-active"] [data-id="morning"]`)
	morning := card(t, d, "morning")
	if got := text(morning.Find(testID("trial-progress"))); got != "(day 1 of 7)" {
		t.Errorf("trial progress %q", got)
	}
	if got := text(morning.Find(testID("count-open") + " td")); got != "1" {
		t.Errorf("open %q", got)
	}
	if got := text(morning.Find(testID("attainment"))); got != "Done 0 of 0 planned days" {
		t.Errorf("attainment before any outcome %q", got)
	}

	// Today's weigh-in on Home completes the occurrence.
	resp := ta.form("/activities/hearth:morning@"+testDate+":weigh/measurement", url.Values{"value": {"72.4"}}, true, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("weigh-in: %s", resp)
	}
	d = ta.routinesPage(cookie)
	morning = card(t, d, "morning")
	if got := text(morning.Find(testID("attainment"))); got != "Done 1 of 1 (100%) planned days" {
		t.Errorf("attainment %q", got)
	}
	if got := text(morning.Find(testID("coverage"))); got != "Coverage 1 of 1 observed (100%)" {
		t.Errorf("coverage %q", got)
	}
	if got := text(morning.Find(`[data-testid="step-metric"][data-step="weigh"] [data-testid="step-done"]`)); got != "value saved 1 of 1" {
		t.Errorf("weigh-in step %q", got)
	}
	has(t, d, `[data-id="morning"] [data-testid="outcome-strip"] g[data-date="`+testDate+`"][data-outcome="completed"]`)
	// An active trial's strip is in its summary at the top of the page.
	strip := d.Find(`[data-testid="trial-summary"][data-id="morning"] [data-testid="outcome-strip"]`)
	if label := strip.AttrOr("aria-label", ""); !strings.Contains(label, "1 completed") || strip.AttrOr("role", "") != "img" {
		t.Errorf("strip label %q", label)
	}
	if got := text(morning.Find(testID("bar-ratio"))); got != "1/1" {
		t.Errorf("bar %q", got)
	}

	// Two days later: yesterday has no record (never a failure), today is open.
	ta.clock.Advance(48 * time.Hour)
	if r := ta.get("/", "", cookie); r.status != http.StatusOK { // Home instantiates today's occurrence
		t.Fatal(r)
	}
	d = ta.routinesPage(cookie)
	morning = card(t, d, "morning")
	for id, want := range map[string]string{"count-applicable": "2", "count-completed": "1", "count-unrecorded": "1", "count-open": "1", "count-skipped": "0"} {
		if got := text(morning.Find(testID(id) + " td")); got != want {
			t.Errorf("%s %q, want %q", id, got, want)
		}
	}
	if got := text(morning.Find(testID("attainment"))); got != "Done 1 of 2 (50%) planned days" {
		t.Errorf("attainment %q", got)
	}
	if strings.Contains(strings.ToLower(text(morning)), "fail") {
		t.Error("the page calls a day a failure")
	}
	has(t, d, `[data-id="morning"] [data-testid="outcome-strip"] g[data-date="2026-09-30"][data-outcome="unrecorded"]`)
	has(t, d, `[data-id="morning"] [data-testid="past-outcome"][data-date="2026-09-30"]`)
}

func TestTryRefusesBadInputWithTheFormAgain(t *testing.T) {
	ta, cookie := routineApp(t)
	all := []string{"1", "2", "3", "4", "5", "6", "7"}
	cases := []struct {
		name, routine string
		form          url.Values
		message       string
	}{
		{"window 0", "morning", url.Values{"revision": {"1"}, "windowDays": {"0"}, "days": all}, "1 to 90 days"},
		{"window 91", "morning", url.Values{"revision": {"1"}, "windowDays": {"91"}, "days": all}, "1 to 90 days"},
		{"window not a number", "morning", url.Values{"revision": {"1"}, "windowDays": {"two weeks"}, "days": all}, "1 to 90 days"},
		{"no day", "morning", url.Values{"revision": {"1"}, "windowDays": {"14"}}, "at least one day"},
		{"retired", "old", url.Values{"revision": {"1"}, "windowDays": {"14"}, "days": all}, "retired"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			before := ta.revision()
			resp := ta.form("/routines/"+tc.routine+"/trials", tc.form, false, cookie)
			if resp.status != http.StatusUnprocessableEntity {
				t.Fatalf("got %s", resp)
			}
			d := parseHTML(t, resp)
			if msg := text(has(t, d, `[role="alert"]`)); !strings.Contains(msg, tc.message) {
				t.Errorf("message %q, want %q", msg, tc.message)
			}
			if tc.routine == "morning" {
				if v := d.Find(`[data-id="morning"] `+testID("try-window")).AttrOr("value", ""); v != tc.form.Get("windowDays") {
					t.Errorf("window not echoed: %q", v)
				}
				has(t, d, `[data-id="morning"] details[data-testid="try"][open] [data-testid="form-error"]`)
			}
			if ta.revision() != before {
				t.Error("a refused Try wrote")
			}
		})
	}
	assertPage(t, ta.form("/routines/nope/trials", url.Values{"revision": {"1"}, "days": all}, false, cookie), http.StatusNotFound, "No such routine")
}

func TestEndAndExtendTheActiveTrial(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 7, cookie)
	d := ta.routinesPage(cookie)
	trial := has(t, d, `[data-id="morning"] [data-testid="active-trial"]`).AttrOr("data-trial", "")
	resp := ta.form("/routines/trials/"+trial+"/extend", url.Values{"days": {"7"}, "routine": {"morning"}}, false, cookie)
	if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/routines#routine-morning" {
		t.Fatalf("extend: %s %q", resp, resp.header.Get("Location"))
	}
	d = ta.routinesPage(cookie)
	if got := text(card(t, d, "morning").Find(testID("active-trial"))); !strings.Contains(got, "Tue 29 Sep to Mon 12 Oct") || !strings.Contains(got, "day 1 of 14") {
		t.Errorf("extended trial %q", got)
	}
	for range 2 { // ending twice is one end
		if resp := ta.form("/routines/trials/"+trial+"/end", url.Values{"routine": {"morning"}}, false, cookie); resp.status != http.StatusSeeOther {
			t.Fatalf("end: %s", resp)
		}
	}
	d = ta.routinesPage(cookie)
	morning := card(t, d, "morning")
	if morning.AttrOr("data-standing", "") != "candidate" || morning.Find(testID("active-trial")).Length() != 0 {
		t.Errorf("after End: standing %q", morning.AttrOr("data-standing", ""))
	}
	has(t, d, `[data-id="morning"] [data-testid="trial"][data-state="ended"]`)
	before := ta.revision()
	resp = ta.form("/routines/trials/"+trial+"/extend", url.Values{"days": {"7"}}, false, cookie)
	if resp.status != http.StatusConflict || !strings.Contains(text(has(t, parseHTML(t, resp), testID("page-error"))), "has ended") {
		t.Fatalf("extend an ended trial: %s", resp)
	}
	if ta.revision() != before {
		t.Error("a refused Extend wrote")
	}
	assertPage(t, ta.form("/routines/trials/999/end", nil, false, cookie), http.StatusNotFound, "No such trial")
	assertPage(t, ta.form("/routines/trials/x/extend", url.Values{"days": {"7"}}, false, cookie), http.StatusNotFound, "No such trial")
}

// homeRow reads a row fragment, expanded, as htmx would.
func (ta *testApp) homeRow(id string, cookie *http.Cookie) *goquery.Selection {
	ta.t.Helper()
	r := ta.ownerRequest(http.MethodGet, "/activities/"+id+"?expanded=true", nil, true, cookie)
	if r.status != http.StatusOK {
		ta.t.Fatalf("row %s: %s", id, r)
	}
	return parseHTML(ta.t, r).Find(`li[data-row][data-id="` + id + `"]`)
}

func TestOccurrenceOutcomeControlsOnHome(t *testing.T) {
	occ := "hearth:morning@" + testDate
	cases := []struct {
		name    string
		form    url.Values
		status  int
		state   string
		label   string
		message string
	}{
		{"skip with a reason", url.Values{"state": {"skipped"}, "note": {"late start"}}, 200, "skipped", "skipped", ""},
		{"skip without a reason", url.Values{"state": {"skipped"}}, 200, "skipped", "skipped", ""},
		{"not applicable without a reason", url.Values{"state": {"dismissed"}, "note": {" "}}, 422, "", "", "Not applicable needs a reason"},
		{"not applicable with a reason", url.Values{"state": {"dismissed"}, "note": {"sick day"}}, 200, "dismissed", "not applicable", ""},
		{"partly done", url.Values{"state": {"partial"}}, 200, "partial", "partly done", ""},
		{"tomorrow", url.Values{"state": {"deferred"}, "until": {"2026-09-30"}}, 200, "deferred", "deferred to Wed 30 Sep", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta, cookie := routineApp(t)
			ta.try("morning", 1, 7, cookie)
			row := ta.homeRow(occ, cookie)
			for _, id := range []string{"outcome-partial", "outcome-skip", "outcome-not-applicable", "defer-tomorrow", "outcome-reason"} {
				if row.Find(testID(id)).Length() != 1 {
					t.Fatalf("no %s on the occurrence", id)
				}
			}
			before := ta.revision()
			resp := ta.form("/activities/"+occ+"/state", tc.form, true, cookie)
			if resp.status != tc.status {
				t.Fatalf("got %s", resp)
			}
			d := parseHTML(t, resp)
			if tc.message != "" {
				if msg := text(has(t, d, testID("row-error"))); !strings.Contains(msg, tc.message) {
					t.Errorf("error %q", msg)
				}
				if v := d.Find(testID("outcome-reason")).AttrOr("value", "-"); v != strings.TrimSpace(tc.form.Get("note")) {
					t.Errorf("reason not echoed: %q", v)
				}
				if ta.revision() != before {
					t.Error("a refused outcome wrote")
				}
				return
			}
			got := d.Find(`li[data-row][data-id="` + occ + `"]`)
			label := text(got.ChildrenFiltered("a.row-head").Find(testID("row-state")))
			if got.AttrOr("data-state", "") != tc.state || label != tc.label {
				t.Errorf("state %q label %q", got.AttrOr("data-state", ""), label)
			}
			wantFeedback := tc.state == "skipped" || tc.state == "partial"
			if (got.Find(testID("feedback")).Length() == 1) != wantFeedback {
				t.Errorf("feedback offered: %v, want %v", got.Find(testID("feedback")).Length() == 1, wantFeedback)
			}
		})
	}
}

func TestStepCompletionCompletesTheOccurrenceAndFeedbackFollows(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 7, cookie)
	occ := "hearth:morning@" + testDate
	feedback := "/routines/occurrences/morning@" + testDate + "/feedback"
	r := ta.form(feedback, url.Values{"effort": {"easy"}}, true, cookie)
	if r.status != http.StatusConflict || !strings.Contains(text(has(t, parseHTML(t, r), testID("row-error"))), "outcome first") {
		t.Fatalf("feedback before an outcome: %s", r)
	}
	// Without JavaScript (or before htmx is ready) a step's link keeps its routine open.
	step := ta.homeRow(occ, cookie).Find(`li[data-id="` + occ + `:weigh"] > a.row-head`)
	if href := step.AttrOr("href", ""); href != "/?open="+url.QueryEscape(occ+","+occ+":weigh")+"#row-"+occ+":weigh" {
		t.Errorf("step link %q", href)
	}
	if r := ta.form("/activities/"+occ+":weigh/measurement", url.Values{"value": {"72,4"}}, true, cookie); r.status != http.StatusOK {
		t.Fatalf("weigh-in: %s", r)
	}
	row := ta.homeRow(occ, cookie)
	if row.AttrOr("data-state", "") != "completed" || row.Find(testID("feedback")).Length() != 1 {
		t.Fatalf("after the required step: state %q", row.AttrOr("data-state", ""))
	}
	r = ta.form(feedback, url.Values{"effort": {"hard"}}, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("effort: %s", r)
	}
	d := parseHTML(t, r)
	if d.Find(`[data-testid="feedback-effort-hard"][aria-pressed="true"]`).Length() != 1 || text(d.Find(testID("feedback-effort-chosen"))) != "You said: Hard" {
		t.Errorf("effort not shown as chosen")
	}
	if r := ta.form(feedback, url.Values{"helped": {"yes"}}, false, cookie); r.status != http.StatusSeeOther ||
		r.header.Get("Location") != "/?open="+url.QueryEscape(occ)+"#row-"+url.PathEscape(occ) {
		t.Fatalf("plain feedback form: %s %q", r, r.header.Get("Location"))
	}
	row = ta.homeRow(occ, cookie)
	if text(row.Find(testID("feedback-helped-chosen"))) != "You said: Yes" || text(row.Find(testID("feedback-effort-chosen"))) != "You said: Hard" {
		t.Errorf("both answers kept: %s", text(row.Find(testID("feedback"))))
	}
	before := ta.revision()
	if r := ta.form(feedback, url.Values{"effort": {"brutal"}}, true, cookie); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("unknown effort: %s", r)
	}
	if ta.revision() != before {
		t.Error("refused feedback wrote")
	}
	assertError(t, ta.form("/routines/occurrences/nope@2026-09-29/feedback", url.Values{"effort": {"ok"}}, true, cookie), http.StatusNotFound, "not_found")
	d = ta.routinesPage(cookie)
	if got := text(card(t, d, "morning").Find(testID("feedback-counts"))); !strings.Contains(got, "hard 1 (1 answered)") || !strings.Contains(got, "yes 1") {
		t.Errorf("feedback counts %q", got)
	}
}

func TestStartWorkMakesOneOccurrenceOnADoubleTap(t *testing.T) {
	ta, cookie := routineApp(t)
	if has(t, ta.get("/", "", cookie).doc(t), testID("live")).Find(testID("events")).Length() != 0 {
		t.Fatal("Start work offered before any event routine is tried")
	}
	ta.try("startup", 1, 14, cookie)
	home := ta.get("/", "", cookie).doc(t)
	has(t, home, `[data-testid="event-start-work"][data-done="false"]`)
	occ := "hearth:startup@" + testDate + ".start-work"
	r := ta.form("/routines/events/start-work", nil, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("tap (htmx): %s", r)
	}
	live := parseHTML(t, r)
	has(t, live, `#live li[data-row][data-id="`+occ+`"]`)
	has(t, live, testID("event-done-start-work"))
	if r := ta.form("/routines/events/start-work", nil, false, cookie); r.status != http.StatusSeeOther || r.header.Get("Location") != "/" {
		t.Fatalf("second tap (plain): %s", r)
	}
	if n := ta.get("/", "", cookie).doc(t).Find(`li[data-row][data-id^="hearth:startup@"]`).Length(); n != 1 {
		t.Fatalf("%d startup occurrences after two taps", n)
	}
	assertError(t, ta.form("/routines/events/lunch", nil, true, cookie), http.StatusNotFound, "not_found")

	// Its reply step has no draft: it points to Messages.
	step := ta.homeRow(occ, cookie).Find(`li[data-row][data-id="` + occ + `:answer"]`)
	if step.Length() != 1 {
		t.Fatal("no reply step")
	}
	step = ta.homeRow(occ+":answer", cookie)
	if href := step.Find(testID("reply-in-messages")).AttrOr("href", ""); href != "/messages/%21ana-okafor:beeper.local" {
		t.Errorf("reply link %q", href)
	}
	if !strings.Contains(text(step.Find(testID("routine-reply-hint"))), "confirmed send there completes it") || strings.Contains(text(step), "missing") {
		t.Errorf("reply step says %q", text(step))
	}
	// An occasion with a '.' in its ID takes feedback too.
	if r := ta.form("/activities/"+occ+"/state", url.Values{"state": {"skipped"}}, true, cookie); r.status != http.StatusOK {
		t.Fatal(r)
	}
	if r := ta.form("/routines/occurrences/startup@"+testDate+".start-work/feedback", url.Values{"helped": {"unsure"}}, true, cookie); r.status != http.StatusOK ||
		parseHTML(t, r).Find(`[data-testid="feedback-helped-unsure"][aria-pressed="true"]`).Length() != 1 {
		t.Fatalf("feedback on an event occurrence: %s", r)
	}
}

func TestIDidItYesterdayRecordsAnEarlierDay(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 14, cookie)
	ta.clock.Advance(48 * time.Hour) // Sept 30 passed with no record
	d := ta.routinesPage(cookie)
	has(t, d, `[data-id="morning"] [data-testid="past-outcome"][data-date="2026-09-30"]`)
	before := ta.revision()
	resp := ta.form("/routines/morning/outcomes", url.Values{"date": {"2026-09-30"}, "outcome": {"not-applicable"}, "reason": {""}}, false, cookie)
	if resp.status != http.StatusUnprocessableEntity {
		t.Fatalf("not applicable without a reason: %s", resp)
	}
	d = parseHTML(t, resp)
	form := has(t, d, `[data-id="morning"] [data-testid="past-outcome"][data-date="2026-09-30"]`)
	if msg := text(form.Find(testID("form-error"))); !strings.Contains(msg, "needs a reason") {
		t.Errorf("error %q", msg)
	}
	if form.Find(`option[value="not-applicable"][selected]`).Length() != 1 {
		t.Error("the chosen outcome was not kept")
	}
	if ta.revision() != before {
		t.Error("a refused record wrote")
	}
	resp = ta.form("/routines/morning/outcomes", url.Values{"date": {"2026-09-30"}, "outcome": {"completed"}}, false, cookie)
	if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/routines#routine-morning" {
		t.Fatalf("record: %s", resp)
	}
	d = ta.routinesPage(cookie)
	has(t, d, `[data-id="morning"] [data-testid="outcome-strip"] g[data-date="2026-09-30"][data-outcome="completed"]`)
	if d.Find(`[data-id="morning"] [data-testid="past-outcome"][data-date="2026-09-30"]`).Length() != 0 {
		t.Error("the recorded day is still offered")
	}
	if got := text(card(t, d, "morning").Find(testID("count-completed") + " td")); got != "1" {
		t.Errorf("completed %q", got)
	}
	// Today is recorded on Home, not here.
	resp = ta.form("/routines/morning/outcomes", url.Values{"date": {"2026-10-01"}, "outcome": {"completed"}}, false, cookie)
	if resp.status != http.StatusUnprocessableEntity || !strings.Contains(text(has(t, parseHTML(t, resp), `[role="alert"]`)), "Home") {
		t.Fatalf("today: %s", resp)
	}
}

// review is an agent review of morning r1 over the trial's first week.
func morningReview() map[string]any {
	return map[string]any{"id": "rv-1", "routineId": "morning", "revision": 1,
		"window":       map[string]any{"from": testDate, "to": "2026-10-05"},
		"observations": []any{"Weigh-ins happened before breakfast"}, "uncertainties": []any{"One week is little data"},
		"proposals":   []any{map[string]any{"id": "p1", "text": "Drop the stretch on weekends"}, map[string]any{"id": "p2", "text": "Move it to 08:00"}},
		"evidenceIds": []any{"life-health"}}
}

func TestProposalDecisionsBecomeRequestsForTheAgent(t *testing.T) {
	ta, cookie := routineApp(t)
	token := ta.agentToken()
	ta.try("morning", 1, 7, cookie)
	ta.clock.Advance(7 * 24 * time.Hour)
	pub := minimalPublication("run-review", ta.revision())
	pub["reviews"] = []any{morningReview()}
	ta.mustPublish(token, pub.JSON())
	d := ta.routinesPage(cookie)
	rv := has(t, d, `[data-testid="review"][data-id="rv-1"]`)
	if got := text(rv.Find(testID("review-based-on"))); !strings.Contains(got, "0 of 7 (0%) completed") || !strings.Contains(got, "7 no record") {
		t.Errorf("based on %q", got)
	}
	if rv.Find(testID("review-current")).Length() != 0 {
		t.Error("current counts shown though nothing changed")
	}
	id := rv.Find(`[data-testid="proposal"][data-id="p1"] input[name="requestId"]`).AttrOr("value", "")
	if !strings.HasPrefix(id, "req-") || id == rv.Find(`[data-testid="proposal"][data-id="p2"] input[name="requestId"]`).AttrOr("value", "") {
		t.Fatalf("proposal request IDs %q", id)
	}
	// The page is served from the cache between commits, but never with another response's IDs.
	other := ta.routinesPage(cookie).Find(`[data-testid="proposal"][data-id="p1"] input[name="requestId"]`).AttrOr("value", "")
	if other == id || !strings.HasPrefix(other, "req-") {
		t.Fatalf("a second device got request ID %q beside %q", other, id)
	}
	path := "/routines/reviews/rv-1/proposals/p1"
	before := ta.revision()
	resp := ta.form(path, url.Values{"requestId": {id}, "decision": {"modify"}, "words": {"  "}}, false, cookie)
	if resp.status != http.StatusUnprocessableEntity {
		t.Fatalf("modify without words: %s", resp)
	}
	p1 := has(t, parseHTML(t, resp), `[data-testid="proposal"][data-id="p1"]`)
	if !strings.Contains(text(p1.Find(testID("form-error"))), "how you would change it") || p1.Find(`input[name="requestId"]`).AttrOr("value", "") != id {
		t.Errorf("refused modify: %s", text(p1))
	}
	if ta.revision() != before {
		t.Error("a refused decision wrote")
	}
	for range 2 { // a double submit is one decision
		if r := ta.form(path, url.Values{"requestId": {id}, "decision": {"adopt"}}, false, cookie); r.status != http.StatusSeeOther || r.header.Get("Location") != "/routines#review-rv-1" {
			t.Fatalf("adopt: %s", r)
		}
	}
	if r := ta.form(path, url.Values{"requestId": {"req-other-device"}, "decision": {"reject"}}, false, cookie); r.status != http.StatusConflict ||
		!strings.Contains(text(has(t, parseHTML(t, r), `[data-id="p1"] [data-testid="form-error"]`)), "already decided") {
		t.Fatalf("a second decision: %s", r)
	}
	if r := ta.form("/routines/reviews/rv-1/proposals/p2", url.Values{"requestId": {"req-p2-decision"}, "decision": {"modify"}, "words": {"09:00, after coffee"}}, false, cookie); r.status != http.StatusSeeOther {
		t.Fatalf("modify: %s", r)
	}
	assertPage(t, ta.form("/routines/reviews/rv-1/proposals/p9", url.Values{"requestId": {"req-p9"}, "decision": {"adopt"}}, false, cookie), http.StatusNotFound, "No such review proposal")

	ac, err := read.Of(ta.store).AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var mine []contract.RequestView
	for _, r := range ac.Requests.Items {
		if r.Kind == contract.RequestRoutineChange {
			mine = append(mine, r)
		}
	}
	if len(mine) != 2 {
		t.Fatalf("routine-change requests %+v", mine)
	}
	d = ta.routinesPage(cookie)
	if got := text(has(t, d, `[data-id="p1"] [data-testid="proposal-decision"]`)); got != "You adopted it: sent to the agent (pending)" {
		t.Errorf("p1 %q", got)
	}
	if d.Find(`[data-id="p1"] [data-testid="proposal-form"]`).Length() != 0 {
		t.Error("a decided proposal still offers its form")
	}
	// The agent completes the adopted one; a late record changes the window's counts.
	done := completion(t, ta, "run-adopted", id, []any{"life-ana"}, []any{lifeRef})
	ta.mustPublish(token, done.JSON())
	if err := ta.store.RecordPastOutcome(context.Background(), models.PastOutcomeCommand{RoutineID: "morning", Date: "2026-10-05", Outcome: "completed"}); err != nil {
		t.Fatal(err)
	}
	d = ta.routinesPage(cookie)
	if got := text(has(t, d, `[data-id="p1"] [data-testid="proposal-status"]`)); got != "sent to the agent (completed)" {
		t.Errorf("p1 after the agent's publication %q", got)
	}
	if got := text(has(t, d, `[data-id="rv-1"] [data-testid="review-current"]`)); !strings.Contains(got, "1 of 7 (14%) completed") {
		t.Errorf("current counts %q", got)
	}
}

func TestAgentCredentialIsForbiddenOnRoutineRoutes(t *testing.T) {
	ta, cookie := routineApp(t)
	token := ta.agentToken()
	routes := []struct{ method, path string }{
		{http.MethodGet, "/routines"},
		{http.MethodPost, "/routines/morning/trials"},
		{http.MethodPost, "/routines/morning/outcomes"},
		{http.MethodPost, "/routines/trials/1/end"},
		{http.MethodPost, "/routines/trials/1/extend"},
		{http.MethodPost, "/routines/reviews/rv-1/proposals/p1"},
		{http.MethodPost, "/routines/events/start-work"},
		{http.MethodPost, "/routines/occurrences/morning@2026-09-29/feedback"},
	}
	before := ta.revision()
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			ta := ta.in(t)
			req := httptest.NewRequest(rt.method, rt.path, strings.NewReader("revision=1&days=1"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", "Bearer "+token)
			req.AddCookie(cookie) // a bearer token wins over the cookie beside it
			assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
		})
	}
	if ta.revision() != before {
		t.Error("an agent request wrote")
	}
}

func TestAKeptRoutineCardFollowsAPublicationThatOnlyChangesItsSource(t *testing.T) {
	ta, cookie := routineApp(t)
	chip := func() string {
		return text(ta.routinesPage(cookie).Find(`[data-id="morning"] [data-testid="evidence-detail"]`))
	}
	if got := chip(); !strings.Contains(got, "1b1b1b1b") {
		t.Fatalf("source chip %q", got)
	}
	// Only the life file's hash changes: no routine is named, yet the card must not be served as kept.
	pub := minimalPublication("run-source", ta.revision())
	pub["sourceRefs"] = []any{map[string]any{"id": "life-health", "kind": "life", "path": "areas/health.md",
		"contentHash": "sha256:" + strings.Repeat("9e", 32), "observedAt": "2026-09-29T06:00:00Z"}}
	ta.mustPublish(ta.agentToken(), pub.JSON())
	if got := chip(); !strings.Contains(got, "9e9e9e9e") {
		t.Fatalf("after the source changed the card still shows %q", got)
	}
}
