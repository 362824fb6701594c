package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"hearth/handlers"
)

func TestLoginPageRenders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		withOwner bool
		noOwner   int // how many login-no-owner notices
	}{
		{name: "before a passphrase is set", withOwner: false, noOwner: 1},
		{name: "with a passphrase", withOwner: true, noOwner: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []appOption
			if tc.withOwner {
				opts = append(opts, withOwner())
			}
			ta := newTestApp(t, opts...)
			resp := ta.get("/login", "", nil)
			if resp.status != http.StatusOK {
				t.Fatalf("GET /login: %s", resp)
			}
			page := parseHTML(t, resp)
			if n := page.Find(testID("login-no-owner")).Length(); n != tc.noOwner {
				t.Errorf("%d login-no-owner notices, want %d", n, tc.noOwner)
			}
			if n := page.Find(testID("login-error")).Length(); n != 0 {
				t.Errorf("login-error shown before any attempt")
			}
			form := page.Find(`form[method="post"][action="/login"]`)
			if form.Find(`input[name="password"][type="password"]`).Length() != 1 {
				t.Errorf("no password field in the login form: %s", resp.body)
			}
		})
	}
}

func TestLoginWithWrongPassphraseIs401(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	resp := ta.do(loginRequest("not the passphrase"))
	if resp.status != http.StatusUnauthorized {
		t.Fatalf("got %s, want 401", resp)
	}
	if len(resp.header.Values("Set-Cookie")) != 0 {
		t.Errorf("a failed login set cookies: %v", resp.header.Values("Set-Cookie"))
	}
	msg := parseHTML(t, resp).Find(testID("login-error"))
	if msg.Length() != 1 || strings.TrimSpace(msg.Text()) == "" {
		t.Fatalf("want one non-empty login-error, body %s", resp.body)
	}
}

func TestLoginBeforeOwnerExistsIs401(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	resp := ta.do(loginRequest(ownerPassphrase))
	if resp.status != http.StatusUnauthorized {
		t.Fatalf("got %s, want 401", resp)
	}
	if parseHTML(t, resp).Find(testID("login-no-owner")).Length() != 1 {
		t.Fatalf("want login-no-owner, body %s", resp.body)
	}
}

func TestLoginSetsSessionCookie(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	resp, err := ta.app.Test(loginRequest(ownerPassphrase), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("status %d Location %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == handlers.SessionCookie {
			session = c
		}
	}
	if session == nil {
		t.Fatalf("no %s cookie in %v", handlers.SessionCookie, resp.Header.Values("Set-Cookie"))
	}
	if !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Path != "/" || session.Value == "" || session.MaxAge <= 0 {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Path=/, a value and a MaxAge", session)
	}
	if session.Secure {
		t.Errorf("cookie is Secure on a plain-HTTP request")
	}
}

func TestHomeShowsBriefToOwner(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	cookie := ta.login()

	resp := ta.get("/", "", cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("GET / before a publication: %s", resp)
	}
	page := parseHTML(t, resp)
	if page.Find(testID("brief-empty")).Length() != 1 || page.Find(testID("brief")).Length() != 0 {
		t.Errorf("want brief-empty and no brief before a publication: %s", resp.body)
	}

	ta.mustPublish(ta.agentToken(), validPublication("run-home", 0).JSON())
	resp = ta.get("/", "", cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("GET /: %s", resp)
	}
	page = parseHTML(t, resp)
	if page.Find(testID("brief-empty")).Length() != 0 {
		t.Error("brief-empty still shown after a publication")
	}
	brief := page.Find(testID("brief"))
	if brief.Length() != 1 || !strings.Contains(brief.Find(testID("brief-text")).Text(), "answer Ana about Saturday's hike") {
		t.Errorf("brief %q", brief.Text())
	}
	for _, id := range []string{"morning-routine-" + testDate, "reply-ana-hike", "book-bike-service"} {
		if page.Find(testID("row")+`[data-id="`+id+`"]`).Length() != 1 {
			t.Errorf("no row for %s", id)
		}
	}
	if f := page.Find(testID("freshness-job")).Text(); f != "the daily brief" {
		t.Errorf("freshness job %q, want the daily brief", f)
	}
}

func TestHomeRedirectsAnonymousToLogin(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	for _, cookie := range []*http.Cookie{nil, {Name: handlers.SessionCookie, Value: "forged"}} {
		resp := ta.get("/", "", cookie)
		if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/login" {
			t.Errorf("cookie %v: got %d Location %q, want 303 to /login", cookie, resp.status, resp.header.Get("Location"))
		}
	}
}

func TestLogoutEndsSession(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	if resp := ta.get("/", "", cookie); resp.status != http.StatusOK {
		t.Fatalf("GET / while logged in: %s", resp)
	}

	req := httptest.NewRequest(http.MethodPost, "/logout", nil)
	req.AddCookie(cookie)
	resp, err := ta.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Fatalf("logout: %d Location %q, want 303 to /login", resp.StatusCode, resp.Header.Get("Location"))
	}
	cleared := false
	for _, c := range resp.Cookies() {
		cleared = cleared || c.Name == handlers.SessionCookie && c.Value == ""
	}
	if !cleared {
		t.Errorf("logout did not clear the cookie: %v", resp.Header.Values("Set-Cookie"))
	}

	// The old cookie is dead on the server, not just cleared in the browser.
	after := ta.get("/", "", cookie)
	if after.status != http.StatusSeeOther || after.header.Get("Location") != "/login" {
		t.Fatalf("GET / with the old cookie: %d Location %q, want 303 to /login", after.status, after.header.Get("Location"))
	}
}

func TestFailedLoginsAreRateLimited(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	// Five failures a minute are allowed; a success in between is not counted.
	for i, password := range []string{"wrong 1", "wrong 2", "wrong 3", ownerPassphrase, "wrong 4", "wrong 5"} {
		want := http.StatusUnauthorized
		if password == ownerPassphrase {
			want = http.StatusSeeOther
		}
		if resp := ta.do(loginRequest(password)); resp.status != want {
			t.Fatalf("attempt %d: got %s, want %d", i+1, resp, want)
		}
	}
	// The sixth failure, and anything after it within the minute, is refused
	// before the passphrase is even checked.
	for _, password := range []string{"wrong 6", ownerPassphrase} {
		resp := ta.do(loginRequest(password))
		assertError(t, resp, http.StatusTooManyRequests, "rate_limited")
		if s, err := strconv.Atoi(resp.header.Get("Retry-After")); err != nil || s <= 0 || s > 60 {
			t.Errorf("Retry-After %q, want 1-60 seconds", resp.header.Get("Retry-After"))
		}
		if len(resp.header.Values("Set-Cookie")) != 0 {
			t.Errorf("a rate-limited login set cookies")
		}
	}
}

func TestAnotherTailnetLoginsFailuresDoNotLockTheOwnerOut(t *testing.T) {
	t.Parallel()
	// Behind tailscale serve every request comes from 127.0.0.1: the limit
	// counts each Tailscale login's failures apart.
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{Hosts: []string{tailnetHost}}))
	via := func(login, password string) response {
		req := loginRequest(password)
		if login != "" {
			req.Header.Set("Tailscale-User-Login", login)
		}
		return ta.doHost(req, tailnetHost)
	}
	for i := range 5 {
		if resp := via("mallory@example.com", fmt.Sprintf("guess %d", i)); resp.status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %s", i+1, resp)
		}
	}
	assertError(t, via("mallory@example.com", "guess 6"), http.StatusTooManyRequests, "rate_limited")
	// The guesser stays limited, its passphrase unchecked; the owner's device is not.
	assertError(t, via("mallory@example.com", ownerPassphrase), http.StatusTooManyRequests, "rate_limited")
	if resp := via("owner@example.com", ownerPassphrase); resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/" {
		t.Fatalf("the owner's login after another tailnet login's failures: %s, want 303 to /", resp)
	}
	// A request through tailscale serve without a login (a tagged device)
	// counts against the proxy's address, as before.
	for i := range 5 {
		if resp := via("", fmt.Sprintf("tagged %d", i)); resp.status != http.StatusUnauthorized {
			t.Fatalf("tagged %d: %s", i+1, resp)
		}
	}
	assertError(t, via("", "tagged 6"), http.StatusTooManyRequests, "rate_limited")
}

func TestLogoutRefusesCrossOriginRequests(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		headers map[string]string
		status  int
	}{
		{name: "cross-site fetch", headers: map[string]string{"Sec-Fetch-Site": "cross-site"}, status: http.StatusForbidden},
		{name: "same-site but not same-origin", headers: map[string]string{"Sec-Fetch-Site": "same-site"}, status: http.StatusForbidden},
		{name: "origin of another host", headers: map[string]string{"Origin": "https://evil.example"}, status: http.StatusForbidden},
		{name: "origin of another port", headers: map[string]string{"Origin": "http://example.com:8081"}, status: http.StatusForbidden},
		{name: "same-origin fetch", headers: map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://example.com"}, status: http.StatusSeeOther},
		{name: "user-initiated", headers: map[string]string{"Sec-Fetch-Site": "none"}, status: http.StatusSeeOther},
		{name: "origin of this host", headers: map[string]string{"Origin": "http://example.com"}, status: http.StatusSeeOther},
		{name: "not from a browser", headers: nil, status: http.StatusSeeOther},
	}
	ta := newTestApp(t, withOwner())
	// Refused requests must leave the session alive, so they share one.
	shared := ta.login()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			cookie := shared
			if tc.status != http.StatusForbidden {
				cookie = ta.login()
			}
			req := httptest.NewRequest(http.MethodPost, "/logout", nil) // Host: example.com
			req.AddCookie(cookie)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			resp := ta.do(req)
			if tc.status == http.StatusForbidden {
				assertError(t, resp, http.StatusForbidden, "forbidden")
				if after := ta.get("/", "", cookie); after.status != http.StatusOK {
					t.Fatalf("a refused cross-origin logout ended the session: GET / is %d", after.status)
				}
				return
			}
			if resp.status != tc.status || resp.header.Get("Location") != "/login" {
				t.Fatalf("got %s (Location %q), want 303 to /login", resp, resp.header.Get("Location"))
			}
			if after := ta.get("/", "", cookie); after.status != http.StatusSeeOther {
				t.Fatalf("GET / after logout: %d, want 303", after.status)
			}
		})
	}
}

func TestAgentCredentialOnOwnerRoutesIsForbidden(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner())
	token := ta.agentToken()
	cookie := ta.login()
	cases := []struct {
		method, path string
	}{
		{http.MethodGet, "/"},
		{http.MethodPost, "/logout"},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			ta := ta.in(t)
			req := httptest.NewRequest(tc.method, tc.path, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			assertError(t, ta.do(req), http.StatusForbidden, "forbidden")

			// A bearer token wins over a session cookie sent beside it.
			req = httptest.NewRequest(tc.method, tc.path, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			req.AddCookie(cookie)
			assertError(t, ta.do(req), http.StatusForbidden, "forbidden")
		})
	}
	if resp := ta.get("/", "", cookie); resp.status != http.StatusOK {
		t.Fatalf("the agent's POST /logout ended the owner's session: GET / is %d", resp.status)
	}
}

func TestTailscaleOwnerFromLoopbackPeer(t *testing.T) {
	t.Parallel()
	const login = "owner@example.com"
	ta := newTestApp(t, withConfig(handlers.Config{TailscaleOwner: login, Hosts: []string{tailnetHost}}))
	cases := []struct {
		name   string
		header string
		status int
	}{
		{name: "configured login", header: login, status: http.StatusOK},
		{name: "another login", header: "mallory@example.com", status: http.StatusSeeOther},
		{name: "different case", header: "Owner@Example.com", status: http.StatusSeeOther},
		{name: "no header", header: "", status: http.StatusSeeOther},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			// app.Test's fake connection has peer 0.0.0.0, so a real loopback
			// listener is needed here; tailscale serve forwards its own name as Host.
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tc.header != "" {
				req.Header.Set("Tailscale-User-Login", tc.header)
			}
			resp := ta.doHost(req, tailnetHost)
			if resp.status != tc.status {
				t.Fatalf("got %s, want %d", resp, tc.status)
			}
			if tc.status == http.StatusOK {
				if parseHTML(t, resp).Find(testID("brief-empty")).Length() != 1 {
					t.Errorf("Home not rendered: %s", resp.body)
				}
			} else if resp.header.Get("Location") != "/login" {
				t.Errorf("Location %q, want /login", resp.header.Get("Location"))
			}
		})
	}
}

func TestTailscaleHeaderIgnoredFromOtherPeers(t *testing.T) {
	t.Parallel()
	const login = "owner@example.com"
	ta := newTestApp(t, withConfig(handlers.Config{TailscaleOwner: login, Hosts: []string{tailnetHost}}))
	// app.Test serves a fake connection whose peer is 0.0.0.0: not loopback,
	// so it stands in for a request from the network.
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Host = tailnetHost
	req.Header.Set("Tailscale-User-Login", login)
	resp := ta.do(req)
	if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/login" {
		t.Fatalf("got %d Location %q, want 303 to /login", resp.status, resp.header.Get("Location"))
	}
}

func TestTailscaleHeaderIgnoredWhenNotConfigured(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withConfig(handlers.Config{Hosts: []string{tailnetHost}}))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Tailscale-User-Login", "owner@example.com")
	resp := ta.doHost(req, tailnetHost)
	if resp.status != http.StatusSeeOther || resp.header.Get("Location") != "/login" {
		t.Fatalf("got %d Location %q, want 303 to /login", resp.status, resp.header.Get("Location"))
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	resp := ta.get("/healthz", "", nil)
	if resp.status != http.StatusOK || string(resp.body) != "ok" {
		t.Fatalf("got %s, want 200 ok", resp)
	}
	if resp.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	// A bad credential does not matter on an unauthenticated route.
	if resp := ta.get("/healthz", "hearth_unknown", nil); resp.status != http.StatusOK {
		t.Fatalf("with a bad token: %s", resp)
	}
}

// A page request gets a page (TestAMistypedOwnerURLAnswersAPageWithTheTabsAndAWayBack).
func TestUnknownRouteIs404Envelope(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	cases := []struct {
		name   string
		method string
		path   string
		token  string
	}{
		{name: "post", method: http.MethodPost, path: "/nope"},
		{name: "api with a credential", method: http.MethodGet, path: "/api/nope", token: token},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			req := httptest.NewRequest(tc.method, tc.path, nil)
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			assertError(t, ta.do(req), http.StatusNotFound, "not_found")
		})
	}
}

func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	token := ta.agentToken()
	cases := []struct {
		name, header string
		status       int
	}{
		{name: "lower case", header: "bearer " + token, status: http.StatusOK},
		{name: "upper case", header: "BEARER " + token, status: http.StatusOK},
		{name: "mixed case, two spaces", header: "BeArEr  " + token, status: http.StatusOK},
		{name: "canonical", header: "Bearer " + token, status: http.StatusOK},
		{name: "another scheme", header: "Basic " + token, status: http.StatusUnauthorized},
		{name: "no space after the scheme", header: "Bearer" + token, status: http.StatusUnauthorized},
		{name: "scheme only", header: "bearer", status: http.StatusUnauthorized},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ta := ta.in(t)
			req := httptest.NewRequest(http.MethodGet, "/api/agent-context", nil)
			req.Header.Set("Authorization", tc.header)
			resp := ta.do(req)
			if tc.status != http.StatusOK {
				assertError(t, resp, tc.status, "unauthorized")
				return
			}
			if resp.status != http.StatusOK || jsonAt(t, resp.body, "/revision") != float64(0) {
				t.Fatalf("got %s, want 200 with the context at revision 0", resp)
			}
		})
	}
}
