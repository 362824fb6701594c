package handlers_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hearth/handlers"
)

const testVAPIDKey = "BPubKeyForTestsOnly"

// subscriptionJSON is PushSubscription.toJSON() for endpoint, as push.js posts it.
func subscriptionJSON(endpoint string) string {
	b, _ := json.Marshal(map[string]any{"endpoint": endpoint, "expirationTime": nil, "keys": map[string]string{
		"p256dh": base64.RawURLEncoding.EncodeToString(append([]byte{4}, make([]byte, 64)...)),
		"auth":   base64.RawURLEncoding.EncodeToString(make([]byte, 16)),
	}})
	return string(b)
}

func (ta *testApp) postJSON(path, body string, cookie *http.Cookie) response {
	ta.t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return ta.do(req)
}

func TestMoreServesThePushKeyAndAPhoneSubscribesAndUnsubscribes(t *testing.T) {
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{PushPublicKey: testVAPIDKey}))
	cookie := ta.login()
	d := parseHTML(t, ta.get("/more", "", cookie))
	if key, _ := d.Find(`[data-testid="push-controls"]`).Attr("data-vapid-key"); key != testVAPIDKey {
		t.Fatalf("More serves key %q, want %q", key, testVAPIDKey)
	}
	if d.Find(`script[src^="/static/push.js?v="]`).Length() != 1 {
		t.Error("More does not load push.js")
	}
	if got := d.Find(`[data-testid="push-state"]`).Text(); !strings.Contains(got, "0 phones subscribed") {
		t.Errorf("state %q", got)
	}
	if r := ta.postJSON("/api/push-subscriptions", subscriptionJSON("https://push.example/abc"), cookie); r.status != http.StatusCreated {
		t.Fatalf("subscribe: %s", r)
	}
	subs, err := ta.store.PushSubscriptions(context.Background())
	if err != nil || len(subs) != 1 || subs[0].Endpoint != "https://push.example/abc" {
		t.Fatalf("stored %+v, %v", subs, err)
	}
	d = parseHTML(t, ta.get("/more", "", cookie))
	if got := d.Find(`[data-testid="push-state"]`).Text(); !strings.Contains(got, "1 phone subscribed") {
		t.Errorf("state %q after subscribing", got)
	}
	if r := ta.postJSON("/api/push-subscriptions/remove", `{"endpoint":"https://push.example/abc"}`, cookie); r.status != http.StatusOK {
		t.Fatalf("unsubscribe: %s", r)
	}
	if subs, _ := ta.store.PushSubscriptions(context.Background()); len(subs) != 0 {
		t.Fatalf("still stored %+v", subs)
	}
}

func TestPushSubscriptionsRefuseStrangersAndMalformedBodies(t *testing.T) {
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{PushPublicKey: testVAPIDKey}))
	cookie := ta.login()
	cases := []struct {
		name   string
		body   string
		cookie *http.Cookie
		status int
		want   string
	}{
		{"no session", subscriptionJSON("https://push.example/abc"), nil, http.StatusUnauthorized, ""},
		{"not JSON", "endpoint=x", cookie, http.StatusBadRequest, "malformed_json"},
		{"no keys", `{"endpoint":"https://push.example/abc"}`, cookie, http.StatusUnprocessableEntity, "invalid_subscription"},
		{"not a URL", subscriptionJSON("javascript:alert(1)"), cookie, http.StatusUnprocessableEntity, "invalid_subscription"},
	}
	for _, c := range cases {
		r := ta.in(t).postJSON("/api/push-subscriptions", c.body, c.cookie)
		if c.status == http.StatusUnauthorized {
			if r.status < 300 || r.status >= 500 {
				t.Errorf("%s: %s, want a refusal", c.name, r)
			}
			continue
		}
		if r.status != c.status || !strings.Contains(string(r.body), c.want) {
			t.Errorf("%s: %s, want %d %s", c.name, r, c.status, c.want)
		}
	}
	if subs, _ := ta.store.PushSubscriptions(context.Background()); len(subs) != 0 {
		t.Fatalf("stored %+v", subs)
	}
}

func TestPushIsOffWithoutAKey(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	d := parseHTML(t, ta.get("/more", "", cookie))
	if d.Find(`[data-testid="push-off"]`).Length() != 1 || d.Find(`[data-vapid-key]`).Length() != 0 {
		t.Error("More offers push with no key")
	}
	if r := ta.postJSON("/api/push-subscriptions", subscriptionJSON("https://push.example/abc"), cookie); r.status != http.StatusServiceUnavailable {
		t.Errorf("subscribe with push off: %s", r)
	}
}

func TestQuietHoursAreSavedOnMoreAndARefusalKeepsTheInput(t *testing.T) {
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{PushPublicKey: testVAPIDKey}))
	cookie := ta.login()
	d := parseHTML(t, ta.get("/more", "", cookie))
	if v, _ := d.Find("#quiet-start").Attr("value"); v != "22:00" {
		t.Errorf("default start %q", v)
	}
	r := ta.ownerRequest(http.MethodPost, "/more/quiet-hours", url.Values{"start": {"23:30"}, "end": {"06:15"}}, false, cookie)
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/more") {
		t.Fatalf("save: %s", r)
	}
	d = parseHTML(t, ta.get("/more", "", cookie))
	if s, _ := d.Find("#quiet-start").Attr("value"); s != "23:30" {
		t.Errorf("start %q after save", s)
	}
	r = ta.ownerRequest(http.MethodPost, "/more/quiet-hours", url.Values{"start": {"late"}, "end": {"06:15"}}, false, cookie)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("bad input: %s", r)
	}
	d = parseHTML(t, r)
	if v, _ := d.Find("#quiet-start").Attr("value"); v != "late" || d.Find(`[role="alert"]`).Length() != 1 {
		t.Errorf("refusal shows %q without its message", v)
	}
	q, _ := ta.store.Push(context.Background())
	if q.Quiet.Start != "23:30" {
		t.Errorf("stored %q after a refusal", q.Quiet.Start)
	}
}
