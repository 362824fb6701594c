package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"hearth/handlers"
	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/static"
	"hearth/views"
)

// benchHome is an app with 10,000 historical activities (occurrences of the
// past 100 days, 100 of them completed) and 50 visible today, and an owner session.
func benchHome(b *testing.B) (*testApp, *http.Cookie) {
	b.Helper()
	ta := newTestApp(b, withOwner())
	token := ta.agentToken()
	start := testNow.AddDate(0, 0, -100)
	ta.clock.Advance(start.Sub(testNow))
	for day := range 100 {
		date := start.AddDate(0, 0, day).Format(time.DateOnly)
		pub := minimalPublication(fmt.Sprintf("history-%d", day), ta.revision())
		var acts []any
		for i := range 100 {
			acts = append(acts, map[string]any{"id": fmt.Sprintf("h-%s-%03d", date, i), "kind": "task", "title": "Old task",
				"evidenceIds": []any{}, "occurrenceKey": date + "@Europe/Berlin", "payload": map[string]any{}})
		}
		pub["activities"] = acts
		ta.mustPublish(token, pub.JSON())
		if _, err := ta.store.SetActivityState(b.Context(), fmt.Sprintf("h-%s-000", date), "completed", "", ""); err != nil {
			b.Fatal(err)
		}
		ta.clock.Advance(24 * time.Hour)
	}
	pub := validPublication("today", ta.revision())
	acts := pub["activities"].([]any)
	for i := len(acts); i < 50; i++ {
		acts = append(acts, map[string]any{"id": fmt.Sprintf("today-%02d", i), "kind": "task", "title": fmt.Sprintf("Today's task %d", i),
			"evidenceIds": []any{}, "recommendation": map[string]any{"section": "focus", "rank": i}, "payload": map[string]any{}})
	}
	pub["activities"] = acts
	ta.mustPublish(token, pub.JSON())
	return ta, ta.login()
}

// fetch gets url with the cookie and returns the body size.
func fetch(b *testing.B, client *http.Client, url string, cookie *http.Cookie, header map[string]string) int {
	n, _ := fetchTimed(b, client, url, cookie, header)
	return n
}

// fetchTimed also returns the server's own time from Server-Timing.
func fetchTimed(b *testing.B, client *http.Client, url string, cookie *http.Cookie, header map[string]string) (int, time.Duration) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if cookie != nil {
		req.AddCookie(cookie)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	var ms float64
	fmt.Sscanf(resp.Header.Get("Server-Timing"), "app;dur=%g", &ms)
	return int(n), time.Duration(ms * float64(time.Millisecond))
}

// latencies requests url(i) over loopback one at a time and reports the
// median and p99 of the server's time (Server-Timing) and of the round trip.
func latencies(b *testing.B, url func(base string, i int) string) {
	ta, cookie := benchHome(b)
	reportLatencies(b, ta.listen(), cookie, url, nil)
}

// reportLatencies requests url(base, i) as the owner, one at a time, and
// reports the median and p99 of the server's time and of the round trip.
// before, when set, runs ahead of each request (a commit, say), untimed by
// the server's figure.
func reportLatencies(b *testing.B, base string, cookie *http.Cookie, url func(base string, i int) string, before func(i int)) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections() // so the server's shutdown does not wait out its keep-alives
	var server, trip []time.Duration
	cpu := processCPU()
	for i := 0; b.Loop(); i++ {
		if before != nil {
			before(i)
		}
		start := time.Now()
		_, took := fetchTimed(b, client, url(base, i), cookie, nil)
		trip = append(trip, time.Since(start))
		server = append(server, took)
	}
	// The process's CPU time per request (server, client and any commit
	// before it, garbage collection included): on a shared machine it
	// varies far less than the latencies.
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(len(server)), "cpu-µs/op")
	reportPercentiles(b, "server", server)
	reportPercentiles(b, "trip", trip)
}

// BenchmarkHomeRender measures a full render of Home from the database:
//   - miss: each request names a different (absent) open row, so the page
//     cache never answers, with nothing committed in between;
//   - after-commit: each request follows an owner's decision on one of
//     today's rows (the figure docs/figures.md quotes), as when Home reloads live. The
//     clock moves 10 s per decision: on a frozen clock every decision of
//     the run stayed inside the 10-minute Undo window, and Home's read of
//     the undo offers grew with b.N.
func BenchmarkHomeRender(b *testing.B) {
	b.Run("miss", func(b *testing.B) {
		latencies(b, func(base string, i int) string { return fmt.Sprintf("%s/?open=miss-%d", base, i) })
	})
	b.Run("after-commit", func(b *testing.B) {
		ta, cookie := benchHome(b)
		reportLatencies(b, ta.listen(), cookie, func(base string, _ int) string { return base + "/" }, func(i int) { decideOnToday(b, ta, i) })
	})
}

// reportPercentiles reports the median and the 99th percentile of d as
// name-p50-µs and name-p99-µs.
func reportPercentiles(b *testing.B, name string, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), name+"-p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), name+"-p99-µs")
}

// decideOnToday is the owner's i-th decision of after-commit: one of
// today's rows completed or skipped, 10 s after the one before.
func decideOnToday(b *testing.B, ta *testApp, i int) {
	ta.clock.Advance(10 * time.Second)
	id, state := fmt.Sprintf("today-%02d", 10+i%40), []string{"completed", "skipped"}[i/40%2]
	if _, err := ta.store.SetActivityState(b.Context(), id, state, "", ""); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHomeReadAndRender times BenchmarkHomeRender/after-commit's
// server work in its two halves, apart: Home's read (Store.Home) and its
// render (templ, then the first response's gzip body as served). A read model
// that a commit patches would save most of the first; the second is the
// floor it would leave (docs/figures.md, "What a p99 under 3 ms takes").
func BenchmarkHomeReadAndRender(b *testing.B) {
	ta, _ := benchHome(b)
	var read, render []time.Duration
	var page bytes.Buffer
	// As serve's handlers read: Fiber's UserContext, which nothing cancels,
	// so the driver watches no context per statement.
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		decideOnToday(b, ta, i)
		start := time.Now()
		home, err := ta.store.Home(ctx, costpolicy.Policy{})
		if err != nil {
			b.Fatal(err)
		}
		read = append(read, time.Since(start))
		start = time.Now()
		page.Reset()
		// As homeData builds it for a plain GET of Home.
		d := views.HomeData{Home: home, Now: ta.clock.Now(), Open: map[string]bool{}, AskID: handlers.IDPlaceholder, Runs: home.Runs}
		if err := views.Home(d).Render(ctx, &page); err != nil {
			b.Fatal(err)
		}
		handlers.FirstResponse(page.Bytes())
		render = append(render, time.Since(start))
	}
	reportPercentiles(b, "read", read)
	reportPercentiles(b, "render", render)
}

// BenchmarkHomeServed measures Home as a phone gets it between commits,
// answered from the page cache.
func BenchmarkHomeServed(b *testing.B) {
	latencies(b, func(base string, _ int) string { return base + "/" })
}

// BenchmarkHomeThroughput loads Home and a static file with 8 concurrent
// loopback clients for 2 s each and reports requests per second and their
// ratio. Home is served as deployed: from the page cache between commits.
func BenchmarkHomeThroughput(b *testing.B) {
	ta, cookie := benchHome(b)
	base := ta.listen()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections() // so the server's shutdown does not wait out its keep-alives
	for b.Loop() {
		home := throughput(b, client, base+"/", cookie)
		file := throughput(b, client, base+static.URL("hearth.css"), nil)
		b.ReportMetric(home, "home-req/s")
		b.ReportMetric(file, "static-req/s")
		b.ReportMetric(home/file, "ratio")
	}
}

// throughput loads url with 8 concurrent loopback clients for 2 s and
// returns requests per second.
func throughput(b *testing.B, client *http.Client, url string, cookie *http.Cookie) float64 {
	return throughputWith(b, client, url, cookie, nil)
}

// throughputWith is throughput with request headers (an agent's token).
func throughputWith(b *testing.B, client *http.Client, url string, cookie *http.Cookie, headers map[string]string) float64 {
	var n atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(2 * time.Second)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				fetch(b, client, url, cookie, headers)
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / 2
}

// BenchmarkPeopleThroughput loads People and Home as BenchmarkHomeThroughput
// does, on the same data, and reports People's requests per second beside
// Home's (the target: at least half). Both are served between
// commits, from the page cache.
func BenchmarkPeopleThroughput(b *testing.B) {
	ta, cookie := benchHome(b)
	base := ta.listen()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections() // so the server's shutdown does not wait out its keep-alives
	for b.Loop() {
		people := throughput(b, client, base+"/people", cookie)
		home := throughput(b, client, base+"/", cookie)
		b.ReportMetric(people, "people-req/s")
		b.ReportMetric(home, "home-req/s")
		b.ReportMetric(people/home, "ratio")
	}
}

// BenchmarkContextThroughput loads the agent context (full) and Home as
// BenchmarkHomeThroughput does, on the same data, between commits, and
// reports the context's requests per second beside Home's (the target:
// at least half).
func BenchmarkContextThroughput(b *testing.B) {
	ta, cookie := benchHome(b)
	base := ta.listen()
	auth := map[string]string{"Authorization": "Bearer " + ta.agentToken("context:read")}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections() // so the server's shutdown does not wait out its keep-alives
	for b.Loop() {
		ctx := throughputWith(b, client, base+"/api/agent-context", nil, auth)
		home := throughput(b, client, base+"/", cookie)
		b.ReportMetric(ctx, "context-req/s")
		b.ReportMetric(home, "home-req/s")
		b.ReportMetric(ctx/home, "ratio")
	}
}

// BenchmarkPeopleRender measures a full read and render of People: a write
// before each request (an observation) makes the page cache miss.
func BenchmarkPeopleRender(b *testing.B) {
	ta, cookie := benchHome(b)
	reportLatencies(b, ta.listen(), cookie, func(base string, _ int) string { return base + "/people" }, func(i int) {
		body := fmt.Sprintf(`{"source":"mail:bench","ref":"m-%d","changeType":"created","actor":"agent",
			"payload":{"kind":"mail","providerId":"bench","raw":{"n":%d}}}`, i, i)
		obs, err := contract.DecodeObservation([]byte(body))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ta.store.RecordObservation(b.Context(), "cred-bench", obs); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkHomeFirstLoadBytes reports the gzip bytes of a first Home load:
// the HTML (the stylesheet is inline in it) and every script it loads, as
// the page names them: with the page (script elements) and after its load
// event (hearth.js's data-after-load and data-offline); later-js-B is those
// alone.
func BenchmarkHomeFirstLoadBytes(b *testing.B) {
	ta, cookie := benchHome(b)
	base := ta.listen()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	gzip := map[string]string{"Accept-Encoding": "gzip"}
	withPage, afterLoad := homeScripts(b, client, base, cookie)
	if len(withPage) == 0 || len(afterLoad) == 0 {
		b.Fatalf("Home names no scripts: with the page %v, after its load %v", withPage, afterLoad)
	}
	for b.Loop() {
		html := fetch(b, client, base+"/", cookie, gzip)
		js, later := 0, 0
		for _, u := range withPage {
			js += fetch(b, client, base+u, nil, gzip)
		}
		for _, u := range afterLoad {
			later += fetch(b, client, base+u, nil, gzip)
		}
		js += later
		b.ReportMetric(float64(html), "html-B")
		b.ReportMetric(float64(js), "js-B")
		b.ReportMetric(float64(later), "later-js-B")
		b.ReportMetric(float64(html+js), "total-B")
	}
}

// homeScripts reads Home's script URLs: those its script elements load
// and those hearth.js loads after the page's load event.
func homeScripts(b *testing.B, client *http.Client, base string, cookie *http.Cookie) (withPage, afterLoad []string) {
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	req.AddCookie(cookie)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	attr := regexp.MustCompile(`(src|data-after-load|data-offline)="([^"]*)"`)
	for _, tag := range regexp.MustCompile(`<script [^>]*>`).FindAllString(string(page), -1) {
		for _, m := range attr.FindAllStringSubmatch(tag, -1) {
			urls := strings.Fields(html.UnescapeString(m[2]))
			if m[1] == "src" {
				withPage = append(withPage, urls...)
			} else {
				afterLoad = append(afterLoad, urls...)
			}
		}
	}
	return withPage, afterLoad
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
