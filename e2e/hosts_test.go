package e2e

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostRequest sends a request to srv with the given Host and headers.
func hostRequest(t *testing.T, srv *server, method, path, host string, form url.Values, headers map[string]string) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, srv.URL+path, body)
	must(t, err)
	req.Host = host
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: httpTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return resp.StatusCode, string(b)
}

// TestServeRefusesADNSRebindingPage is the attack on the real binary: a
// page whose name now points at 127.0.0.1 claims the Tailscale login.
func TestServeRefusesADNSRebindingPage(t *testing.T) {
	t.Parallel()
	const tailnet, login = "hearth.tail0000.ts.net", "owner@example.com"
	servers := map[string]*server{
		"flags":       startServer(t, "", "--host", tailnet, "--tailscale-owner", login),
		"environment": startServerEnv(t, []string{"HEARTH_HOSTS=other.example," + tailnet, "HEARTH_TAILSCALE_OWNER=" + login}),
	}
	for name, srv := range servers {
		t.Run(name, func(t *testing.T) {
			attack := map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin", "Tailscale-User-Login": login}
			if status, body := hostRequest(t, srv, http.MethodGet, "/", "evil.example", nil, attack); status != http.StatusMisdirectedRequest {
				t.Fatalf("GET / from the rebinding page: %d %.200s", status, body)
			}
			form := url.Values{"requestId": {"req-evil-1"}, "kind": {"note"}, "text": {"from evil.example"}, "return": {"/"}}
			if status, body := hostRequest(t, srv, http.MethodPost, "/requests", "evil.example", form, attack); status != http.StatusMisdirectedRequest {
				t.Fatalf("POST /requests from the rebinding page: %d %.200s", status, body)
			}
			// tailscale serve's own request: its name as Host, its header.
			if status, body := hostRequest(t, srv, http.MethodGet, "/", tailnet, nil, map[string]string{"Tailscale-User-Login": login}); status != http.StatusOK || !strings.Contains(body, `data-testid="ask-form"`) {
				t.Fatalf("GET / through tailscale serve: %d %.200s", status, body)
			}
			if status, _ := hostRequest(t, srv, http.MethodGet, "/", "127.0.0.1", nil, map[string]string{"Tailscale-User-Login": login}); status != http.StatusSeeOther {
				t.Fatalf("the Tailscale header with a loopback Host counted: %d", status)
			}
		})
	}
}

func TestServeRefusesAHostFlagItCannotUse(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--tailscale-owner", "owner@example.com"}, "--host"},
		{[]string{"--host", "https://hearth.example"}, "-host"},
		{[]string{"--host", "hearth.example/x"}, "-host"},
	} {
		wantExit(t, serveOnce(t, data, tc.args...), 1, "stderr", tc.stderr)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("a refused serve created the data dir (%v)", err)
	}
}
