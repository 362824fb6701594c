package runner

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestTheRunnerLinksNoStore keeps the runner a client of the API only:
// `go list -deps` of it names no database (GORM, SQLite) and not the
// store; its wire shapes come from internal/contract.
func TestTheRunnerLinksNoStore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "hearth/internal/runner").Output() // go test puts its go first on PATH
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	store := regexp.MustCompile(`gorm|sqlite|^hearth/models`)
	for _, p := range strings.Fields(string(out)) {
		if store.MatchString(p) {
			t.Errorf("internal/runner links %s", p)
		}
	}
}
