package hearth_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// modernc.org/libc is the runtime of the C code modernc.org/sqlite was
// generated from, and modernc documents the pair as fragile: the libc the
// build resolves must be the one the SQLite in use was generated against,
// or the nearest patch of it the module graph allows (goose requires one
// patch more). A `go get -u` that moves libc ahead on its own fails here.
func TestSQLitesCRuntimeStaysTheOneItWasGeneratedAgainst(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.GoMod}}", "modernc.org/sqlite").Output()
	if err != nil {
		t.Fatalf("go list modernc.org/sqlite: %v", err)
	}
	version, modFile, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	mod, err := os.ReadFile(modFile)
	if err != nil {
		t.Fatal(err)
	}
	minor := regexp.MustCompile(`modernc\.org/libc (v\d+\.\d+)\.\d+`)
	want := minor.FindSubmatch(mod)
	ours, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	got := minor.FindSubmatch(ours)
	if want == nil || got == nil {
		t.Fatalf("no modernc.org/libc in %s or in go.mod", modFile)
	}
	if string(got[1]) != string(want[1]) {
		t.Errorf("go.mod resolves modernc.org/libc %s.x, but modernc.org/sqlite (%s) was generated against %s.x: keep libc at its patch",
			got[1], version, want[1])
	}
}
