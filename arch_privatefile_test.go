package hearth_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFilesAreWrittenOnlyThroughPrivatefile holds the one way hearth writes
// a file whole: internal/privatefile (owner-only, synced, never torn).
// Production code elsewhere that creates a file is one of the named
// exceptions, each an open handle rather than a whole file's data.
func TestFilesAreWrittenOnlyThroughPrivatefile(t *testing.T) {
	creates := regexp.MustCompile(`os\.WriteFile\(|os\.CreateTemp\(|os\.Create\(|O_CREATE`)
	exceptions := map[string][]string{
		// The runner's lock is held with flock, and Codex's events stream into
		// a file the next runner reads as far as it got.
		"internal/runner/runner.go": {`"lock"`, `codexEventsFile(work)`},
		// The committed JSON Schemas are public, for the repository.
		"internal/contract/schema/gen/main.go": {`0o644`},
	}
	scanned := 0
	for _, p := range packages(t) {
		rel := p.rel()
		if rel == "internal/privatefile" || rel == "e2e" || strings.HasPrefix(rel, "e2e/") || rel == "internal/storetest" {
			continue // the helper itself, and test kits
		}
		for _, f := range p.GoFiles {
			name := filepath.ToSlash(filepath.Join(rel, f))
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			scanned++
		lines:
			for i, line := range strings.Split(string(b), "\n") {
				if !creates.MatchString(line) {
					continue
				}
				for _, ok := range exceptions[name] {
					if strings.Contains(line, ok) {
						continue lines
					}
				}
				t.Errorf("%s:%d creates a file itself: write it with privatefile.WriteAtomic or CreateExclusive\n\t%s", name, i+1, strings.TrimSpace(line))
			}
		}
	}
	if scanned < 100 {
		t.Fatalf("only %d files scanned: the test reads nothing", scanned)
	}
}
