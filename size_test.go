package hearth_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxWiringLines bounds cmd/hearth: it parses flags and wires packages
// together, so code that grows past this belongs in a package named for
// what it does.
const maxWiringLines = 1200

// goLines counts the lines of dir's Go files, tests aside, as `wc -l` does.
func goLines(t *testing.T, dir string) int {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if lines == 0 {
		t.Fatalf("no Go lines in %s: the test reads nothing", dir)
	}
	return lines
}

// TestTheBinaryIsWiringUnderTwelveHundredLines holds cmd/hearth to flag
// parsing and wiring: its non-test Go lines stay under maxWiringLines.
func TestTheBinaryIsWiringUnderTwelveHundredLines(t *testing.T) {
	if n := goLines(t, "cmd/hearth"); n > maxWiringLines {
		t.Errorf("cmd/hearth has %d non-test Go lines, over %d: move what is not flag parsing or wiring into a package named for what it does", n, maxWiringLines)
	}
}
