package hearth_test

import (
	"bytes"
	"io/fs"
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

// maxPackageSharePercent bounds any one package's share of hand-written Go
// (tests and templ's generated files aside): past it a package holds more
// than one thing.
const maxPackageSharePercent = 30

// TestNoPackageHoldsMoreThanItsShareOfTheCode counts the hand-written Go
// lines of each directory, as `wc -l` does, and fails when one holds more
// than maxPackageSharePercent of them all (docs/figures.md, Package shares).
func TestNoPackageHoldsMoreThanItsShareOfTheCode(t *testing.T) {
	perDir := map[string]int{}
	total := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		name := d.Name()
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_templ.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n := bytes.Count(b, []byte("\n"))
		perDir[filepath.Dir(path)] += n
		total += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if perDir["models"] == 0 || total < 10000 {
		t.Fatalf("counted %d lines, %d in models: the test reads nothing", total, perDir["models"])
	}
	for dir, n := range perDir {
		if share := 100 * float64(n) / float64(total); share > maxPackageSharePercent {
			t.Errorf("%s holds %d of %d hand-written Go lines (%.1f%%), over %d%%: move what is not its one job into a package named for it", dir, n, total, share, maxPackageSharePercent)
		}
	}
}
