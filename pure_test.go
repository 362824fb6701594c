package hearth_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"
)

// purePackages are the packages ARCHITECTURE.md calls pure: code that left
// the store because it needs no store, no database and no I/O.
var purePackages = []string{"./internal/weight", "./internal/costpolicy", "./internal/routinecount", "./internal/calendar", "./internal/watched", "./internal/wording"}

// TestThePurePackagesLinkNoStoreAndTouchNoFiles holds the pure packages to
// their rows: nothing built into them is the store, a database or an HTTP
// package, and none of them imports a file, process or network package.
func TestThePurePackagesLinkNoStoreAndTouchNoFiles(t *testing.T) {
	store := regexp.MustCompile(`gorm|sqlite|^database/sql|^hearth/models$|^net/http$`)
	io := regexp.MustCompile(`^(os|os/exec|io/fs|io/ioutil|syscall|net|net/.*)$`)
	dec := json.NewDecoder(bytes.NewReader(goList(t, append([]string{"-json"}, purePackages...)...)))
	n := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		if bad := linked(deps(t, p.ImportPath), store); len(bad) > 0 {
			t.Errorf("%s links %v: it is pure code, the store's side of it belongs in models", p.ImportPath, bad)
		}
		if bad := linked(p.Imports, io); len(bad) > 0 {
			t.Errorf("%s imports %v: it is pure code and does no I/O", p.ImportPath, bad)
		}
	}
	if n != len(purePackages) {
		t.Fatalf("go list found %d of the %d pure packages", n, len(purePackages))
	}
}
