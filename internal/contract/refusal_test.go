package contract

import (
	"fmt"
	"strings"
	"testing"

	"hearth/internal/strictjson"
)

// TestARefusalIsRedactedAndBoundedTheSameWayForHearthAndTheRunner keeps the
// cases that once compared the runner's copy of the redaction with
// hearth's (errors that quote message text, long paths, unterminated
// quotes, more errors than are kept), now against what the one
// redaction both sides use gives.
func TestARefusalIsRedactedAndBoundedTheSameWayForHearthAndTheRunner(t *testing.T) {
	long := strings.Repeat("Hi Ana, see you Thursday ", 20)
	fes := []strictjson.FieldError{
		{Path: "/replyDrafts/0/candidates/0", Expected: "at most 10 characters", Found: `"Hi Ana, see you Thursday at the hospital…"`},
		{Path: "/activities/1/kind", Expected: "one of: task, reply", Found: `"chore"`},
		{Path: "/activities/Hi Ana, I can't make it/title", Expected: `string "` + long + `"`, Found: `"unterminated ` + long},
		{Path: "/" + strings.Repeat("a/", 200), Expected: `an ID like "daily-brief"`, Found: `string "x\"y z"`},
		{Path: "", Expected: "", Found: "number 3"},
		{Path: "/x", Expected: "one of " + strings.Repeat(`"task", `, 40), Found: strings.Repeat(`"ok" `, 30)},
		{Path: "/people/0/name", Expected: "a name", Found: `"` + strings.Repeat("é", 40) + `"`},
	}
	want := []RefusalError{
		{Path: "/replyDrafts/0/candidates/0", Expected: "at most 10 characters", Found: "a text of more than 40 characters"},
		{Path: "/activities/1/kind", Expected: "one of: task, reply", Found: `"chore"`},
		{Path: "/activities/…/title", Expected: "string, a text of 500 characters", Found: ", a text"},
		{Path: ("/" + strings.Repeat("a/", 200))[:MaxRefusalPath-1] + "…", Expected: `an ID like "daily-brief"`, Found: "string, a text of 5 characters"},
		{Path: "", Expected: "", Found: "number 3"},
		{Path: "/x", Expected: ("one of " + strings.Repeat(`"task", `, 40))[:MaxRefusalText-1] + "…", Found: strings.Repeat(`"ok" `, 30)[:maxFoundRunes-1] + "…"},
		{Path: "/people/0/name", Expected: "a name", Found: "a text of 40 characters"},
	}
	for len(fes) < MaxRefusalErrors+5 {
		n := len(fes)
		fes = append(fes, strictjson.FieldError{Path: fmt.Sprintf("/activities/%d/id", n), Expected: "an ID", Found: fmt.Sprintf("%q", long[:n*3])})
		if n < MaxRefusalErrors {
			want = append(want, RefusalError{Path: fmt.Sprintf("/activities/%d/id", n), Expected: "an ID", Found: fmt.Sprintf("a text of %d characters", n*3)})
		}
	}
	got := RefusalErrorsOf(fes)
	if len(got) != MaxRefusalErrors {
		t.Fatalf("%d errors kept of %d, want %d", len(got), len(fes), MaxRefusalErrors)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("error %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
		if again := got[i].Redacted(); again != got[i] {
			t.Errorf("error %d: redaction is not stable: %+v then %+v", i, got[i], again)
		}
		if s := fmt.Sprint(got[i]); strings.Contains(s, "Ana") || strings.Contains(s, "Thursday") {
			t.Errorf("error %d carries message text: %s", i, s)
		}
	}
}
