package main

import (
	"os"
	"path/filepath"
	"testing"

	"hearth/internal/cli"
)

func TestSeedRefusesADataDirThatIsNotEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"seed", "--days", "1", "--data", dir}); code != cli.ExitRejected {
		t.Fatalf("seed into a dir with a file: exit %d, want %d", code, cli.ExitRejected)
	}
	if _, err := os.Stat(filepath.Join(dir, "hearth.db")); !os.IsNotExist(err) {
		t.Fatalf("a refused seed left a database: %v", err)
	}
	// A seeded dir is not empty either: a second seed is refused, the first kept.
	seeded := filepath.Join(t.TempDir(), "data")
	if code := run([]string{"seed", "--days", "1", "--data", seeded}); code != cli.ExitOK {
		t.Fatalf("first seed: exit %d", code)
	}
	before, _ := os.Stat(filepath.Join(seeded, "hearth.db"))
	if code := run([]string{"seed", "--days", "1", "--data", seeded}); code != cli.ExitRejected {
		t.Fatalf("second seed: exit %d, want %d", code, cli.ExitRejected)
	}
	after, _ := os.Stat(filepath.Join(seeded, "hearth.db"))
	if before.Size() != after.Size() || !before.ModTime().Equal(after.ModTime()) {
		t.Fatal("a refused second seed changed the database")
	}
}
