package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/internal/poll"
)

// inView is true when the element of sel is on screen (top in the
// viewport), or holds the focus.
func inView(sel string) string {
	return `(function(){var e=document.querySelector('` + sel + `');if(!e)return false;var r=e.getBoundingClientRect();
		return (r.top >= 0 && r.top < innerHeight) || e === document.activeElement || e.contains(document.activeElement)})()`
}

// The live update for the import's own revision once reloaded the dry-run
// page, which cancelled the confirm navigation and
// posted the dry run again, so the page said nothing was imported.
func TestImportAtLatencyReportsTheTrueCountAtTheTop(t *testing.T) {
	_, p, tb := startTailnet(t, "--demo")
	p.setLatency(150 * time.Millisecond)
	file := filepath.Join(t.TempDir(), "weights.csv")
	if err := os.WriteFile(file, []byte("date,weight\n2020-01-01,80.1\n2020-01-02,79.9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tb.do("check the file",
		chromedp.Navigate(p.URL+"/weight"),
		chromedp.WaitVisible(css(`.import-form`)),
		chromedp.SetUploadFiles(css(`#file`), []string{file}),
		chromedp.Click(css(`.import-form button[type="submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="import-confirm"] button`)),
	)
	dry := get(tb, "dry run", textOf(`[data-testid="import-summary"]`))
	if !strings.Contains(dry, "2 new readings") {
		t.Fatalf("dry run says %q", dry)
	}
	// The dry-run page listens for live updates, as the owner's would.
	get(tb, "stream open", chromedp.Poll[bool](`Number(document.body.dataset.seen || 0) > 0`))
	tb.do("import", chromedp.Click(css(`[data-testid="import-confirm"] button`)))
	got := pollAcross(tb, "the import's answer", `(function(){var s=document.querySelector('[data-testid="import-summary"]');
		return document.readyState === "complete" && s && s.textContent !== `+jsString(dry)+` ? s.textContent : ""})()`)
	if !strings.Contains(got, "Added 2 readings") {
		t.Errorf("after Import the page says %q, want \"Added 2 readings…\"", got)
	}
	if !get(tb, "summary in view", chromedp.Evaluate[bool](inView(`[data-testid="import-summary"]`))) {
		top := get(tb, "summary top", chromedp.Evaluate[float64](`document.querySelector('[data-testid="import-summary"]').getBoundingClientRect().top`))
		t.Errorf("the import's result is %.0f px from the top of the screen and not focused; the owner does not see it", top)
	}
	if n := p.posts("/weight/import"); n != 2 {
		t.Errorf("%d POSTs to /weight/import, want 2 (the check and the import)", n)
	}
}

// pollAcross evaluates expr until it is a non-empty string, through
// navigations (a Poll stops with the page it started on).
func pollAcross(tb *tab, what, expr string) string {
	tb.t.Helper()
	var v string
	var err error
	if !poll.Within(stepTimeout, func() bool {
		ctx, cancel := context.WithTimeout(tb.ctx, time.Second)
		v, err = chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		cancel()
		return err == nil && v != ""
	}) {
		tb.fail(what, fmt.Errorf("not there after %s (last error %v)", stepTimeout, err))
	}
	return v
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`)
	return `"` + r.Replace(s) + `"`
}

// A page showing a form's answer (here an import's check) is not reloaded
// by a change made elsewhere: it offers the reload instead, and keeps the
// page the owner is reading.
func TestAFormsAnswerIsNotReloadedByAChangeElsewhere(t *testing.T) {
	srv, p, tb := startTailnet(t, "--demo")
	file := filepath.Join(t.TempDir(), "weights.csv")
	if err := os.WriteFile(file, []byte("date,weight\n2020-03-01,80.1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tb.do("check the file",
		chromedp.Navigate(p.URL+"/weight"),
		chromedp.SetUploadFiles(css(`#file`), []string{file}),
		chromedp.Click(css(`.import-form button[type="submit"]`)),
		chromedp.WaitVisible(css(`[data-testid="import-confirm"] button`)),
		chromedp.Evaluate[chromedp.Void](`window.hearthKept = true`),
	)
	get(tb, "stream open", chromedp.Poll[bool](`Number(document.body.dataset.seen || 0) > 0`))
	ac := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	if code, body, err := ac.publish(newPublication("elsewhere", ac.context(t).Revision, 1).Body); err != nil || code != 201 {
		t.Fatalf("publish: %d %s %v", code, body, err)
	}
	tb.do("the notice", chromedp.WaitVisible(css(`#page-stale`)))
	if !get(tb, "same page", chromedp.Evaluate[bool](`window.hearthKept === true && !!document.querySelector('[data-testid="import-confirm"] button')`)) {
		t.Errorf("the check's page was reloaded by a change elsewhere")
	}
}
