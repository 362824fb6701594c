package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// homeAfterCommitBound is the most statements Home's render after a commit
// may run (the count on main when this test was written).
const homeAfterCommitBound = 38

// TestHomeRenderedAfterACommitRunsAtMostItsBoundOfStatements: after an
// owner's decision, the next full Home (a page cache miss) runs at most
// homeAfterCommitBound SQL statements from the request to the rendered
// page, and still shows the decision and the rest of Home.
func TestHomeRenderedAfterACommitRunsAtMostItsBoundOfStatements(t *testing.T) {
	var rec statements
	ta, cookie := homeApp(t, withStatements(&rec))
	if r := ta.get("/", "", cookie); r.status != http.StatusOK {
		t.Fatalf("first Home: %s", r)
	}
	r := ta.form("/activities/book-bike-service/state", url.Values{"state": {"completed"}}, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("complete: %s", r)
	}
	var home response
	ran := rec.during(func() { home = ta.get("/", "", cookie) })
	if home.status != http.StatusOK {
		t.Fatalf("Home after the commit: %s", home)
	}
	doc := home.doc(t)
	has(t, doc, `li[data-row][data-id="book-bike-service"][data-state="completed"]`)
	has(t, doc, `li[data-row][data-id="morning-routine-`+testDate+`"] form[action="/activities/stretch-`+testDate+`/state"]`)
	has(t, doc, `[data-testid="first-action"][data-id="weigh-in-`+testDate+`"]`)
	has(t, doc, `[data-testid="undo-dock"] form[action^="/decisions/"]`)
	has(t, doc, `li[data-row][data-id="reply-ana-hike"]`)
	t.Logf("Home after a commit ran %d statements", len(ran))
	if len(ran) > homeAfterCommitBound {
		t.Errorf("Home after a commit ran %d statements, want at most %d:\n%s", len(ran), homeAfterCommitBound, strings.Join(ran, "\n"))
	}
}
