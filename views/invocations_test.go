package views

import (
	"testing"

	"hearth/internal/contract"
)

func TestARefusalReadsAsASentenceCountingFromOne(t *testing.T) {
	for _, c := range []struct {
		in   contract.RefusalError
		want string
	}{
		{contract.RefusalError{Path: "/activities/0/id", Expected: "an ID", Found: "a text of 70 characters"}, "Activity 1, id: should be an ID; it was a text of 70 characters."},
		{contract.RefusalError{Path: "/replyDrafts/1/candidates/0", Expected: "at most 10 characters"}, "Reply draft 2, candidate 1: should be at most 10 characters."},
		{contract.RefusalError{Path: "", Found: "array"}, "The publication: it was array."},
	} {
		if got := refusalWords(c.in); got != c.want {
			t.Errorf("refusalWords(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}
