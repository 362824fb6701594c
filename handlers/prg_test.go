package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/PuerkitoBio/goquery"
	"strings"
	"testing"
)

// seeOther asserts a page-level POST was answered by post/redirect/get
// (303 to a GET) and returns that GET's answer, as a browser would show it.
func (ta *testApp) seeOther(t *testing.T, resp response, cookie *http.Cookie) response {
	t.Helper()
	loc := resp.header.Get("Location")
	if resp.status != http.StatusSeeOther || loc == "" {
		t.Fatalf("want 303 to the answer's page, got %s (Location %q)", resp, loc)
	}
	path, _, _ := strings.Cut(loc, "#")
	return ta.get(path, "", cookie)
}

func TestAnImportsAnswerPageShowsItAgainOnReloadWithoutImportingAgain(t *testing.T) {
	ta, cookie := homeApp(t)
	file := "date,weight\n2026-09-24,69.6\n2026-09-25,69.5\n"
	before := ta.revision()
	check := ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {file}}, false, cookie)
	if loc := check.header.Get("Location"); !strings.HasPrefix(loc, "/weight/import/") || !strings.HasSuffix(loc, "#import-answer") {
		t.Fatalf("a check answers %s, Location %q; want 303 to its answer", check, loc)
	}
	dry := ta.seeOther(t, check, cookie)
	has(t, dry.doc(t), `#import-answer[data-form-answer] form[data-testid="import-confirm"]`)
	done := ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {file}, "confirm": {"1"}}, false, cookie)
	for i := range 2 { // the answer, then a reload of it
		resp := ta.seeOther(t, done, cookie)
		if txt := has(t, resp.doc(t), `#import-answer[data-form-answer] [data-testid="import-summary"]`).Text(); !strings.Contains(txt, "Added 2") {
			t.Fatalf("load %d of the import's answer: %q", i+1, txt)
		}
	}
	if ta.revision() != before+1 {
		t.Fatalf("revision %d → %d, want one import", before, ta.revision())
	}
	// The dry run's page, loaded again after the import, says what an
	// import would add now: nothing.
	again := ta.seeOther(t, check, cookie)
	if txt := has(t, again.doc(t), `[data-testid="import-summary"]`).Text(); !strings.Contains(txt, "0 new") {
		t.Fatalf("the check after the import: %q", txt)
	}
	gone := ta.get("/weight/import/not-kept", "", cookie)
	if gone.status != http.StatusGone {
		t.Fatalf("an answer not kept: %s", gone)
	}
	has(t, gone.doc(t), `[data-testid="import-gone"]`)
}

// postPage posts form as a browser would and follows a 303 to its page.
func (ta *testApp) postPage(path string, form url.Values, cookie *http.Cookie) response {
	ta.t.Helper()
	resp := ta.ownerRequest(http.MethodPost, path, form, false, cookie)
	if resp.status != http.StatusSeeOther {
		return resp
	}
	loc, _, _ := strings.Cut(resp.header.Get("Location"), "#")
	return ta.get(loc, "", cookie)
}

// hidden is the hidden fields of the first form matching sel in resp.
func hidden(t *testing.T, resp response, sel string) url.Values {
	t.Helper()
	v := url.Values{}
	has(t, resp.doc(t), sel).First().Find(`input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		v.Set(s.AttrOr("name", ""), s.AttrOr("value", ""))
	})
	return v
}

func TestReviewAndSendAnswerWithARedirectSoAReloadNeverSendsAgain(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	for _, tc := range []struct{ name, path, form string }{
		{"a draft", anaPath, `#draft-draft-ana-hike form[action$="/review"]`},
		{"an own reply", tomasPath, `[data-testid="composer"] form`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			sends := len(fake.Sends())
			form := formOf(has(t, ta.get(tc.path, "", cookie).doc(t), tc.form), url.Values{"body": {"Redirected: " + tc.name}})
			review := ta.ownerRequest(http.MethodPost, tc.path+"/review", form, false, cookie)
			page := ta.seeOther(t, review, cookie)
			confirm := hidden(t, page, `form[action$="/send"]`)
			// Never kept by the browser: Back after the send reads it again.
			if cc := page.header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("the review page is Cache-Control %q, want no-store (Back would restore its Send)", cc)
			}
			// A reload of the review (or Back to it) confirms with the same key.
			if again := hidden(t, ta.seeOther(t, review, cookie), `form[action$="/send"]`); tc.name == "an own reply" && again.Get("sendKey") != confirm.Get("sendKey") {
				t.Errorf("a reloaded own review confirms with another send key")
			}
			sent := ta.ownerRequest(http.MethodPost, tc.path+"/send", confirm, false, cookie)
			for i := range 2 { // the outcome, then a reload of it
				has(t, ta.seeOther(t, sent, cookie).doc(t), `[data-testid="send-sent"]`)
				if n := len(fake.Sends()) - sends; n != 1 {
					t.Fatalf("load %d of the outcome: %d messages sent, want 1", i+1, n)
				}
			}
			// Back to the review after the send: its outcome, never a second Send.
			if back := ta.seeOther(t, review, cookie); back.doc(t).Find(`form[action$="/send"]`).Length() != 0 {
				t.Errorf("the review, reloaded after its send, offers Send again")
			}
		})
	}
}

// TestEveryPageLevelPostAnswersWithARedirect: a plain form's POST to any
// owner route, done or refused, is answered 303 to a GET (post/redirect/
// get), never with a page the browser would post again on reload or Back.
// Each route is posted an empty form, which most refuse, and with the
// fields of a real one where the route needs them to act. (Logging in
// and out redirect too; logging out here would end the session.)
func TestEveryPageLevelPostAnswersWithARedirect(t *testing.T) {
	t.Parallel()
	ta, cookie, _ := messagesApp(t)
	params := strings.NewReplacer(":chat", "%21ana-okafor:beeper.local", ":id", "book-bike-service", ":event", "start-work",
		":occurrence", "nope", ":trial", "1", ":review", "nope", ":proposal", "nope", ":key", "nope")
	acting := map[string]url.Values{
		"/weight/goal":                    {"goal": {"72.5"}},
		"/weight/import":                  {"csv": {"date,weight\n2026-09-24,69.6\n"}},
		"/activities/:id/state":           {"state": {"completed"}},
		"/messages/:chat/review":          {"draftId": {"draft-ana-hike"}, "body": {"Yes!"}},
		"/messages/:chat/no-reply-needed": {"accountId": {"whatsapp"}},
	}
	seen := map[string]bool{}
	for _, r := range ta.app.GetRoutes(true) {
		if r.Method != http.MethodPost || strings.HasPrefix(r.Path, "/api/") || r.Path == "/login" || r.Path == "/logout" || seen[r.Path] {
			continue
		}
		seen[r.Path] = true
		for _, form := range []url.Values{{}, acting[r.Path]} {
			if form == nil {
				continue
			}
			req := httptest.NewRequest(http.MethodPost, params.Replace(r.Path), strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.AddCookie(cookie)
			resp, err := ta.app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc == "" {
				t.Errorf("POST %s %v: %d (Location %q), want 303 to a GET", r.Path, form, resp.StatusCode, loc)
			}
		}
	}
	if len(seen) < 20 {
		t.Fatalf("only %d owner POST routes found", len(seen))
	}
}
