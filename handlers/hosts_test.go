package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"hearth/handlers"
	"hearth/internal/contract"
	"hearth/models/read"
)

// tailnetHost is the name tailscale serve answers on in these tests; it
// forwards the Host the browser used.
const tailnetHost = "hearth.tail0000.ts.net"

// tailnetLogin is the Tailscale login trusted as the owner in these tests.
const tailnetLogin = "owner@example.com"

// doHost sends req over the real loopback listener (a loopback peer, as
// from tailscale serve) with the Host header set to host.
func (ta *testApp) doHost(req *http.Request, host string) response {
	ta.t.Helper()
	out, err := http.NewRequestWithContext(ta.t.Context(), req.Method, ta.listen()+req.URL.RequestURI(), req.Body)
	if err != nil {
		ta.t.Fatal(err)
	}
	out.Header = req.Header.Clone()
	out.ContentLength = req.ContentLength
	out.Host = host
	resp, err := noRedirects.Do(out)
	if err != nil {
		ta.t.Fatalf("%s %s (Host %s): %v", req.Method, out.URL, host, err)
	}
	return readResponse(ta.t, resp)
}

// assertMisdirected checks a 421 refusal: the envelope on /api, plain text
// naming --host elsewhere, and never a page or a redirect.
func assertMisdirected(t testing.TB, resp response, path string) {
	t.Helper()
	if strings.HasPrefix(path, "/api/") {
		assertError(t, resp, http.StatusMisdirectedRequest, "misdirected_request")
		return
	}
	if resp.status != http.StatusMisdirectedRequest {
		t.Fatalf("got %s, want 421", resp)
	}
	if ct := resp.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q, want text/plain", ct)
	}
	if !strings.Contains(string(resp.body), "--host") {
		t.Errorf("body %q does not say how to allow the name (--host)", resp.body)
	}
	if resp.header.Get("Location") != "" || len(resp.header.Values("Set-Cookie")) != 0 {
		t.Errorf("a refused request was redirected or set cookies: %v", resp.header)
	}
}

func TestRequestsForUnconfiguredHostsAreMisdirected(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withOwner(), withConfig(handlers.Config{Hosts: []string{tailnetHost}, TailscaleOwner: tailnetLogin}))
	token := ta.agentToken()
	port := strings.TrimPrefix(ta.listen(), "http://127.0.0.1:")

	hosts := []struct {
		host    string
		allowed bool
		tailnet bool // tailscale serve's own name: the only Host its header counts with
	}{
		{host: "127.0.0.1:" + port, allowed: true},
		{host: "127.0.0.1", allowed: true},
		{host: "localhost:" + port, allowed: true},
		{host: "LocalHost", allowed: true},
		{host: "[::1]:" + port, allowed: true},
		{host: "[::1]", allowed: true},
		{host: tailnetHost, allowed: true, tailnet: true},
		{host: strings.ToUpper(tailnetHost) + ":443", allowed: true, tailnet: true},
		{host: tailnetHost + ".", allowed: true, tailnet: true},
		{host: "evil.example"},
		{host: "evil.example:" + port},
		{host: tailnetHost + ".evil.example"},
		{host: "localhost.evil.example"},
		{host: "127.0.0.1.nip.io"},
		{host: "ts.net"},
	}
	type identity int
	const (
		nobody identity = iota
		session
		agent
		tailscale
	)
	routes := []struct {
		name   string
		method string
		path   string
		who    identity
		// want is the answer on an allowed Host; wantTailnet on tailscale
		// serve's name when it differs.
		want, wantTailnet int
	}{
		{name: "health check", method: http.MethodGet, path: "/healthz", want: http.StatusOK},
		{name: "static file", method: http.MethodGet, path: "/static/hearth.css", want: http.StatusOK},
		{name: "login page", method: http.MethodGet, path: "/login", want: http.StatusOK},
		{name: "Home with a session", method: http.MethodGet, path: "/", who: session, want: http.StatusOK},
		{name: "Home with the Tailscale header", method: http.MethodGet, path: "/", who: tailscale, want: http.StatusSeeOther, wantTailnet: http.StatusOK},
		{name: "Home with an agent token", method: http.MethodGet, path: "/", who: agent, want: http.StatusForbidden},
		{name: "Home for nobody", method: http.MethodGet, path: "/", want: http.StatusSeeOther},
		{name: "agent context", method: http.MethodGet, path: "/api/agent-context", who: agent, want: http.StatusOK},
		{name: "agent context for nobody", method: http.MethodGet, path: "/api/agent-context", want: http.StatusUnauthorized},
		{name: "schedules API with a session", method: http.MethodGet, path: "/api/schedules", who: session, want: http.StatusOK},
		{name: "logout", method: http.MethodPost, path: "/logout", who: session, want: http.StatusSeeOther},
	}
	for _, h := range hosts {
		for _, r := range routes {
			t.Run(h.host+" "+r.name, func(t *testing.T) {
				ta := ta.in(t)
				req := httptest.NewRequest(r.method, r.path, nil)
				var cookie *http.Cookie
				switch r.who {
				case session:
					cookie = ta.login()
					req.AddCookie(cookie)
				case agent:
					req.Header.Set("Authorization", "Bearer "+token)
				case tailscale:
					req.Header.Set("Tailscale-User-Login", tailnetLogin)
				}
				resp := ta.doHost(req, h.host)
				if !h.allowed {
					assertMisdirected(t, resp, r.path)
					if cookie != nil {
						// Nothing behind the Host check ran: a refused logout ended nothing.
						home := ta.doHost(withCookie(httptest.NewRequest(http.MethodGet, "/", nil), cookie), "127.0.0.1")
						if home.status != http.StatusOK {
							t.Fatalf("after a refused %s %s the session is gone: GET / is %d", r.method, r.path, home.status)
						}
					}
					return
				}
				want := r.want
				if h.tailnet && r.wantTailnet != 0 {
					want = r.wantTailnet
				}
				if resp.status != want {
					t.Fatalf("got %s, want %d", resp, want)
				}
				switch want {
				case http.StatusOK:
					if r.path == "/" && parseHTML(t, resp).Find(testID("brief-empty")).Length() != 1 {
						t.Errorf("Home not rendered: %s", resp.body)
					}
					if r.path == "/healthz" && string(resp.body) != "ok" {
						t.Errorf("health %q", resp.body)
					}
				case http.StatusSeeOther:
					if loc := resp.header.Get("Location"); loc != "/login" {
						t.Errorf("Location %q, want /login", loc)
					}
				case http.StatusForbidden:
					assertError(t, resp, want, "forbidden")
				case http.StatusUnauthorized:
					assertError(t, resp, want, "unauthorized")
				}
			})
		}
	}
}

func withCookie(req *http.Request, c *http.Cookie) *http.Request {
	req.AddCookie(c)
	return req
}

// TestDNSRebindingPageIsNotTheOwner is the attack as found: a page whose
// own name was rebound to 127.0.0.1 sends its name as Host and Origin (so
// it is "same-origin") with a Tailscale login header, from a loopback peer.
func TestDNSRebindingPageIsNotTheOwner(t *testing.T) {
	t.Parallel()
	configs := []struct {
		name string
		cfg  handlers.Config
	}{
		{name: "tailnet name configured", cfg: handlers.Config{Hosts: []string{tailnetHost}, TailscaleOwner: tailnetLogin}},
		{name: "no name configured", cfg: handlers.Config{TailscaleOwner: tailnetLogin}},
	}
	for _, tc := range configs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ta := newTestApp(t, withConfig(tc.cfg))
			for _, host := range []string{"evil.example", "evil.example:" + strings.TrimPrefix(ta.listen(), "http://127.0.0.1:")} {
				attack := func(req *http.Request) response {
					req.Header.Set("Origin", "http://"+host)
					req.Header.Set("Sec-Fetch-Site", "same-origin")
					req.Header.Set("Tailscale-User-Login", tailnetLogin)
					return ta.doHost(req, host)
				}
				get := attack(httptest.NewRequest(http.MethodGet, "/", nil))
				assertMisdirected(t, get, "/")
				if strings.Contains(string(get.body), "brief") {
					t.Fatalf("Home leaked to a rebinding page: %s", get.body)
				}
				form := url.Values{"requestId": {"req-rebinding-1"}, "kind": {contract.RequestNote}, "text": {"written by evil.example"}, "return": {"/"}}
				post := httptest.NewRequest(http.MethodPost, "/requests", strings.NewReader(form.Encode()))
				post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				assertMisdirected(t, attack(post), "/requests")
				api := httptest.NewRequest(http.MethodPost, "/api/agent-requests", strings.NewReader(`{"requestId":"req-rebinding-2","kind":"note","text":"x"}`))
				api.Header.Set("Content-Type", "application/json")
				assertMisdirected(t, attack(api), "/api/agent-requests")
			}
			reqs, err := read.Of(ta.store).Requests(context.Background(), "", 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != 0 || ta.revision() != 0 {
				t.Fatalf("a rebinding page wrote: %d requests, revision %d", len(reqs), ta.revision())
			}
		})
	}
}

// TestTailscaleHeaderCountsOnlyOnTheTailnetName: tailscale serve forwards
// the Host the browser used, so the header with a loopback Host never came
// from it.
func TestTailscaleHeaderCountsOnlyOnTheTailnetName(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t, withConfig(handlers.Config{Hosts: []string{tailnetHost}, TailscaleOwner: tailnetLogin}))
	for host, want := range map[string]int{tailnetHost: http.StatusOK, "127.0.0.1": http.StatusSeeOther, "localhost": http.StatusSeeOther} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("Tailscale-User-Login", tailnetLogin)
		if resp := ta.doHost(req, host); resp.status != want {
			t.Errorf("Host %s: got %s, want %d", host, resp, want)
		}
	}
}

func TestHostNameNormalisesAndRefuses(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Hearth.Tail0000.ts.net":       "hearth.tail0000.ts.net",
		"hearth.tail0000.ts.net:443":   "hearth.tail0000.ts.net",
		"hearth.tail0000.ts.net.":      "hearth.tail0000.ts.net",
		"100.101.102.103":              "100.101.102.103",
		"[fd7a:115c:a1e0::1]:8080":     "fd7a:115c:a1e0::1",
		"fd7a:115c:a1e0::1":            "fd7a:115c:a1e0::1",
		" hearth.tail0000.ts.net ":     "hearth.tail0000.ts.net",
		"hearth-box":                   "hearth-box",
		"xn--hrth-loa.tail0000.ts.net": "xn--hrth-loa.tail0000.ts.net",
	} {
		if got, err := handlers.HostName(in); err != nil || got != want {
			t.Errorf("HostName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ":8080", "https://hearth.example", "hearth.example/path", "user@hearth.example", "*.ts.net", "a b", "[::1"} {
		if got, err := handlers.HostName(bad); err == nil {
			t.Errorf("HostName(%q) = %q, want an error", bad, got)
		}
	}
}
