package handlers_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestConcurrentPublishersOneWinsRestConflict(t *testing.T) {
	const (
		publishers = 16
		rounds     = 5
	)
	ta := newTestApp(t)
	base := ta.listen()
	token := ta.agentToken()
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: publishers, MaxConnsPerHost: publishers},
	}
	t.Cleanup(client.CloseIdleConnections)

	type result struct {
		status int
		body   string
		err    error
	}
	for round := range rounds {
		expected := ta.revision()
		bodies := make([][]byte, publishers)
		for i := range bodies {
			d := validPublication(fmt.Sprintf("run-%d-%02d", round, i), expected)
			d.Set(t, "/brief/text", fmt.Sprintf("Brief from publisher %d in round %d.", i, round))
			bodies[i] = d.JSON()
		}

		start := make(chan struct{})
		results := make([]result, publishers)
		var wg sync.WaitGroup
		for i := range publishers {
			wg.Go(func() {
				req, err := http.NewRequest(http.MethodPost, base+"/api/agent-results", bytes.NewReader(bodies[i]))
				if err != nil {
					results[i].err = err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				<-start
				resp, err := client.Do(req)
				if err != nil {
					results[i].err = err
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				results[i] = result{status: resp.StatusCode, body: string(b), err: err}
			})
		}
		close(start)
		wg.Wait()

		var created, conflicts int
		for i, r := range results {
			switch {
			case r.err != nil:
				t.Errorf("round %d publisher %d: %v", round, i, r.err)
			case strings.Contains(r.body, "database is locked"):
				t.Errorf("round %d publisher %d: %d %s", round, i, r.status, r.body)
			case r.status >= 500:
				t.Errorf("round %d publisher %d: server error %d %s", round, i, r.status, r.body)
			case r.status == http.StatusCreated:
				created++
			case r.status == http.StatusConflict && strings.Contains(r.body, `"code":"revision_conflict"`) &&
				strings.Contains(r.body, fmt.Sprintf(`"currentRevision":%d`, expected+1)):
				conflicts++
			default:
				t.Errorf("round %d publisher %d: unexpected %d %s", round, i, r.status, r.body)
			}
		}
		if created != 1 || conflicts != publishers-1 {
			t.Fatalf("round %d: %d created and %d revision conflicts, want 1 and %d", round, created, conflicts, publishers-1)
		}
		if rev := ta.revision(); rev != expected+1 {
			t.Fatalf("round %d: revision %d, want %d", round, rev, expected+1)
		}
	}
}
