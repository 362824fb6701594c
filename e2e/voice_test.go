package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPeopleShowsTheOwnersVoiceWithEachPersonAt390 opens the demo's People
// as the owner's phone does: Ana's and Tomas's cards each say, in one
// line, how the owner's replies differed from the agent's drafts (from the
// demo's seeded sends), the agent context carries the same words, and the
// page saves its screenshot (people-voice-390.png; HEARTH_SCREENSHOT_DIR=docs
// writes it into docs/).
func TestPeopleShowsTheOwnersVoiceWithEachPersonAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	var ac struct {
		Voice []struct {
			PersonID string `json:"personId"`
			Compared int    `json:"compared"`
			Summary  string `json:"summary"`
		} `json:"voice"`
	}
	if err := json.Unmarshal(newAgentClient(srv.URL, demoToken(t, srv.DataDir)).contextJSON(t), &ac); err != nil {
		t.Fatal(err)
	}
	context := map[string]string{}
	for _, v := range ac.Voice {
		context[v.PersonID] = v.Summary
	}
	if len(context) != 2 || context["ana-okafor"] != "shortens by ~40%, drops the greeting" || context["tomas-lindqvist"] != "shortens by ~15%, switches to German" {
		t.Fatalf("the context's voice %+v; want Ana's and Tomas's habits", ac.Voice)
	}

	tb := newTab(t, srv)
	tb.login()
	tb.do("open People",
		chromedp.Navigate(srv.URL+"/people"),
		chromedp.WaitVisible(css(`#person-ana-okafor [data-testid="person-voice"]`)),
	)
	var page struct {
		Ana, Tomas               string
		Lines                    int
		ScrollWidth, ClientWidth int
	}
	raw := get(tb, "read People", chromedp.Evaluate[string](`JSON.stringify({
		Ana: document.querySelector('#person-ana-okafor [data-testid="person-voice"]').textContent.trim(),
		Tomas: document.querySelector('#person-tomas-lindqvist [data-testid="person-voice"]').textContent.trim(),
		Lines: document.querySelectorAll('[data-testid="person-voice"]').length,
		ScrollWidth: document.documentElement.scrollWidth,
		ClientWidth: document.documentElement.clientWidth})`))
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	if page.Ana != "Your voice with Ana: shortens by ~40%, drops the greeting (5 drafts sent in 90 days)" ||
		page.Tomas != "Your voice with Tomas: shortens by ~15%, switches to German (3 drafts sent in 90 days)" || page.Lines != 2 {
		t.Fatalf("People's voice lines: Ana %q, Tomas %q, %d lines in all", page.Ana, page.Tomas, page.Lines)
	}
	if page.ScrollWidth > page.ClientWidth || page.ClientWidth != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", page.ScrollWidth, page.ClientWidth)
	}
	tb.do("show Ana's card", chromedp.ScrollIntoView(css(`#person-ana-okafor [data-testid="person-voice"]`)))
	shot := get(tb, "screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(screenshotDir(t), "people-voice-390.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of People at 390×844: %s (%d bytes)", path, len(shot))
}
