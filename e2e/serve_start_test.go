package e2e

import (
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/models"
)

// serveOnce runs `hearth serve` on dataDir expecting it to refuse to start:
// it must exit by itself (a server that starts would run until cliTimeout).
func serveOnce(t *testing.T, dataDir string, args ...string) cliResult {
	t.Helper()
	return runHearth(t, nil, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dataDir}, args...)...)
}

// damageTable overwrites the first page of table in the stopped server's
// database with bytes that are no b-tree page, as a torn write would.
func damageTable(t *testing.T, dataDir, table string) {
	t.Helper()
	path := models.DatabasePath(dataDir)
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	must(t, err)
	var root, pageSize int64
	must(t, db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = ?", table).Scan(&root))
	must(t, db.QueryRow("PRAGMA page_size").Scan(&pageSize))
	db.Close()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	_, err = f.WriteAt([]byte(strings.Repeat("\xde\xad\xbe\xef", int(pageSize)/4)), (root-1)*pageSize)
	must(t, err)
}

func TestServeRefusesADamagedDatabaseAndNamesTheBackup(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	agent := newAgentClient(srv.URL, mintToken(t, srv.DataDir))
	if status, body, err := agent.publish(newPublication("damaged-1", 0, 30).Body); err != nil || status != http.StatusCreated {
		t.Fatalf("publish: %d %s %v", status, body, err)
	}
	if code, _ := srv.terminate(t); code != 0 {
		t.Fatalf("serve exited %d on SIGTERM", code)
	}
	// Nothing reads activities at start: only a check of every page finds this.
	damageTable(t, srv.DataDir, "activities")
	before := fileSum(t, models.DatabasePath(srv.DataDir))

	res := serveOnce(t, srv.DataDir)
	if res.code == 0 {
		t.Fatalf("serve on a damaged database exited 0; stderr:\n%s", res.stderr)
	}
	for _, want := range []string{"damaged", "quick_check", "hearth backup", "Backup and restore"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
		}
	}
	if strings.Contains(res.stderr, "hearth listening") {
		t.Errorf("serve listened on a damaged database:\n%s", res.stderr)
	}
	if fileSum(t, models.DatabasePath(srv.DataDir)) != before {
		t.Error("the refused start changed the damaged file; it must be kept for inspection")
	}
}

func TestServeRefusesAnEmptyDatabaseBesideStateUnlessInit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		state func(dir string)
		db    func(dir string)
	}{
		{name: "zero-length database beside schedules/",
			state: func(dir string) { must(t, os.MkdirAll(filepath.Join(dir, "schedules", "definitions"), 0o700)) },
			db:    func(dir string) { must(t, os.WriteFile(models.DatabasePath(dir), nil, 0o600)) }},
		{name: "missing database beside agent.token",
			state: func(dir string) { writeFile(t, dir, "agent.token", []byte("hearth_lost\n"), 0o600) },
			db:    func(string) {}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tc.state(dir)
			tc.db(dir)
			res := serveOnce(t, dir)
			wantExit(t, res, 1, "stderr", "hearth backup")
			if !strings.Contains(res.stderr, "--init") {
				t.Errorf("stderr does not name --init:\n%s", res.stderr)
			}
			if fi, err := os.Stat(models.DatabasePath(dir)); err == nil && fi.Size() > 0 {
				t.Fatalf("a refused start wrote a database of %d bytes", fi.Size())
			}
			srv := startServer(t, dir, "--init")
			rev := newAgentClient(srv.URL, mintToken(t, dir)).context(t).Revision
			if rev != 0 {
				t.Fatalf("--init began at revision %d, want an empty workspace", rev)
			}
		})
	}
}

// TestServeStartsInAFreshDataDirWithPrivateFiles: no --init is needed where
// there is nothing to lose, and what serve creates is the owner's alone.
func TestServeStartsInAFreshDataDirWithPrivateFiles(t *testing.T) {
	t.Parallel()
	t.Run("new dir", func(t *testing.T) {
		t.Parallel()
		dir := filepath.Join(t.TempDir(), "data")
		srv := startServer(t, dir)
		newAgentClient(srv.URL, mintToken(t, dir)).context(t)
		assertModes(t, map[string]os.FileMode{dir: 0o700, models.DatabasePath(dir): 0o600,
			models.DatabasePath(dir) + "-wal": 0o600, models.DatabasePath(dir) + "-shm": 0o600})
		if strings.Contains(srv.log.String(), "open to group or others") {
			t.Errorf("warned about a 0700 data dir:\n%s", srv.log)
		}
	})
	t.Run("existing 0755 dir", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		must(t, os.Chmod(dir, 0o755))
		srv := startServer(t, dir)
		newAgentClient(srv.URL, mintToken(t, dir)).context(t)
		assertModes(t, map[string]os.FileMode{models.DatabasePath(dir): 0o600,
			models.DatabasePath(dir) + "-wal": 0o600, models.DatabasePath(dir) + "-shm": 0o600})
		waitForLog(t, srv, "open to group or others")
	})
}

func assertModes(t *testing.T, want map[string]os.FileMode) {
	t.Helper()
	for path, mode := range want {
		fi, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s is %v, want %v", path, fi.Mode().Perm(), mode)
		}
	}
}

// TestServeChecksEveryPageAfterAKillButNotAfterACleanStop: a clean stop
// records the file's state, so the next start does not read every page
// (1.8 s on five years of use); after SIGKILL the next start checks, and a
// file damaged after a clean stop is still refused (the test above).
func TestServeChecksEveryPageAfterAKillButNotAfterACleanStop(t *testing.T) {
	t.Parallel()
	const checked, skipped = "database checked (quick_check)", "quick_check skipped"
	srv := startServer(t, "")
	if !strings.Contains(srv.log.String(), checked) {
		t.Fatalf("a first start did not check the database:\n%s", srv.log)
	}
	agent := newAgentClient(srv.URL, mintToken(t, srv.DataDir))
	if status, body, err := agent.publish(newPublication("clean-1", 0, 5).Body); err != nil || status != http.StatusCreated {
		t.Fatalf("publish: %d %s %v", status, body, err)
	}
	if code, _ := srv.terminate(t); code != 0 {
		t.Fatalf("serve exited %d on SIGTERM", code)
	}
	srv = startServer(t, srv.DataDir)
	if log := srv.log.String(); !strings.Contains(log, skipped) || strings.Contains(log, checked) {
		t.Fatalf("a start after a clean stop checked every page again:\n%s", log)
	}
	srv.kill(t)
	srv = startServer(t, srv.DataDir)
	if !strings.Contains(srv.log.String(), checked) {
		t.Fatalf("a start after SIGKILL skipped the check:\n%s", srv.log)
	}
}
