package cli

import (
	"bytes"
	"regexp"
	"testing"

	"hearth/internal/contract"
)

// The compact context leaves an undecided activity's userState out; hearth
// context still prints its state, and prints a decision as it is.
func TestHearthContextPrintsAnUndecidedActivityAsAvailable(t *testing.T) {
	var ac contract.AgentContext
	ac.Activities.Items = []contract.ActivityView{
		{ID: "stretch", Kind: "task", Title: "Stretch"},
		{ID: "bike", Kind: "task", Title: "Book the bike", UserState: contract.UserStateView{State: "deferred", Until: "2026-10-02"}},
	}
	var out bytes.Buffer
	printContext(&out, ac)
	for _, want := range []string{`task\s+available\s+stretch\s+Stretch`, `task\s+deferred\s+bike\s+Book the bike`} {
		if !regexp.MustCompile(want).Match(out.Bytes()) {
			t.Errorf("hearth context printed no line matching %q:\n%s", want, out.String())
		}
	}
}
