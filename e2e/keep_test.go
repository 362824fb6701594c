package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"hearth/internal/poll"
)

// restores counts, across every document of a tab, the pages Chromium showed
// from the back/forward cache (pageshow with persisted true), and keeps the
// reasons it gave (Page.backForwardCacheNotUsed) when it could not.
type restores struct {
	tb      *tab
	mu      sync.Mutex
	reasons map[string]int
}

// watchRestores installs the counter in every later document of the tab.
// sessionStorage carries the count from one document to the next.
func (tb *tab) watchRestores() *restores {
	tb.t.Helper()
	const counter = `addEventListener("pageshow", function (e) {
		if (e.persisted) sessionStorage.setItem("__restored", String(Number(sessionStorage.getItem("__restored") || 0) + 1));
	});`
	tb.onEveryDocument("count restores", counter)
	r := &restores{tb: tb, reasons: map[string]int{}}
	if err := chromedp.Listen(tb.ctx, func(ev any) {
		e, ok := ev.(*page.EventBackForwardCacheNotUsed)
		if !ok {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, x := range e.NotRestoredExplanations {
			r.reasons[string(x.Type)+" "+string(x.Reason)]++
		}
	}); err != nil {
		tb.t.Fatalf("listen: %v", err)
	}
	return r
}

// count is how many pages of this tab were restored so far.
func (r *restores) count() int {
	return get(r.tb, "restores", chromedp.Evaluate[int](`Number(sessionStorage.getItem("__restored") || 0)`))
}

// why lists the reasons Chromium gave for not restoring, with how often.
func (r *restores) why() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k, n := range r.reasons {
		out = append(out, fmt.Sprintf("%s ×%d", k, n))
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "none given"
	}
	return strings.Join(out, ", ")
}

// tapNav taps a tab of the navigation bar and waits for its page. The tap
// is the link's click() in the page: chromedp's Click waits on the document
// it clicked in, and a document kept in the back/forward cache is frozen,
// so it would never answer.
func (tb *tab) tapNav(path string) {
	tb.t.Helper()
	tb.do("tap "+path, chromedp.Evaluate[chromedp.Void](`document.querySelector('nav a[href="`+path+`"]').click(); true`))
	eventually(tb, "on "+path, fmt.Sprintf(`location.pathname === %q && document.readyState === "complete" && !!document.querySelector("main")`, path), navigationDeadline)
}

// back goes back in the tab's history, as the phone's Back does, and waits
// for path to be shown.
func (tb *tab) back(path string) {
	tb.t.Helper()
	tb.do("go back", chromedp.Evaluate[chromedp.Void](`history.back(); true`))
	eventually(tb, "back on "+path, fmt.Sprintf(`location.pathname === %q && document.readyState === "complete" && !!document.querySelector("main")`, path), navigationDeadline)
}

func TestBackRestoresHomeMessagesAndPeopleFromTheBackForwardCache(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	seen := tb.watchRestores()
	tb.login()
	for _, hop := range []struct{ from, to string }{{"/", "/messages"}, {"/messages", "/people"}, {"/people", "/"}} {
		if !get(tb, "where", chromedp.Evaluate[bool](fmt.Sprintf(`location.pathname === %q`, hop.from))) {
			tb.tapNav(hop.from)
		}
		before := seen.count()
		tb.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.__kept = true; true`))
		tb.tapNav(hop.to)
		tb.back(hop.from)
		if n := seen.count(); n != before+1 {
			t.Errorf("back to %s from %s: restored %d pages, want %d; Chromium's reasons: %s", hop.from, hop.to, n-before, 1, seen.why())
		}
		if !get(tb, "same document", chromedp.Evaluate[bool](`window.__kept === true`)) {
			t.Errorf("back to %s: the page was loaded again, not restored", hop.from)
		}
	}
	fmt.Printf("e2e: back/forward cache: %d restores; reasons when not: %s\n", seen.count(), seen.why())
}

// typeIntoBeforeKeep replaces a field's text by typing, as the owner does
// (the page sees each key's input event), and waits for nothing more.
func (tb *tab) typeIntoBeforeKeep(sel, text string) {
	tb.t.Helper()
	tb.do("type into "+sel,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+sel+`').value = ""; true`),
		chromedp.SendKeys(css(sel), text),
	)
}

// typeInto types text into the field sel, and then, as the owner's next
// step comes at human speed, waits until the typing script (started by the
// first touch, at the latest a second after the page loaded) has kept what
// a kept field holds.
func (tb *tab) typeInto(sel, text string) {
	tb.t.Helper()
	tb.typeIntoBeforeKeep(sel, text)
	eventually(tb, "what was typed into "+sel+" kept on the device", fieldJS(sel, `!f || !f.id || !f.hasAttribute("data-keep") || f.value === f.defaultValue ||
		`+keptKeysOfField+`.some(function (k) {
			try { return JSON.parse(localStorage.getItem(k)).value === f.value; } catch (err) { return false; }
		})`), 5*time.Second)
}

// valueOf is a field's value, or "<none>" when it is not on the page.
func (tb *tab) valueOf(sel string) string {
	return get(tb, "value of "+sel, chromedp.Evaluate[string](`(function(){var f=document.querySelector('`+sel+`');return f?f.value:"<none>"})()`))
}

// crash kills the tab's renderer (Page.crash), as the phone does to a tab
// it needs the memory of.
func (tb *tab) crash() {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
	defer cancel()
	// The renderer dies before it can answer: the call's error is expected.
	_ = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, page.Crash, cdp.Empty{})
		return err
	}))
	alive, cancelAlive := context.WithTimeout(tb.ctx, 2*time.Second)
	defer cancelAlive()
	if _, err := chromedp.Run(alive, chromedp.Evaluate[int](`1`)); err == nil {
		tb.t.Fatal("the tab still runs scripts after Page.crash")
	}
}

const (
	anaReply = "reply-ana-hike"
	anaBody  = `#body-reply-ana-hike`
	anaChat  = "/messages/%21ana-okafor:beeper.local"
)

func TestAReplyEditIsKeptAcrossMessagesAndBack(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	seen := tb.watchRestores()
	tb.login()
	tb.expand(anaReply, "reply")
	const typed = "Saturday works, but can we start at nine?"
	tb.typeInto(anaBody, typed)
	// The owner pauses: the text is autosaved (an answer the page fetched,
	// which must not keep the page out of the back/forward cache either).
	eventually(tb, "autosaved", `Number(document.querySelector('`+anaBody+`').dataset.keepVersion) > 0`, navigationDeadline)
	tb.tapNav("/messages")
	tb.back("/")
	if n := seen.count(); n != 1 {
		t.Errorf("Back loaded Home again (%d restores); Chromium's reasons: %s", n, seen.why())
	}
	if got := tb.valueOf(anaBody); got != typed {
		t.Errorf("after Messages and Back the reply editor holds %q, want %q", got, typed)
	}
}

func TestAReplyEditIsKeptAcrossAReload(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand(anaReply, "reply")
	const typed = "Saturday works, see you at the station"
	tb.typeInto(anaBody, typed)
	tb.do("reload", chromedp.Reload())
	eventually(tb, "the reply back in its editor after the reload", fmt.Sprintf(`(function(){var f=document.querySelector('%s');return !!f && f.value === %q})()`, anaBody, typed), navigationDeadline)
}

func TestAReplyEditIsKeptAcrossATabCrash(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand(anaReply, "reply")
	const typed = "Saturday works; I will bring the map"
	tb.typeInto(anaBody, typed)
	tb.crash()
	again := newTab(t, srv)
	again.navigate("/")
	eventually(again, "the reply back in its editor in a new tab", fmt.Sprintf(`(function(){var f=document.querySelector('%s');return !!f && f.value === %q})()`, anaBody, typed), navigationDeadline)
}

func TestAReplyEditIsSavedAsTheOwnersEditWhileTyping(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.expand(anaReply, "reply")
	const typed = "Saturday works, typed and never submitted"
	tb.typeInto(anaBody, typed)
	client := newAgentClient(srv.URL, demoToken(t, srv.DataDir))
	poll.Eventually(t, navigationDeadline, func() (bool, string) {
		return strings.Contains(string(client.contextJSON(t)), typed), "the typed reply never reached hearth as the owner's edit"
	})
	// Saving while typing is the page's own change: the row is not marked
	// as changed elsewhere, and the text stays as typed.
	if get(tb, "stale mark", chromedp.Evaluate[bool](`!!document.querySelector('`+rowSel(anaReply)+`[data-stale="true"]')`)) {
		t.Error("the row being typed in says it changed elsewhere after its own autosave")
	}
	// Another device, with nothing kept on it, opens the same reply.
	tb.do("forget this device's copy", chromedp.Evaluate[chromedp.Void](`localStorage.clear(); true`))
	tb.do("reload", chromedp.Reload())
	tb.expand(anaReply, "reply")
	if got := tb.valueOf(anaBody); got != typed {
		t.Errorf("from hearth the editor holds %q, want %q", got, typed)
	}
}

func TestAConversationsOwnReplyIsKeptAcrossAReloadAndSaysRestored(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	tb.navigate(anaChat)
	const typed = "My own words for Ana"
	tb.typeInto("#own-body", typed)
	tb.do("reload", chromedp.Reload())
	eventually(tb, "the own reply back after the reload", fmt.Sprintf(`document.querySelector("#own-body").value === %q`, typed), navigationDeadline)
	note := get(tb, "restored note", chromedp.Evaluate[string](`(function(){var n=document.querySelector('#compose [data-testid="restored"]');return n&&!n.hidden&&n.getAttribute("role")==="status"?n.textContent:""})()`))
	if !strings.Contains(note, "Restored") {
		t.Errorf("no quiet restored note beside the composer (got %q)", note)
	}
}

func TestATypedWeightIsKeptAcrossAReloadUntilSaved(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.login()
	day := demoDay(t)
	routine, weigh := "morning-routine-"+day, "weigh-in-"+day
	field := "#value-" + weigh
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")
	tb.typeInto(field, "72.4")
	tb.do("reload", chromedp.Reload())
	eventually(tb, "the typed weight back in its field after the reload", fmt.Sprintf(`(function(){var f=document.querySelector(%q);return !!f && f.value === "72.4"})()`, field), navigationDeadline)
	note := get(tb, "restored note", chromedp.Evaluate[string](`(function(){var n=document.querySelector('`+rowSel(weigh)+` [data-testid="restored"]');return n&&!n.hidden&&n.getAttribute("role")==="status"?n.textContent:""})()`))
	if !strings.Contains(note, "Restored") {
		t.Errorf("no quiet restored note on the weight row (got %q)", note)
	}
	// The rows opened in place, as a tap does: the page was read once.
	if n := get(tb, "page loads", chromedp.Evaluate[int](`performance.getEntriesByType("navigation").length`)); n != 1 || !get(tb, "reload kept", chromedp.Evaluate[bool](`performance.getEntriesByType("navigation")[0].type === "reload"`)) {
		t.Error("reopening the rows navigated instead of opening them in place")
	}
	// Saved: nothing is kept any more, so a reload shows the field empty.
	get(tb, "settle", chromedp.Poll[bool](htmxSettled))
	tb.do("save", tap(rowSel(weigh)+` [data-testid="measurement-save"]`), chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="measurement-saved"]`)))
	tb.do("reload", chromedp.Reload(), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")
	if got := tb.valueOf(field); got != "" {
		t.Errorf("after saving, a reload still fills in %q", got)
	}
}

func TestAConversationsDraftIsSavedWhileTypingWithoutSayingItChangedElsewhere(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	seen := tb.watchRestores()
	tb.login()
	tb.navigate(anaChat)
	const field = "#body-draft-ana-hike"
	const typed = "Saturday works; typed in the conversation"
	tb.typeInto(field, typed)
	// Saved once the field names the edit it holds, and the page heard of
	// that commit.
	eventually(tb, "the autosave committed and its event came", `(function(){var f=document.querySelector("`+field+`");var v=Number(f.dataset.keepVersion);return v>0 && Number(document.body.dataset.seen||0)>=v})()`, navigationDeadline)
	if !strings.Contains(string(newAgentClient(srv.URL, demoToken(t, srv.DataDir)).contextJSON(t)), typed) {
		t.Error("the typed draft is not the owner's edit in hearth")
	}
	if get(tb, "notice", chromedp.Evaluate[bool](`!document.getElementById("page-stale").hidden`)) {
		t.Error(`the page's own autosave made it say "This page changed elsewhere"`)
	}
	if got := tb.valueOf(field); got != typed {
		t.Errorf("the editor holds %q", got)
	}
	// People, then Back: the conversation comes back as it was left.
	here := get(tb, "path", chromedp.Evaluate[string](`location.pathname`))
	tb.tapNav("/people")
	tb.back(here)
	if n := seen.count(); n != 1 {
		t.Errorf("Back loaded the conversation again (%d restores); Chromium's reasons: %s", n, seen.why())
	}
	if got := tb.valueOf(field); got != typed {
		t.Errorf("after People and Back the editor holds %q", got)
	}
}

func TestLogoutForgetsWhatWasTypedAndBackShowsNoOwnerPage(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	seen := tb.watchRestores()
	tb.login()
	day := demoDay(t)
	routine, weigh := "morning-routine-"+day, "weigh-in-"+day
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")
	tb.typeInto("#value-"+weigh, "72.4")
	tb.tapNav("/more")
	tb.do("log out", chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-testid="logout"]').click(); true`))
	eventually(tb, "on the login page", `location.pathname === "/login" && !!document.querySelector("#password")`, navigationDeadline)
	if n := get(tb, "kept entries", chromedp.Evaluate[int](`Object.keys(localStorage).filter(function(k){return k.indexOf("hearth.keep:")===0}).length`)); n != 0 {
		t.Errorf("%d typed fields still kept on the device after logout", n)
	}
	// Back: Chromium still holds More in the back/forward cache (it does
	// not drop it for Clear-Site-Data); shown again, it hides and reloads,
	// which leads to the login page.
	tb.do("go back", chromedp.Evaluate[chromedp.Void](`history.back(); true`))
	eventually(tb, "back lands on the login page", `location.pathname === "/login" && !!document.querySelector("#password")`, navigationDeadline)
	fmt.Printf("e2e: Back after logout: %d owner pages restored from the back/forward cache, then left for the login page\n", seen.count())
	tb.login()
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")
	if got := tb.valueOf("#value-" + weigh); got != "" {
		t.Errorf("after logging in again the weight field holds %q", got)
	}
}

// TestTwentyBackAndForwardLoadsAreRestoredFromTheCache walks the tabs and
// goes Back and Forward twenty times (none of 20 came from the
// back/forward cache while pages were no-store).
func TestTwentyBackAndForwardLoadsAreRestoredFromTheCache(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	seen := tb.watchRestores()
	tb.login()
	pages := []string{"/", "/messages", "/people", "/routines", "/more"}
	for _, p := range pages[1:] {
		tb.tapNav(p)
	}
	at := len(pages) - 1
	moves := 0
	forward := func() {
		tb.do("go forward", chromedp.Evaluate[chromedp.Void](`history.forward(); true`))
		at++
		eventually(tb, "forward on "+pages[at], fmt.Sprintf(`location.pathname === %q && document.readyState === "complete"`, pages[at]), navigationDeadline)
	}
	for _, run := range []int{-4, 4, -2, 2, -4, 4} {
		for i := 0; i < max(run, -run); i++ {
			if run < 0 {
				at--
				tb.back(pages[at])
			} else {
				forward()
			}
			moves++
		}
	}
	n := seen.count()
	fmt.Printf("e2e: back/forward cache: %d of %d Back/Forward loads restored; reasons when not: %s\n", n, moves, seen.why())
	if n != moves {
		t.Errorf("%d of %d Back/Forward loads came from the back/forward cache; Chromium's reasons: %s", n, moves, seen.why())
	}
}
