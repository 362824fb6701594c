package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestMeasurementReplayWithClientKeyAnswersTheSameRowAndSavesOnce(t *testing.T) {
	ta, cookie := homeApp(t)
	path := "/activities/weigh-in-" + testDate + "/measurement"
	form := url.Values{"value": {"72.4"}, "clientKey": {"ck-0123456789abcdef"}}
	first := ta.ownerRequest(http.MethodPost, path, form, true, cookie)
	if first.status != http.StatusOK {
		t.Fatalf("first: %s", first)
	}
	rev := ta.revision()
	again := ta.ownerRequest(http.MethodPost, path, form, true, cookie)
	if again.status != http.StatusOK {
		t.Fatalf("replay: %s", again)
	}
	want := has(t, first.doc(t), `[data-testid="measurement-saved"]`).Text()
	if saved := has(t, again.doc(t), `[data-testid="measurement-saved"]`).Text(); saved != want {
		t.Errorf("replay shows %q, want the first answer %q", saved, want)
	}
	if ta.revision() != rev {
		t.Errorf("replay moved the revision %d -> %d", rev, ta.revision())
	}
}

func TestClientKeyReusedForAnotherValueIsRefusedOnTheRow(t *testing.T) {
	ta, cookie := homeApp(t)
	path := "/activities/weigh-in-" + testDate + "/measurement"
	if r := ta.ownerRequest(http.MethodPost, path, url.Values{"value": {"72.4"}, "clientKey": {"ck-0123456789abcdef"}}, true, cookie); r.status != http.StatusOK {
		t.Fatalf("first: %s", r)
	}
	rev := ta.revision()
	r := ta.ownerRequest(http.MethodPost, path, url.Values{"value": {"75"}, "clientKey": {"ck-0123456789abcdef"}}, true, cookie)
	if r.status != http.StatusConflict || !strings.Contains(string(r.body), "already sent as a different action") {
		t.Fatalf("another value under the key: %s", r)
	}
	r = ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", url.Values{"state": {"completed"}, "clientKey": {"ck-0123456789abcdef"}}, true, cookie)
	if r.status != http.StatusConflict {
		t.Fatalf("another action under the key: %s", r)
	}
	if ta.revision() != rev {
		t.Errorf("refused replays moved the revision %d -> %d", rev, ta.revision())
	}
}

func TestStateReplayWithClientKeyIsANoOp(t *testing.T) {
	ta, cookie := homeApp(t)
	form := url.Values{"state": {"completed"}, "clientKey": {"ck-tick-0123456789ab"}}
	if r := ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", form, true, cookie); r.status != http.StatusOK {
		t.Fatalf("first: %s", r)
	}
	rev := ta.revision()
	if r := ta.ownerRequest(http.MethodPost, "/activities/book-bike-service/state", form, true, cookie); r.status != http.StatusOK {
		t.Fatalf("replay: %s", r)
	}
	if ta.revision() != rev {
		t.Errorf("replay moved the revision %d -> %d", rev, ta.revision())
	}
	// Without a key, a second save is a correction, as before.
	path := "/activities/weigh-in-" + testDate + "/measurement"
	ta.ownerRequest(http.MethodPost, path, url.Values{"value": {"72.4"}}, true, cookie)
	rev = ta.revision()
	if r := ta.ownerRequest(http.MethodPost, path, url.Values{"value": {"72.4"}}, true, cookie); r.status != http.StatusOK || ta.revision() == rev {
		t.Errorf("without a key the second save is not a correction: %s", r)
	}
}

func TestServiceWorkerIsServedAtTheRootWithTheShellList(t *testing.T) {
	ta := newTestApp(t)
	r := ta.get("/sw.js", "", nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET /sw.js: %s", r)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
		t.Errorf("content type %q", ct)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("cache control %q: the browser must see a new worker", cc)
	}
	if !strings.Contains(r.header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("CSP missing on the worker")
	}
	for _, want := range []string{"/static/hearth.css?v=", "/static/hearth.js?v=", "/static/offline.js?v=", "/static/htmx-2.0.11.min.js?v="} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("the shell list lacks %s", want)
		}
	}
}

func TestLogoutClearsTheDevicesCachesAndQueue(t *testing.T) {
	ta, cookie := homeApp(t)
	r := ta.ownerRequest(http.MethodPost, "/logout", url.Values{}, false, cookie)
	if r.status != http.StatusSeeOther {
		t.Fatalf("logout: %s", r)
	}
	if got := r.header.Get("Clear-Site-Data"); !strings.Contains(got, `"cache"`) || !strings.Contains(got, `"storage"`) {
		t.Errorf("Clear-Site-Data %q", got)
	}
}
