package views

import (
	"testing"

	"hearth/models"
)

func TestARefusalReadsAsASentenceCountingFromOne(t *testing.T) {
	for _, c := range []struct {
		in   models.RefusalError
		want string
	}{
		{models.RefusalError{Path: "/activities/0/id", Expected: "an ID", Found: "a text of 70 characters"}, "Activity 1, id: should be an ID; it was a text of 70 characters."},
		{models.RefusalError{Path: "/replyDrafts/1/candidates/0", Expected: "at most 10 characters"}, "Reply draft 2, candidate 1: should be at most 10 characters."},
		{models.RefusalError{Path: "", Found: "array"}, "The publication: it was array."},
	} {
		if got := refusalWords(c.in); got != c.want {
			t.Errorf("refusalWords(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}
