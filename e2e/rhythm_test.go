package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/internal/poll"
)

// TestPeopleOfTheDemoSayEachRhythmAndThatJonasIsDriftingAt390 opens the
// demo's People as the owner's phone does once the watch has read Beeper:
// Lena's steady rhythm and Jonas drifting in words, nothing for Ana or
// Tomas (their chats hold too few conversations to tell), no sideways
// scroll and no axe violation; and saves docs/people-rhythm-390.png.
func TestPeopleOfTheDemoSayEachRhythmAndThatJonasIsDriftingAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	type card struct{ ID, Rhythm, Drifting string }
	var page struct {
		Cards                    []card
		ScrollWidth, ClientWidth int
	}
	read := func() {
		tb.do("open People", chromedp.Navigate(srv.URL+"/people"), chromedp.WaitVisible(css(`[data-testid="people"]`)))
		raw := get(tb, "read People", chromedp.Evaluate[string](`JSON.stringify({
			Cards: [...document.querySelectorAll('[data-testid="person"]')].map(li => ({
				ID: li.id,
				Rhythm: li.querySelector('[data-testid="person-rhythm"]')?.textContent.replace(/\s+/g, ' ').trim() ?? '',
				Drifting: li.querySelector('[data-testid="person-drifting"]')?.textContent.trim() ?? ''})),
			ScrollWidth: document.documentElement.scrollWidth,
			ClientWidth: document.documentElement.clientWidth})`))
		if err := json.Unmarshal([]byte(raw), &page); err != nil {
			t.Fatal(err)
		}
	}
	// The watch reads the demo's Beeper on its first pass after the start.
	poll.Eventually(t, 60*time.Second, func() (bool, string) {
		read()
		n := 0
		for _, c := range page.Cards {
			if c.Rhythm != "" {
				n++
			}
		}
		return n >= 2, fmt.Sprintf("People shows %+v", page.Cards)
	})
	want := map[string]string{
		"person-jonas-weber":     "Drifting: usually every 9 days, now 23 · you usually start (5 of 8)",
		"person-lena-brandt":     "Usually every 5 days · they usually start (9 of 12)",
		"person-ana-okafor":      "",
		"person-tomas-lindqvist": "",
	}
	if len(page.Cards) != len(want) {
		t.Fatalf("People lists %+v; want %d people", page.Cards, len(want))
	}
	for _, c := range page.Cards {
		if w, ok := want[c.ID]; !ok || c.Rhythm != w {
			t.Errorf("%s says %q; want %q", c.ID, c.Rhythm, w)
		}
		if (c.Drifting != "") != (c.ID == "person-jonas-weber") {
			t.Errorf("%s marks drifting %q; only Jonas drifts", c.ID, c.Drifting)
		}
	}
	if page.ScrollWidth > page.ClientWidth || page.ClientWidth != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", page.ScrollWidth, page.ClientWidth)
	}
	axeNoViolations(tb, "People")
	if !get(tb, "show Jonas and Lena", chromedp.Evaluate[bool](`document.getElementById('person-jonas-weber').scrollIntoView({block: 'start'}), true`)) {
		t.Fatal("could not scroll to Jonas")
	}
	shot := get(tb, "screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(screenshotDir(t), "people-rhythm-390.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of People at 390×844: %s (%d bytes)", path, len(shot))
}
