package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// waitingPage is what the demo's "waiting on you" list shows.
type waitingPage struct {
	Needs, Aside, Agent      []struct{ Key, Kind, Age string }
	Finished                 []struct{ Key, Kind, Age string }
	Section                  bool
	ScrollWidth, ClientWidth int
}

// readWaiting reads Home's list: its items by group, and the page's widths.
func (tb *tab) readWaiting() waitingPage {
	tb.t.Helper()
	raw := get(tb, "read the waiting list", chromedp.Evaluate[string](`(function(){
		function items(group) {
			return Array.from(document.querySelectorAll('[data-testid="' + group + '"] [data-testid="waiting-item"]')).map(function(li) {
				return {Key: li.dataset.key, Kind: li.dataset.kind, Age: li.querySelector('[data-testid="waiting-age"]').textContent.trim()};
			});
		}
		return JSON.stringify({Needs: items("waiting-needs"), Aside: items("waiting-aside"), Agent: items("waiting-agent"), Finished: items("waiting-finished"),
			Section: !!document.querySelector('[data-testid="waiting"]'),
			ScrollWidth: document.documentElement.scrollWidth, ClientWidth: document.documentElement.clientWidth});
	})()`))
	var p waitingPage
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		tb.t.Fatal(err)
	}
	return p
}

func (p waitingPage) has(group []struct{ Key, Kind, Age string }, key string) bool {
	return slices.ContainsFunc(group, func(it struct{ Key, Kind, Age string }) bool { return it.Key == key })
}

// TestWaitingListGathersEveryKindOnHomeAt390 opens the demo's Home as the
// owner's phone does: one list above the rows holds a reply draft, a task,
// a held send and a routine proposal, each with its age, the owner's correction with the
// agent, and apart from them Finished; nothing scrolls sideways. Later on
// the held send sets it aside with the time it comes back. It saves
// waiting-390.png.
func TestWaitingListGathersEveryKindOnHomeAt390(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.do("wait for the list", chromedp.WaitVisible(css(`[data-testid="waiting"]`)))
	p := tb.readWaiting()
	kinds := map[string]bool{}
	for _, it := range p.Needs {
		kinds[it.Kind] = true
		if it.Age == "" {
			t.Errorf("%s shows no age", it.Key)
		}
	}
	for _, k := range []string{"reply", "task", "held-send", "proposal"} {
		if !kinds[k] {
			t.Errorf("the list has no %s: %+v", k, p.Needs)
		}
	}
	if len(p.Finished) == 0 || len(p.Agent) == 0 {
		t.Errorf("the demo shows %d finished and %d with the agent", len(p.Finished), len(p.Agent))
	}
	for _, it := range p.Finished {
		if p.has(p.Needs, it.Key) || p.has(p.Aside, it.Key) || p.has(p.Agent, it.Key) {
			t.Errorf("%s is both finished and waiting on you", it.Key)
		}
	}
	if p.ScrollWidth > p.ClientWidth || p.ClientWidth != 390 {
		t.Errorf("scrollWidth %d > clientWidth %d (want 390)", p.ScrollWidth, p.ClientWidth)
	}
	// The list is above the rows.
	if !get(tb, "list above rows", chromedp.Evaluate[bool](`(function(){
		var w = document.querySelector('[data-testid="waiting"]'), r = document.querySelector('li[data-row]');
		return !!(w.compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING);
	})()`)) {
		t.Errorf("the list is not above Home's rows")
	}
	// The whole list in one picture: Finished open, and the fixed tab bar
	// (which would sit over the list's middle) out of it.
	get(tb, "open Finished", chromedp.Evaluate[bool](`(function(){
		document.querySelector('[data-testid="waiting-finished"]').open = true;
		document.querySelector('[data-testid="waiting-agent"]').open = true;
		document.querySelector('header.bar').style.visibility = 'hidden'; return true })()`))
	shot := get(tb, "screenshot", chromedp.Screenshot(css(`[data-testid="waiting"]`)))
	path := filepath.Join(screenshotDir(t), "waiting-390.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of the waiting list at 390 px: %s (%d bytes)", path, len(shot))
	get(tb, "tab bar back", chromedp.Evaluate[bool](`(function(){ document.querySelector('header.bar').style.visibility = ''; return true })()`))

	held := p.Needs[slices.IndexFunc(p.Needs, func(it struct{ Key, Kind, Age string }) bool { return it.Kind == "held-send" })].Key
	later := `[data-testid="waiting-needs"] [data-key="` + held + `"] [data-testid="waiting-later"]`
	tb.do("tap Later on the held send", chromedp.Click(css(later)), chromedp.WaitVisible(css(`[data-testid="waiting-aside"]`)))
	after := tb.readWaiting()
	if after.has(after.Needs, held) || !after.has(after.Aside, held) {
		t.Fatalf("after Later the held send is in needs %v / aside %v", after.has(after.Needs, held), after.has(after.Aside, held))
	}
	for _, it := range after.Aside {
		if it.Key == held && !strings.HasPrefix(it.Age, "set aside, back ") {
			t.Errorf("the held send set aside says %q, not when it comes back", it.Age)
		}
	}
}

// The whole waiting list, opened with Show all, stays whole when Home
// refreshes for a change made elsewhere: the live read asks for it again.
func TestTheWholeWaitingListStaysWholeAcrossALiveRefresh(t *testing.T) {
	srv := startServer(t, "", "--demo")
	var tasks []string
	for i := range 8 {
		tasks = append(tasks, fmt.Sprintf(`{"id":"waiting-extra-%d","kind":"task","title":"Extra task %d","evidenceIds":[],"recommendation":{"section":"optional","rank":%d},"payload":{}}`, i, i, 10+i))
	}
	republish(t, srv, "more-waiting", strings.Join(tasks, ","))
	tb := newTab(t, srv)
	tb.login()
	shown := `document.querySelectorAll('[data-testid="waiting-needs"] [data-testid="waiting-item"]').length`
	count := `Number(document.querySelector('[data-testid="waiting-count"]').textContent)`
	if n := get(tb, "items shown", chromedp.Evaluate[int](shown)); n != 6 {
		t.Fatalf("Home shows %d waiting items, want the 6 oldest", n)
	}
	tb.do("show all", tap(`[data-testid="waiting-show-all"]`))
	eventually(tb, "the whole list shown", shown+` === `+count+` && `+count+` > 6`, navigationDeadline)
	all := get(tb, "items shown", chromedp.Evaluate[int](shown))

	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	republish(t, srv, "touch-other", `{"id":"book-bike-service","kind":"task","title":"Book the bike service (again)",
		"evidenceIds":["life-people-tomas"],"recommendation":{"section":"optional","rank":1},"payload":{}}`)
	tb.waitRevision(client.context(t).Revision)
	eventually(tb, "the refresh shown", `document.body.textContent.indexOf("Book the bike service (again)") >= 0`, navigationDeadline)
	if n := get(tb, "items shown", chromedp.Evaluate[int](shown)); n != all {
		t.Fatalf("after a live refresh Home shows %d waiting items, want all %d", n, all)
	}
}
