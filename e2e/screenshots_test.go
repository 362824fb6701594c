package e2e

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestHomeDemoAt390ShowsTheBriefAndItsRows opens the demo's Home as the
// owner's phone does, checks it shows the brief, rows and who wrote the
// brief without sideways scroll, and saves the README's screenshot
// (home-390.png; `make screenshots` writes it into docs/).
func TestHomeDemoAt390ShowsTheBriefAndItsRows(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("wait for rows", chromedp.WaitVisible(css(`li[data-row]`)))
	var page struct {
		Brief, Fresh             string
		Rows                     int
		ScrollWidth, ClientWidth int
	}
	raw := get(tb, "read Home", chromedp.Evaluate[string](`JSON.stringify({
		Brief: document.querySelector('[data-testid="brief-text"]').textContent.trim(),
		Fresh: document.querySelector('[data-testid="freshness"]').textContent.trim(),
		Rows: document.querySelectorAll('li[data-row]').length,
		ScrollWidth: document.documentElement.scrollWidth,
		ClientWidth: document.documentElement.clientWidth})`))
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	if page.Brief == "" || page.Rows < 3 || page.Fresh == "" {
		t.Fatalf("Home shows brief %q, %d rows, freshness %q", page.Brief, page.Rows, page.Fresh)
	}
	if page.ScrollWidth > page.ClientWidth || page.ClientWidth != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", page.ScrollWidth, page.ClientWidth)
	}
	shot := get(tb, "screenshot", chromedp.CaptureScreenshot())
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 390 || b.Dy() != 844 {
		t.Errorf("screenshot is %dx%d, want 390x844", b.Dx(), b.Dy())
	}
	path := filepath.Join(screenshotDir(t), "home-390.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of Home at 390×844: %s (%d bytes)", path, len(shot))
}
