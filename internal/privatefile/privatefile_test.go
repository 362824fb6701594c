package privatefile

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// crashEnv names, in a child test process, the operation to crash in and
// its file: "atomic:PATH" or "exclusive:PATH".
const crashEnv = "PRIVATEFILE_CRASH_IN"

// TestCrashingChild is the child of the crash tests: it is killed by
// SIGKILL once the new data is synced in the temp file, before it is named.
func TestCrashingChild(t *testing.T) {
	spec := os.Getenv(crashEnv)
	if spec == "" {
		t.Skip("run by the crash tests only")
	}
	beforeName = func(string) { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	if op, path, _ := strings.Cut(spec, ":"); op == "atomic" {
		WriteAtomic(path, []byte("new"))
	} else {
		CreateExclusive(path, []byte("new"))
	}
	t.Fatal("the write finished: the crash hook was never reached")
}

// crash runs op on path in a child process killed between write and name,
// and fails unless it died of that signal.
func crash(t *testing.T, op, path string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashingChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+op+":"+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed mid-write: %v\n%s", err, out)
	}
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// names lists dir, so a test sees any temp file left beside the target.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

// withUmask0 runs the test under umask 0, where a file made with a looser
// mode than 0600 would show it.
func withUmask0(t *testing.T) {
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
}

func TestWriteAtomicCreatesAnOwnerOnlyFileAndNothingElse(t *testing.T) {
	withUmask0(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "keys.json")
	if err := WriteAtomic(p, []byte("secret")); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, p); m != 0o600 {
		t.Errorf("mode %v, want -rw-------", m)
	}
	if got := read(t, p); got != "secret" {
		t.Errorf("content %q", got)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("dir holds %v, want only keys.json", n)
	}
}

func TestWriteAtomicReplacesAWorldReadableFileWithAnOwnerOnlyOne(t *testing.T) {
	withUmask0(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "journal.json")
	if err := os.WriteFile(p, []byte("old, longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, p); m != 0o600 {
		t.Errorf("mode %v, want -rw-------", m)
	}
	if got := read(t, p); got != "new" {
		t.Errorf("content %q, want the new data whole", got)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("dir holds %v, want only journal.json", n)
	}
}

func TestACrashBetweenWriteAndRenameLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "journal.json")
	if err := WriteAtomic(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	crash(t, "atomic", p)
	if got := read(t, p); got != "old" {
		t.Errorf("after the crash the file holds %q, want the old data", got)
	}
	if m := mode(t, p); m != 0o600 {
		t.Errorf("mode %v, want -rw-------", m)
	}
	// The new data was written and synced before the crash: the temp beside it shows the crash came between.
	temps, _ := filepath.Glob(filepath.Join(dir, ".journal.json.*.tmp"))
	if len(temps) != 1 || read(t, temps[0]) != "new" {
		t.Errorf("temp files %v, want one holding the new data", temps)
	}
}

func TestWriteAtomicIntoAMissingDirectoryFailsAndCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	if err := WriteAtomic(filepath.Join(dir, "absent", "f"), []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want not-exist", err)
	}
	if n := names(t, dir); len(n) != 0 {
		t.Errorf("dir holds %v, want nothing", n)
	}
}

func TestCreateExclusiveCreatesAnOwnerOnlyFileAndNothingElse(t *testing.T) {
	withUmask0(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "vapid.json")
	if err := CreateExclusive(p, []byte("keys")); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, p); m != 0o600 {
		t.Errorf("mode %v, want -rw-------", m)
	}
	if got := read(t, p); got != "keys" {
		t.Errorf("content %q", got)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("dir holds %v, want only vapid.json", n)
	}
}

func TestCreateExclusiveRefusesAnExistingFileAndLeavesIt(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "vapid.json")
	if err := os.WriteFile(p, []byte("theirs"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := CreateExclusive(p, []byte("mine")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want exists", err)
	}
	if got := read(t, p); got != "theirs" {
		t.Errorf("content %q, want the existing file untouched", got)
	}
	if m := mode(t, p); m != 0o640 {
		t.Errorf("mode %v, want the existing file's -rw-r-----", m)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("dir holds %v, want no temp left", n)
	}
}

func TestCreateExclusiveRefusesADanglingLinkAndWritesNothingThroughIt(t *testing.T) {
	dir := t.TempDir()
	p, target := filepath.Join(dir, "backup.db"), filepath.Join(dir, "elsewhere")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	if err := CreateExclusive(p, []byte("mine")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want exists", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the link's target was created (%v)", err)
	}
	if m := mode(t, p); m&fs.ModeSymlink == 0 {
		t.Errorf("mode %v, want the link left in place", m)
	}
}

func TestACrashDuringAnExclusiveCreateLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "vapid.json")
	crash(t, "exclusive", p)
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after the crash %s exists (%v): a torn file would be there", p, err)
	}
	if err := CreateExclusive(p, []byte("keys")); err != nil {
		t.Fatalf("creating again after the crash: %v", err)
	}
	if got := read(t, p); got != "keys" {
		t.Errorf("content %q", got)
	}
}

// withoutHardLinks makes link fail as it does on a FAT file system.
func withoutHardLinks(t *testing.T) {
	link = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} }
	t.Cleanup(func() { link = os.Link })
}

func TestCreateExclusiveWithoutHardLinksStillCreatesAnOwnerOnlyFileOnce(t *testing.T) {
	withUmask0(t)
	withoutHardLinks(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "backup.db")
	if err := CreateExclusive(p, []byte("copy")); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, p); m != 0o600 {
		t.Errorf("mode %v, want -rw-------", m)
	}
	if got := read(t, p); got != "copy" {
		t.Errorf("content %q", got)
	}
	if n := names(t, dir); len(n) != 1 {
		t.Errorf("dir holds %v, want only backup.db", n)
	}
	if err := CreateExclusive(p, []byte("again")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a second create: err = %v, want exists", err)
	}
	if got := read(t, p); got != "copy" {
		t.Errorf("content %q after a refused create, want the first", got)
	}
}
