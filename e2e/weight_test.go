package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// screenshotDir is where browser tests save the README's screenshots:
// $HEARTH_SCREENSHOT_DIR, else hearth-screenshots in the temp dir.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("HEARTH_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "hearth-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWeightPageShowsTheDemoTrendAndChangesAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("open /weight",
		chromedp.Navigate(srv.URL+"/weight"),
		chromedp.WaitVisible(css(`svg[data-testid="weight-chart"]`)),
	)
	var page struct {
		Title, Trend, Change7, Change30 string
		Dots, Entries, ScrollWidth      int
		ClientWidth                     int
	}
	raw := get(tb, "read the page", chromedp.Evaluate[string](`JSON.stringify({
		Title: document.querySelector('svg[data-testid="weight-chart"] title').textContent,
		Trend: document.querySelector('path[data-testid="trend-path"]').getAttribute('d'),
		Change7: document.querySelector('[data-testid="change-7"]').textContent.trim(),
		Change30: document.querySelector('[data-testid="change-30"]').textContent.trim(),
		Dots: document.querySelectorAll('[data-testid="weight-dot"]').length,
		Entries: document.querySelectorAll('[data-testid="weight-entry"]').length,
		ScrollWidth: document.documentElement.scrollWidth,
		ClientWidth: document.documentElement.clientWidth})`))
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	// Six weeks of weekday weigh-ins: at least four weeks' worth.
	if page.Dots < 15 || page.Entries != page.Dots || strings.Count(page.Trend, "L") != page.Dots-1 {
		t.Fatalf("chart has %d dots, %d entries, trend %q", page.Dots, page.Entries, page.Trend)
	}
	for name, c := range map[string]string{"7-day": page.Change7, "30-day": page.Change30} {
		if !strings.HasSuffix(c, " kg") || !(strings.HasPrefix(c, "−") || strings.HasPrefix(c, "+") || strings.HasPrefix(c, "±")) {
			t.Errorf("%s change %q is not a signed change in kg", name, c)
		}
	}
	if !strings.HasPrefix(page.Title, "Weight in kg") {
		t.Errorf("chart title %q", page.Title)
	}
	if page.ScrollWidth > page.ClientWidth || page.ClientWidth != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", page.ScrollWidth, page.ClientWidth)
	}
	png := get(tb, "screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(screenshotDir(t), "weight-390.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of /weight at 390×844: %s", path)

	axeViolations(tb, "/weight")
}
