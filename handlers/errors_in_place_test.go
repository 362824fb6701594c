package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// errorAt checks that field is invalid, described by exactly one message,
// inside the field's form, shown once on the page.
func errorAt(t *testing.T, d *goquery.Document, field, want string) {
	t.Helper()
	f := has(t, d, field)
	if f.AttrOr("aria-invalid", "") != "true" {
		t.Errorf("%s not aria-invalid", field)
	}
	ids := strings.Fields(f.AttrOr("aria-describedby", ""))
	var msg *goquery.Selection
	for _, id := range ids {
		if m := d.Find("#" + id + ".field-error"); m.Length() == 1 {
			msg = m
		}
	}
	if msg == nil {
		t.Fatalf("%s is described by no message (%v)", field, ids)
	}
	if got := strings.TrimSpace(msg.Text()); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if msg.Closest("form").Get(0) != f.Closest("form").Get(0) {
		t.Error("the message is outside the field's form")
	}
	if n := strings.Count(d.Text(), want); n != 1 {
		t.Errorf("message shown %d times", n)
	}
}

func TestNotApplicableWithoutAReasonIsRefusedOnceAtTheReason(t *testing.T) {
	t.Parallel()
	occ := "hearth:morning@" + testDate
	for _, hx := range []bool{true, false} {
		ta, cookie := routineApp(t)
		ta.try("morning", 1, 7, cookie)
		resp := ta.form("/activities/"+occ+"/state", url.Values{"state": {"dismissed"}, "note": {" "}}, hx, cookie)
		if resp.status != http.StatusUnprocessableEntity {
			t.Fatalf("hx=%v: %s", hx, resp)
		}
		errorAt(t, parseHTML(t, resp), `li[data-id="`+occ+`"] [data-testid="outcome-reason"]`, "Not applicable needs a reason: say why.")
	}
}

func TestDeferWithoutADateIsRefusedAtTheDateField(t *testing.T) {
	ta, cookie := homeApp(t)
	for _, hx := range []bool{true, false} {
		resp := ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"deferred"}, "until": {"soon"}}, hx, cookie)
		if resp.status != http.StatusUnprocessableEntity {
			t.Fatalf("hx=%v: %s", hx, resp)
		}
		errorAt(t, resp.doc(t), `li[data-id="book-bike-service"] input[name="until"][type="date"]`, "Enter a defer date from 2000-01-01 to 2199-12-31, as YYYY-MM-DD.")
	}
}

func TestOwnerActionOnNothingIsAPageNotJSON(t *testing.T) {
	ta, cookie := homeApp(t)
	for _, path := range []string{"/activities/nope/state", "/decisions/12345/undo", "/activities/nope/bring-back", "/drafts/nope/edit?activity=nope"} {
		resp := ta.ownerRequest(http.MethodPost, path, url.Values{"state": {"completed"}}, false, cookie)
		if resp.status != http.StatusNotFound || !strings.HasPrefix(resp.header.Get("Content-Type"), "text/html") || strings.Contains(string(resp.body), `"code"`) {
			t.Errorf("%s: %d %s %.80s", path, resp.status, resp.header.Get("Content-Type"), resp.body)
		}
	}
}
