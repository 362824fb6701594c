package mcpserver

import (
	"strings"
	"testing"
)

func TestJSONDepthCountsNestingOutsideStringsOnly(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{
		{`{}`, 1},
		{`{"a":[{"b":[]}]}`, 4},
		{`{"a":"[[[[{{{{"}`, 1},
		{`{"a":"\"[[[[\\"}`, 1},
		{`{"a":"\\\\",  "b":[[1]]}`, 3},
		{`[[[`, 3},
		{`hello`, 0},
		{strings.Repeat("[", 20000), 20000},
	} {
		if got := jsonDepth([]byte(c.line)); got != c.want {
			t.Errorf("jsonDepth(%.40q) = %d, want %d", c.line, got, c.want)
		}
	}
}
