package e2e

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ownerItemsOf lists the owner's own items as the agent's context has them.
func ownerItemsOf(t *testing.T, srv *server) []struct{ ID, Text, Day, AddedBy string } {
	t.Helper()
	var ac struct {
		OwnerItems []struct{ ID, Text, Day, AddedBy string } `json:"ownerItems"`
	}
	decodeJSON(t, newAgentClient(srv.URL, demoToken(t, srv.DataDir)).contextJSON(t), &ac)
	return ac.OwnerItems
}

// addedOnce checks that hearth holds exactly one item of each text, the owner's.
func addedOnce(t *testing.T, srv *server, texts ...string) {
	t.Helper()
	items := ownerItemsOf(t, srv)
	for _, text := range texts {
		n := 0
		for _, it := range items {
			if it.Text == text && it.AddedBy == "owner" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d items %q of the owner's in the context, want exactly one (all: %+v)", n, text, items)
		}
	}
	if len(items) != len(texts) {
		t.Errorf("%d items in the context, want %d: %+v", len(items), len(texts), items)
	}
}

// quickAdd types words into Home's quick add and taps Add.
func quickAdd(tb *tab, words string) {
	tb.t.Helper()
	tb.do("quick add "+words,
		chromedp.SendKeys(css(`[data-testid="quick-add-text"]`), words),
		tap(`[data-testid="quick-add-save"]`),
	)
}

// quickAddNote is the quick add's note on what waits.
const quickAddNote = `.quick-add-form [data-testid="sync-note"]`

// mineTexts lists the owner's items Home shows (sel: a list of them).
func mineTexts(tb *tab, sel string) []string {
	return get(tb, "items under "+sel, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('`+sel+` [data-testid="mine-text"]')).map(e => e.textContent.trim())`))
}

// quickAddWaits checks the words are said as waiting, none refused, and
// the field is empty for the next one.
func quickAddWaits(t *testing.T, tb *tab, queued int, words ...string) {
	t.Helper()
	eventually(tb, "the note names "+words[len(words)-1], `(function (n) {
		return !!n && n.textContent.indexOf('`+words[len(words)-1]+`') >= 0;
	})(document.querySelector('`+quickAddNote+`'))`, 10*time.Second)
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "\u201c" + w + "\u201d"
	}
	waitsToSync(t, tb, quickAddNote, queued, quoted...)
	if v := get(tb, "field", chromedp.Value(css(`[data-testid="quick-add-text"]`))); v != "" {
		t.Errorf("the field still holds %q after the add was kept", v)
	}
}

func TestAQuickAddFromAColdStartOfflineWaitsInWordsAndSyncsOnceAsTheOwnersOwnItem(t *testing.T) {
	srv, line := installedBehindCable(t)

	line.set(true)
	tb := newTab(t, &server{URL: line.URL, DataDir: srv.DataDir})
	tb.emulateOffline(true)
	tb.do("open Home offline", chromedp.Navigate(line.URL+"/"), chromedp.WaitVisible(css(`[data-testid="offline-banner"]`)))
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	quickAdd(tb, "buy milk")
	quickAddWaits(t, tb, 1, "buy milk")
	quickAdd(tb, "call Ana tomorrow")
	quickAddWaits(t, tb, 2, "buy milk", "call Ana tomorrow")
	if n := len(ownerItemsOf(t, srv)); n != 0 {
		t.Fatalf("%d items reached hearth while the phone was offline", n)
	}

	line.set(false)
	tb.emulateOffline(false)
	get(tb, "synced", chromedp.Poll[bool](queueSynced))
	addedOnce(t, srv, "buy milk", "call Ana")
	// Shown as the owner's own items, where an add online shows them.
	eventually(tb, "shown on Home", `!!document.querySelector('[data-testid="mine-ahead"] [data-testid="mine-item"]')`, 10*time.Second)
	if got := mineTexts(tb, `[data-testid="mine-today"]`); len(got) != 1 || got[0] != "buy milk" {
		t.Errorf("today's own items after sync: %q, want [buy milk]", got)
	}
	if got := mineTexts(tb, `[data-testid="mine-ahead"]`); len(got) != 1 || got[0] != "call Ana" {
		t.Errorf("later own items after sync: %q, want [call Ana]", got)
	}
	if n := get(tb, "notes", chromedp.Evaluate[int](`document.querySelectorAll('[data-sync-note], [data-stale-note]:not([hidden])').length`)); n != 0 {
		t.Errorf("%d notes left after the sync", n)
	}
}

func TestAQuickAddWithoutHearthWaitsAndSyncsOnce(t *testing.T) {
	onEachDownWay(t, func(t *testing.T, _ int, w downWay, srv *server, line *cable, tb *tab) {
		get(tb, "settled", chromedp.Poll[bool](htmxSettled))
		w.down(tb, line)
		quickAdd(tb, "buy milk")
		quickAddWaits(t, tb, 1, "buy milk")
		w.up(tb, line)
		get(tb, "synced", chromedp.Poll[bool](queueSynced))
		addedOnce(t, srv, "buy milk")
		eventually(tb, "shown on Home", `!!document.querySelector('[data-testid="mine-today"] [data-testid="mine-item"]')`, 10*time.Second)
		if got := mineTexts(tb, `[data-testid="mine-today"]`); len(got) != 1 || got[0] != "buy milk" {
			t.Errorf("own items after sync: %q, want [buy milk]", got)
		}
	})
}

func TestAQuickAddWhoseAnswerWasLostIsSentAgainAndAddedOnce(t *testing.T) {
	srv, line, tb := loggedInBehindCable(t)
	get(tb, "settled", chromedp.Poll[bool](htmxSettled))
	// The add reaches hearth and is stored; its answer never comes back, so
	// the phone keeps it and sends it again.
	line.setLoseAnswers(true)
	quickAdd(tb, "buy milk")
	eventually(tb, "kept", `!!document.querySelector('`+quickAddNote+`')`, 10*time.Second)
	if n := len(ownerItemsOf(t, srv)); n != 1 {
		t.Fatalf("%d items stored by the first send, want 1", n)
	}
	line.setLoseAnswers(false)
	eventually(tb, "synced", queueSynced, 30*time.Second)
	addedOnce(t, srv, "buy milk")
	if got := mineTexts(tb, `[data-testid="mine-today"]`); len(got) != 1 || got[0] != "buy milk" {
		t.Errorf("own items after the replay: %q, want [buy milk]", got)
	}
}
