package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/models"
)

// waitingItem is Home's "waiting on you" item of key, under the group sel.
func waitingItem(t *testing.T, d *goquery.Document, group, key string) *goquery.Selection {
	t.Helper()
	return has(t, d, testID(group)+` [data-key="`+key+`"]`)
}

func TestHomeShowsWhatTheAgentDidWithANoteOnceARunCompletesIt(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	token := ta.agentToken()
	if r := ta.ownerJSON("/api/agent-requests", `{"requestId":"req-hamburg","kind":"note","text":"Ana moved to Hamburg"}`, cookie, ""); r.status != http.StatusCreated {
		t.Fatalf("note: %s", r)
	}
	home := func() *goquery.Document {
		t.Helper()
		r := ta.get("/", "", cookie)
		if r.status != http.StatusOK {
			t.Fatalf("home: %s", r)
		}
		return r.doc(t)
	}
	d := home()
	if got := waitingItem(t, d, "waiting-agent", "request:req-hamburg").Find(testID("waiting-detail")).Text(); got != "no run has read it yet" {
		t.Errorf("before any run: %q", got)
	}
	if d.Find(testID("waiting-finished")).Length() != 0 {
		t.Errorf("Finished shows before anything finished")
	}
	ta.clock.Advance(time.Minute)
	for _, step := range []struct {
		path string
		body map[string]any
	}{
		{"/api/runs", map[string]any{"runId": "run-msgs", "job": "messages", "trigger": "manual"}},
		{"/api/runs/run-msgs/finish", map[string]any{"outcome": "failed", "detail": "nothing to do"}},
	} {
		if r := ta.do(agentPost(token, step.path, step.body)); r.status >= 300 {
			t.Fatalf("%s: %s", step.path, r)
		}
	}
	ta.clock.Advance(time.Minute)
	if got := waitingItem(t, home(), "waiting-agent", "request:req-hamburg").Find(testID("waiting-detail")).Text(); got != "read by messages 07:01, not done yet" {
		t.Errorf("after a run that read it: %q", got)
	}
	p := completion(t, ta, "run-brief", "req-hamburg", []any{"life-ana"}, []any{lifeRef}).With("jobKey", "daily-brief")
	ta.mustPublish(token, p.JSON())
	d = home()
	if d.Find(testID("waiting-agent")+` [data-key="request:req-hamburg"]`).Length() != 0 {
		t.Errorf("the completed note is still with the agent")
	}
	done := waitingItem(t, d, "waiting-finished", "request:req-hamburg")
	if got := done.Find(testID("waiting-detail")).Text(); got != "done by daily-brief 07:02: recorded in Ana (people/ana.md)" {
		t.Errorf("finished: %q", got)
	}
	if done.Find("form, button").Length() != 0 {
		t.Errorf("a finished item offers controls: %s", done.Text())
	}
}

func TestLaterOnHomeSetsARunAsideUntilTomorrowMorningAndRefusesWhatIsNotWaiting(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	token := ta.agentToken()
	ta.mustPublish(token, validPublication("run-0", 0).JSON())
	for _, step := range []struct {
		path string
		body map[string]any
	}{
		{"/api/runs", map[string]any{"runId": "run-lost", "job": "messages", "trigger": "manual"}},
		{"/api/runs/run-lost/finish", map[string]any{"outcome": "unknown"}},
	} {
		if r := ta.do(agentPost(token, step.path, step.body)); r.status >= 300 {
			t.Fatalf("%s: %s", step.path, r)
		}
	}
	d := ta.get("/", "", cookie).doc(t)
	run := waitingItem(t, d, "waiting-needs", "run:run-lost")
	if run.Find(testID("waiting-later")).Length() != 1 || run.Find(testID("waiting-resolve")).Length() != 1 {
		t.Fatalf("the run offers no Later or resolve: %s", run.Text())
	}
	task := waitingItem(t, d, "waiting-needs", "activity:book-bike-service")
	if f := task.Find(`form[action="/activities/book-bike-service/state"]`); f.Length() != 3 {
		t.Errorf("the task's Done, Skip and Later post to its row's endpoint: %d forms", f.Length())
	}
	r := ta.post("/waiting/later", url.Values{"key": {"run:run-lost"}}, cookie)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/#waiting" {
		t.Fatalf("later: %s (Location %q)", r, r.header.Get("Location"))
	}
	d = ta.get("/", "", cookie).doc(t)
	aside := waitingItem(t, d, "waiting-aside", "run:run-lost")
	if got := aside.Find(testID("waiting-age")).Text(); !strings.Contains(got, "back") || !strings.Contains(got, "08:00") {
		t.Errorf("set aside says %q, want when it comes back", got)
	}
	if d.Find(testID("waiting-needs")+` [data-key="run:run-lost"]`).Length() != 0 {
		t.Errorf("the run set aside still needs you")
	}
	for _, key := range []string{"run:nope", "activity:book-bike-service", ""} {
		if r := ta.post("/waiting/later", url.Values{"key": {key}}, cookie); r.status != http.StatusNotFound {
			t.Errorf("later %q: %s, want 404", key, r)
		}
	}
}

// TestHomeShowsTheOldestWaitingWithShowAllThatWorksWithoutJavaScript: with
// more waiting than Home shows, Home lists the oldest few and counts all of
// them; "Show all" is a plain link to Home with the whole list, which
// links back to the oldest few.
func TestHomeShowsTheOldestWaitingWithShowAllThatWorksWithoutJavaScript(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	token := ta.agentToken()
	pub := minimalPublication("run-tasks", 0)
	for i := range 9 {
		pub = pub.Add("activities", taskActivity(fmt.Sprintf("task-%d", i)))
	}
	ta.mustPublish(token, pub.JSON())
	items := func(d *goquery.Document) int {
		return d.Find(testID("waiting-needs") + " " + testID("waiting-item")).Length()
	}
	d := ta.get("/", "", cookie).doc(t)
	if n := items(d); n != models.WaitingOnHome {
		t.Errorf("Home lists %d waiting, want the %d oldest", n, models.WaitingOnHome)
	}
	if got := d.Find(testID("waiting-count")).Text(); got != "9" {
		t.Errorf("Home counts %q waiting, want 9", got)
	}
	all := has(t, d, testID("waiting-show-all"))
	href, _ := all.Attr("href")
	if href != "/?open=waiting#waiting" || all.Text() != "Show all 9" {
		t.Fatalf("Show all: %q to %q", all.Text(), href)
	}
	d = ta.get(strings.TrimSuffix(href, "#waiting"), "", cookie).doc(t)
	if n := items(d); n != 9 {
		t.Errorf("Show all lists %d, want 9", n)
	}
	if d.Find(testID("waiting-show-all")).Length() != 0 {
		t.Errorf("the whole list still offers Show all")
	}
	if back, _ := has(t, d, testID("waiting-show-oldest")).Attr("href"); back != "/#waiting" {
		t.Errorf("back to the oldest few: %q", back)
	}
}
