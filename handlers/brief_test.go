package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The brief names "Weigh in" and "Answer Ana about Saturday's hike" in its
// text; once the owner has settled one, the brief marks it done instead of
// still telling them to do it, and leaves what is still open alone.
func TestBriefMarksTheItemsItNamesThatTheOwnerSettled(t *testing.T) {
	t.Parallel()
	weighIn := "weigh-in-" + testDate
	for _, tc := range []struct {
		name, id, path string
		form           url.Values
		named, marker  string
	}{
		{"completed", weighIn, "/activities/" + weighIn + "/measurement", url.Values{"value": {"72.4"}}, "Weigh in", "(done)"},
		{"skipped", "reply-ana-hike", "/activities/reply-ana-hike/state", url.Values{"state": {"skipped"}}, "answer Ana about Saturday's hike", "(skipped)"},
		{"dismissed", "reply-ana-hike", "/activities/reply-ana-hike/state", url.Values{"state": {"dismissed"}}, "answer Ana about Saturday's hike", "(dismissed)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ta, cookie := homeApp(t)
			d := ta.ownerRequest(http.MethodGet, "/", nil, false, cookie).doc(t)
			if n := d.Find(`[data-testid="brief-text"] del`).Length(); n != 0 {
				t.Fatalf("nothing is settled, yet %d items are struck", n)
			}
			if resp := ta.ownerRequest(http.MethodPost, tc.path, tc.form, true, cookie); resp.status != http.StatusOK {
				t.Fatalf("%s: %s", tc.name, resp)
			}
			d = ta.ownerRequest(http.MethodGet, "/", nil, false, cookie).doc(t)
			text := has(t, d, `[data-testid="brief-text"]`)
			struck := text.Find(`del[data-testid="brief-settled"]`)
			if struck.Length() != 1 || struck.Text() != tc.named {
				t.Fatalf("struck %d: %q in %q", struck.Length(), struck.Text(), text.Text())
			}
			if id, _ := struck.Attr("data-id"); id != tc.id {
				t.Errorf("struck item names %q", id)
			}
			// Strike-through alone is not read out: the state is said in words.
			if !strings.Contains(text.Text(), tc.named+" "+tc.marker) {
				t.Errorf("brief text %q lacks %q", text.Text(), tc.named+" "+tc.marker)
			}
			if !strings.HasPrefix(text.Text(), "A light day. ") || !strings.Contains(text.Text(), "stretch, then ") {
				t.Errorf("the rest of the brief changed: %q", text.Text())
			}
		})
	}
}

// A later publication without a brief (a messages run) does not take the
// credit for the brief: the freshness line names, in words, the job whose
// publication wrote the brief shown.
func TestFreshnessLineCreditsTheJobThatWroteTheBrief(t *testing.T) {
	ta, cookie := homeApp(t)
	d := ta.ownerRequest(http.MethodGet, "/", nil, false, cookie).doc(t)
	if job := has(t, d, `[data-testid="freshness-job"]`).Text(); job != "the daily brief" {
		t.Fatalf("freshness job %q, want the daily brief", job)
	}
	pub := minimalPublication("run-2", 1)
	pub["jobKey"] = "messages"
	ta.mustPublish(ta.agentToken(), pub.JSON())
	d = ta.ownerRequest(http.MethodGet, "/", nil, false, cookie).doc(t)
	if job := has(t, d, `[data-testid="freshness-job"]`).Text(); job != "the daily brief" {
		t.Errorf("after a messages publication the brief is credited to %q", job)
	}
}

// An item the brief does not name leaves the brief as it was when settled.
func TestBriefStaysWholeWhenTheOwnerSettlesWhatItDoesNotName(t *testing.T) {
	ta, cookie := homeApp(t)
	if resp := ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"completed"}}, true, cookie); resp.status != http.StatusOK {
		t.Fatal(resp)
	}
	d := ta.ownerRequest(http.MethodGet, "/", nil, false, cookie).doc(t)
	if n := d.Find(`[data-testid="brief-text"] del`).Length(); n != 0 {
		t.Errorf("%d items struck for an item the brief does not name", n)
	}
}
