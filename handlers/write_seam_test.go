package handlers_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
)

// TestABackupDrillRecordedWithoutARevisionReachesTheCachedHome: a backup
// drill is bookkeeping that bumps no revision, and Home is served from a
// page cache. The failed drill still shows on the next Home (its notice),
// and the passing drill after it takes the notice away again, each without
// moving the revision; a Home read twice with no write between stays as it
// was. The clock stands still, so the cache's minute never renews a page.
func TestABackupDrillRecordedWithoutARevisionReachesTheCachedHome(t *testing.T) {
	t.Parallel()
	ta, cookie := homeApp(t)
	ctx := context.Background()
	notice := func(when string) bool {
		t.Helper()
		resp := ta.get("/", "", cookie)
		if resp.status != http.StatusOK {
			t.Fatalf("Home %s: %s", when, resp)
		}
		return parseHTML(t, resp).Find(testID("backup-failed")).Length() == 1
	}
	rev := ta.revision()
	if notice("before any backup") || notice("again, from the cache") {
		t.Fatal("Home says a backup failed before any was taken")
	}

	if _, err := ta.store.VerifiedBackup(ctx, filepath.Join(t.TempDir(), "missing-dir", "copy.db")); err == nil {
		t.Fatal("a backup into a missing directory succeeded")
	}
	if !notice("after a failed backup") {
		t.Fatal("Home, cached before the failed backup was recorded, does not say it failed")
	}
	if !notice("again after the failed backup") {
		t.Fatal("the notice of the failed backup went with no write in between")
	}

	if _, err := ta.store.VerifiedBackup(ctx, filepath.Join(t.TempDir(), "copy.db")); err != nil {
		t.Fatal(err)
	}
	if notice("after a passing backup") {
		t.Fatal("Home still says the backup failed after one passed")
	}
	if now := ta.revision(); now != rev {
		t.Fatalf("backups moved the revision %d -> %d", rev, now)
	}
}
