package handlers_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"hearth/beeper/beepertest"
	"hearth/handlers"
)

// operatorWords are what an owner page must not say outside the operator's
// details (details.tech): CLI commands and flags, the Beeper account ID,
// the routine model's internal terms, and the slugs of jobs and chats.
var operatorWords = []*regexp.Regexp{
	regexp.MustCompile(`\bhearth (schedule|run|backup|serve|owner|token|context|publish|seed|mcp)\b`),
	regexp.MustCompile(`--`),
	regexp.MustCompile(`whatsapp-demo`),
	regexp.MustCompile(`(?i)attainment`),
	regexp.MustCompile(`(?i)candidate`),
	regexp.MustCompile(`\(n/d\)`),
	regexp.MustCompile(`(?i)review window`),
	regexp.MustCompile(`daily-brief`),
	regexp.MustCompile(`!ana-okafor:beeper\.local`),
}

// ownerWordsApp is the demo-like publication with the routine catalog,
// the fake Beeper, and a trial of the morning routine under way.
func ownerWordsApp(t *testing.T) (*testApp, *http.Cookie) {
	t.Helper()
	b := beepertest.Start(t, nil, beepertest.WithClock(func() time.Time { return testNow }))
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{Beeper: b.Client}))
	ta.beeper = b
	pub := validPublication("run-1", 0)
	pub["routineDefinitions"] = routineDefinitions()
	ta.mustPublish(ta.agentToken(), pub.JSON())
	cookie := ta.login()
	ta.try("morning", 1, 14, cookie)
	return ta, cookie
}

func TestOwnerPagesSayNoCommandFlagAccountIDOrInternalTerm(t *testing.T) {
	t.Parallel()
	ta, cookie := ownerWordsApp(t)
	pages := map[string]response{}
	for _, p := range []string{"/", "/messages", anaPath, "/people", "/routines", "/more", "/weight", "/schedules", "/runs"} {
		pages[p] = ta.get(p, "", cookie)
	}
	review := ta.post(anaPath+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {"See you Saturday!"}}, cookie)
	if review.status == http.StatusSeeOther {
		review = ta.get(review.header.Get("Location"), "", cookie)
	}
	pages["review"] = review
	for name, r := range pages {
		if r.status != http.StatusOK {
			t.Errorf("%s: %s", name, r)
			continue
		}
		txt := ownerText(r.doc(t))
		for _, w := range operatorWords {
			if loc := w.FindStringIndex(txt); loc != nil {
				t.Errorf("%s says %q: …%s…", name, txt[loc[0]:loc[1]], txt[max(0, loc[0]-60):min(len(txt), loc[1]+60)])
			}
		}
	}
	// The review names the network, as the chat list does.
	if got := text(pages["review"].doc(t).Find(testID("review-account"))); got != "WhatsApp" {
		t.Errorf("review account %q, want WhatsApp", got)
	}
}

func TestSchedulesAndRunsSayWhatTheyAreAndWhatTheOwnerCanDo(t *testing.T) {
	t.Parallel()
	ta, cookie := ownerWordsApp(t)
	for path, want := range map[string][]string{
		"/schedules": {"when the agent runs", "ask whoever runs hearth"},
		"/runs":      {"each time the agent ran", "the daily brief"},
	} {
		d := ta.get(path, "", cookie).doc(t)
		txt := strings.ToLower(ownerText(d))
		for _, w := range want {
			if !strings.Contains(txt, w) {
				t.Errorf("%s lacks %q: %s", path, w, txt)
			}
		}
	}
}

func TestAMistypedOwnerURLAnswersAPageWithTheTabsAndAWayBack(t *testing.T) {
	ta, cookie := homeApp(t)
	for _, path := range []string{"/nope", "/messages/x/y/z", "/routines/morning"} {
		r := ta.get(path, "", cookie)
		if r.status != http.StatusNotFound || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s: %d %s %.80s", path, r.status, r.header.Get("Content-Type"), r.body)
			continue
		}
		d := r.doc(t)
		has(t, d, `nav[aria-label="Main"] a[href="/"]`)
		has(t, d, `h1`)
		if back := has(t, d, `main a[href="/"][data-testid="not-found-home"]`); !strings.Contains(text(back), "Home") {
			t.Errorf("GET %s: the way back reads %q", path, text(back))
		}
	}
	// Signed out, the page leads to the login instead of tabs that would refuse.
	d := ta.get("/nope", "", nil).doc(t)
	if d.Find(`nav[aria-label="Main"]`).Length() != 0 || d.Find(`main a[href="/login"]`).Length() != 1 {
		t.Errorf("signed-out 404 page: %s", text(d.Find("body")))
	}
	// The API keeps its JSON envelope.
	assertError(t, ta.get("/api/nope", ta.agentToken(), nil), http.StatusNotFound, "not_found")
}

func TestMessagesListShowsEachChatsLastMessage(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	d := ta.get("/messages", "", cookie).doc(t)
	ana := has(t, d, `[data-testid="chat"][data-chat="!ana-okafor:beeper.local"] [data-testid="chat-preview"]`)
	if got := text(ana); !strings.HasPrefix(got, "Ana: ") || len(got) < 12 {
		t.Errorf("Ana's last message reads %q", got)
	}
}
