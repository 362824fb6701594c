package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"hearth/internal/storetest"
)

// liveBeside is Home's live part as a refresh reads it (with the rows
// open expanded), without row and its revision: what an answer of that
// row alone would leave stale.
func (ta *testApp) liveBeside(row, open string, cookie *http.Cookie) string {
	ta.t.Helper()
	r := ta.ownerRequest(http.MethodGet, "/home/live?open="+url.QueryEscape(open), nil, true, cookie)
	if r.status != http.StatusOK {
		ta.t.Fatalf("GET /home/live: %s", r)
	}
	d := parseHTML(ta.t, r)
	d.Find(`li[data-row][data-id="` + row + `"]`).Remove()
	// The bottom bar's Undo comes with a decision's answer, out of band (see undoDockAfter).
	d.Find(`#undo-dock`).Remove()
	d.Find("#live").RemoveAttr("data-revision")
	html, err := d.Html()
	if err != nil {
		ta.t.Fatal(err)
	}
	return html
}

// undoDock is the bottom bar as Home shows it now.
func (ta *testApp) undoDock(cookie *http.Cookie) string {
	ta.t.Helper()
	html, _ := goquery.OuterHtml(parseHTML(ta.t, ta.ownerRequest(http.MethodGet, "/home/live", nil, true, cookie)).Find("#undo-dock"))
	return html
}

// undoDockAfter is the bottom bar a page shows after answer: the answer's
// out-of-band bar, else the one it showed before.
func undoDockAfter(answer *goquery.Document, before string) string {
	oob := answer.Find("#undo-dock[hx-swap-oob]")
	if oob.Length() == 0 {
		return before
	}
	html, _ := goquery.OuterHtml(oob.RemoveAttr("hx-swap-oob"))
	return html
}

// liveRow is row as Home's live part shows it now.
func (ta *testApp) liveRow(row string, cookie *http.Cookie) *goquery.Selection {
	ta.t.Helper()
	return parseHTML(ta.t, ta.ownerRequest(http.MethodGet, "/home/live", nil, true, cookie)).Find(`li[data-row][data-id="` + row + `"]`)
}

// TestAnOwnerActionCarriesItsRevisionExactlyWhenItsRowIsTheWholeChange:
// every kind of owner action on a Home row answers with the revision it
// committed (Hearth-Revision) exactly when the row it answers with is all
// that commit changed on Home: the rest of Home's live part reads the same
// before and after, and the answered row is the row Home now shows. An
// action whose effect reaches past its row (a row moving to Done today or
// Later, the brief striking a name, a metric or draft another row shows)
// carries none, so the live refresh brings the rest.
func TestAnOwnerActionCarriesItsRevisionExactlyWhenItsRowIsTheWholeChange(t *testing.T) {
	routine, stretch, weigh := "morning-routine-"+testDate, "stretch-"+testDate, "weigh-in-"+testDate
	occ := "hearth:morning@" + testDate
	feedback := "/routines/occurrences/morning@" + testDate + "/feedback"
	state := func(s string) url.Values { return url.Values{"state": {s}} }
	weight := func(v string) url.Values { return url.Values{"value": {v}} }
	edit := func(body string) url.Values { return url.Values{"body": {body}} }
	type step struct {
		path string
		form url.Values
	}
	cases := []struct {
		name     string
		routines bool           // the routine catalog with morning tried (an occurrence on Home)
		setup    []step         // owner actions before the one answered
		extra    map[string]any // a publication adding this activity
		open     string         // rows open on the page
		action   step
		answer   string // the row the answer shows (a step's routine)
		alone    bool
	}{
		{name: "a step's tick keeps its routine open", action: step{"/activities/" + stretch + "/state", url.Values{"state": {"completed"}, "expanded": {"false"}}}, answer: routine, alone: true},
		{name: "a tick beside a step deferred past today", setup: []step{{"/activities/" + weigh + "/state", url.Values{"state": {"deferred"}, "until": {"2026-10-05"}}}},
			action: step{"/activities/" + stretch + "/state", url.Values{"state": {"completed"}, "expanded": {"false"}}}, answer: routine, alone: true},
		{name: "a step dismissed is listed under Later", action: step{"/activities/" + stretch + "/state", state("dismissed")}, answer: routine},
		{name: "a step that settles its routine", setup: []step{{"/activities/" + stretch + "/state", state("completed")}},
			action: step{"/activities/" + weigh + "/state", state("skipped")}, answer: routine},
		{name: "a task completed moves to Done today", action: step{"/activities/book-bike-service/state", state("completed")}, answer: "book-bike-service"},
		{name: "a task in progress stays in its section", action: step{"/activities/book-bike-service/state", state("in_progress")}, answer: "book-bike-service", alone: true},
		{name: "a routine skipped moves to Done today", action: step{"/activities/" + routine + "/state", state("skipped")}, answer: routine},
		{name: "a reply skipped that the brief names", action: step{"/activities/reply-ana-hike/state", state("skipped")}, answer: "reply-ana-hike"},
		{name: "a first weight that the brief names", action: step{"/activities/" + weigh + "/measurement", weight("72.4")}, answer: routine},
		{name: "a weight corrected", setup: []step{{"/activities/" + weigh + "/measurement", weight("72.4")}},
			action: step{"/activities/" + weigh + "/measurement", weight("72.6")}, answer: routine, alone: true},
		{name: "a weight corrected that another row shows", setup: []step{{"/activities/" + weigh + "/measurement", weight("72.4")}},
			extra: map[string]any{"id": "weight-check", "kind": "measurement", "title": "Check the scale", "evidenceIds": []any{},
				"recommendation": map[string]any{"section": "optional", "rank": 2}, "payload": map[string]any{"metric": "weight", "unit": "kg"}},
			open:   "weight-check",
			action: step{"/activities/" + weigh + "/measurement", weight("72.6")}, answer: routine},
		{name: "a draft's edit", action: step{"/drafts/draft-ana-hike/edit?activity=reply-ana-hike", edit("Saturday works, see you at 8.")}, answer: "reply-ana-hike", alone: true},
		{name: "an occurrence partly done moves to Done today", routines: true, action: step{"/activities/" + occ + "/state", state("partial")}, answer: occ},
		{name: "feedback on a settled occurrence", routines: true, setup: []step{{"/activities/" + occ + "/state", state("skipped")}},
			action: step{feedback, url.Values{"effort": {"hard"}}}, answer: occ, alone: true},
		{name: "a correction of a step's weight that another routine shows", routines: true, setup: []step{{"/activities/" + occ + ":weigh/measurement", weight("72.4")}},
			open: routine + "," + weigh, action: step{"/activities/" + occ + ":weigh/measurement", weight("72.6")}, answer: occ},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each case on its own app and store
			ta, cookie := homeApp(t)
			if tc.routines {
				ta, cookie = routineApp(t)
				ta.try("morning", 1, 7, cookie)
			}
			if tc.extra != nil {
				ta.mustPublish(ta.agentToken(), storetest.NewPublication("extra", ta.revision()).Add("activities", tc.extra).JSON())
			}
			for _, s := range tc.setup {
				if r := ta.form(s.path, s.form, true, cookie); r.status != http.StatusOK {
					t.Fatalf("setup %s: %s", s.path, r)
				}
			}
			before, dockBefore := ta.liveBeside(tc.answer, tc.open, cookie), ta.undoDock(cookie)
			resp := ta.form(tc.action.path, tc.action.form, true, cookie)
			if resp.status != http.StatusOK {
				t.Fatalf("%s: %s", tc.action.path, resp)
			}
			after := ta.liveBeside(tc.answer, tc.open, cookie)
			got := resp.header.Get("Hearth-Revision")
			if !tc.alone {
				if got != "" {
					t.Errorf("Hearth-Revision %q on an answer that is not the whole change", got)
				}
				if before == after {
					t.Errorf("the rest of Home did not change: the case tests nothing")
				}
				return
			}
			if want := fmt.Sprint(ta.revision()); got != want {
				t.Errorf("Hearth-Revision %q, want the action's revision %s", got, want)
			}
			if before != after {
				t.Errorf("the answer carries its revision but Home changed outside its row:\nbefore %s\nafter  %s", before, after)
			}
			// The bottom bar is the answer's (out of band) or, without one, unchanged.
			if want, got := ta.undoDock(cookie), undoDockAfter(parseHTML(t, resp), dockBefore); got != want {
				t.Errorf("the bottom bar after the answer %q, Home shows %q", got, want)
			}
			if rt := resp.header.Get("HX-Retarget"); rt != `li[data-row][data-id="`+tc.answer+`"]` || resp.header.Get("HX-Reswap") != "outerHTML" {
				t.Errorf("retarget %q swap %q, want the row %s", rt, resp.header.Get("HX-Reswap"), tc.answer)
			}
			answered := has(t, resp.doc(t), `li[data-row][data-id="`+tc.answer+`"]`)
			shown := ta.liveRow(tc.answer, cookie)
			for _, attr := range []string{"data-version", "data-state"} {
				if a, h := answered.AttrOr(attr, "-"), shown.AttrOr(attr, "?"); a != h {
					t.Errorf("answered row %s %q, Home shows %q", attr, a, h)
				}
			}
		})
	}
}

// TestSavingTheSameWordingAgainCarriesNoRevision: a draft's edit that
// changes nothing commits nothing, so its answer names no revision.
func TestSavingTheSameWordingAgainCarriesNoRevision(t *testing.T) {
	ta, cookie := homeApp(t)
	path := "/drafts/draft-ana-hike/edit?activity=reply-ana-hike"
	body := url.Values{"body": {"Saturday works, see you at 8."}}
	if r := ta.form(path, body, true, cookie); r.status != http.StatusOK || r.header.Get("Hearth-Revision") == "" {
		t.Fatalf("first save: %s with Hearth-Revision %q", r, r.header.Get("Hearth-Revision"))
	}
	rev := ta.revision()
	r := ta.form(path, body, true, cookie)
	if r.status != http.StatusOK || r.header.Get("Hearth-Revision") != "" || ta.revision() != rev {
		t.Errorf("the same wording again: %s with Hearth-Revision %q, revision %d (was %d)", r, r.header.Get("Hearth-Revision"), ta.revision(), rev)
	}
	has(t, r.doc(t), `li[data-row][data-id="reply-ana-hike"]`)
}
