package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// firstInvocation matches a request of a run's first invocation: its
// prompt's Run section names the publication runId <run>-1.
var firstInvocation = regexp.MustCompile(`(?m)^- runId: \S+-1$`)

// A final message that is not a publication, or a provider that fails
// after Codex's own retries, is followed by a second invocation in the
// same run, which publishes; the second prompt says what went wrong in
// words, never the failed answer's text.
func TestAFailedCodexInvocationIsFollowedByOneThatPublishesInTheSameRun(t *testing.T) {
	t.Parallel()
	const secret = "a sentence only the failed answer holds"
	for _, c := range []struct {
		name  string
		first func(pub string) string // the first invocation's final message, from a good one
		storm bool                    // the first invocation's requests are answered 500 instead
		words string                  // what the second prompt says went wrong
	}{
		{name: "prose around the JSON", first: func(pub string) string {
			return "Here is today's brief, " + secret + ":\n" + pub + "\nI hope it helps."
		},
			words: "did not start with a JSON object"},
		{name: "a truncated answer", first: func(pub string) string { return strings.Replace(pub, `"text":"`, `"text":"`+secret, 1)[:len(pub)/2] },
			words: "cut off"},
		{name: "a 500 storm", storm: true, words: "ended with an error of the agent or its model provider"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var date, zone string
			api := startResponses(t, dailyBriefPrompt(t), func(n int64) string {
				pub := strictBrief(date, zone, fmt.Sprintf("Answer %d.", n))
				if n == 1 && c.first != nil {
					return c.first(pub)
				}
				return pub
			})
			if c.storm {
				api.fail = func(n int64) int {
					if firstInvocation.MatchString(api.input(int(n))) {
						return http.StatusInternalServerError
					}
					return 0
				}
			}
			o := newCodexOwner(t, api)
			before, d, z, _, _ := o.context()
			date, zone = d, z

			res := o.run("--job", "daily-brief", "--agent-backoff", "1s")
			if res.code != 0 {
				t.Fatalf("run: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
			}
			n := api.requests.Load()
			last := api.input(int(n))
			if firstInvocation.MatchString(last) || !strings.Contains(last, "## Your last invocation published nothing") || !strings.Contains(last, c.words) {
				t.Fatalf("the last request (of %d) does not say %q of the first invocation:\n%s", n, c.words, last)
			}
			if strings.Contains(api.input(1), "published nothing") || strings.Contains(last, secret) {
				t.Fatal("the first request speaks of a failure, or the second carries the failed answer's text")
			}
			rev, _, _, brief, lastPub := o.context()
			runs := o.runs()
			if brief != fmt.Sprintf("Answer %d.", n) || rev != before+1 || !strings.HasSuffix(lastPub, "-2") ||
				len(runs) != 1 || runs[0].state != "succeeded" || !strings.Contains(runs[0].text, "2 agent invocation(s)") {
				t.Fatalf("%d request(s), brief %q, revision %d (was %d), last publication %s, runs %+v", n, brief, rev, before, lastPub, runs)
			}
		})
	}
}

// A run whose three invocations all fail fails, and says why for each.
func TestACodexRunWhoseThreeInvocationsFailSaysWhyForEach(t *testing.T) {
	t.Parallel()
	var date, zone string
	api := startResponses(t, dailyBriefPrompt(t), func(n int64) string {
		pub := strictBrief(date, zone, "Never published.")
		switch n {
		case 1:
			return "Here it is: " + pub
		default:
			return pub[:len(pub)/2]
		}
	})
	// The third invocation's model provider fails.
	api.fail = func(n int64) int {
		if regexp.MustCompile(`(?m)^- runId: \S+-3$`).MatchString(api.input(int(n))) {
			return http.StatusInternalServerError
		}
		return 0
	}
	o := newCodexOwner(t, api)
	before, d, z, _, _ := o.context()
	date, zone = d, z

	res := o.run("--job", "daily-brief", "--agent-backoff", "1s")
	if res.code != 1 {
		t.Fatalf("run: exit %d, want 1\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
	}
	rev, _, _, _, _ := o.context()
	runs := o.runs()
	if rev != before || len(runs) != 1 || runs[0].state != "failed" || !strings.Contains(runs[0].text, "3 agent invocation(s)") {
		t.Fatalf("revision %d (was %d), runs %+v: want one failed run of three invocations", rev, before, runs)
	}
	for _, want := range []string{"no invocation is left", "invocation 1: agent: codex's final message is not a publication: it did not start with a JSON object",
		"invocation 2: agent: codex's final message is not a publication: it ended before its JSON object was complete",
		"invocation 3: agent: codex exited with status 1"} {
		if !strings.Contains(runs[0].detail, want) {
			t.Errorf("the run's detail lacks %q:\n%s", want, runs[0].detail)
		}
	}
}
