package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The years benchmarks compare a seeded week with seeded years of one
// owner's use (`hearth seed`; `make bench-years` seeds both and sets these).
// Each figure is measured on both databases alternately, so the machine's
// load weighs on both alike, and reported with their ratio (years/week).
// Timing never fails them.
const (
	envYearsWeek = "HEARTH_BENCH_WEEK"  // data dir of a seeded week
	envYearsData = "HEARTH_BENCH_YEARS" // data dir of seeded years
)

// yearsSide is one running server on a copy of a seeded data dir, with an
// owner session and the agent's token.
type yearsSide struct {
	name  string
	srv   *server
	owner *http.Client
	agent *agentClient
}

// seededCopy copies a seeded data dir (its database and agent token) into
// a temp dir, so a benchmark never changes the cached seed.
func seededCopy(b *testing.B, env string) string {
	b.Helper()
	src := os.Getenv(env)
	if src == "" {
		b.Skipf("%s is not set: run make bench-years", env)
	}
	dst := b.TempDir()
	for _, name := range []string{"hearth.db", "agent.token"} {
		cp := exec.Command("cp", filepath.Join(src, name), filepath.Join(dst, name))
		if out, err := cp.CombinedOutput(); err != nil {
			b.Fatalf("copy %s: %v\n%s", name, err, out)
		}
	}
	return dst
}

// serveSeeded starts hearth serve on dir as deployed (pruning and the
// routine warm-up on), the Beeper watch off so both sides stay still.
func serveSeeded(b *testing.B, dir, beeperURL string) *server {
	b.Helper()
	return startServerIn(b, dir, []string{"BEEPER_ACCESS_TOKEN=e2e-token"}, "--beeper-url", beeperURL, "--watch-interval", "0")
}

// ownerSession logs in with the seed's passphrase.
func ownerSession(b *testing.B, base string) *http.Client {
	b.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 4},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.PostForm(base+"/login", url.Values{"password": {"hearth-demo"}})
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		b.Fatalf("login: %d", resp.StatusCode)
	}
	return hc
}

// yearsSides starts a server on a copy of each seed.
func yearsSides(b *testing.B) (week, years *yearsSide) {
	b.Helper()
	weekDir, yearsDir := seededCopy(b, envYearsWeek), seededCopy(b, envYearsData)
	beeperURL := startFakeBeeper(b)
	side := func(name, dir string) *yearsSide {
		srv := serveSeeded(b, dir, beeperURL)
		tok, err := os.ReadFile(filepath.Join(dir, "agent.token"))
		if err != nil {
			b.Fatal(err)
		}
		return &yearsSide{name: name, srv: srv, owner: ownerSession(b, srv.URL), agent: newAgentClient(srv.URL, strings.TrimSpace(string(tok)))}
	}
	return side("week", weekDir), side("years", yearsDir)
}

// timedGet GETs path and returns the server's own time (Server-Timing;
// the round trip where a route has none) and the round trip.
func timedGet(b *testing.B, hc *http.Client, req *http.Request) (server, trip time.Duration) {
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	trip = time.Since(start)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d", req.URL, resp.StatusCode)
	}
	var ms float64
	if _, err := fmt.Sscanf(resp.Header.Get("Server-Timing"), "app;dur=%g", &ms); err != nil {
		return trip, trip
	}
	return time.Duration(ms * float64(time.Millisecond)), trip
}

// quantile is the q-th quantile of d (sorted in place).
func quantile(d []time.Duration, q float64) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*q))]
}

// reportPair reports p50 and p99 of both sides and their ratios.
func reportPair(b *testing.B, what string, week, years []time.Duration) {
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p99", 0.99}} {
		w, y := quantile(week, q.q), quantile(years, q.q)
		b.ReportMetric(float64(w.Microseconds()), what+"-week-"+q.name+"-µs")
		b.ReportMetric(float64(y.Microseconds()), what+"-years-"+q.name+"-µs")
		b.ReportMetric(float64(y)/float64(w), what+"-ratio-"+q.name)
	}
}

// benchPages requests path(i) as the owner from both sides alternately.
func benchPages(b *testing.B, path func(i int) string) {
	week, years := yearsSides(b)
	var ws, wt, ys, yt []time.Duration
	get := func(s *yearsSide, i int) (time.Duration, time.Duration) {
		req, _ := http.NewRequest(http.MethodGet, s.srv.URL+path(i), nil)
		return timedGet(b, s.owner, req)
	}
	for i := range 5 { // warm both: caches, the routine counts
		get(week, -1-i)
		get(years, -1-i)
	}
	for i := 0; b.Loop(); i++ {
		s, t := get(week, i)
		ws, wt = append(ws, s), append(wt, t)
		s, t = get(years, i)
		ys, yt = append(ys, s), append(yt, t)
	}
	reportPair(b, "server", ws, ys)
	reportPair(b, "trip", wt, yt)
}

// BenchmarkYearsHomeServed is Home as a phone gets it between commits.
func BenchmarkYearsHomeServed(b *testing.B) {
	benchPages(b, func(int) string { return "/" })
}

// BenchmarkYearsHomeRendered renders Home from the database each time: a
// different (absent) open row per request misses the page cache.
func BenchmarkYearsHomeRendered(b *testing.B) {
	benchPages(b, func(i int) string { return fmt.Sprintf("/?open=miss-%d", i) })
}

// BenchmarkYearsPeople is the People page.
func BenchmarkYearsPeople(b *testing.B) {
	benchPages(b, func(int) string { return "/people" })
}

// BenchmarkYearsMessages is the Messages page (chats from the fake Beeper,
// drafts and sends from hearth).
func BenchmarkYearsMessages(b *testing.B) {
	benchPages(b, func(int) string { return "/messages" })
}

// BenchmarkYearsRoutines is the Routines page.
func BenchmarkYearsRoutines(b *testing.B) {
	benchPages(b, func(int) string { return "/routines" })
}

// BenchmarkYearsContext is the agent's context read (GET /api/agent-context).
func BenchmarkYearsContext(b *testing.B) {
	week, years := yearsSides(b)
	var ws, wt, ys, yt []time.Duration
	get := func(s *yearsSide) (time.Duration, time.Duration) {
		req, _ := http.NewRequest(http.MethodGet, s.srv.URL+"/api/agent-context", nil)
		req.Header.Set("Authorization", "Bearer "+s.agent.token)
		return timedGet(b, s.agent.http, req)
	}
	for range 5 {
		get(week)
		get(years)
	}
	for b.Loop() {
		s, t := get(week)
		ws, wt = append(ws, s), append(wt, t)
		s, t = get(years)
		ys, yt = append(ys, s), append(yt, t)
	}
	reportPair(b, "server", ws, ys)
	reportPair(b, "trip", wt, yt)
}

// yearsPublication is an hourly publication of the seed's kind: three new
// tasks for today.
func yearsPublication(runID string, rev int64) []byte {
	var acts []map[string]any
	for j := range 3 {
		acts = append(acts, map[string]any{"id": fmt.Sprintf("%s-%d", runID, j), "kind": "task", "title": "Book the bike service",
			"evidenceIds": []any{}, "recommendation": map[string]any{"section": "focus", "rank": j + 1}, "payload": map[string]any{}})
	}
	body, _ := json.Marshal(map[string]any{"runId": runID, "jobKey": "messages", "expectedRevision": rev,
		"generatedAt": time.Now().UTC().Format(time.RFC3339), "sourceRefs": []any{}, "people": []any{}, "activities": acts,
		"replyDrafts": []any{}, "retractions": []any{}, "completedRequests": []any{}})
	return body
}

// BenchmarkYearsPublish posts an hourly publication to both sides alternately.
func BenchmarkYearsPublish(b *testing.B) {
	week, years := yearsSides(b)
	rev := map[*yearsSide]int64{}
	for _, s := range []*yearsSide{week, years} {
		var ac struct {
			Revision int64 `json:"revision"`
		}
		decodeJSON(b, s.agent.contextJSON(b), &ac)
		rev[s] = ac.Revision
	}
	post := func(s *yearsSide, i int) time.Duration {
		start := time.Now()
		status, body, err := s.agent.publish(yearsPublication(fmt.Sprintf("bench-years-%d", i), rev[s]))
		took := time.Since(start)
		if err != nil || status != http.StatusCreated {
			b.Fatalf("%s publish: %d %v %s", s.name, status, err, body)
		}
		var r receipt
		decodeJSON(b, body, &r)
		rev[s] = r.Revision
		return took
	}
	for i := range 5 {
		post(week, -1-i)
		post(years, -1-i)
	}
	var w, y []time.Duration
	for i := 0; b.Loop(); i++ {
		w = append(w, post(week, i))
		y = append(y, post(years, i))
	}
	reportPair(b, "trip", w, y)
}

// yearsStarts is how many times each side is started.
const yearsStarts = 3

// BenchmarkYearsStartup starts serve on each seed (alternately) and
// reports the median time to healthy, and to the first Routines page
// (the routine counts, warmed in the background from start, included;
// the owner's login between the two is not). The first start of each
// copy checks every page (quick_check: no clean shutdown recorded, as
// after a crash or a restore) and is reported apart; the median is of
// restarts after a clean stop.
func BenchmarkYearsStartup(b *testing.B) {
	weekDir, yearsDir := seededCopy(b, envYearsWeek), seededCopy(b, envYearsData)
	beeperURL := startFakeBeeper(b)
	start := func(dir string) (healthy, routines time.Duration) {
		t0 := time.Now()
		srv := serveSeeded(b, dir, beeperURL)
		healthy = time.Since(t0)
		hc := ownerSession(b, srv.URL)
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/routines", nil)
		_, trip := timedGet(b, hc, req)
		if code, _ := srv.terminate(b); code != 0 {
			b.Fatalf("serve exited %d", code)
		}
		return healthy, healthy + trip
	}
	for b.Loop() {
		var wh, wr, yh, yr []time.Duration
		for range yearsStarts {
			h, r := start(weekDir)
			wh, wr = append(wh, h), append(wr, r)
			h, r = start(yearsDir)
			yh, yr = append(yh, h), append(yr, r)
		}
		b.ReportMetric(float64(wh[0].Milliseconds()), "healthy-week-first-ms")
		b.ReportMetric(float64(yh[0].Milliseconds()), "healthy-years-first-ms")
		for _, m := range []struct {
			name        string
			week, years []time.Duration
		}{{"healthy", wh, yh}, {"routines", wr, yr}} {
			w, y := quantile(m.week, 0.5), quantile(m.years, 0.5)
			b.ReportMetric(float64(w.Milliseconds()), m.name+"-week-ms")
			b.ReportMetric(float64(y.Milliseconds()), m.name+"-years-ms")
			b.ReportMetric(float64(y)/float64(w), m.name+"-ratio")
		}
	}
}

// BenchmarkYearsResidentMemory reports each server's resident memory after
// warm-up requests: every page, the context and a publication, ten times.
func BenchmarkYearsResidentMemory(b *testing.B) {
	week, years := yearsSides(b)
	run := 0
	for b.Loop() {
		for _, s := range []*yearsSide{week, years} {
			for range 10 {
				for _, p := range []string{"/", "/people", "/messages", "/routines", "/weight", "/runs"} {
					req, _ := http.NewRequest(http.MethodGet, s.srv.URL+p, nil)
					timedGet(b, s.owner, req)
				}
				var ac struct {
					Revision int64 `json:"revision"`
				}
				decodeJSON(b, s.agent.contextJSON(b), &ac)
				run++
				if status, body, err := s.agent.publish(yearsPublication(fmt.Sprintf("rss-%d", run), ac.Revision)); err != nil || status != http.StatusCreated {
					b.Fatalf("%s publish: %d %v %s", s.name, status, err, body)
				}
			}
		}
		w, y := procStatus(b, week.srv.cmd.Process.Pid), procStatus(b, years.srv.cmd.Process.Pid)
		b.ReportMetric(w["VmRSS"], "week-RSS-MB")
		b.ReportMetric(y["VmRSS"], "years-RSS-MB")
		b.ReportMetric(w["VmHWM"], "week-peak-RSS-MB")
		b.ReportMetric(y["VmHWM"], "years-peak-RSS-MB")
	}
}
