package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// routineCard addresses a routine's card on the Routines page.
func routineCard(id string) string { return `[data-testid="routine"][data-id="` + id + `"]` }

// TestRoutineTriedAndWorkedCountsLive publishes a routine through `hearth
// publish`, tries it on the Routines page, works today's occurrence on Home
// in a second tab, and watches the first tab's counts follow without a reload.
func TestRoutineTriedAndWorkedCountsLive(t *testing.T) {
	srv := startServer(t, "", "--demo")
	ref := `{"id":"life-e2e","kind":"life","path":"areas/mornings.md","contentHash":"sha256:` + strings.Repeat("3c", 32) + `","observedAt":"2026-12-01T08:00:00Z"}`
	def := `"routineDefinitions":[{"id":"e2e-morning","revision":1,"title":"E2E morning","purpose":"Weigh in, then stretch.",
		"trigger":{"kind":"daily","timeOfDay":"07:00"},"steps":[
		{"id":"weigh","title":"Weigh in","kind":"measurement","required":true,"payload":{"metric":"weight","unit":"kg"}},
		{"id":"stretch","title":"Stretch","kind":"task","required":true,"payload":{}}],
		"completionRule":{"kind":"all-required"},"status":"candidate","evidenceIds":["life-e2e"]}]`
	publishFieldsWithCLI(t, srv, "routine-e2e", ref, "", "", def)

	routines := newTab(t, srv)
	routines.login()
	card := routineCard("e2e-morning")
	routines.do("try it",
		chromedp.Navigate(srv.URL+"/routines"),
		chromedp.WaitVisible(css(card)),
		chromedp.Click(css(card+` [data-testid="try"] summary`)),
		chromedp.Click(css(card+` [data-testid="try-submit"]`)),
		chromedp.WaitVisible(css(card+` [data-testid="active-trial"]`)),
	)
	// The chip names the file (with the steps, one tap away); its path and hash are the operator's.
	routines.do("open the steps", tap(card+` [data-testid="definition"] summary`))
	if got := get(routines, "chip", textOf(card+` [data-testid="chip"]`)); got != "Mornings" {
		t.Errorf("source chip %q", got)
	}
	// The first screen answers how the trial is going; the counts are on the card, behind a details element.
	summary := `[data-testid="trial-summary"][data-id="e2e-morning"]`
	if got := get(routines, "attainment", textOf(summary+` [data-testid="week-attainment"]`)); got != "Completed 0 of 0 planned days" {
		t.Errorf("before any outcome: %q", got)
	}
	widths := get(routines, "widths", chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`))
	if widths[0] > widths[1] {
		t.Errorf("Routines scrolls sideways at 390: scrollWidth %d > clientWidth %d", widths[0], widths[1])
	}

	home := newTab(t, srv) // shares the session
	day := demoDay(t)
	occ := "hearth:e2e-morning@" + day
	weigh, stretch := occ+":weigh", occ+":stretch"
	home.do("open home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(rowSel(occ))))
	home.expand(occ, "routine")
	home.expand(weigh, "measurement")
	home.do("save the weigh-in",
		chromedp.SendKeys(css(rowSel(weigh)+` [data-testid="measurement-input"]`), "72,4"),
		tap(rowSel(weigh)+` [data-testid="measurement-save"]`),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="measurement-saved"]`)),
	)
	home.expand(stretch, "task")
	home.do("complete the stretch",
		tap(rowSel(stretch)+` [data-testid="complete"]`),
		chromedp.WaitReady(css(rowSel(occ)+`[data-state="completed"]`)),
	)

	// The Routines tab reloads itself on the new revisions; the test never
	// does (eventually polls across those reloads).
	eventually(routines, "counts follow", `(function(){
		var a = document.querySelector('`+card+` [data-testid="attainment"]');
		return !!a && a.textContent.replace(/\s+/g, " ").trim() === "Done 1 of 1 (100%) planned days"})()`, 10*time.Second)
	routines.do("settled", chromedp.WaitReady(css(card+` [data-testid="count-completed"]`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('`+card+` details[data-testid="statistics"], `+card+` details[data-testid="trial"]').forEach(function(d){ d.open = true; })`))
	if got := get(routines, "completed", textOf(card+` [data-testid="count-completed"] td`)); got != "1" {
		t.Errorf("completed count %q", got)
	}
	if got := get(routines, "strip", chromedp.Evaluate[string](`document.querySelector('`+summary+` [data-testid="outcome-strip"] g[data-date="`+day+`"]').dataset.outcome`)); got != "completed" {
		t.Errorf("today's square is %q", got)
	}
	if got := get(routines, "weigh-in step", textOf(card+` [data-testid="step-metric"][data-step="weigh"] [data-testid="step-done"]`)); got != "value saved 1 of 1" {
		t.Errorf("weigh-in step %q", got)
	}

	// Home offers feedback on the settled occurrence, and the page stays accessible.
	home.do("feedback", tap(rowSel(occ)+` [data-testid="feedback-effort-easy"]`),
		chromedp.WaitVisible(css(rowSel(occ)+` [data-testid="feedback-effort-chosen"]`)))
	routines.do("open the try form", tap(card+` [data-testid="try"] summary`))
	axeViolations(routines, "Routines")
}
