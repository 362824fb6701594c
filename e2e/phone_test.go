package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"hearth/models"
)

// ownerPages are the owner's pages with the demo data, some with rows or
// sections open, so every control a phone shows is measured.
func ownerPages(t *testing.T) []string {
	day := demoDay(t)
	open := url.QueryEscape("morning-routine-" + day + ",weigh-in-" + day + ",reply-ana-hike,book-bike-service")
	return []string{
		"/", "/?open=" + open,
		"/messages", "/messages/" + url.PathEscape("!ana-okafor:beeper.local"),
		"/people", "/routines", "/schedules", "/runs", "/more", "/weight",
	}
}

// htmxUseJS reports whether the page has any hx- attribute and whether
// htmx was loaded.
const htmxUseJS = `JSON.stringify({
  HX: Array.prototype.some.call(document.querySelectorAll('*'), function (e) {
    return Array.prototype.some.call(e.attributes, function (a) { return a.name.indexOf('hx-') === 0; });
  }),
  HTMX: !!window.htmx
})`

// navGeometry is the bottom bar as the browser lays it out.
type navGeometry struct {
	Tops       []float64 `json:"tops"`
	Labels     []string  `json:"labels"`
	Current    []string  `json:"current"`
	NavTop     float64   `json:"navTop"`
	NavBottom  float64   `json:"navBottom"`
	ViewHeight float64   `json:"viewHeight"`
	Position   string    `json:"position"`
	ScrollW    float64   `json:"scrollW"`
	ClientW    float64   `json:"clientW"`
	LastBottom float64   `json:"lastBottom"`
}

const navGeometryJS = `(function(){
  var nav = document.querySelector('nav[aria-label="Main"]');
  var links = Array.from(nav.querySelectorAll('a'));
  window.scrollTo(0, document.documentElement.scrollHeight);
  var r = nav.getBoundingClientRect();
  var foot = document.querySelector('footer') || document.querySelector('main');
  return JSON.stringify({
    tops: links.map(function(a){ return Math.round(a.getBoundingClientRect().top); }),
    // The label the eye reads: the More tab's hidden words are for readers and crawlers.
    labels: links.map(function(a){ return a.firstChild.textContent.trim(); }),
    current: links.filter(function(a){ return a.getAttribute('aria-current') === 'page'; }).map(function(a){ return a.firstChild.textContent.trim(); }),
    navTop: r.top, navBottom: r.bottom, viewHeight: window.innerHeight,
    position: getComputedStyle(nav.closest('.bar') || nav).position,
    scrollW: document.documentElement.scrollWidth, clientW: document.documentElement.clientWidth,
    lastBottom: foot.getBoundingClientRect().bottom
  });
})()`

func TestNavIsOneLineBottomBarAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	wantCurrent := map[string]string{"/": "Home", "/messages": "Messages", "/people": "People", "/routines": "Routines",
		"/schedules": "More", "/runs": "More", "/more": "More", "/weight": "More"}
	for _, page := range []string{"/", "/messages", "/people", "/routines", "/schedules", "/runs", "/more", "/weight"} {
		tb.do("open "+page, chromedp.Navigate(srv.URL+page), chromedp.WaitVisible(css(`nav[aria-label="Main"]`)))
		var g navGeometry
		raw := get(tb, "nav geometry", chromedp.Evaluate[string](navGeometryJS))
		if err := json.Unmarshal([]byte(raw), &g); err != nil {
			t.Fatal(err)
		}
		if strings.Join(g.Labels, ",") != "Home,Messages,People,Routines,More" {
			t.Errorf("%s: nav items %v", page, g.Labels)
		}
		for _, top := range g.Tops {
			if top != g.Tops[0] {
				t.Errorf("%s: nav wraps onto more than one line: tops %v", page, g.Tops)
				break
			}
		}
		if g.Position != "fixed" || g.NavBottom < g.ViewHeight-1 || g.NavBottom > g.ViewHeight+1 {
			t.Errorf("%s: nav is not a bar at the bottom of the screen: %s, bottom %.0f of %.0f", page, g.Position, g.NavBottom, g.ViewHeight)
		}
		if g.NavBottom-g.NavTop > 72 {
			t.Errorf("%s: nav is %.0f px tall, want one line", page, g.NavBottom-g.NavTop)
		}
		if len(g.Current) != 1 || g.Current[0] != wantCurrent[page] {
			t.Errorf("%s: aria-current on %v, want %s", page, g.Current, wantCurrent[page])
		}
		if g.ScrollW > g.ClientW {
			t.Errorf("%s: horizontal scroll: %.0f wide in %.0f", page, g.ScrollW, g.ClientW)
		}
		if g.LastBottom > g.NavTop+1 {
			t.Errorf("%s: the page's end (%.0f) is hidden behind the bar (top %.0f)", page, g.LastBottom, g.NavTop)
		}
	}
	// More lists the pages that are not tabs, and sign-out.
	tb.do("open more", chromedp.Navigate(srv.URL+"/more"), chromedp.WaitVisible(css(`[data-testid="more"]`)))
	more := get(tb, "more", textOf(`main`))
	for _, w := range []string{"Weight", "Runs", "Schedules", "Log out"} {
		if !strings.Contains(more, w) {
			t.Errorf("More page lacks %q: %q", w, more)
		}
	}
	// Without JavaScript the tabs still go where they say.
	nojs := newTab(t, srv)
	nojs.do("no script", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	nojs.do("tabs without script", chromedp.Navigate(srv.URL+"/people"), chromedp.Click(css(`nav[aria-label="Main"] a[href="/more"]`)),
		chromedp.WaitVisible(css(`[data-testid="more"]`)), chromedp.Click(css(`[data-testid="more-runs"]`)),
		chromedp.WaitVisible(css(`[data-testid="runs-freshness"]`)))
	// An anchor lands where the owner can read it: the row's head is on
	// screen, not under a bar.
	day := demoDay(t)
	tb.do("open anchor", chromedp.Navigate(srv.URL+"/?open=book-bike-service#row-book-bike-service"), chromedp.WaitVisible(css(`#row-book-bike-service`)))
	top := get(tb, "anchor top", chromedp.Evaluate[float64](`document.getElementById('row-book-bike-service').getBoundingClientRect().top`))
	barTop := get(tb, "bar top", chromedp.Evaluate[float64](`document.querySelector('nav[aria-label="Main"]').getBoundingClientRect().top`))
	if top < 0 || top > barTop {
		t.Errorf("anchor row top %.0f, bar at %.0f (day %s)", top, barTop, day)
	}
}

// tapTargetsJS lists every visible control smaller than 44×44 CSS px. A
// checkbox or radio counts by its label when the label wraps it. A link
// inside running text (a p with words outside the link) is exempt under
// WCAG 2.5.8's inline exception; the exempt ones are listed to be logged.
const tapTargetsJS = `(function(){
  function visible(el){ var r = el.getBoundingClientRect(); var s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !el.closest('[hidden]') && !el.closest('.visually-hidden'); }
  function name(el){ var s = el.tagName.toLowerCase(); if (el.id) s += '#' + el.id;
    if (el.dataset.testid) s += '[data-testid=' + el.dataset.testid + ']';
    var t = (el.textContent || el.value || '').trim().replace(/\s+/g,' ').slice(0, 40); return s + ' "' + t + '"'; }
  function inText(a){ var p = a.parentElement; if (!p || p.tagName !== 'P') return false;
    if (getComputedStyle(a).display !== 'inline') return false;
    var rest = p.textContent.replace(a.textContent, '').replace(/[\s.:,;()·→←]/g, ''); return rest.length > 0; }
  var small = [], exempt = [];
  document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary').forEach(function(el){
    if (!visible(el) && !(el.matches('input') && el.closest('label') && visible(el.closest('label')))) return;
    var box = el;
    if (el.matches('input[type=checkbox], input[type=radio]') && el.closest('label')) box = el.closest('label');
    var r = box.getBoundingClientRect();
    if (r.width >= 43.5 && r.height >= 43.5) return;
    if (el.matches('a') && inText(el)) { exempt.push(name(el)); return; }
    small.push(name(el) + ' ' + Math.round(r.width) + '×' + Math.round(r.height));
  });
  return JSON.stringify({small: small, exempt: exempt});
})()`

func TestOwnerPagesTapTargetsAtLeast44(t *testing.T) {
	srv := startServer(t, "", "--demo")
	// A schedule and a failed run, so Schedules and Runs show their controls.
	ops := newScheduleCLI(t, srv, "ops", models.ScopeSchedulesAdmin)
	wantExit(t, ops.run(t, "add", "--id", "brief", "--job", "morning", "--cron", "30 6 * * 1-5",
		"--zone", "Europe/Berlin", "--prompt", "Write the morning brief."), 0, "stdout", "created")
	agent := newAgentClient(srv.URL, mintToken(t, srv.DataDir))
	for _, step := range []struct{ path, body string }{
		{"/api/runs", `{"runId":"run-1","job":"morning","trigger":"manual"}`},
		{"/api/runs/run-1/invocations", ``},
		{"/api/runs/run-1/finish", `{"outcome":"failed","detail":"exit status 3"}`},
	} {
		var body []byte
		if step.body != "" {
			body = []byte(step.body)
		}
		if status, resp, err := agent.do(http.MethodPost, step.path, body); err != nil || status >= 300 {
			t.Fatalf("%s: %d %s %v", step.path, status, resp, err)
		}
	}
	tb := newTab(t, srv)
	tb.login()
	// A routine on trial, so the Routines page shows its summary and strip
	// (the demo's history may already have one).
	tb.do("routines", chromedp.Navigate(srv.URL+"/routines"), chromedp.WaitVisible(css(`main h1`)))
	if !get(tb, "a trial?", chromedp.Evaluate[bool](`!!document.querySelector('[data-testid="this-week"]')`)) {
		tb.do("try a routine", chromedp.Click(css(`[data-testid="try"] summary`)),
			chromedp.Click(css(`[data-testid="try-submit"]`)), chromedp.WaitVisible(css(`[data-testid="this-week"]`)))
	}
	for _, page := range ownerPages(t) {
		tb.do("open "+page, chromedp.Navigate(srv.URL+page), chromedp.WaitVisible(css(`main`)))
		// htmx is loaded where the page has hx- attributes, and nowhere
		// else (the Messages list too is plain links).
		var scripts struct{ HX, HTMX bool }
		raw := get(tb, "htmx use", chromedp.Evaluate[string](htmxUseJS))
		if err := json.Unmarshal([]byte(raw), &scripts); err != nil {
			t.Fatal(err)
		}
		if scripts.HX != scripts.HTMX {
			t.Errorf("%s: hx- attributes %v but htmx loaded %v", page, scripts.HX, scripts.HTMX)
		}
		// Open every details element, so what sits behind one is measured too.
		tb.do("open details", chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('details').forEach(function(d){ d.open = true; })`))
		var got struct{ Small, Exempt []string }
		raw = get(tb, "tap targets", chromedp.Evaluate[string](tapTargetsJS))
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatal(err)
		}
		for _, s := range got.Small {
			t.Errorf("%s: tap target under 44×44: %s", page, s)
		}
		if len(got.Exempt) > 0 {
			t.Logf("%s: inline links in running text (WCAG 2.5.8 inline exception): %v", page, got.Exempt)
		}
		sw := get(tb, "scroll width", chromedp.Evaluate[float64](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
		if sw > 0 {
			t.Errorf("%s: horizontal scroll of %.0f px", page, sw)
		}
	}
}
