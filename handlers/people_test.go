package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"hearth/internal/beeperflow"
	"hearth/internal/contract"
)

// TestPeopleShowsEveryPersonAndActivityPastTheContextPage publishes 601
// people and 501 activities, the last of them about the last person: People
// lists them all, where a page built from the agent context's first pages
// stopped at 500 of each without saying so.
func TestPeopleShowsEveryPersonAndActivityPastTheContextPage(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	token := ta.agentToken()
	person := func(i int) map[string]any {
		return map[string]any{"id": fmt.Sprintf("p-%03d", i), "name": fmt.Sprintf("Person %03d", i), "context": "", "evidenceIds": []any{}}
	}
	first := minimalPublication("people-1", 0)
	var people, acts []any
	for i := range contract.MaxPeople {
		people = append(people, person(i))
		acts = append(acts, taskActivity(fmt.Sprintf("a-%03d", i)))
	}
	first["people"], first["activities"] = people, acts
	ta.mustPublish(token, first.JSON())

	second := minimalPublication("people-2", ta.revision())
	people = nil
	for i := contract.MaxPeople; i <= 600; i++ {
		people = append(people, person(i))
	}
	last := taskActivity("zz-call-the-last-person")
	last["personId"] = "p-600"
	second["people"], second["activities"] = people, []any{last}
	ta.mustPublish(token, second.JSON())

	d := ta.get("/people", "", ta.login()).doc(t)
	if n := d.Find(`[data-testid="person"]`).Length(); n != 601 {
		t.Fatalf("People lists %d people, want all 601", n)
	}
	if d.Find(`#person-p-600 [data-testid="person-activities"] a[href*="zz-call-the-last-person"]`).Length() != 1 {
		html, _ := d.Find(`#person-p-600`).Html()
		t.Fatalf("the 501st activity is missing from its person's card:\n%s", html)
	}
}

// TestPeopleIsFreshAfterTheBeeperWatchRenamesAChat serves People once (so
// it is cached), then the Beeper watch records a new title for Ana's chat,
// a write that bumps no revision: the next People shows the new title.
func TestPeopleIsFreshAfterTheBeeperWatchRenamesAChat(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	chip := func() string {
		return strings.Join(has(t, ta.get("/people", "", cookie).doc(t), `#person-ana-okafor`).Find(`[data-testid="chip"]`).Map(
			func(_ int, s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }), " | ")
	}
	before := chip()
	if !strings.Contains(before, "Chat with Ana Okafor") {
		t.Fatalf("Ana's chips before the watch: %q", before)
	}
	rev := ta.revision()
	fake.AddChat("!ana-okafor:beeper.local", "Ana from the gym", "See you Saturday")
	if _, err := beeperflow.NewWatch(ta.store, ta.beeper.Client, beeperflow.WatchOptions{}).Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ta.revision() != rev {
		t.Fatalf("the watch's first tick moved the revision %d -> %d: this test needs a write that does not", rev, ta.revision())
	}
	if after := chip(); !strings.Contains(after, "Chat with Ana from the gym") {
		t.Fatalf("People after the watch recorded the chat's title: %q (before: %q)", after, before)
	}
}

// TestStepActionAnswersWithItsRoutineAndTheRevision: ticking a routine's
// step is answered by the routine's row (its progress moves too), carrying
// the revision the tick committed, so the page need not re-read Home for
// it. An action whose effects reach past that row (a top-level task moving
// to Done today, the last step settling the routine) carries no revision.
func TestStepActionAnswersWithItsRoutineAndTheRevision(t *testing.T) {
	ta, cookie := homeApp(t)
	routine, step, weigh := "morning-routine-"+testDate, "stretch-"+testDate, "weigh-in-"+testDate
	resp := ta.ownerRequest(http.MethodPost, "/activities/"+step+"/state", url.Values{"state": {"completed"}, "expanded": {"false"}}, true, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("tick: %s", resp)
	}
	if got, want := resp.header.Get("Hearth-Revision"), fmt.Sprint(ta.revision()); got != want {
		t.Errorf("Hearth-Revision %q, want the tick's revision %s", got, want)
	}
	if rt := resp.header.Get("HX-Retarget"); rt != `li[data-row][data-id="`+routine+`"]` || resp.header.Get("HX-Reswap") != "outerHTML" {
		t.Errorf("retarget %q swap %q, want the routine's row", rt, resp.header.Get("HX-Reswap"))
	}
	d := resp.doc(t)
	r := has(t, d, `li[data-id="`+routine+`"][data-expanded="true"]`)
	if p := strings.TrimSpace(r.Find(`[data-testid="progress"]`).First().Text()); p != "1/2" {
		t.Errorf("routine progress %q, want 1/2", p)
	}
	has(t, d, `li[data-id="`+routine+`"] li[data-id="`+step+`"][data-state="completed"][data-expanded="false"]`)

	// The last open step settles the routine, which moves to Done today.
	resp = ta.ownerRequest(http.MethodPost, "/activities/"+weigh+"/state", url.Values{"state": {"skipped"}}, true, cookie)
	if resp.status != http.StatusOK || resp.header.Get("Hearth-Revision") != "" {
		t.Errorf("the step that settles its routine: %d with Hearth-Revision %q, want none", resp.status, resp.header.Get("Hearth-Revision"))
	}
	// A top-level task moves to Done today.
	resp = ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"completed"}}, true, cookie)
	if resp.status != http.StatusOK || resp.header.Get("Hearth-Revision") != "" || resp.header.Get("HX-Retarget") != "" {
		t.Errorf("a top-level task: %d with Hearth-Revision %q, retarget %q, want neither", resp.status, resp.header.Get("Hearth-Revision"), resp.header.Get("HX-Retarget"))
	}
	has(t, resp.doc(t), `li[data-id="book-bike-service"][data-state="completed"]`)
}
