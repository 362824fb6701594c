package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// saveShot writes a screenshot into the screenshots' directory.
func saveShot(t *testing.T, name string, shot []byte) {
	t.Helper()
	path := filepath.Join(screenshotDir(t), name)
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot at 390 px: %s (%d bytes)", path, len(shot))
}

// TestWeightWeeksOfTheDemoComparedByEveningWindDownAt390 opens the demo's
// weight page as the owner's phone does, picks the evening wind-down to
// compare the weeks by, and finds its weeks, the routine's days per week
// and a real comparison (3 or more weeks on each side, both rates, no
// claim of cause) without sideways scroll; it saves
// docs/weight-weeks-390.png with the section in view.
func TestWeightWeeksOfTheDemoComparedByEveningWindDownAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	// The page opens on another routine, so the wait below sees the new page
	// (the wind-down is the default, already selected on a plain /weight).
	tb.do("open /weight",
		chromedp.Navigate(srv.URL+"/weight?routine=start-of-work"),
		chromedp.WaitReady(css(`select#routine option[value="start-of-work"][selected]`)),
		chromedp.SetValue(css(`select#routine`), "evening-wind-down"),
		chromedp.Click(css(`.weeks-form button[type="submit"]`)),
		chromedp.WaitReady(css(`select#routine option[value="evening-wind-down"][selected]`)),
	)
	raw := get(tb, "read the weeks", chromedp.Evaluate[string](`JSON.stringify({
		Column: document.querySelector('[data-testid="weight-weeks"] thead th:last-child').textContent.trim(),
		Split: document.querySelector('[data-testid="weight-split"]').textContent.replace(/\s+/g, ' ').trim(),
		Rates: document.querySelectorAll('[data-testid="weight-split"] strong').length,
		Days: [...document.querySelectorAll('[data-testid="weight-week"] td:last-child')].map(td => td.textContent.trim()),
		Overflow: document.documentElement.scrollWidth > document.documentElement.clientWidth})`))
	var page struct {
		Column, Split string
		Rates         int
		Days          []string
		Overflow      bool
	}
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	if page.Column != "Evening wind-down" || len(page.Days) < 6 || page.Overflow {
		t.Fatalf("weeks compared by %q, %d weeks, sideways scroll %v", page.Column, len(page.Days), page.Overflow)
	}
	for _, d := range page.Days {
		if !strings.Contains(d, " of ") {
			t.Errorf("a week says %q, not how many of its days the routine was done", d)
		}
	}
	// A real comparison: both rates, each side's weeks, and no claim of cause.
	var kept, notKept int
	if _, err := fmt.Sscanf(page.Split, "In the %d weeks you kept Evening wind-down", &kept); err != nil {
		t.Fatalf("the split says %q, not a comparison: %v", page.Split, err)
	}
	if i := strings.Index(page.Split, "; in the "); i < 0 {
		t.Fatalf("the split says %q, without the other weeks", page.Split)
	} else if _, err := fmt.Sscanf(page.Split[i:], "; in the %d other weeks", &notKept); err != nil {
		t.Fatalf("the split says %q: %v", page.Split, err)
	}
	if kept < 3 || notKept < 3 || page.Rates != 2 || !strings.Contains(page.Split, "does not show that the routine made the difference") {
		t.Errorf("the split says %q (%d kept, %d not, %d rates); want both sides of 3 or more weeks and both rates", page.Split, kept, notKept, page.Rates)
	}
	if !get(tb, "show the weeks", chromedp.Evaluate[bool](`document.getElementById('weeks').scrollIntoView({block: 'start'}), true`)) {
		t.Fatal("could not scroll to the weeks")
	}
	saveShot(t, "weight-weeks-390.png", get(tb, "screenshot", chromedp.CaptureScreenshot()))
}

// TestMoreOfTheDemoSaysWhatWasNotifiedAndWhyAt390 opens the demo's More as
// the owner's phone does: "Notifications on this phone" lists the reply
// draft, the task, the held send and the routine proposal hearth notified,
// each sent with why, and no phone left subscribed; nothing scrolls
// sideways. It saves docs/more-push-390.png of the section.
func TestMoreOfTheDemoSaysWhatWasNotifiedAndWhyAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("open More", chromedp.Navigate(srv.URL+"/more"), chromedp.WaitVisible(css(`[data-testid="push-log"]`)))
	raw := get(tb, "read the notifications", chromedp.Evaluate[string](`JSON.stringify({
		Entries: [...document.querySelectorAll('[data-testid="push-entry"]')].map(li => ({
			Status: li.dataset.status,
			Title: li.querySelector('.title').textContent.replace(/\s+/g, ' ').trim(),
			Why: li.querySelector('[data-testid="push-reason"]').textContent.trim()})),
		State: document.querySelector('[data-testid="push-state"]').textContent.trim(),
		Overflow: document.documentElement.scrollWidth > document.documentElement.clientWidth})`))
	var page struct {
		Entries  []struct{ Status, Title, Why string }
		State    string
		Overflow bool
	}
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range page.Entries {
		if e.Status != "sent" || e.Why == "" {
			t.Errorf("%q is %s with why %q; want sent, with why", e.Title, e.Status, e.Why)
		}
		for _, kind := range []string{"Reply draft to review", "The agent raised a task", "A send for later was held", "A routine change to decide"} {
			if strings.HasPrefix(e.Title, "Sent: "+kind+" · ") {
				seen[kind] = true
			}
		}
	}
	if len(seen) != 4 || page.Overflow || page.State != "0 phones subscribed." {
		t.Fatalf("More lists %+v (kinds %v), says %q, sideways scroll %v", page.Entries, seen, page.State, page.Overflow)
	}
	get(tb, "hide the tab bar", chromedp.Evaluate[bool](`(function(){ document.querySelector('header.bar').style.visibility = 'hidden'; return true })()`))
	saveShot(t, "more-push-390.png", get(tb, "screenshot", chromedp.Screenshot(css(`[data-testid="push"]`))))
}

// TestTheDemosRoutineReviewFitsThePhoneWidthAt390: the review of the
// retired morning run, shown with "Show the retired", keeps its proposal
// and its form within 390 px (a reply's review summary is a two-column
// grid of its own; a routine's review is not).
func TestTheDemosRoutineReviewFitsThePhoneWidthAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("open Routines", chromedp.Navigate(srv.URL+"/routines"), chromedp.WaitVisible(css(`main h1`)),
		chromedp.Click(css(`[data-testid="standing-retired"] summary`)),
		chromedp.WaitVisible(css(`#routine-morning-run [data-testid="proposal-form"]`)))
	raw := get(tb, "measure the review", chromedp.Evaluate[string](`JSON.stringify({
		Right: Math.max(...[...document.querySelectorAll('#routine-morning-run [data-testid="review"] *')].map(e => e.getBoundingClientRect().right)),
		Overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth})`))
	var m struct{ Right, Overflow float64 }
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	if m.Right > 390 || m.Overflow > 0 {
		t.Fatalf("the review reaches %.0f px, the page scrolls %.0f px sideways", m.Right, m.Overflow)
	}
}
