package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/internal/poll"
)

// bannerOf waits (a hang detector, not a timing claim) for serve --demo's
// banner to end with its pointer to the docs, and returns the output so far.
func bannerOf(t *testing.T, srv *server) string {
	t.Helper()
	var out string
	poll.Within(10*time.Second, func() bool {
		out = srv.log.String()
		return strings.Contains(out, "docs/operations.md")
	})
	return out
}

func TestDemoBannerSaysHowToOpenTheDemoOnAPhone(t *testing.T) {
	t.Parallel()
	out := bannerOf(t, startServer(t, "", "--demo"))
	for _, want := range []string{
		"log in with passphrase: hearth-demo",
		"tailscale serve --bg --https=443 http://127.0.0.1:",
		"make run HOSTS=",
		"ADDR=0.0.0.0:",
		"Plain HTTP",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo banner lacks %q:\n%s", want, out)
		}
	}
	// Started for a tailnet name, it names the address to open.
	out = bannerOf(t, startServer(t, "", "--demo", "--host", "hearth.tail1234.ts.net"))
	if !strings.Contains(out, "open https://hearth.tail1234.ts.net") {
		t.Errorf("the banner does not name the tailnet address:\n%s", out)
	}
}

// make run builds through make generate: templ's progress lines ("(✓)
// Post-generation event received … needsBrowserReload=true") are watch-mode
// words that mean nothing to someone starting the demo.
func TestMakeGeneratePrintsNothingWhenAllIsWell(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", "--no-print-directory", "generate")
	cmd.Dir = ".."
	cmd.Env = cleanEnv()
	out, err := cmd.CombinedOutput()
	// On a fresh machine the go command names the modules of templ it
	// fetches, once; those lines are Go's, not templ's.
	var printed []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" && !strings.HasPrefix(line, "go: downloading ") {
			printed = append(printed, line)
		}
	}
	if err != nil || len(printed) != 0 {
		t.Errorf("make generate: %v, printed:\n%s", err, out)
	}
}

// demoTab is a logged-in phone tab on a fresh demo.
func demoTab(t *testing.T) *tab {
	t.Helper()
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	return tb
}

func TestRoutinesOfTheDemoFitsUnder2500PxAndOpensWithToday(t *testing.T) {
	tb := demoTab(t)
	tb.do("open Routines", chromedp.Navigate(tb.srv.URL+"/routines"), chromedp.WaitVisible(css("h1")))
	height := get(tb, "height", chromedp.Evaluate[int](`document.documentElement.scrollHeight`))
	t.Logf("Routines is %d px tall at 390 px", height)
	if height >= 2500 {
		t.Errorf("Routines is %d px tall at 390 px, want under 2,500", height)
	}
	first := get(tb, "first section", chromedp.Evaluate[string](`(document.querySelector("main section") || {}).dataset?.testid || ""`))
	if first != "today" {
		t.Errorf("Routines opens with %q, want today", first)
	}
	// The README's screenshot of Routines (`make screenshots` writes it into docs/).
	shot := get(tb, "screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(screenshotDir(t), "routines-390.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of Routines at 390×844: %s", path)
}

func TestDoneTitlesWrapLikeOtherRows(t *testing.T) {
	tb := demoTab(t)
	// Tick a task so Done has a row, then measure its title's lines.
	tb.expand("book-bike-service", "task")
	tb.do("complete", tap(rowSel("book-bike-service")+` [data-testid="complete"]`),
		chromedp.WaitReady(css(`[data-testid="done-today"] `+rowSel("book-bike-service"))))
	tb.do("open Done", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="done-today"]').open = true`))
	raw := get(tb, "title size", chromedp.Evaluate[string](`(() => {
		const t = document.querySelector('[data-testid="done-today"] `+rowSel("book-bike-service")+` .title');
		const r = t.getBoundingClientRect();
		return JSON.stringify({w: r.width, h: r.height, line: parseFloat(getComputedStyle(t).lineHeight) || 24, text: t.textContent});
	})()`))
	var m struct {
		W, H, Line float64
		Text       string
	}
	json.Unmarshal([]byte(raw), &m)
	// "Book the bike service" fits in two lines at a phone's width; one
	// word per line is four.
	if lines := m.H / m.Line; lines > 2.5 || m.W < 150 {
		t.Errorf("Done title %q is %.0f px wide and %.1f lines tall", m.Text, m.W, lines)
	}
}

func TestMoreRowsArePaddedAndTheTabSaysWhatItOpens(t *testing.T) {
	tb := demoTab(t)
	tb.do("open More", chromedp.Navigate(tb.srv.URL+"/more"), chromedp.WaitVisible(css(`[data-testid="more-weight"]`)))
	raw := get(tb, "padding", chromedp.Evaluate[string](`(() => {
		const a = document.querySelector('[data-testid="more-weight"]');
		const s = getComputedStyle(a), t = a.querySelector('.title').getBoundingClientRect(), r = a.getBoundingClientRect();
		return JSON.stringify({left: t.left - r.left, top: t.top - r.top, pad: parseFloat(s.paddingLeft)});
	})()`))
	var m struct{ Left, Top, Pad float64 }
	json.Unmarshal([]byte(raw), &m)
	if m.Left < 8 || m.Pad < 8 {
		t.Errorf("More's row text sits %.0f px from its edge (padding %.0f px)", m.Left, m.Pad)
	}
	name := get(tb, "More tab name", chromedp.Evaluate[string](`(() => { const a = document.querySelector('nav a[href="/more"]'); return a.getAttribute("aria-label") || a.textContent; })()`))
	if name == "More" {
		t.Errorf("the More tab's accessible name is %q, vague link text to Lighthouse", name)
	}
}

func TestMessagesRowsShowEachChatsLastMessage(t *testing.T) {
	tb := demoTab(t)
	tb.do("open Messages", chromedp.Navigate(tb.srv.URL+"/messages"), chromedp.WaitVisible(css(`[data-testid="chat"]`)))
	raw := get(tb, "previews", chromedp.Evaluate[string](`JSON.stringify([...document.querySelectorAll('[data-testid="chat"]')].map(r => {
		const p = r.querySelector('[data-testid="chat-preview"]');
		return p ? {text: p.textContent.trim(), h: p.getBoundingClientRect().height, line: parseFloat(getComputedStyle(p).lineHeight)} : null;
	}))`))
	var rows []*struct {
		Text    string
		H, Line float64
	}
	json.Unmarshal([]byte(raw), &rows)
	if len(rows) == 0 {
		t.Fatal("no chats")
	}
	for i, r := range rows {
		switch {
		case r == nil:
			t.Errorf("chat %d shows no last message", i)
		// "Ana: text", or what someone did in words ("You reacted ❤️ to a message").
		case !(strings.Contains(r.Text, ": ") || strings.Contains(r.Text, " reacted ") || strings.Contains(r.Text, " deleted ")) || len(r.Text) < 8:
			t.Errorf("chat %d's preview %q names no sender and text", i, r.Text)
		case r.H > r.Line*1.5:
			t.Errorf("chat %d's preview %q takes %.0f px, more than a line", i, r.Text, r.H)
		}
	}
}

// TestOwnerPagesHaveNoAxeViolationsAtAll runs axe on every owner page of
// the demo, Lighthouse's four among them, in the light and the dark scheme:
// no violation of any impact, minor ones included.
func TestOwnerPagesHaveNoAxeViolationsAtAll(t *testing.T) {
	tb := demoTab(t)
	for _, page := range []string{"/", "/messages", "/routines", "/weight", "/people", "/more", "/schedules", "/runs", "/nope"} {
		tb.do("open "+page, chromedp.Navigate(tb.srv.URL+page), chromedp.WaitVisible(css("h1")))
		axeNoViolations(tb, page)
	}
}
