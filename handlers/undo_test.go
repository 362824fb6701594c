package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"hearth/models"
)

// undoAction reads the Undo form's action on the row (or the Home notice).
func undoAction(t *testing.T, ta *testApp, cookie *http.Cookie, sel string) string {
	t.Helper()
	d := ta.get("/", "", cookie).doc(t)
	action, ok := has(t, d, sel+` form[action$="/undo"]`).Attr("action")
	if !ok {
		t.Fatal("undo form without action")
	}
	return action
}

func TestUndoAfterTheWindowIsRefusedInPlace(t *testing.T) {
	ta, cookie := homeApp(t)
	if resp := ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"skipped"}}, true, cookie); resp.status != http.StatusOK {
		t.Fatalf("skip: %s", resp)
	}
	action := undoAction(t, ta, cookie, `li[data-id="book-bike-service"] [data-testid="undo-bar"]`)
	ta.clock.Advance(models.UndoWindow + time.Minute)
	before := ta.revision()
	for _, hx := range []bool{true, false} {
		resp := ta.ownerRequest(http.MethodPost, action, url.Values{}, hx, cookie)
		if resp.status != http.StatusConflict {
			t.Fatalf("hx=%v: undo after the window: %s", hx, resp)
		}
		d := resp.doc(t)
		if msg := has(t, d, `[data-testid="home-notice"]`).Text(); msg != "Undo is only possible for 10 minutes after a decision." {
			t.Errorf("hx=%v: refusal %q", hx, msg)
		}
		if strings.Contains(string(resp.body), `{"`) {
			t.Errorf("hx=%v: raw JSON in the answer", hx)
		}
	}
	if ta.revision() != before {
		t.Error("a refused undo changed the revision")
	}
}

func TestUndoAnswersLiveForHTMXAndIsIdempotent(t *testing.T) {
	ta, cookie := homeApp(t)
	ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"dismissed"}}, true, cookie)
	action := undoAction(t, ta, cookie, `[data-testid="undone-notice"]`)
	resp := ta.ownerRequest(http.MethodPost, action, url.Values{}, true, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("undo: %s", resp)
	}
	d := resp.doc(t)
	has(t, d, `#live li[data-id="book-bike-service"][data-state="available"][data-expanded="true"]`)
	if d.Find(`#later-book-bike-service, [data-testid="undone-notice"]`).Length() != 0 {
		t.Error("undone row still under Later or offered for undo")
	}
	rev := ta.revision()
	if resp := ta.ownerRequest(http.MethodPost, action, url.Values{}, false, cookie); resp.status != http.StatusSeeOther ||
		resp.header.Get("Location") != "/?open=book-bike-service#row-book-bike-service" {
		t.Fatalf("repeated undo: %s %q", resp, resp.header.Get("Location"))
	}
	if ta.revision() != rev {
		t.Error("a repeated undo committed again")
	}
	assertError(t, ta.ownerRequest(http.MethodPost, "/decisions/99999/undo", url.Values{}, true, cookie), 404, "not_found")
}
