package e2e

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/models"
)

// TestServeStartsOverAScheduleAddItCannotComplete puts a data dir into the
// state an older hearth could leave (an add whose intent and file it
// wrote, but whose ledger row it could not: the receipt's nextDueAt in
// Pacific/Kiritimati is in year 10000), then starts the real server: it
// must start, show the schedule quarantined with its reason, and take
// later schedule writes.
func TestServeStartsOverAScheduleAddItCannotComplete(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	token := strings.TrimSpace(runHearth(t, nil, "token", "create", "--name", "ops", "--scopes", "schedules:admin,schedules:read", "--data", dir).stdout)

	const at, zone = "9999-12-31T12:00:00Z", "Pacific/Kiritimati"
	canonical := `{"at":"` + at + `","format":"hearth.schedule.v1","id":"far","job":"far","limits":{"deadlineSeconds":600,"maxInvocations":3},` +
		`"notifyOnSuccess":false,"prompt":"Say hello.","zone":"` + zone + `"}`
	sum := sha256.Sum256([]byte(canonical))
	fingerprint := "sha256:" + hex.EncodeToString(sum[:])
	now := time.Now().UTC().Truncate(time.Second)
	due := time.Date(9999, 12, 31, 12, 0, 0, 0, time.UTC)
	payload, err := json.Marshal(models.Schedule{ID: "far", Job: "far", CreatorKind: "operator", CreatorID: "cred_old", CreatorName: "ops",
		ApprovedBy: "cred_old", ApprovedAt: now, ApprovedFingerprint: fingerprint, ApprovedSnapshot: canonical,
		State: "active", StateChangedAt: now, Zone: zone, ZoneSource: "explicit", RequestKey: "k-far", RequestHash: "sha256:old",
		Since: now, NextDueAt: &due, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+models.DatabasePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schedule_journal (schedule_id, op, payload, fingerprint, created_at) VALUES ('far', 'add', ?, ?, ?)`,
		string(payload), fingerprint, now); err != nil {
		t.Fatal(err)
	}
	must(t, db.Close())
	defs := filepath.Join(dir, "schedules", "definitions")
	must(t, os.MkdirAll(defs, 0o700))
	writeFile(t, defs, "far.md", []byte("---\nid: far\njob: far\nat: \""+at+"\"\nzone: "+zone+
		"\nlimits:\n  maxInvocations: 3\n  deadline: 10m\nnotifyOnSuccess: false\n---\n\nSay hello.\n"), 0o600)

	srv := startServer(t, dir, "--host", "hearth.tail.test", "--tailscale-owner", "owner@example.com")
	waitForLog(t, srv, "could not be completed")

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/schedules", nil)
	req.Host = "hearth.tail.test" // the Tailscale login counts only on a --host name
	req.Header.Set("Tailscale-User-Login", "owner@example.com")
	resp, err := (&http.Client{Timeout: httpTimeout}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	d, err := goquery.NewDocumentFromReader(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("Schedules page: %d %v", resp.StatusCode, err)
	}
	row := d.Find(`[data-testid="schedule"][data-id="far"]`)
	if row.Length() != 1 || row.AttrOr("data-state", "") != "quarantined" {
		t.Fatalf("far on the Schedules page: %q", row.Text())
	}
	if reason := row.Find(`[data-testid="schedule-reason"]`).Text(); !strings.Contains(reason, "out of range") {
		t.Errorf("far's reason %q does not say why", reason)
	}
	if row.Find(`[data-testid="cancel-schedule"]`).Length() != 1 {
		t.Error("the owner cannot cancel it")
	}

	ops := newAgentClient(srv.URL, token)
	body := `{"requestKey":"k-next","id":"next","job":"j","cron":"0 8 * * *","zone":"UTC","prompt":"x"}`
	if status, b, err := ops.do(http.MethodPost, "/api/schedules", []byte(body)); err != nil || status != http.StatusCreated {
		t.Fatalf("a later schedule write: %d %s %v", status, b, err)
	}
	if status, b, err := ops.do(http.MethodGet, "/api/schedules", nil); err != nil || status != http.StatusOK || !strings.Contains(string(b), `"state":"quarantined"`) {
		t.Fatalf("list: %d %s %v", status, b, err)
	}
	// The same request today is refused before anything is written.
	far := `{"requestKey":"k-far2","id":"far2","job":"far","at":"` + at + `","zone":"` + zone + `","prompt":"Say hello."}`
	status, b, err := ops.do(http.MethodPost, "/api/schedules", []byte(far))
	if err != nil || status != http.StatusUnprocessableEntity || !strings.Contains(string(b), `"path":"/at"`) {
		t.Fatalf("a schedule due after year 9999: %d %s %v", status, b, err)
	}
	if exists(filepath.Join(defs, "far2.md")) {
		t.Error("the refused request wrote a file")
	}
}
