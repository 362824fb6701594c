package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// demoPassphrase is what `serve --demo` sets on a fresh data dir.
const demoPassphrase = "hearth-demo"

// stepTimeout bounds each browser step; a real wait is far shorter.
const stepTimeout = 15 * time.Second

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserCancel context.CancelFunc
	browserErr    error
)

// chromiumPath finds Debian's chromium (make test installs it when missing).
func chromiumPath() (string, error) {
	for _, p := range []string{os.Getenv("HEARTH_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
	}
	return exec.LookPath("chromium")
}

// browser starts one headless Chromium for the whole run; each test opens tabs in it.
func browser(t *testing.T) context.Context {
	t.Helper()
	browserOnce.Do(func() {
		path, err := chromiumPath()
		if err != nil {
			browserErr = fmt.Errorf("chromium not found (make test installs Debian's chromium): %w", err)
			return
		}
		ctx, cancel, err := startChromium(path)
		if err != nil {
			browserErr = err
			return
		}
		browserCtx = ctx
		browserCancel = cancel
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	return browserCtx
}

// startChromium starts a headless Chromium at 390×844 with extra flags.
// Its context carries no timeout: per-step timeouts derive from tabs.
func startChromium(path string, extra ...chromedp.ExecAllocatorOption) (context.Context, func(), error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.WindowSize(390, 844),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	ctx, cancel := chromedp.NewContext(alloc)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		return nil, nil, err
	}
	return ctx, func() { cancel(); cancelAlloc() }, nil
}

func closeBrowser() {
	if browserCancel != nil {
		browserCancel()
	}
}

// tab is one browser tab at 390×844 on a server.
type tab struct {
	t   *testing.T
	ctx context.Context
	srv *server
}

// newTab opens a phone-sized tab; cookies are shared with the other tabs.
func newTab(t *testing.T, srv *server) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser(t))
	t.Cleanup(cancel)
	// The tab's target is created by its first action, and lives as long as
	// that action's context: so create it without a step timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	tb := &tab{t: t, ctx: ctx, srv: srv}
	tb.do("viewport", chromedp.EmulateViewport(390, 844))
	return tb
}

// css is a CSS selector (a plain string would be a DevTools search).
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// do runs steps with a step timeout, failing the test with what and the page.
func (tb *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.fail(what, err)
	}
}

// get runs one action that returns a value.
func get[T any](tb *tab, what string, a chromedp.Action[T]) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		tb.fail(what, err)
	}
	return v
}

func (tb *tab) fail(what string, err error) {
	tb.t.Helper()
	dump, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
	defer cancel()
	html, _ := chromedp.Run(dump, chromedp.OuterHTML(css("main")))
	tb.t.Fatalf("%s: %v\npage main:\n%s", what, err, html)
}

// login logs in through the form and waits for Home.
func (tb *tab) login() {
	tb.t.Helper()
	tb.do("log in",
		chromedp.Navigate(tb.srv.URL+"/login"),
		chromedp.WaitVisible(css("#password")),
		chromedp.SendKeys(css("#password"), demoPassphrase),
		tap(`button[type="submit"]`),
		chromedp.WaitVisible(css(`[data-testid="brief"]`)),
	)
}

// rowSel addresses a row by activity ID.
func rowSel(id string) string { return `li[data-row][data-id="` + id + `"]` }

// htmxSettled is true once the page has loaded, htmx runs, and no request
// or swap is under way: a form swapped in is processed (hx-post bound)
// only when its swap settles, and a tap before that posts it as a plain form.
const htmxSettled = `document.readyState === "complete" && !!window.htmx &&
	!document.querySelector(".htmx-request, .htmx-added, .htmx-settling, .htmx-swapping")`

// expand opens a row (tapping its head once unless it is open already)
// and waits for its control, processed by htmx. One tap is enough: a live
// refresh that lands after it keeps the row open (hearth.js).
func (tb *tab) expand(id, kind string) {
	tb.t.Helper()
	control := rowSel(id) + ` [data-testid="control-` + kind + `"]`
	get(tb, "settle before expanding "+id, chromedp.Poll[bool](htmxSettled))
	// Tapped in the page, in one task: a DevTools click can land on a node
	// a live refresh just replaced.
	tb.do("expand "+id, chromedp.Poll[chromedp.Void](`(function () {
		var row = document.querySelector('`+rowSel(id)+`');
		if (!row) return false;
		if (row.dataset.expanded !== "true") row.querySelector(':scope > a.row-head').click();
		return true;
	})()`))
	tb.do("wait for "+id+"'s control", chromedp.Poll[chromedp.Void](`(function (c) {
		return !!c && (c.offsetWidth || c.offsetHeight || c.getClientRects().length) > 0;
	})(document.querySelector('`+control+`'))`))
	get(tb, "settle after expanding "+id, chromedp.Poll[bool](htmxSettled))
}

// rowState reads a row's data-state, or "" when the row is not on the page.
func (tb *tab) rowState(id string) string {
	return get(tb, "row state", chromedp.Evaluate[string](`(function(){var r=document.querySelector('`+rowSel(id)+`');return r?r.dataset.state:""})()`))
}

// today is the demo's day in its zone, as the demo publication uses it.
func demoDay(t *testing.T) string {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return time.Now().In(loc).Format(time.DateOnly)
}

// demoHomeRows are the rows the demo's Home shows at the top level on day
// (Europe/Berlin): today's morning routine, the weekly review on Fridays
// (its trial plans Fridays), the evening wind-down (on trial in the
// demo's history), Ana's reply and the bike service.
func demoHomeRows(day time.Time) []string {
	date := day.Format(time.DateOnly)
	rows := []string{"morning-routine-" + date}
	if day.Weekday() == time.Friday {
		rows = append(rows, "hearth:weekly-review@"+date)
	}
	return append(rows, "hearth:evening-wind-down@"+date, "reply-ana-hike", "book-bike-service")
}

// TestHomeShowsDemoBriefAndRowsAfterLogin runs in the browser on today;
// TestDemoPagesSayWhatTheDayMeansOnAnyDay proves every weekday and DST
// change day over plain HTTP.
func TestHomeShowsDemoBriefAndRowsAfterLogin(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "", "--demo")
	day := time.Now().In(loc)
	tb := newTab(t, srv)
	tb.login()
	brief := get(tb, "brief", textOf(`[data-testid="brief-text"]`))
	rows := get(tb, "rows", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#live > section li[data-row]')).map(r => r.dataset.id)`))
	if !strings.Contains(brief, "Weigh in") {
		t.Errorf("brief %q", brief)
	}
	if want := demoHomeRows(day); strings.Join(rows, ",") != strings.Join(want, ",") {
		t.Errorf("%s: top-level rows %v, want %v", day.Format("Mon 2006-01-02 15:04 MST"), rows, want)
	}
	chips := get(tb, "chips", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="chip"]').length`))
	if chips != 3 {
		t.Errorf("evidence chips %d, want 3", chips)
	}
}

func TestWeightSavedInPlaceSurvivesReload(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	routine, weigh := "morning-routine-"+day, "weigh-in-"+day
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")

	// Out of range: an inline error, nothing saved.
	tb.do("save out-of-range weight",
		chromedp.SendKeys(css(`#value-`+weigh), "7000"),
		tap(rowSel(weigh)+` [data-testid="measurement-save"]`),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="measurement-error"]`)),
	)
	tb.do("save weight",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("value-`+weigh+`").value = ""`),
		chromedp.SendKeys(css(`#value-`+weigh), "72,4"),
		tap(rowSel(weigh)+` [data-testid="measurement-save"]`),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="measurement-saved"]`)),
	)
	tb.do("reload", chromedp.Reload(), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")
	saved := get(tb, "saved", textOf(rowSel(weigh)+` [data-testid="measurement-saved"]`))
	if !strings.Contains(saved, "72.4 kg") {
		t.Errorf("after reload: %q", saved)
	}
	progress := get(tb, "progress", textOf(rowSel(routine)+` > a [data-testid="progress"]`))
	if progress != "1/3" {
		t.Errorf("routine progress %q, want 1/3", progress)
	}
}

func TestCompletedTaskFoldsIntoDoneToday(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand("book-bike-service", "task")
	tb.do("complete",
		tap(rowSel("book-bike-service")+` [data-testid="complete"]`),
		chromedp.WaitReady(css(`[data-testid="done-today"] `+rowSel("book-bike-service"))),
	)
	if st := tb.rowState("book-bike-service"); st != "completed" {
		t.Errorf("state %q", st)
	}
}

// publishWithCLI publishes at the current revision through `hearth publish`
// with the demo token; sourceRefs, activities and completedRequests are JSON
// array contents.
func publishWithCLI(t *testing.T, srv *server, runID, sourceRefs, activities, completedRequests string) {
	t.Helper()
	publishFieldsWithCLI(t, srv, runID, sourceRefs, activities, completedRequests, "")
}

// publishFieldsWithCLI is publishWithCLI with more top-level members
// (extra: `"name": value` pairs, without a leading comma), such as
// routineDefinitions.
func publishFieldsWithCLI(t *testing.T, srv *server, runID, sourceRefs, activities, completedRequests, extra string) {
	t.Helper()
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	rev := client.context(t).Revision
	if extra != "" {
		extra = "," + extra
	}
	body := fmt.Sprintf(`{"runId":%q,"jobKey":"refresh","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[%s],
		"people":[],"activities":[%s],"replyDrafts":[],"retractions":[],"completedRequests":[%s]%s}`,
		runID, rev, time.Now().UTC().Format(time.RFC3339), sourceRefs, activities, completedRequests, extra)
	file := writeFile(t, t.TempDir(), "result.json", []byte(body), 0o600)
	tokenFile := writeFile(t, t.TempDir(), "token", []byte(demoToken(t, srv.DataDir)), 0o600)
	wantExit(t, runHearth(t, nil, "publish", file, "--url", srv.URL, "--credential-file", tokenFile), 0, "stdout", "published")
}

// republish publishes activities again through the CLI.
func republish(t *testing.T, srv *server, runID string, activities string) {
	t.Helper()
	publishWithCLI(t, srv, runID, "", activities, "")
}

func TestDismissedActivityStaysDismissedAfterRepublish(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand("book-bike-service", "task")
	tb.do("dismiss", tap(rowSel("book-bike-service")+` [data-testid="dismiss"]`),
		chromedp.WaitNotPresent(css(rowSel("book-bike-service"))))
	republish(t, srv, "republish-bike", `{"id":"book-bike-service","kind":"task","title":"Book the bike service (again)",
		"evidenceIds":["life-people-tomas"],"recommendation":{"section":"optional","rank":1},"payload":{}}`)
	rev := get(tb, "wait for the publication", chromedp.Poll[int](`(function(){var r=Number(document.getElementById("live").dataset.revision);return r>=3?r:0})()`,
		chromedp.WithPollingTimeout(5*time.Second)))
	tb.do("reload", chromedp.Reload(), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	if st := tb.rowState("book-bike-service"); st != "" {
		t.Fatalf("dismissed activity back on Home after re-publication (state %q, revision %d)", st, rev)
	}
}

func TestPublishedActivityAppearsLiveWithoutReload(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	rev := client.context(t).Revision
	body := fmt.Sprintf(`{"runId":"live-1","jobKey":"refresh","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[],"people":[],
		"activities":[{"id":"call-mum","kind":"task","title":"Call Mum","evidenceIds":[],"recommendation":{"section":"focus","rank":0},"payload":{}}],
		"replyDrafts":[],"retractions":[],"completedRequests":[]}`, rev, time.Now().UTC().Format(time.RFC3339))
	if status, resp, err := client.publish([]byte(body)); err != nil || status != 201 {
		t.Fatalf("publish: %d %s %v", status, resp, err)
	}
	tb.do("wait for live row", chromedp.WaitVisible(css(rowSel("call-mum"))))
}

// latencyJS collects, for each live refresh, the time from the commit's
// server stamp (the SSE event's "at") to the refreshed fragment in the DOM,
// on the page's clock (the same machine's).
const latencyJS = `window.__latencies = []; document.addEventListener("hearth:refreshed", function (e) {
	if (e.detail.committedAt > 0) window.__latencies.push(Date.now() - e.detail.committedAt);
}); true`

// TestLiveUpdateLatencyIsMeasuredFromTheCommitStamp: every SSE event
// carries its commit's server time, and Home's live refresh passes it on,
// so commit → DOM is measured from the commit, not from an HTTP answer. It
// reports the figure (timings never fail a test); it fails if the stamp is
// missing or a refresh does not come.
func TestLiveUpdateLatencyIsMeasuredFromTheCommitStamp(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("listen", chromedp.Evaluate[chromedp.Void](latencyJS))
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	const commits = 20
	for i := range commits {
		rev := client.context(t).Revision
		body := fmt.Sprintf(`{"runId":"lat-%d","jobKey":"refresh","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[],"people":[],
			"activities":[{"id":"lat-%d","kind":"task","title":"Latency %d","evidenceIds":[],"recommendation":{"section":"focus","rank":0},"payload":{}}],
			"replyDrafts":[],"retractions":[],"completedRequests":[]}`, i, rev, time.Now().UTC().Format(time.RFC3339), i, i)
		if status, resp, err := client.publish([]byte(body)); err != nil || status != 201 {
			t.Fatalf("publish %d: %d %s %v", i, status, resp, err)
		}
		get(tb, fmt.Sprintf("refresh %d", i), chromedp.Poll[bool](fmt.Sprintf(`window.__latencies.length > %d`, i),
			chromedp.WithPollingTimeout(10*time.Second)))
	}
	got := get(tb, "latencies", chromedp.Evaluate[[]float64](`window.__latencies`))
	if len(got) < commits {
		t.Fatalf("%d stamped refreshes for %d commits", len(got), commits)
	}
	slices.Sort(got)
	p50, p90 := got[len(got)/2], got[len(got)*9/10]
	t.Logf("commit → DOM from the commit stamp, %d commits: p50 %.0f ms, p90 %.0f ms, max %.0f ms", len(got), p50, p90, got[len(got)-1])
	fmt.Printf("e2e: live update latency from the commit stamp: p50 %.0f ms, p90 %.0f ms (%d commits)\n", p50, p90, len(got))
}

func TestRoutineStepCompletedInSecondTabShowsInFirst(t *testing.T) {
	srv := startServer(t, "", "--demo")
	first := newTab(t, srv)
	first.login()
	second := newTab(t, srv) // shares the session cookie
	second.do("open home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	day := demoDay(t)
	routine, stretch := "morning-routine-"+day, "stretch-"+day
	second.expand(routine, "routine")
	second.expand(stretch, "task")
	// The routine's progress, not the step's control: a live refresh from the
	// same commit may render the routine collapsed (see docs/figures.md's notes).
	second.do("complete step", tap(rowSel(stretch)+` [data-testid="complete"]`))
	eventually(second, "progress here", `(function(){var p=document.querySelector('`+rowSel(routine)+` > a [data-testid="progress"]');return !!p&&p.textContent==="1/3"})()`, 10*time.Second)
	get(first, "see progress", chromedp.Poll[bool](`(function(){var p=document.querySelector('`+rowSel(routine)+` > a [data-testid="progress"]');return p&&p.textContent==="1/3"})()`,
		chromedp.WithPollingTimeout(3*time.Second)))
}

func TestEditedRowIsNotClobberedByLiveUpdate(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand("reply-ana-hike", "reply")
	tb.do("type in draft", chromedp.SendKeys(css(rowSel("reply-ana-hike")+` textarea`), " Can't wait!"))
	republish(t, srv, "touch-reply", `{"id":"reply-ana-hike","kind":"reply","title":"Answer Ana about Saturday's hike (updated)",
		"evidenceIds":["beeper-ana-chat"],"personId":"ana-okafor","recommendation":{"section":"focus","rank":1},"payload":{"draftId":"draft-ana-hike"}}`)
	tb.do("see stale note", chromedp.WaitVisible(css(rowSel("reply-ana-hike")+` [data-stale-note]`)))
	body := get(tb, "draft", chromedp.Value(css(rowSel("reply-ana-hike")+` textarea`)))
	if !strings.Contains(body, " Can't wait!") {
		t.Errorf("typed text lost: %q", body)
	}
}

func TestHomeHasNoHorizontalOverflowAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	tb.expand("morning-routine-"+day, "routine")
	tb.expand("weigh-in-"+day, "measurement")
	tb.expand("reply-ana-hike", "reply")
	tb.expand("book-bike-service", "task")
	widths := get(tb, "widths", chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`))
	if widths[0] > widths[1] || widths[1] != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", widths[0], widths[1])
	}
}

func TestHomeHasNoSeriousAccessibilityViolations(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	tb.expand("morning-routine-"+day, "routine")
	tb.expand("weigh-in-"+day, "measurement")
	tb.expand("reply-ana-hike", "reply")
	axeViolations(tb, "Home")
}

// emulateSlowCPU slows the tab's CPU rate times (Lighthouse's phone is 4):
// a claim about how work is split across tasks then holds however fast
// the machine that runs the tests is.
func emulateSlowCPU(rate float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: rate})
		return err
	})
}

// emulateColorScheme switches prefers-color-scheme, to check both themes.
func emulateColorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	})
}

// pageSettled is htmxSettled on a page that loads htmx (Home, Messages),
// and a loaded page on one that does not.
const pageSettled = `document.readyState === "complete" &&
	(!!window.htmx || !document.querySelector('script[src*="htmx-"]')) &&
	!document.querySelector(".htmx-request, .htmx-added, .htmx-settling, .htmx-swapping")`

// tap clicks the first shown element sel matches, found and clicked in
// the page in one task once the page is settled (pageSettled), as textOf
// reads. chromedp.Click finds the node over DevTools and clicks it in a
// second call, and a live refresh between the two, or the page's reload
// for a change, replaces the node ("Could not find node with given id");
// before htmx has taken a form swapped in, a click posts it as a plain form.
// It focuses the element first, as a tap does: a field left focused counts
// as one being typed in, and a live refresh keeps its row as it was.
// Keep chromedp.Click where a test needs the pointer's own hit test.
func tap(sel string) chromedp.Action[chromedp.Void] {
	q, _ := json.Marshal(sel)
	js := `(function (e) {
		if (!(` + pageSettled + `) || !e || !(e.offsetWidth || e.offsetHeight || e.getClientRects().length)) return false;
		e.focus({ preventScroll: true });
		e.click();
		return true;
	})(document.querySelector(` + string(q) + `))`
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool](js)(ctx, t)
		return chromedp.Void{}, err
	}
}

// textOf is the visible text (innerText) of the first element sel matches,
// found and read in the page in one task once it is shown. chromedp.Text
// finds the node over DevTools and reads it in a second call, and a live
// refresh between the two replaces the node ("No node with given id").
func textOf(sel string) chromedp.Action[string] {
	q, _ := json.Marshal(sel)
	js := `(function (e) {
		return e && (e.offsetWidth || e.offsetHeight || e.getClientRects().length) ? [e.innerText] : null;
	})(document.querySelector(` + string(q) + `))`
	return func(ctx context.Context, t *chromedp.Target) (string, error) {
		v, err := chromedp.Poll[[]string](js)(ctx, t)
		if err != nil || len(v) == 0 {
			return "", err
		}
		return v[0], nil
	}
}
