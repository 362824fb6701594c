package handlers_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// shownUndos counts, by the decision each undoes, the Undo controls of a
// Home page that are not hidden.
func shownUndos(d *goquery.Document) map[string]int {
	by := map[string]int{}
	d.Find(`form.undo-form`).Each(func(_ int, f *goquery.Selection) {
		if f.Closest("[hidden]").Length() == 0 {
			by[f.AttrOr("action", "")]++
		}
	})
	return by
}

func TestHomeShowsTheNewestUndoOnceInTheBottomBar(t *testing.T) {
	ta, cookie := homeApp(t)
	if r := ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"completed"}}, false, cookie); r.status != http.StatusSeeOther {
		t.Fatalf("complete: %s", r)
	}
	for _, page := range []string{"/", "/home/live"} {
		d := parseHTML(t, ta.ownerRequest(http.MethodGet, page, nil, page != "/", cookie))
		dock := has(t, d, `#undo-dock form.undo-form`).AttrOr("action", "")
		if n := shownUndos(d)[dock]; n != 1 {
			t.Errorf("%s: the newest decision (%s) has %d Undo controls shown, want 1 (the bar's)", page, dock, n)
		}
		row := has(t, d, `li[data-row][data-id="book-bike-service"] [data-testid="undo-bar"]`)
		if w := text(row.Find(`[data-testid="undo-word"]`)); w != "Done" {
			t.Errorf("%s: the row says %q, want Done", page, w)
		}
	}
	// A row's answer to a newer decision brings the bar with it, and its
	// own Undo is left to that bar.
	r := ta.ownerRequest(http.MethodPost, "/activities/stretch-"+testDate+"/state", url.Values{"state": {"completed"}}, true, cookie)
	if r.status != http.StatusOK {
		t.Fatalf("complete, htmx: %s", r)
	}
	d := parseHTML(t, r)
	dock := has(t, d, `#undo-dock[hx-swap-oob] form.undo-form`).AttrOr("action", "")
	if n := shownUndos(d)[dock]; n != 1 {
		t.Errorf("the row's answer shows %d Undo controls for its decision, want 1 (the bar's)", n)
	}
}
