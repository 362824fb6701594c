package e2e

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// threeClassBrief is strictBrief with a fault of each class hearth checks:
// an unknown field (decoding), a section that is not one (shape) and
// evidence the publication does not carry (reference).
func threeClassBrief(date, zone, text string) string {
	pub := strictBrief(date, zone, text)
	pub = strings.Replace(pub, `"title":"Plan the day"`, `"title":"Plan the day","colour":"red"`, 1)
	pub = strings.Replace(pub, `"section":"focus"`, `"section":"elsewhere"`, 1)
	// Members are in key order, so the first evidence list is the task's.
	return strings.Replace(pub, `"evidenceIds":["life-codex-today"]`, `"evidenceIds":["life-nowhere"]`, 1)
}

// sessionFiles lists the session files Codex keeps under home.
func sessionFiles(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(filepath.Join(home, "sessions"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	return out
}

func TestAPublicationFaultyInThreeClassesIsRepairedInOneResumedStep(t *testing.T) {
	t.Parallel()
	var date, zone string
	api := startResponses(t, dailyBriefPrompt(t), func(n int64) string {
		if n == 1 {
			return threeClassBrief(date, zone, "Answer 1.")
		}
		return strictBrief(date, zone, fmt.Sprintf("Answer %d.", n))
	})
	o := newCodexOwner(t, api)
	before, d, z, _, _ := o.context()
	date, zone = d, z

	res := o.run()
	if res.code != 0 {
		t.Fatalf("run: exit %d\n%s\nendpoint refused: %v", res.code, res.stderr, api.problems)
	}
	rev, _, _, brief, last := o.context()
	runs := o.runs()
	if api.requests.Load() != 2 || brief != "Answer 2." || rev != before+1 || !strings.HasSuffix(last, "-2") || len(runs) != 1 || runs[0].state != "succeeded" {
		t.Fatalf("%d request(s), brief %q, revision %d (was %d), last publication %s, runs %+v", api.requests.Load(), brief, rev, before, last, runs)
	}
	repair := api.input(2)
	for _, path := range []string{"/activities/0/colour", "/activities/0/evidenceIds/0", "/activities/0/recommendation/section"} {
		if !strings.Contains(repair, path) {
			t.Errorf("the repair request lacks the error at %s (one refusal lists every class)", path)
		}
		if !strings.Contains(runs[0].text, path) {
			t.Errorf("the Runs page lacks the refused invocation's error at %s", path)
		}
	}
	// Resumed, not started cold: the model's own first answer is in the
	// conversation the repair continues.
	if !strings.Contains(repair, "Answer 1.") || !strings.Contains(repair, "Your last publication was refused") {
		t.Fatalf("the repair request does not continue the first session (its answer and the refusal):\n%s", repair)
	}
	if files := sessionFiles(t, o.codexHome); len(files) != 0 {
		t.Fatalf("the run's Codex sessions outlived it: %v", files)
	}
}
