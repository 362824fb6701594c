package hearth_test

import (
	"strings"
	"testing"
)

// TestTheStoresTestsReadNoBeeper holds the store's tests to values: they
// hand the store what the Beeper watch hands it (models.WatchRead), and
// reading Beeper over HTTP stays with internal/beeperflow, whose tests run
// the watch against the fake Beeper.
func TestTheStoresTestsReadNoBeeper(t *testing.T) {
	for _, p := range packages(t) {
		if p.ImportPath != "hearth/models" {
			continue
		}
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			if imp == "hearth/beeper" || strings.HasPrefix(imp, "hearth/beeper/") || strings.HasPrefix(imp, "net/http") {
				t.Errorf("a test of models imports %s: hand the store the watch's values instead", imp)
			}
		}
		return
	}
	t.Fatal("go list names no package hearth/models")
}
