package handlers_test

import (
	"net/http"
	"net/url"
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
	if gone.status != http.StatusNotFound {
		t.Fatalf("an answer not kept: %s", gone)
	}
	has(t, gone.doc(t), `[data-testid="import-gone"]`)
}
