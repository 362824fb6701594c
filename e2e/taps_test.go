package e2e

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Issue 17, point 4 (fewer taps): a routine's step ticked with one tap on
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
