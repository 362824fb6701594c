package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// cable is a loopback TCP proxy in front of the server that can be
// unplugged: while it is, every connection (the page's, the service
// worker's, the event stream's) is refused or cut, as on a phone without
// a network.
type cable struct {
	URL    string
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	// gateway, when set, is the status every request is answered with
	// instead of reaching the server: a proxy in front of a hearth that is
	// down (tailscale serve answers 502).
	gateway int
	// loseAnswers passes every POST on to the server and cuts the
	// connection instead of bringing its answer back: the request left the
	// phone and the answer was lost on the way.
	loseAnswers bool
	conns       map[net.Conn]bool
}

func plugCable(t *testing.T, target string) *cable {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cable{URL: "http://" + ln.Addr().String(), ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); c.set(true) })
	go c.serve()
	return c
}

// loggedInBehindCable is a demo behind a cable the test can unplug, and a
// tab logged in through it.
func loggedInBehindCable(t *testing.T) (*server, *cable, *tab) {
	t.Helper()
	srv := startServer(t, "", "--demo")
	line := plugCable(t, strings.TrimPrefix(srv.URL, "http://"))
	tb := newTab(t, &server{URL: line.URL, DataDir: srv.DataDir})
	tb.login()
	return srv, line, tb
}

func (c *cable) serve() {
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.mu.Lock()
		down, gateway, lose := c.down, c.gateway, c.loseAnswers
		if !down {
			c.conns[in] = true
		}
		c.mu.Unlock()
		if down {
			in.Close()
			continue
		}
		if gateway != 0 {
			go answerGateway(in, gateway)
			continue
		}
		if lose {
			go c.loseAnswer(in)
			continue
		}
		go c.pipe(in)
	}
}

func (c *cable) pipe(in net.Conn) {
	out, err := net.Dial("tcp", c.target)
	if err != nil {
		in.Close()
		return
	}
	c.mu.Lock()
	c.conns[out] = true
	c.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(out, in); done <- struct{}{} }()
	go func() { io.Copy(in, out); done <- struct{}{} }()
	<-done
	in.Close()
	out.Close()
}

// answerGateway answers every request on in with status and an empty
// body, as a reverse proxy does when the server behind it does not answer.
func answerGateway(in net.Conn, status int) {
	defer in.Close()
	r := bufio.NewReader(in)
	for {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		fmt.Fprintf(in, "HTTP/1.1 %d %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status, http.StatusText(status))
		return
	}
}

// loseAnswer serves one request on in through the server: a POST's answer
// is dropped (the connection cut), any other comes back.
func (c *cable) loseAnswer(in net.Conn) {
	defer in.Close()
	req, err := http.ReadRequest(bufio.NewReader(in))
	if err != nil {
		return
	}
	req.URL.Scheme, req.URL.Host, req.RequestURI = "http", c.target, ""
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return
	}
	defer res.Body.Close()
	if req.Method == http.MethodPost {
		io.Copy(io.Discard, res.Body)
		return
	}
	res.Close = true
	res.Write(in)
}

// setLoseAnswers switches loseAnswer on or off for new connections; open
// ones are cut.
func (c *cable) setLoseAnswers(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loseAnswers = on
	for conn := range c.conns {
		conn.Close()
	}
	clear(c.conns)
}

// setGateway makes the cable answer every new request with status (0:
// pass them on again); open connections are cut.
func (c *cable) setGateway(status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gateway = status
	for conn := range c.conns {
		conn.Close()
	}
	clear(c.conns)
}

// set unplugs (down) or plugs the cable; unplugging cuts open connections.
func (c *cable) set(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
	if down {
		for conn := range c.conns {
			conn.Close()
		}
		clear(c.conns)
	}
}

// offline unplugs the cable and tells the page it is offline (navigator.onLine,
// the offline event); online does the reverse.
func (tb *tab) offline(c *cable, off bool) {
	tb.t.Helper()
	// The cable first, then the page's state: a page told it is online
	// before the network is back tries at once and waits for a retry.
	if off {
		c.set(true)
	} else {
		c.set(false)
	}
	tb.do("network state", chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, network.OverrideNetworkState, network.OverrideNetworkStateParams{
			Offline: off, DownloadThroughput: -1, UploadThroughput: -1,
		})
		return err
	}))
}

func weightsSaved(t *testing.T, srv *server, activityID string) []float64 {
	t.Helper()
	var ac struct {
		Measurements struct {
			Items []struct {
				ActivityID string  `json:"activityId"`
				Value      float64 `json:"value"`
			} `json:"items"`
		} `json:"measurements"`
	}
	decodeJSON(t, newAgentClient(srv.URL, demoToken(t, srv.DataDir)).contextJSON(t), &ac)
	var out []float64
	for _, m := range ac.Measurements.Items {
		if m.ActivityID == activityID {
			out = append(out, m.Value)
		}
	}
	return out
}

func (tb *tab) queueLength() int {
	return get(tb, "queue", chromedp.Evaluate[int](`JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length`))
}

func TestWeightEnteredOfflineIsQueuedShownAndSavedOnceWhenBackOnline(t *testing.T) {
	srv, line, tb := loggedInBehindCable(t)
	day := demoDay(t)
	routine, weigh := "morning-routine-"+day, "weigh-in-"+day

	// The worker takes over, and Home is loaded once through it.
	tb.do("worker ready", chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	tb.do("reload through the worker", chromedp.Reload(), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	get(tb, "controlled", chromedp.Poll[bool](`navigator.serviceWorker.controller !== null`))
	tb.expand(routine, "routine")
	tb.expand(weigh, "measurement")
	tb.expand("reply-ana-hike", "reply")
	tb.expand("book-bike-service", "task")

	// The network drops before the page knows: the tick fails on the way
	// and is queued as sent, with its key.
	line.set(true)
	tb.do("complete a task as the network drops",
		chromedp.Click(css(rowSel("book-bike-service")+` [data-testid="complete"]`)),
		chromedp.WaitVisible(css(rowSel("book-bike-service")+` [data-testid="sync-note"]`)),
	)
	tb.offline(line, true)
	tb.do("save weight offline",
		chromedp.SendKeys(css(`#value-`+weigh), "71,8"),
		chromedp.Click(css(rowSel(weigh)+` [data-testid="measurement-save"]`)),
		chromedp.WaitVisible(css(rowSel(weigh)+` [data-testid="sync-note"]`)),
	)
	note := get(tb, "note", textOf(rowSel(weigh)+` [data-testid="sync-note"]`))
	if !strings.Contains(strings.ToLower(note), "waiting to sync") || !strings.Contains(note, "71,8") {
		t.Errorf("row note %q", note)
	}
	if n := tb.queueLength(); n != 2 {
		t.Fatalf("%d actions queued, want 2", n)
	}
	// A typo is queued too (offline nothing can check it); the server refuses it later.
	tb.do("save a typo offline",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("value-`+weigh+`").value = ""`),
		chromedp.SendKeys(css(`#value-`+weigh), "7000"),
		chromedp.Click(css(rowSel(weigh)+` [data-testid="measurement-save"]`)),
	)
	get(tb, "typo queued", chromedp.Poll[bool](`JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length === 3`))

	// A reply send is refused in place and never queued.
	tb.do("review and send offline",
		chromedp.Click(css(rowSel("reply-ana-hike")+` [data-testid="review-link"]`)),
		chromedp.WaitVisible(css(rowSel("reply-ana-hike")+` [data-testid="offline-refused"]`)),
	)
	refused := get(tb, "refusal", textOf(rowSel("reply-ana-hike")+` [data-testid="offline-refused"]`))
	if !strings.Contains(refused, "offline") || !strings.Contains(refused, "not sent") {
		t.Errorf("refusal %q", refused)
	}
	if n := tb.queueLength(); n != 3 {
		t.Errorf("%d actions queued after a refused send, want 3", n)
	}

	// Offline, the shell and today's Home still open, with the queued weight
	// marked on its routine (kept folded, as Home was loaded).
	tb.do("reload offline",
		chromedp.Reload(),
		chromedp.WaitVisible(css(`[data-testid="brief"]`)),
		chromedp.WaitVisible(css(rowSel(routine)+` [data-testid="sync-note"]`)),
	)
	styled := get(tb, "stylesheet", chromedp.Evaluate[int](`document.styleSheets.length && document.styleSheets[0].cssRules.length`))
	if styled == 0 {
		t.Errorf("the offline Home has no stylesheet")
	}
	if w := get(tb, "width", chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`)); w[0] > w[1] || w[1] != 390 {
		t.Errorf("offline Home scrolls sideways: scrollWidth %d, clientWidth %d (want 390)", w[0], w[1])
	}
	if got := weightsSaved(t, srv, weigh); len(got) != 0 {
		t.Fatalf("saved while offline: %v", got)
	}

	queued := get(tb, "queued key", chromedp.Evaluate[string](`JSON.parse(localStorage.getItem("hearth.offline.queue")).filter(x => x.path.endsWith("/measurement"))[0].key`))
	tb.offline(line, false)
	get(tb, "synced", chromedp.Poll[bool](`document.querySelector('[data-sync="waiting"]') === null && JSON.parse(localStorage.getItem("hearth.offline.queue") || "[]").length === 0`))
	// The refused typo says why on the routine it belongs to.
	refusedNote := get(tb, "refused replay", chromedp.Poll[string](`(function(){var n=document.querySelector('`+rowSel(routine)+` > [data-sync-note]');return n&&n.closest('[data-sync="refused"]')?n.textContent:""})()`))
	if !strings.Contains(refusedNote, "Not saved") || !strings.Contains(refusedNote, "between 20 and 400") {
		t.Errorf("refused replay note %q", refusedNote)
	}
	if got := weightsSaved(t, srv, weigh); len(got) != 1 || got[0] != 71.8 {
		t.Fatalf("after sync the agent sees %v, want [71.8] once", got)
	}
	if d := decisionsFor(t, srv, "book-bike-service"); len(d) != 1 || d[0]["state"] != "completed" {
		t.Errorf("after sync the agent sees decisions %v, want one completion", d)
	}
	// The queued send arriving again (a second tab, an answer lost on the
	// way back) is answered as the first was and saves nothing more.
	status := get(tb, "replay", chromedp.Evaluate[int](`fetch(`+"`"+`/activities/${encodeURIComponent(`+"`"+weigh+"`"+`)}/measurement`+"`"+`, {method: "POST",
		headers: {"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"}, body: `+"`"+`value=71%2C8&clientKey=${encodeURIComponent(`+"`"+queued+"`"+`)}`+"`"+`}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if status != 200 {
		t.Fatalf("replay status %d", status)
	}
	if got := weightsSaved(t, srv, weigh); len(got) != 1 {
		t.Errorf("after a replay the agent sees %v, want one weight", got)
	}
}

func TestLogoutLeavesNoCopyOfHomeOnTheDevice(t *testing.T) {
	_, line, tb := loggedInBehindCable(t)
	tb.do("worker ready", chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.ready.then(() => true)`, chromedp.EvalAwaitPromise))
	tb.do("reload through the worker", chromedp.Reload(), chromedp.WaitVisible(css(`[data-testid="brief"]`)))
	get(tb, "Home kept", chromedp.Poll[bool](`caches.has("hearth-home")`, chromedp.WithPollingArgs()))
	tb.do("a queued action", chromedp.Evaluate[chromedp.Void](`localStorage.setItem("hearth.offline.queue", "[]")`))

	tb.do("log out",
		chromedp.Navigate(line.URL+"/more"),
		chromedp.Click(css(`[data-testid="logout"]`)),
		chromedp.WaitVisible(css("#password")),
	)
	kept := get(tb, "what is kept", chromedp.Evaluate[string](`caches.keys().then(k => k.filter(n => n === "hearth-home").join(",") + "|" + (localStorage.getItem("hearth.offline.queue") === null ? "" : "queue"))`, chromedp.EvalAwaitPromise))
	if kept != "|" {
		t.Errorf("after logout the device still holds %q", kept)
	}
	// Offline after logout, Home is not there to open: the navigation fails
	// or shows no brief.
	tb.offline(line, true)
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(line.URL+"/"), chromedp.WaitReady(css("body"))); err == nil {
		if n := get(tb, "brief", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="brief"]').length`)); n != 0 {
			t.Errorf("after logout, offline Home still shows the brief")
		}
	}
	tb.offline(line, false)
}
