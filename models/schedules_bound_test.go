package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hearth/internal/schedule"
)

// oldDefinition is a one-off an older hearth accepted without the bound:
// its canonical snapshot, fingerprint and file, written as that version
// wrote them (the canonical form is RFC 8785: sorted keys, no spaces).
type oldDefinition struct {
	id, at, zone string
}

func (d oldDefinition) canonical() string {
	return `{"at":"` + d.at + `","format":"hearth.schedule.v1","id":"` + d.id + `","job":"` + d.id +
		`","limits":{"deadlineSeconds":600,"maxInvocations":3},"notifyOnSuccess":false,"prompt":"Say hello.","zone":"` + d.zone + `"}`
}

func (d oldDefinition) fingerprint() string {
	sum := sha256.Sum256([]byte(d.canonical()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (d oldDefinition) file() string {
	return "---\nid: " + d.id + "\njob: " + d.id + "\nat: \"" + d.at + "\"\nzone: " + d.zone +
		"\nlimits:\n  maxInvocations: 3\n  deadline: 10m\nnotifyOnSuccess: false\n---\n\nSay hello.\n"
}

// row is the ledger row that version journalled (or inserted), due at its instant.
func (d oldDefinition) row(t *testing.T, now time.Time) Schedule {
	t.Helper()
	due, err := time.Parse(time.RFC3339, d.at)
	if err != nil {
		t.Fatal(err)
	}
	due = due.UTC()
	return Schedule{ID: d.id, Job: d.id, CreatorKind: ActorOperator, CreatorID: opsActor.ID, CreatorName: opsActor.Name,
		ApprovedBy: opsActor.ID, ApprovedAt: now, ApprovedFingerprint: d.fingerprint(), ApprovedSnapshot: d.canonical(),
		State: string(schedule.StatusActive), StateChangedAt: now, Zone: d.zone, ZoneSource: string(schedule.ZoneExplicit),
		RequestKey: "k-" + d.id, RequestHash: "sha256:old", Since: now, NextDueAt: &due, CreatedAt: now, UpdatedAt: now}
}

// writeFile puts the definition file where the add wrote it.
func (d oldDefinition) writeFile(t *testing.T, s *Store) {
	t.Helper()
	dir := s.defs.DefinitionsDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, d.id+".md"), []byte(d.file()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// journalAdd leaves the state an older hearth could leave: the intent and the file of an
// add whose ledger row could not be written (its receipt's nextDueAt, in
// the schedule's zone, is in year 10000, which JSON cannot write).
func (d oldDefinition) journalAdd(t *testing.T, s *Store, payload string) {
	t.Helper()
	d.writeFile(t, s)
	if payload == "" {
		b, err := json.Marshal(d.row(t, testNow))
		if err != nil {
			t.Fatal(err)
		}
		payload = string(b)
	}
	if err := s.db.Create(&scheduleJournal{ScheduleID: d.id, Op: journalAdd, Payload: payload, Fingerprint: d.fingerprint(), CreatedAt: testNow}).Error; err != nil {
		t.Fatal(err)
	}
}

// wantQuarantined checks a schedule is quarantined with a reason the owner
// can read, and that the list (the Schedules page and the API) still reads
// and encodes.
func wantQuarantined(t *testing.T, s *Store, id, detail string) {
	t.Helper()
	v := mustView(t, s, id)
	if v.State != string(schedule.StatusQuarantined) || v.StateReason == "" || !strings.Contains(v.StateDetail, detail) || v.NextDueAt != nil {
		t.Errorf("%s = state %q reason %q detail %q next %v; want quarantined with %q", id, v.State, v.StateReason, v.StateDetail, v.NextDueAt, detail)
	}
	list, err := s.Schedules(context.Background())
	if err != nil {
		t.Fatalf("Schedules: %v", err)
	}
	if _, err := json.Marshal(list); err != nil {
		t.Fatalf("the list does not encode: %v", err)
	}
	rep := mustDue(t, s, testNow.Add(time.Hour))
	if h := heldOf(rep, id); h != HoldQuarantined {
		t.Errorf("due holds %s as %q", id, h)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Fatalf("the due report does not encode: %v", err)
	}
}

func TestScheduleRecoveryQuarantinesAnAddItCannotComplete(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	far := oldDefinition{id: "far", at: "9999-12-31T12:00:00Z", zone: "Pacific/Kiritimati"}
	far.journalAdd(t, s, "")

	rec, err := s.RecoverSchedules(ctx)
	if err != nil {
		t.Fatalf("RecoverSchedules: %v; an entry it cannot complete must not stop serve", err)
	}
	if len(rec.Unfinished) != 1 || rec.Unfinished[0] != "far" {
		t.Errorf("recovery = %+v, want far among the unfinished adds", rec)
	}
	wantQuarantined(t, s, "far", "out of range")
	var left int64
	s.db.Model(&scheduleJournal{}).Count(&left)
	if left != 0 {
		t.Errorf("%d journal entries left", left)
	}
	// Later writes work, and the owner can cancel it (the file retires).
	mustCreate(t, s, opsActor, schedBody("k-after", map[string]any{"id": "after", "cron": "0 8 * * *", "zone": "UTC"}))
	if _, err := s.CancelSchedule(ctx, opsActor, "far"); err != nil {
		t.Fatalf("cancel the quarantined add: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.defs.RetiredDir(), "far.md")); err != nil {
		t.Errorf("cancel did not retire the file: %v", err)
	}
}

// The journal is also finished by the next schedule write, so one entry it
// cannot complete must not turn every later write into a 503.
func TestScheduleWriteQuarantinesAnAddItCannotComplete(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	oldDefinition{id: "far", at: "9999-12-31T12:00:00Z", zone: "Pacific/Kiritimati"}.journalAdd(t, s, "")
	mustCreate(t, s, opsActor, schedBody("k-next", map[string]any{"id": "next", "cron": "0 8 * * *", "zone": "UTC"}))
	wantQuarantined(t, s, "far", "out of range")
	if _, err := s.CancelSchedule(ctx, opsActor, "next"); err != nil {
		t.Fatal(err)
	}
}

func TestScheduleRecoveryQuarantinesAnUnreadableJournalEntry(t *testing.T) {
	s, _ := newTestStore(t)
	oldDefinition{id: "garbled", at: "2027-01-01T09:00:00Z", zone: "UTC"}.journalAdd(t, s, `{"ID": "garbled", "Job": 7`)
	if _, err := s.RecoverSchedules(context.Background()); err != nil {
		t.Fatalf("RecoverSchedules: %v", err)
	}
	wantQuarantined(t, s, "garbled", "journal")
	v := mustView(t, s, "garbled")
	if v.File == nil || !v.File.Approvable() || v.Unreadable != "" || v.At != "2027-01-01T09:00:00Z" {
		t.Errorf("the file is the approved definition, readable and approvable: %+v", v)
	}
	if _, err := s.ApproveSchedule(context.Background(), "garbled", v.File.Fingerprint); err != nil {
		t.Fatal(err)
	}
	if v := mustView(t, s, "garbled"); v.State != string(schedule.StatusActive) || v.ApprovedBy != ActorOwner {
		t.Errorf("approved again: %+v", v)
	}
}

func TestScheduleRecoveryQuarantinesAStoredScheduleItCannotRead(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	// In UTC the old version's receipt could be written, so the add completed.
	far := oldDefinition{id: "far-utc", at: "9999-12-31T12:00:00Z", zone: "UTC"}
	far.writeFile(t, s)
	row := far.row(t, testNow)
	row.Receipt = "{}"
	if err := s.db.Create(&row).Error; err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, opsActor, schedBody("k-ok", map[string]any{"id": "ok", "cron": "0 8 * * *", "zone": "UTC"}))
	// Before serve starts again, reads already hold it rather than fail.
	if list, err := s.Schedules(ctx); err != nil || len(list.Schedules) != 2 {
		t.Fatalf("Schedules = %+v, %v", list, err)
	}
	if h := heldOf(mustDue(t, s, testNow.Add(time.Hour)), "far-utc"); h != HoldQuarantined {
		t.Errorf("due holds far-utc as %q", h)
	}
	rec, err := s.RecoverSchedules(ctx)
	if err != nil {
		t.Fatalf("RecoverSchedules: %v", err)
	}
	if len(rec.Quarantined) != 1 || rec.Quarantined[0] != "far-utc" {
		t.Errorf("recovery = %+v", rec)
	}
	wantQuarantined(t, s, "far-utc", "out of range")
	if v := mustView(t, s, "ok"); v.State != string(schedule.StatusActive) || v.Hold != "" {
		t.Errorf("the readable schedule = %+v", v)
	}
	if a := mustClaim(t, s, "far-utc"); a.Admitted != nil || a.Hold != HoldQuarantined {
		t.Errorf("claim = %+v", a)
	}
}
