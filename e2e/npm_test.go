package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// npmPackage pins one official client from npm for a test.
type npmPackage struct {
	name, version string
	cache         string // the folder under ~/.cache/hearth
	scripts       bool   // run the package's install scripts (Codex fetches its platform binary)
}

var npmInstalls sync.Mutex

// install returns the folder holding the pinned package, installing it from
// npm into the user's cache when missing (never into the repository). It
// fails, never skips, when Node, npm or the registry is missing: these
// tests are the only checks against the real clients. It installs beside
// the cache and renames into place under a lock file, so parallel test
// binaries and an interrupted install never leave a half-installed package
// in use.
func (p npmPackage) install(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatalf("the npm cache for %s lives under $HOME: %v", p.name, err)
	}
	dir := filepath.Join(home, ".cache", "hearth", p.cache)
	npmInstalls.Lock()
	defer npmInstalls.Unlock()
	if p.installed(dir) {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer unix.Flock(int(lock.Fd()), unix.LOCK_UN)
	if p.installed(dir) { // another process installed it while we waited
		return dir
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the test of %s needs %s on PATH (install Node.js 18 or newer): %v", p.name, tool, err)
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+p.cache+"-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"hearth-test-clients","private":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := []string{"install", "--no-audit", "--no-fund", "--save-exact"}
	if !p.scripts {
		args = append(args, "--ignore-scripts")
	}
	npm := exec.CommandContext(ctx, "npm", append(args, p.name+"@"+p.version)...)
	npm.Dir = tmp
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s@%s (needs the npm registry): %v\n%s", p.name, p.version, err, out)
	}
	if !p.installed(tmp) {
		t.Fatalf("npm install left no %s %s in %s", p.name, p.version, tmp)
	}
	os.RemoveAll(dir) // a broken earlier install
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatalf("install %s into %s: %v", p.name, dir, err)
	}
	return dir
}

// installed reports whether dir holds the pinned version.
func (p npmPackage) installed(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(p.name), "package.json"))
	var pkg struct{ Version string }
	return err == nil && json.Unmarshal(b, &pkg) == nil && pkg.Version == p.version
}
