package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"hearth/internal/poll"
)

// The tailnet kit: hearth reached the way a phone reaches it through
// `tailscale serve` (docs/operations.md): HTTPS with HTTP/2 on a tailnet
// name, a reverse proxy on the same host that forwards the Host the browser
// used and adds the Tailscale login, and a round trip the test can lengthen.
// The proxy can be stopped while the phone stays online (Tailscale or
// hearth down: navigator.onLine stays true) and started again on the same
// address.

// tailnetHost is the name the proxy answers on. Chromium resolves every
// *.localhost name to loopback by itself (no DNS, no resolver flags), and
// hearth does not count it as a loopback name, so it is a --host name as a
// tailnet name is: the Tailscale header counts only on it.
const tailnetHost = "hearth.localhost"

// tailnetLogin is the Tailscale login the proxy asserts and serve trusts.
const tailnetLogin = "owner@example.com"

// tailnetServeArgs are the serve flags for hearth behind the tailnet proxy.
var tailnetServeArgs = []string{"--host", tailnetHost, "--tailscale-owner", tailnetLogin}

// tailnetProxy is a local HTTPS/HTTP/2 reverse proxy in front of serve.
type tailnetProxy struct {
	// URL is the proxy's address on the tailnet name, https://hearth.localhost:PORT.
	URL  string
	addr string
	t    *testing.T
	srv  *httptest.Server
	rp   *httputil.ReverseProxy

	mu       sync.Mutex
	latency  time.Duration
	requests []proxied
	stopped  bool
}

// proxied is one request the proxy forwarded (or refused while stopped).
type proxied struct {
	Method, Path, Query string
}

// startTailnetProxy puts the proxy in front of srv (started with
// tailnetServeArgs) and stops it when the test ends.
func startTailnetProxy(t *testing.T, srv *server) *tailnetProxy {
	t.Helper()
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	p := &tailnetProxy{t: t}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			// tailscale serve forwards the Host the browser used and names
			// the tailnet user; a header the browser sent is never trusted.
			r.Out.Host = r.In.Host
			r.Out.Header.Del("Tailscale-User-Login")
			r.Out.Header.Set("Tailscale-User-Login", tailnetLogin)
			r.SetXForwarded()
		},
		// The event stream must reach the page as each event is written.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// What tailscale serve answers when nothing listens behind it.
			http.Error(w, "502 Bad Gateway: "+err.Error(), http.StatusBadGateway)
		},
	}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serveHTTP))
	p.srv.EnableHTTP2 = true
	p.srv.StartTLS()
	p.addr = p.srv.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(p.addr)
	p.URL = "https://" + tailnetHost + ":" + port
	t.Cleanup(p.close)
	return p
}

func (p *tailnetProxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	d := p.latency
	p.requests = append(p.requests, proxied{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery})
	p.mu.Unlock()
	if d > 0 {
		// The round trip's time, spent before the request goes on: the
		// answer (or the stream's first byte) comes d later than it would.
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	p.rp.ServeHTTP(w, r)
}

// setLatency adds d to every request's round trip from now on.
func (p *tailnetProxy) setLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// seen is every request the proxy received so far, in order.
func (p *tailnetProxy) seen() []proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]proxied(nil), p.requests...)
}

// posts counts the POSTs to path (every path when empty) seen so far.
func (p *tailnetProxy) posts(path string) int {
	n := 0
	for _, r := range p.seen() {
		if r.Method == http.MethodPost && (path == "" || r.Path == path) {
			n++
		}
	}
	return n
}

// stop makes hearth unreachable while the phone stays online: open
// connections are cut and new ones refused, as when Tailscale or the host
// is down.
func (p *tailnetProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	p.srv.CloseClientConnections()
	p.srv.Listener.Close()
	p.srv.CloseClientConnections()
}

// start serves again on the same address after stop.
func (p *tailnetProxy) start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stopped {
		return
	}
	var ln net.Listener
	// The address was ours a moment ago; a port in TIME_WAIT is reusable
	// for listening, but give a slow close a moment.
	poll.Eventually(p.t, time.Second, func() (bool, string) {
		var err error
		ln, err = net.Listen("tcp", p.addr)
		return err == nil, fmt.Sprintf("restart the tailnet proxy on %s: %v", p.addr, err)
	})
	p.stopped = false
	p.srv.Listener = tls.NewListener(ln, p.srv.TLS)
	go p.srv.Config.Serve(p.srv.Listener)
}

func (p *tailnetProxy) close() {
	p.mu.Lock()
	stopped := p.stopped
	p.stopped = true
	p.mu.Unlock()
	if stopped {
		// httptest's Close waits for the listener it started; that one is
		// gone, so only the live connections and the server remain.
		p.srv.CloseClientConnections()
		p.srv.Config.Close()
		return
	}
	p.srv.CloseClientConnections()
	p.srv.Config.Close()
}

var (
	phoneOnce   sync.Once
	phoneCtx    context.Context
	phoneCancel context.CancelFunc
	phoneErr    error
)

// phoneBrowser is a second headless Chromium for the tailnet tests, at
// 390×844 like the first, that accepts the proxy's test certificate
// everywhere (pages, fetches, the event stream and the service worker,
// which per-tab certificate overrides do not reach). Linux kills it with
// the test binary (chromedp sets Pdeathsig).
func phoneBrowser(t *testing.T) context.Context {
	t.Helper()
	phoneOnce.Do(func() {
		path, err := chromiumPath()
		if err != nil {
			phoneErr = fmt.Errorf("chromium not found (make test installs Debian's chromium): %w", err)
			return
		}
		ctx, cancel, err := startChromium(path, chromedp.Flag("ignore-certificate-errors", true))
		if err != nil {
			phoneErr = err
			return
		}
		phoneCtx = ctx
		phoneCancel = cancel
	})
	if phoneErr != nil {
		t.Fatal(phoneErr)
	}
	return phoneCtx
}

// phoneTab opens a 390×844 tab of the phone browser on the proxy. The
// owner is signed in by the Tailscale login: no passphrase, no cookie.
func phoneTab(t *testing.T, p *tailnetProxy, srv *server) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(phoneBrowser(t))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open tab: %v", err)
	}
	tb := &tab{t: t, ctx: ctx, srv: &server{URL: p.URL, DataDir: srv.DataDir}}
	tb.do("viewport", chromedp.EmulateViewport(390, 844))
	return tb
}

// startTailnet is hearth serve (with args, after the tailnet flags) behind
// the proxy, and a phone tab on it.
func startTailnet(t *testing.T, args ...string) (*server, *tailnetProxy, *tab) {
	t.Helper()
	srv := startServer(t, "", append(append([]string{}, tailnetServeArgs...), args...)...)
	p := startTailnetProxy(t, srv)
	return srv, p, phoneTab(t, p, srv)
}

// client is an HTTP client through the proxy that trusts its certificate.
func (p *tailnetProxy) client() *http.Client {
	c := p.srv.Client()
	c.Timeout = httpTimeout
	tr := c.Transport.(*http.Transport).Clone()
	// The tailnet name resolves to the proxy here as Chromium resolves it.
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, p.addr)
	}
	tr.TLSClientConfig.ServerName = "example.com"
	c.Transport = tr
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

func TestTailnetProxySignsTheOwnerInStreamsEventsAndCanBeStopped(t *testing.T) {
	srv, p, tb := startTailnet(t, "--demo")
	p.setLatency(150 * time.Millisecond)
	tb.do("open Home through the proxy",
		chromedp.Navigate(p.URL+"/"),
		chromedp.WaitVisible(css(`[data-testid="brief"]`)),
	)
	proto := get(tb, "protocol", chromedp.Evaluate[string](`performance.getEntriesByType("navigation")[0].nextHopProtocol`))
	if proto != "h2" {
		t.Errorf("Home came over %q, want h2", proto)
	}
	if secure := get(tb, "secure context", chromedp.Evaluate[bool](`window.isSecureContext && location.protocol === "https:"`)); !secure {
		t.Errorf("the page is not a secure HTTPS context")
	}

	// The event stream streams through the proxy: a commit made elsewhere
	// reaches the open page.
	get(tb, "stream open", chromedp.Poll[bool](`Number(document.body.dataset.seen || 0) > 0`))
	before := get(tb, "seen", chromedp.Evaluate[int](`Number(document.body.dataset.seen)`))
	tok := demoToken(t, srv.DataDir)
	ac := newAgentClient(srv.URL, tok)
	rev := ac.context(t).Revision
	if code, body, err := ac.publish(newPublication("tailnet-kit", rev, 1).Body); err != nil || code != http.StatusCreated {
		t.Fatalf("publish: %d %s %v", code, body, err)
	}
	get(tb, "event arrived", chromedp.Poll[bool](fmt.Sprintf(`Number(document.body.dataset.seen || 0) > %d`, before)))

	// Stopped: the browser cannot connect, while it still thinks it is online.
	p.stop()
	failed := get(tb, "fetch while stopped", chromedp.Evaluate[string](`fetch("/healthz", {cache: "no-store"}).then(r => "answered " + r.status, e => "failed: " + e.name)`, chromedp.EvalAwaitPromise))
	if !strings.HasPrefix(failed, "failed") {
		t.Errorf("with the proxy stopped a fetch %s", failed)
	}
	if online := get(tb, "online", chromedp.Evaluate[bool](`navigator.onLine`)); !online {
		t.Errorf("navigator.onLine is false with only hearth unreachable")
	}
	p.start()
	answered := get(tb, "fetch after restart", chromedp.Poll[string](`fetch("/healthz", {cache: "no-store"}).then(r => "answered " + r.status, e => "")`, chromedp.WithPollingInterval(100*time.Millisecond)))
	if answered != "answered 200" {
		t.Errorf("after restart a fetch %s", answered)
	}

	// A Go client through the proxy is the owner too (no cookie).
	res0, err := p.client().Get(p.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res0.Body.Close()
	if res0.StatusCode != http.StatusOK || res0.ProtoMajor != 2 {
		t.Errorf("GET / through the proxy: %d over HTTP/%d, want 200 over HTTP/2", res0.StatusCode, res0.ProtoMajor)
	}

	// A Tailscale header sent from outside the proxy (a loopback name) is ignored.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	req.Header.Set("Tailscale-User-Login", tailnetLogin)
	res, err := (&http.Client{Timeout: httpTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther && res.StatusCode != http.StatusFound {
		t.Errorf("a Tailscale header on a loopback name got %d, want a redirect to log in", res.StatusCode)
	}
}
