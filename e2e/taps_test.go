package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"
)

// Fewer taps: a routine's step ticked with one tap on
// its collapsed row, nested steps at full width, no "to do" on every row,
// skipped not in the success colour.

// rect is an element's box on the page, in CSS pixels.
type rect struct {
	Width, Height float64
}

// boxOf measures the first element matching sel.
func (tb *tab) boxOf(sel string) rect {
	tb.t.Helper()
	return get(tb, "measure "+sel, chromedp.Evaluate[rect](`(function(){var e=document.querySelector('`+sel+`');if(!e)return {Width:-1,Height:-1};var r=e.getBoundingClientRect();return {Width:r.width,Height:r.height}})()`))
}

func TestRoutineStepIsTickedWithOneTapOnItsCollapsedRow(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	routine, step := "morning-routine-"+day, "stretch-"+day
	tb.expand(routine, "routine")
	tick := rowSel(step) + ` > form [data-testid="tick"]`
	if b := tb.boxOf(tick); b.Width < 44 || b.Height < 44 {
		t.Fatalf("tick control of the collapsed step is %.0f×%.0f px, want at least 44×44 (-1: none)", b.Width, b.Height)
	}
	// A step that needs a value keeps its expander and has no tick.
	if b := tb.boxOf(rowSel("weigh-in-"+day) + ` > form [data-testid="tick"]`); b.Width != -1 {
		t.Error("a measurement step offers a tick")
	}
	tb.do("tick the step",
		chromedp.Click(css(tick)),
		chromedp.WaitVisible(css(rowSel(step)+`[data-state="completed"] [data-testid="undo-bar"]`)),
	)
	if exp := get(tb, "expanded", chromedp.Evaluate[string](`document.querySelector('`+rowSel(step)+`').dataset.expanded`)); exp != "false" {
		t.Errorf("the ticked step is expanded=%s, want it to stay collapsed", exp)
	}
	if n := get(tb, "controls", chromedp.Evaluate[int](`document.querySelectorAll('`+rowSel(step)+` [data-testid="control-task"]').length`)); n != 0 {
		t.Error("ticking the step opened its control")
	}
	if w := get(tb, "undo word", textOf(rowSel(step)+` [data-testid="undo-word"]`)); w != "Done" {
		t.Errorf("undo bar says %q, want Done", w)
	}
	// The done step offers no tick: a second tap cannot complete it again.
	if b := tb.boxOf(tick); b.Width != -1 {
		t.Error("a completed step still offers its tick")
	}
}

func TestRoutineStepTickWithoutJavaScriptReturnsToTheCollapsedStep(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo")
	o := noJS{loginOwner(t, srv.URL)}
	day := demoDay(t)
	routine, step := "morning-routine-"+day, "stretch-"+day
	home := o.mustPage(http.MethodGet, "/?open="+routine, nil)
	form := home.Find(rowSel(step) + ` > form:has([data-testid="tick"])`)
	if form.Length() != 1 {
		t.Fatal("the collapsed step has no tick form")
	}
	if home.Find(rowSel("weigh-in-"+day)+` [data-testid="tick"]`).Length() != 0 {
		t.Error("a measurement step offers a tick")
	}
	fields := url.Values{}
	form.Find("input[type=hidden]").Each(func(_ int, s *goquery.Selection) {
		fields.Add(s.AttrOr("name", ""), s.AttrOr("value", ""))
	})
	if b := form.Find(`button[data-testid="tick"]`); b.AttrOr("name", "") != "" {
		fields.Add(b.AttrOr("name", ""), b.AttrOr("value", ""))
	}
	status, loc, _ := o.post(form.AttrOr("action", ""), fields)
	if status != http.StatusSeeOther || !strings.HasSuffix(loc, "#row-"+step) {
		t.Fatalf("tick: %d to %q, want 303 back to the step", status, loc)
	}
	page := o.mustPage(http.MethodGet, loc, nil)
	row := page.Find(rowSel(step))
	if st := row.AttrOr("data-state", ""); st != "completed" {
		t.Fatalf("after the tick the step is %q", st)
	}
	if row.AttrOr("data-expanded", "") != "false" || row.Find(`[data-testid="control-task"]`).Length() != 0 {
		t.Error("the tick opened the step")
	}
	if row.Find(`[data-testid="undo-bar"]`).Length() != 1 {
		t.Error("no Undo after the tick")
	}
	if page.Find(rowSel(routine)).AttrOr("data-expanded", "") != "true" {
		t.Error("the routine closed after the tick")
	}
}

func TestNestedStepsKeepTheirWidthAtPhoneSize(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	tb.expand("morning-routine-"+day, "routine")
	tb.expand("weigh-in-"+day, "measurement")
	outer := tb.boxOf(rowSel("morning-routine-" + day))
	for _, step := range []string{"stretch-" + day, "weigh-in-" + day} {
		if in := tb.boxOf(rowSel(step)); in.Width < 0.9*outer.Width {
			t.Errorf("step %s is %.0f px wide in a routine row of %.0f px (%.0f%%), want at least 90%%", step, in.Width, outer.Width, 100*in.Width/outer.Width)
		}
	}
	if b := tb.boxOf(rowSel("weigh-in-"+day) + ` input[name="value"]`); b.Width < 150 {
		t.Errorf("the nested weight field is %.0f px wide", b.Width)
	}
	if sw := get(tb, "scroll width", chromedp.Evaluate[int](`document.documentElement.scrollWidth-document.documentElement.clientWidth`)); sw > 0 {
		t.Errorf("page scrolls sideways by %d px", sw)
	}
}

func TestOpenRowsShowNoStateWordOthersKeepTheirs(t *testing.T) {
	srv := startServer(t, "", "--demo")
	o := noJS{loginOwner(t, srv.URL)}
	if status, _, _ := o.post("/activities/book-bike-service/state", url.Values{"state": {"skipped"}}); status != http.StatusSeeOther {
		t.Fatalf("skip: %d", status)
	}
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	tb.expand("morning-routine-"+day, "routine")
	labels := get(tb, "state words", chromedp.Evaluate[map[string]string](`(function(){var m={};document.querySelectorAll('li[data-row]').forEach(function(r){var s=r.querySelector(':scope > a.row-head [data-testid="row-state"]');m[r.dataset.id]=s?s.textContent.trim():""});return m})()`))
	if len(labels) < 5 {
		t.Fatalf("rows %v", labels)
	}
	for id, l := range labels {
		if l == "to do" {
			t.Errorf("row %s says %q", id, l)
		}
	}
	if l := labels["stretch-"+day]; l != "" {
		t.Errorf("an open step says %q, want no state word", l)
	}
	if l := labels["book-bike-service"]; l != "skipped" {
		t.Errorf("the skipped row says %q, want skipped", l)
	}
}

func TestSkippedAndNotApplicableAreNotInTheSuccessColour(t *testing.T) {
	srv := startServer(t, "", "--demo")
	o := noJS{loginOwner(t, srv.URL)}
	day := demoDay(t)
	occ := "hearth:evening-wind-down@" + day
	for _, p := range []struct {
		id   string
		form url.Values
	}{
		{"stretch-" + day, url.Values{"state": {"completed"}}},
		{"water-" + day, url.Values{"state": {"skipped"}}},
		{"book-bike-service", url.Values{"state": {"skipped"}}},
	} {
		if status, _, _ := o.post("/activities/"+url.PathEscape(p.id)+"/state", p.form); status != http.StatusSeeOther {
			t.Fatalf("%s %v: %d", p.id, p.form, status)
		}
	}
	tb := newTab(t, srv)
	tb.login()
	open := strings.Join([]string{"morning-routine-" + day, "stretch-" + day, "water-" + day, "book-bike-service"}, ",")
	tb.do("open the settled rows", chromedp.Navigate(srv.URL+"/?open="+url.QueryEscape(open)),
		chromedp.WaitVisible(css(`[data-testid="live"]`)))
	colour := func(id, part string) string {
		return get(tb, "colour "+id, chromedp.Evaluate[string](`(function(){var e=document.querySelector('`+rowSel(id)+part+`');return e?getComputedStyle(e).color:"none"})()`))
	}
	done := colour("stretch-"+day, ` [data-testid="settled"]`)
	if done == "none" {
		t.Fatal("the completed step shows no outcome")
	}
	// Not applicable: the occurrence's row as htmx swaps it in (the live
	// part then moves it to Later), put on the page to read its colours.
	if status, _, _ := o.post("/activities/"+url.PathEscape(occ)+"/state", url.Values{"state": {"dismissed"}, "note": {"Travelling"}}); status != http.StatusSeeOther {
		t.Fatalf("not applicable: %d", status)
	}
	if !get(tb, "not applicable row", chromedp.Evaluate[bool](`fetch("/activities/`+url.PathEscape(occ)+`?expanded=true",{headers:{"HX-Request":"true"}}).then(function(r){return r.text()}).then(function(h){var u=document.createElement("ul");u.className="rows";u.innerHTML=h;document.querySelector("main").appendChild(u);return true})`,
		chromedp.EvalAwaitPromise)) {
		t.Fatal("no fragment")
	}
	for _, id := range []string{"water-" + day, "book-bike-service", occ} {
		if c := colour(id, ` [data-testid="settled"]`); c == "none" || c == done {
			t.Errorf("%s: outcome in %s, the completed colour is %s", id, c, done)
		}
		if c, d := colour(id, ` > a.row-head .icon`), colour("stretch-"+day, ` > a.row-head .icon`); c == d {
			t.Errorf("%s: icon in %s, the same as completed's", id, c)
		}
	}
}

func TestRowHeadsShowTheyExpand(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	tb.expand("morning-routine-"+day, "routine")
	markers := get(tb, "markers", chromedp.Evaluate[map[string]string](`(function(){var m={};document.querySelectorAll('a.row-head[aria-expanded]').forEach(function(h){m[h.closest('li').dataset.id+' '+h.getAttribute('aria-expanded')]=getComputedStyle(h,'::after').content});return m})()`))
	if len(markers) < 5 {
		t.Fatalf("row heads %v", markers)
	}
	for head, c := range markers {
		want := `"▸"`
		if strings.HasSuffix(head, " true") {
			want = `"▾"`
		}
		if c != want {
			t.Errorf("row head %s shows %s, want %s", head, c, want)
		}
	}
}
