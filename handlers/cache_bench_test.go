package handlers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"hearth/handlers"
)

// browserEncodings is what a phone's browser accepts, so HTML and JSON are
// encoded as a phone gets them.
var browserEncodings = map[string]string{"Accept-Encoding": "gzip, deflate, br, zstd"}

// pairedLatencies requests path from each of the bases in turn per
// iteration, the order rotating so neither always goes first, each after
// before(i) when set (one commit serves the whole round), and reports each
// one's server time (Server-Timing) p50 and p99 and every p50 over the
// first's. The first base is the app as served; measuring the variants in
// the same rounds lets the shared machine's load fall on all alike.
func pairedLatencies(b *testing.B, names []string, bases []string, cookie *http.Cookie, header map[string]string, path string, before func(i int)) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}}
	defer client.CloseIdleConnections()
	h := map[string]string{}
	for k, v := range browserEncodings {
		h[k] = v
	}
	for k, v := range header {
		h[k] = v
	}
	server := make([][]time.Duration, len(bases))
	for i := 0; b.Loop(); i++ {
		if before != nil {
			before(i)
		}
		for j := range bases {
			v := (i + j) % len(bases)
			_, took := fetchTimed(b, client, bases[v]+path, cookie, h)
			server[v] = append(server[v], took)
		}
	}
	p50 := func(d []time.Duration) float64 { return float64(d[len(d)/2].Microseconds()) }
	for v, d := range server {
		reportPercentiles(b, names[v], d) // sorts d
		if v > 0 {
			b.ReportMetric(p50(d)/max(1, p50(server[0])), names[v]+"/"+names[0])
		}
	}
}

// without serves a second app on ta's store with the caches w names left out.
func without(ta *testApp, w handlers.Without) string {
	return serve(ta.root, handlers.NewWithout(ta.store, handlers.Config{Hosts: []string{"example.com"}}, w))
}

// homeDecision commits an owner's decision on one of benchHome's rows, the
// clock moved 10 s (see BenchmarkHomeRender).
func homeDecision(b *testing.B, ta *testApp) func(i int) {
	return func(i int) {
		ta.clock.Advance(10 * time.Second)
		id, state := fmt.Sprintf("today-%02d", 10+i%40), []string{"completed", "skipped"}[i/40%2]
		if _, err := ta.store.SetActivityState(b.Context(), id, state, "", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// routineFeedback commits feedback on one of routinesHistory's routines.
func routineFeedback(b *testing.B, ta *testApp) func(i int) {
	return func(i int) {
		routine := fmt.Sprintf("routine-%02d@%s", (i*4)%benchRoutines, testDate)
		if err := ta.store.RecordFeedback(context.Background(), routine, []string{"easy", "hard"}[i%2], ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCaches measures each cache of the app on the page it serves, as
// the app is served ("with") and as a second app on the same store without
// that cache ("without"), request by request in turn:
//   - pages: Home, People and Routines between commits (the page cache's
//     case) and Home and Routines right after one (where it cannot answer);
//   - context: the agent context between commits.
//
// The ratio metric is without's p50 over with's: what the cache pays.
func BenchmarkCaches(b *testing.B) {
	names := []string{"with", "without"}
	b.Run("pages/home-steady", func(b *testing.B) {
		ta, cookie := benchHome(b)
		pairedLatencies(b, names, []string{ta.listen(), without(ta, handlers.Without{Pages: true})}, cookie, nil, "/", nil)
	})
	b.Run("pages/home-after-commit", func(b *testing.B) {
		ta, cookie := benchHome(b)
		pairedLatencies(b, names, []string{ta.listen(), without(ta, handlers.Without{Pages: true})}, cookie, nil, "/", homeDecision(b, ta))
	})
	b.Run("pages/people-steady", func(b *testing.B) {
		ta, cookie := benchHome(b)
		pairedLatencies(b, names, []string{ta.listen(), without(ta, handlers.Without{Pages: true})}, cookie, nil, "/people", nil)
	})
	b.Run("pages/routines-steady", func(b *testing.B) {
		ta := newTestApp(b, withTemplate(routinesHistory))
		cookie := ta.login()
		pairedLatencies(b, names, []string{ta.listen(), without(ta, handlers.Without{Pages: true})}, cookie, nil, "/routines", nil)
	})
	b.Run("pages/routines-after-commit", func(b *testing.B) {
		ta := newTestApp(b, withTemplate(routinesHistory))
		cookie := ta.login()
		pairedLatencies(b, names, []string{ta.listen(), without(ta, handlers.Without{Pages: true})}, cookie, nil, "/routines", routineFeedback(b, ta))
	})
	b.Run("context/steady", func(b *testing.B) {
		ta, _ := benchHome(b)
		auth := map[string]string{"Authorization": "Bearer " + ta.agentToken("context:read")}
		pairedLatencies(b, names, []string{ta.listen(), without(ta, handlers.Without{Contexts: true})}, nil, auth, "/api/agent-context", nil)
	})
}

// BenchmarkHTMLEncoding measures the CPU of compressing Home and Routines
// for one response, each way handlers.HTMLEncodings builds (kept, whole,
// middleware): "first", the response of a fresh render (right after a
// commit: for kept, splitting the page and deflating its parts), and
// "again", each response from the page cache until the next commit. The
// pages are the apps' own renders, their requestIds put back as the
// placeholder the cache keeps.
func BenchmarkHTMLEncoding(b *testing.B) {
	home, homeCookie := benchHome(b)
	routines := newTestApp(b, withTemplate(routinesHistory))
	pages := []struct {
		name string
		html []byte
	}{
		{"home", cacheRender(b, home.listen(), homeCookie, "/")},
		{"routines", cacheRender(b, routines.listen(), routines.login(), "/routines")},
	}
	for _, page := range pages {
		for _, enc := range handlers.HTMLEncodings(page.html) {
			b.Run(page.name+"-first/"+enc.Name, func(b *testing.B) { encodeEach(b, enc.First) })
			b.Run(page.name+"-again/"+enc.Name, func(b *testing.B) { encodeEach(b, enc.Again) })
		}
	}
}

// encodeEach reports the process's CPU and the bytes of one encode.
func encodeEach(b *testing.B, encode func() []byte) {
	size := 0
	cpu := processCPU()
	for b.Loop() {
		size = len(encode())
	}
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(size), "bytes")
}

// requestIDValue is a requestId as a form renders it.
var requestIDValue = regexp.MustCompile(`name="requestId" value="req-[A-Za-z0-9_-]{24}"`)

// cacheRender is path's HTML as the page cache keeps it: each requestId
// the placeholder (Home has one, the Ask form's; Routines one per
// undecided proposal, none in routinesHistory).
func cacheRender(b *testing.B, base string, cookie *http.Cookie, path string) []byte {
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.AddCookie(cookie)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	html, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "" {
		b.Fatalf("GET %s: %d %q %v", path, resp.StatusCode, resp.Header.Get("Content-Encoding"), err)
	}
	return requestIDValue.ReplaceAll(html, []byte(`name="requestId" value="`+handlers.IDPlaceholder+`"`))
}
