package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/internal/poll"
)

// TestServeMakesAVerifiedBackupAndRunsSaysWhen: serve --backup-every makes
// its first copy at once (none was ever made), in DATA/backups, mode 0600,
// and the Runs page names the last verified backup.
func TestServeMakesAVerifiedBackupAndRunsSaysWhen(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo", "--backup-every", "24h", "--backup-keep", "3")
	dir := filepath.Join(srv.DataDir, "backups")
	var copies []string
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		copies, _ = filepath.Glob(filepath.Join(dir, "hearth-*.db"))
		return len(copies) > 0, fmt.Sprintf("no backup in %s; log:\n%s", dir, srv.log.String())
	})
	if fi, err := os.Stat(copies[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup %s: mode %v, %v; want 0600", copies[0], fi.Mode().Perm(), err)
	}
	owner := loginOwner(t, srv.URL)
	var text string
	// The drill's record follows the copy.
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		text = owner.mustPage("GET", "/runs", nil).Find(`[data-testid="backups"]`).Text()
		return strings.Contains(text, "Last verified backup"), fmt.Sprintf("Runs never named the verified backup: %q", text)
	})
	if strings.Contains(text, "would not restore") {
		t.Fatalf("Runs reports a failed backup: %q", text)
	}
}
