package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeMakesAVerifiedBackupAndRunsSaysWhen: serve --backup-every makes
// its first copy at once (none was ever made), in DATA/backups, mode 0600,
// and the Runs page names the last verified backup.
func TestServeMakesAVerifiedBackupAndRunsSaysWhen(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo", "--backup-every", "24h", "--backup-keep", "3")
	dir := filepath.Join(srv.DataDir, "backups")
	var copies []string
	for deadline := time.Now().Add(30 * time.Second); len(copies) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("no backup in %s after 30 s; log:\n%s", dir, srv.log.String())
		}
		copies, _ = filepath.Glob(filepath.Join(dir, "hearth-*.db"))
		time.Sleep(50 * time.Millisecond) // polling the directory; the deadline above decides
	}
	if fi, err := os.Stat(copies[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup %s: mode %v, %v; want 0600", copies[0], fi.Mode().Perm(), err)
	}
	owner := loginOwner(t, srv.URL)
	var text string
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(text, "Last verified backup"); {
		if time.Now().After(deadline) {
			t.Fatalf("Runs never named the verified backup: %q", text)
		}
		text = owner.mustPage("GET", "/runs", nil).Find(`[data-testid="backups"]`).Text()
		time.Sleep(50 * time.Millisecond) // the drill's record follows the copy; the deadline above decides
	}
	if strings.Contains(text, "would not restore") {
		t.Fatalf("Runs reports a failed backup: %q", text)
	}
}
