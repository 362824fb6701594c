package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"hearth/internal/storetest"
)

// before reports whether a comes before b in the document.
func before(t *testing.T, html, a, b string) bool {
	t.Helper()
	i, j := strings.Index(html, a), strings.Index(html, b)
	if i < 0 || j < 0 {
		t.Fatalf("%q at %d, %q at %d", a, i, b, j)
	}
	return i < j
}

func TestHomesFirstActionIsWhatTheBriefNamesFirst(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("startup", 1, 14, cookie)
	r := ta.get("/", "", cookie)
	d := r.doc(t)
	// "Weigh in and stretch, then answer Ana": the weigh-in is the first action.
	first := has(t, d, testID("first-action"))
	if id, _ := first.Attr("data-id"); id != "weigh-in-"+testDate {
		t.Fatalf("first action is %q, want the weigh-in", id)
	}
	has(t, d, testID("first-action")+" "+testID("weigh-in-value"))
	if !before(t, string(r.body), `data-testid="first-action"`, `data-testid="event-start-work"`) {
		t.Error("Start work comes before the brief's first action")
	}
	if start := has(t, d, testID("event-start-work")); !start.HasClass("secondary") {
		t.Error("Start work is the loudest button while the brief says weigh in first")
	}
	if n := d.Find("h1").Length(); n != 1 {
		t.Errorf("Home has %d h1, want 1", n)
	}
	// Saved from there, the weigh-in is done and the next thing the brief names is first.
	live := ta.form("/weight/entries", url.Values{"value": {"82,4"}, "from": {"home"}}, true, cookie)
	if live.status != http.StatusOK {
		t.Fatalf("weigh in from Home: %s", live)
	}
	ld := live.doc(t)
	if got := text(has(t, ld, testID("weigh-in-trend"))); !strings.Contains(got, "Trend 82.4 kg") {
		t.Errorf("the save says %q, want the trend", got)
	}
	if id, _ := has(t, ld, testID("first-action")).Attr("data-id"); id != "reply-ana-hike" {
		t.Errorf("after the weigh-in the first action is %q, want Ana's reply", id)
	}
}

func TestStartWorkIsAQuietStateOnceStarted(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("startup", 1, 14, cookie)
	if r := ta.form("/routines/events/start-work", nil, false, cookie); r.status != http.StatusSeeOther {
		t.Fatalf("start work: %s", r)
	}
	d := ta.get("/", "", cookie).doc(t)
	if n := d.Find(testID("event-start-work")).Length(); n != 0 {
		t.Error("Start work is still a button after work started")
	}
	if got := text(has(t, d, testID("event-done-start-work"))); got != "Work started today" {
		t.Errorf("quiet state %q", got)
	}
}

func TestWeightPageRecordsAWeighInAndSaysTheTrendChange(t *testing.T) {
	ta, cookie := homeApp(t)
	has(t, ta.get("/weight", "", cookie).doc(t), `form[action="/weight/entries"] `+testID("weigh-in-value"))
	r := ta.form("/weight/entries", url.Values{"value": {"abc"}}, false, cookie)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("not a number: %s", r)
	}
	if got := text(has(t, r.doc(t), testID("weigh-in-error"))); got != "Enter a number, like 72.4." {
		t.Errorf("refusal %q", got)
	}
	r = ta.form("/weight/entries", url.Values{"value": {"82.4"}}, false, cookie)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/weight?saved=1#weigh-in" {
		t.Fatalf("save: %s (Location %q)", r, r.header.Get("Location"))
	}
	d := ta.get("/weight?saved=1", "", cookie).doc(t)
	if got := text(has(t, d, testID("weigh-in-saved"))); !strings.Contains(got, "Trend 82.4 kg") {
		t.Errorf("after saving: %q", got)
	}
	// The day's planned weigh-in is what was saved: Home asks no more.
	row := ta.homeRow("weigh-in-"+testDate, cookie)
	if st, _ := row.Attr("data-state"); st != "completed" {
		t.Errorf("Home's weigh-in is %q after the weight page's save", st)
	}
	if got := text(row.Find(testID("trend-note"))); !strings.Contains(got, "Trend 82.4 kg") {
		t.Errorf("Home's weigh-in row says %q", got)
	}
}

func TestHomeHasItsOwnWeightFieldOnADayWithoutAPlannedWeighIn(t *testing.T) {
	ta := newTestApp(t, withOwner())
	pub := storetest.NewPublication("run-1", 0).Add("activities", storetest.Task("call-mum"))
	ta.mustPublish(ta.agentToken(), pub.JSON())
	cookie := ta.login()
	d := ta.get("/", "", cookie).doc(t)
	has(t, d, testID("quick-weight")+` form[action="/weight/entries"] `+testID("weigh-in-value"))
	r := ta.form("/weight/entries", url.Values{"value": {"80.5"}, "from": {"home"}}, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("weigh in: %s", r)
	}
	ld := r.doc(t)
	if got := text(has(t, ld, testID("weigh-in-trend"))); !strings.Contains(got, "80.5 kg") || !strings.Contains(got, "Trend 80.5 kg") {
		t.Errorf("after the weigh-in: %q", got)
	}
	if ld.Find(testID("quick-weight")+" "+testID("weigh-in-value")).Length() != 0 {
		t.Error("the field still asks after today's weigh-in")
	}
	r = ta.form("/weight/entries", url.Values{"value": {"7000"}, "from": {"home"}}, true, cookie)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(text(r.doc(t).Find(testID("weigh-in-error"))), "between 20 and 400 kg") {
		t.Errorf("7000 kg: %s", r)
	}
}

func TestTheUndoOfAnyActionIsOneBarAtTheEndOfHome(t *testing.T) {
	ta, cookie := homeApp(t)
	// A step's tick is answered by its routine's row alone: the bar comes with it.
	r := ta.form("/activities/stretch-"+testDate+"/state", url.Values{"state": {"completed"}, "expanded": {"false"}}, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("tick: %s", r)
	}
	dock := has(t, r.doc(t), `#undo-dock[hx-swap-oob]`)
	if got := text(dock); dock.Find(testID("undo")).Length() != 1 || !strings.Contains(got, "Stretch for ten minutes: Done") {
		t.Fatalf("the row's answer brings no Undo bar: %q", got)
	}
	if r := ta.form("/activities/book-bike-service/state", url.Values{"state": {"completed"}}, true, cookie); r.status != http.StatusOK {
		t.Fatalf("complete: %s", r)
	}
	d := ta.get("/", "", cookie).doc(t)
	dock = has(t, d, `#live > #undo-dock`+testID("undo-dock"))
	if got := text(dock); !strings.Contains(got, "Book the bike service") || !strings.Contains(got, "Done") {
		t.Errorf("undo bar %q", got)
	}
	if d.Find(`#live > *`).Last().AttrOr("id", "") != "undo-dock" {
		t.Error("the undo bar is not at the end of Home's live part")
	}
	// A move off Home is undone from the same bar, not from the top.
	r = ta.form("/activities/reply-ana-hike/state", url.Values{"state": {"dismissed"}}, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("dismiss: %s", r)
	}
	has(t, r.doc(t), `#undo-dock `+testID("undone-notice")+` `+testID("undo"))
}

func TestARoutinesStepIsTickedFromItsCollapsedRow(t *testing.T) {
	ta, cookie := homeApp(t)
	routine := "morning-routine-" + testDate
	d := ta.get("/", "", cookie).doc(t)
	row := has(t, d, `li[data-row][data-id="`+routine+`"][data-expanded="false"]`)
	tick := row.Find(`form[action="/activities/stretch-` + testDate + `/state"] ` + testID("step-tick"))
	if tick.Length() != 1 {
		t.Fatalf("no tick for the stretch on the collapsed routine")
	}
	r := ta.form("/activities/stretch-"+testDate+"/state", url.Values{"state": {"completed"}, "expanded": {"false"}, "answer": {"live"}}, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("tick: %s", r)
	}
	rd := r.doc(t)
	got := has(t, rd, `#live li[data-row][data-id="`+routine+`"]`)
	if exp, _ := got.Attr("data-expanded"); exp != "false" {
		t.Error("ticking a step opened its routine")
	}
	if p := text(got.Find(`a.row-head ` + testID("progress"))); p != "1/2" {
		t.Errorf("progress %q, want 1/2", p)
	}
}

// The phone's queue sends a weigh-in again when the first send's answer
// was lost: the replay answers as the first did and saves nothing more.
func TestAWeighInSentAgainWithItsClientKeyIsSavedOnce(t *testing.T) {
	ta, cookie := routineApp(t)
	form := url.Values{"value": {"82,4"}, "from": {"home"}, "clientKey": {"ck-0123456789abcdef"}}
	for i := 0; i < 2; i++ {
		r := ta.form("/weight/entries", form, true, cookie)
		if r.status != http.StatusOK {
			t.Fatalf("send %d: %s", i+1, r)
		}
		if got := text(has(t, r.doc(t), testID("weigh-in-trend"))); !strings.Contains(got, "Trend 82.4 kg") {
			t.Errorf("send %d says %q, want the trend", i+1, got)
		}
	}
	d := ta.get("/weight", "", cookie).doc(t)
	if n := d.Find(testID("weight-entry")).Length(); n != 1 {
		t.Errorf("%d weigh-ins listed, want the one", n)
	}
	bad := url.Values{"value": {"82,4"}, "from": {"home"}, "clientKey": {"short"}}
	if r := ta.form("/weight/entries", bad, true, cookie); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a malformed client key: %s, want 422", r)
	}
}
