package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPeopleShowsTheOwnersVoiceWithEachPersonAt390 opens the demo's People
// as the owner's phone does: Tomas's card says, in one line, how the
// owner's replies differed from the agent's drafts (from the demo's seeded
// sends), Ana's (no drafted reply sent) says nothing of it, the agent
// context carries the same words, and the page saves its screenshot
// (people-voice-390.png; HEARTH_SCREENSHOT_DIR=docs writes it into docs/).
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
	if len(context) != 1 || context["tomas-lindqvist"] != "shortens by ~35%, switches to German, drops the greeting" {
		t.Fatalf("the context's voice %+v; want Tomas's habits only", ac.Voice)
	}

	tb := newTab(t, srv)
	tb.login()
	tb.do("open People",
		chromedp.Navigate(srv.URL+"/people"),
		chromedp.WaitVisible(css(`#person-tomas-lindqvist [data-testid="person-voice"]`)),
	)
	var page struct {
		Tomas                    string
		Lines, AnaCard           int
		ScrollWidth, ClientWidth int
	}
	raw := get(tb, "read People", chromedp.Evaluate[string](`JSON.stringify({
		AnaCard: document.querySelectorAll('#person-ana-okafor').length,
		Tomas: document.querySelector('#person-tomas-lindqvist [data-testid="person-voice"]').textContent.trim(),
		Lines: document.querySelectorAll('[data-testid="person-voice"]').length,
		ScrollWidth: document.documentElement.scrollWidth,
		ClientWidth: document.documentElement.clientWidth})`))
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	if page.Tomas != "Your voice with Tomas: shortens by ~35%, switches to German, drops the greeting (5 drafts sent in 90 days)" ||
		page.Lines != 1 || page.AnaCard != 1 {
		t.Fatalf("People's voice lines: Tomas %q, %d lines in all (Ana's card shown %d times); want Tomas's line only", page.Tomas, page.Lines, page.AnaCard)
	}
	if page.ScrollWidth > page.ClientWidth || page.ClientWidth != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", page.ScrollWidth, page.ClientWidth)
	}
	tb.do("show Tomas's card", chromedp.Evaluate[chromedp.Void](`document.querySelector('#person-tomas-lindqvist').scrollIntoView({block: 'start'}); true`))
	shot := get(tb, "screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(screenshotDir(t), "people-voice-390.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of People at 390×844: %s (%d bytes)", path, len(shot))
}
