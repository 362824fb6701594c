package contract

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// storeOrNetwork matches the packages the contract must never link: the
// database (GORM, SQLite), the store (models) and an HTTP stack.
var storeOrNetwork = regexp.MustCompile(`gorm|sqlite|^hearth/models|^net/http`)

// TestTheContractLinksNoStoreAndNoNetwork holds the contract and its schema
// packages (generator included) to pure code: what `go list -deps` builds
// into them, tests aside (a test may open a store to compare), names no
// database, no store and no HTTP package.
func TestTheContractLinksNoStoreAndNoNetwork(t *testing.T) {
	for _, bad := range forbiddenDeps(t, "hearth/internal/contract/...") {
		t.Errorf("internal/contract links %s", bad)
	}
}

// forbiddenDeps lists what `go list -deps pattern` names that storeOrNetwork matches.
func forbiddenDeps(t *testing.T, pattern string) []string {
	t.Helper()
	// go test puts its own go first on PATH.
	out, err := exec.Command("go", "list", "-deps", pattern).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", pattern, err, stderr)
	}
	var bad []string
	for _, p := range strings.Fields(string(out)) {
		if storeOrNetwork.MatchString(p) {
			bad = append(bad, p)
		}
	}
	return bad
}
