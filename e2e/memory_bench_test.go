package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Load of the memory benchmark, mirroring the models benchmarks: 100
// publications of 100 activities (10,000 activities), then 100 context reads.
const (
	benchPublications = 100
	benchActivities   = 100
	benchContextReads = 100
)

// BenchmarkServeResidentMemory reports the server's resident memory after a
// realistic load; ns/op is one context read over HTTP. b.Loop runs this
// function once, so the load is applied once whatever b.N is.
func BenchmarkServeResidentMemory(b *testing.B) {
	srv := startServer(b, "")
	c := newAgentClient(srv.URL, mintToken(b, srv.DataDir))
	var rev int64
	for i := range benchPublications {
		pub := newPublication(fmt.Sprintf("bench-%03d", i), rev, benchActivities)
		status, body, err := c.publish(pub.Body)
		if err != nil || status != http.StatusCreated {
			b.Fatalf("publish %s: status %d, err %v, body %s", pub.RunID, status, err, body)
		}
		var r receipt
		if err := json.Unmarshal(body, &r); err != nil {
			b.Fatal(err)
		}
		rev = r.Revision
	}
	for range benchContextReads {
		c.contextJSON(b)
	}
	for b.Loop() {
		c.contextJSON(b)
	}
	status := procStatus(b, srv.cmd.Process.Pid)
	b.ReportMetric(status["VmRSS"], "RSS-MB")
	b.ReportMetric(status["VmHWM"], "peak-RSS-MB")
}

// procStatus reads the kB fields of /proc/PID/status (Linux) in MB.
func procStatus(b *testing.B, pid int) map[string]float64 {
	b.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc status for the server (not Linux?): %v", err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(value)
		if !ok || len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		if kb, err := strconv.ParseFloat(fields[0], 64); err == nil {
			out[name] = kb / 1024
		}
	}
	if _, ok := out["VmRSS"]; !ok {
		b.Fatalf("no VmRSS in /proc/%d/status", pid)
	}
	return out
}
