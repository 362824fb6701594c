package models

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/schedule"
)

// opsActor is an operator credential that was never revoked.
var opsActor = Actor{Kind: ActorOperator, ID: "cred_ops", Name: "ops"}

// schedBody is a create body: a prompt, a job and the request key, plus fields.
func schedBody(key string, fields map[string]any) []byte {
	b := map[string]any{"requestKey": key, "job": "morning", "prompt": "Write the morning brief.\nKeep it short."}
	for k, v := range fields {
		b[k] = v
	}
	out, err := json.Marshal(b)
	if err != nil {
		panic(err)
	}
	return out
}

// mustCreate creates a schedule and fails the test unless it is new.
func mustCreate(t *testing.T, s *Store, actor Actor, body []byte) ScheduleReceipt {
	t.Helper()
	r, created, err := createSchedule(s, context.Background(), actor, body)
	if err != nil || !created {
		t.Fatalf("CreateSchedule = %+v, created %v, %v", r, created, err)
	}
	return r
}

func mustDue(t *testing.T, s *Store, now time.Time) contract.DueReport {
	t.Helper()
	rep, err := s.DueSchedules(context.Background(), now)
	if err != nil {
		t.Fatalf("DueSchedules: %v", err)
	}
	return rep
}

func mustClaim(t *testing.T, s *Store, id string) Admission {
	t.Helper()
	a, err := s.ClaimSchedule(context.Background(), id, "runner")
	if err != nil {
		t.Fatalf("ClaimSchedule(%s): %v", id, err)
	}
	return a
}

func mustView(t *testing.T, s *Store, id string) ScheduleView {
	t.Helper()
	v, err := s.Schedule(context.Background(), id)
	if err != nil {
		t.Fatalf("Schedule(%s): %v", id, err)
	}
	return v
}

func dueIDs(rep contract.DueReport) []string {
	ids := []string{}
	for _, d := range rep.Due {
		ids = append(ids, d.OccurrenceID)
	}
	return ids
}

func heldOf(rep contract.DueReport, id string) string {
	for _, h := range rep.Held {
		if h.ScheduleID == id {
			return h.Hold
		}
	}
	return ""
}

func TestScheduleOneOffIsDueOnceAdmittedOnceAndNeverAgain(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	at := testNow.Add(time.Hour)
	r := mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "dentist", "at": at.Format(time.RFC3339), "zone": "Europe/Berlin"}))
	if r.ScheduleID != "dentist" || r.State != "active" || r.ZoneSource != "explicit" || r.NextDueAt == nil || !r.NextDueAt.Equal(at) {
		t.Fatalf("receipt = %+v", r)
	}
	if _, off := r.NextDueAt.Zone(); off != 2*3600 {
		t.Errorf("receipt nextDueAt %s is not in the schedule's zone", r.NextDueAt)
	}

	if rep := mustDue(t, s, at.Add(-time.Second)); len(rep.Due) != 0 {
		t.Fatalf("due a second early: %v", dueIDs(rep))
	}
	rev := mustRevision(t, s)
	now.Set(at.Add(time.Minute))
	for range 2 { // reading due twice changes nothing
		rep := mustDue(t, s, now.Now())
		if got := dueIDs(rep); len(got) != 1 || got[0] != "dentist/"+at.UTC().Format(time.RFC3339Nano) {
			t.Fatalf("due after its time = %v", got)
		}
		if rep.Due[0].Prompt != "Write the morning brief.\nKeep it short." || rep.Due[0].Job != "morning" {
			t.Errorf("due item = %+v", rep.Due[0])
		}
	}
	if got := mustRevision(t, s); got != rev {
		t.Errorf("due moved the revision from %d to %d", rev, got)
	}
	if v := mustView(t, s, "dentist"); v.Counters.Admitted != 0 || v.Outstanding != nil {
		t.Errorf("due admitted something: %+v", v)
	}

	a := mustClaim(t, s, "dentist")
	if a.Admitted == nil || !a.Admitted.DueAt.Equal(at) || a.Admitted.State != OccurrenceAdmitted || a.Admitted.MaxAttempts != 3 {
		t.Fatalf("claim = %+v", a)
	}
	if again := mustClaim(t, s, "dentist"); again.Admitted != nil || again.Hold != string(schedule.HoldOutstanding) {
		t.Fatalf("second claim = %+v, want held outstanding", again)
	}
	rep := mustDue(t, s, now.Now())
	if len(rep.Due) != 0 || heldOf(rep, "dentist") != "outstanding" {
		t.Fatalf("due while outstanding = %+v", rep)
	}
	if _, err := s.StartAttempt(ctx, a.Admitted.ID); err != nil {
		t.Fatal(err)
	}
	now.Advance(5 * time.Minute)
	if _, err := s.FinishOccurrence(ctx, a.Admitted.ID, true, "published run m-1"); err != nil {
		t.Fatal(err)
	}
	v := mustView(t, s, "dentist")
	if v.State != "expired" || v.StateReason != "ended" || v.Counters.Succeeded != 1 || v.NextDueAt != nil {
		t.Fatalf("after it ran: %+v", v)
	}
	for _, later := range []time.Duration{time.Minute, 25 * time.Hour, 365 * 24 * time.Hour} {
		now.Set(at.Add(later))
		if rep := mustDue(t, s, now.Now()); len(rep.Due)+len(rep.Held) != 0 {
			t.Errorf("due %s later: %+v", later, rep)
		}
		if a := mustClaim(t, s, "dentist"); a.Admitted != nil {
			t.Errorf("claim %s later admitted %+v", later, a.Admitted)
		}
	}
}

func TestScheduleCreateReplaysValidatesAndRefuses(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	at := testNow.Add(30 * time.Minute).Format(time.RFC3339)
	body := schedBody("k-replay", map[string]any{"at": at, "clientZone": "Asia/Tokyo"})
	first := mustCreate(t, s, opsActor, body)
	if first.Zone != "Asia/Tokyo" || first.ZoneSource != "client" || first.ScheduleID != defaultScheduleID("morning", opsActor.ID, "k-replay") {
		t.Fatalf("receipt = %+v", first)
	}
	rev := mustRevision(t, s)

	// The original receipt, even after the one-off's time has passed.
	now.Set(testNow.Add(48 * time.Hour))
	again, created, err := createSchedule(s, ctx, opsActor, body)
	if err != nil || created || jsonOf(again) != jsonOf(first) {
		t.Fatalf("replay = %+v, created %v, %v; want the original receipt %+v", again, created, err, first)
	}
	if mustRevision(t, s) != rev {
		t.Error("a replay bumped the revision")
	}
	// Another credential's key is its own.
	other := Actor{Kind: ActorOperator, ID: "cred_other", Name: "other"}
	if _, _, err := createSchedule(s, ctx, other, body); !isInvalidAt(err, "/at") {
		t.Errorf("another creator's same key and body = %v; want a new create refused for its past at", err)
	}
	if _, _, err := createSchedule(s, ctx, opsActor, schedBody("k-replay", map[string]any{"at": at, "clientZone": "Asia/Tokyo", "notifyOnSuccess": true})); !errors.Is(err, contract.ErrIdempotencyConflict) {
		t.Errorf("same key, other body = %v, want ErrIdempotencyConflict", err)
	}

	now.Set(testNow)
	cases := []struct {
		name string
		body []byte
		path string
	}{
		{"past at", schedBody("k2", map[string]any{"at": testNow.Add(-time.Minute).Format(time.RFC3339)}), "/at"},
		{"at without offset", schedBody("k3", map[string]any{"at": "2026-10-01T09:00:00"}), "/at"},
		{"at and cron", schedBody("k4", map[string]any{"at": at, "cron": "0 9 * * *"}), "/at"},
		{"neither", schedBody("k5", nil), "/at"},
		{"invalid explicit zone", schedBody("k6", map[string]any{"cron": "0 9 * * *", "zone": "Mars/Olympus"}), "/zone"},
		{"bad cron", schedBody("k7", map[string]any{"cron": "@daily"}), "/cron"},
		{"endAt on a one-off", schedBody("k8", map[string]any{"at": at, "endAt": at}), "/endAt"},
		{"endAt in the past", schedBody("k9", map[string]any{"cron": "0 9 * * *", "endAt": "2026-01-01T00:00:00Z"}), "/endAt"},
		{"too many invocations", schedBody("k10", map[string]any{"cron": "0 9 * * *", "limits": map[string]any{"maxInvocations": 4}}), "/limits/maxInvocations"},
		{"deadline too long", schedBody("k11", map[string]any{"cron": "0 9 * * *", "limits": map[string]any{"deadlineSeconds": 601}}), "/limits/deadlineSeconds"},
		{"empty prompt", schedBody("k12", map[string]any{"cron": "0 9 * * *", "prompt": "  "}), "/prompt"},
		{"bad id", schedBody("k13", map[string]any{"cron": "0 9 * * *", "id": "../x"}), "/id"},
		{"bad request key", schedBody("", map[string]any{"cron": "0 9 * * *"}), "/requestKey"},
		{"unknown field", schedBody("k14", map[string]any{"cron": "0 9 * * *", "createdBy": "owner"}), "/createdBy"},
		{"null", schedBody("k15", map[string]any{"cron": "0 9 * * *", "zone": nil}), "/zone"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := createSchedule(s, ctx, opsActor, tc.body)
			if !isInvalidAt(err, tc.path) {
				t.Fatalf("err = %v, want a validation error at %s", err, tc.path)
			}
		})
	}
	if list, _ := s.Schedules(ctx); len(list.Schedules) != 1 {
		t.Errorf("refused creates stored schedules: %d", len(list.Schedules))
	}
	if ids, _ := s.defs.List(); len(ids) != 1 {
		t.Errorf("refused creates wrote files: %v", ids)
	}
}

func isInvalidAt(err error, path string) bool {
	var ve *contract.ValidationError
	if !errors.As(err, &ve) {
		return false
	}
	for _, e := range ve.Errors {
		if e.Path == path {
			return true
		}
	}
	return false
}

func TestScheduleCancelLeavesDueKeepsListingAndNeverRevives(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "nightly", "cron": "30 2 * * *", "zone": "America/New_York"}))
	now.Set(time.Date(2026, 9, 30, 6, 31, 0, 0, time.UTC)) // 02:31 EDT
	if got := dueIDs(mustDue(t, s, now.Now())); len(got) != 1 {
		t.Fatalf("due before cancel = %v", got)
	}
	rev := mustRevision(t, s)
	res, err := s.CancelSchedule(ctx, opsActor, "nightly")
	if err != nil || res.State != "cancelled" || res.AlreadyCancelled || res.RunningOccurrence != nil || res.CancelledBy != opsActor {
		t.Fatalf("cancel = %+v, %v", res, err)
	}
	if mustRevision(t, s) != rev+1 {
		t.Error("cancel did not bump the revision once")
	}
	if rep := mustDue(t, s, now.Now()); len(rep.Due)+len(rep.Held) != 0 {
		t.Fatalf("due after cancel = %+v", rep)
	}
	list, err := s.Schedules(ctx)
	if err != nil || len(list.Schedules) != 1 || list.Schedules[0].State != "cancelled" || list.Schedules[0].CancelledAt == nil {
		t.Fatalf("list after cancel = %+v, %v", list, err)
	}
	if _, err := os.Stat(filepath.Join(s.defs.RetiredDir(), "nightly.md")); err != nil {
		t.Errorf("file not retired: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.defs.DefinitionsDir(), "nightly.md")); !os.IsNotExist(err) {
		t.Errorf("file still in definitions/: %v", err)
	}

	again, err := s.CancelSchedule(ctx, OwnerActor(), "nightly")
	if err != nil || !again.AlreadyCancelled || again.CancelledBy != opsActor || !again.CancelledAt.Equal(res.CancelledAt) {
		t.Fatalf("second cancel = %+v, %v", again, err)
	}
	var exists *ScheduleExistsError
	if _, _, err := createSchedule(s, ctx, opsActor, schedBody("k2", map[string]any{"id": "nightly", "cron": "30 2 * * *"})); !errors.As(err, &exists) || exists.State != "cancelled" {
		t.Fatalf("create with a cancelled ID = %v, want ScheduleExistsError(cancelled)", err)
	}
	if a := mustClaim(t, s, "nightly"); a.Admitted != nil || a.Hold != string(schedule.HoldInactive) {
		t.Errorf("claim of a cancelled schedule = %+v", a)
	}
	if _, err := s.CancelSchedule(ctx, opsActor, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("cancel unknown = %v", err)
	}
}

func TestScheduleCancelReportsTheRunningAttemptAndStopsAnUnstartedOne(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	for _, id := range []string{"running", "waiting"} {
		mustCreate(t, s, opsActor, schedBody("k-"+id, map[string]any{"id": id, "cron": "0 8 * * *", "zone": "UTC"}))
	}
	now.Set(testNow.Add(time.Hour + time.Minute)) // 08:01Z
	run := mustClaim(t, s, "running").Admitted
	wait := mustClaim(t, s, "waiting").Admitted
	if run == nil || wait == nil {
		t.Fatal("nothing admitted")
	}
	if _, err := s.StartAttempt(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	res, err := s.CancelSchedule(ctx, opsActor, "running")
	if err != nil || res.RunningOccurrence == nil || res.RunningOccurrence.ID != run.ID || res.RunningOccurrence.State != OccurrenceRunning || res.StoppedOccurrence != nil {
		t.Fatalf("cancel of a running schedule = %+v, %v", res, err)
	}
	// The attempt was not undone; it may still report, and is still reported.
	if again, _ := s.CancelSchedule(ctx, opsActor, "running"); again.RunningOccurrence == nil {
		t.Errorf("a repeated cancel forgot the running attempt: %+v", again)
	}
	if _, err := s.FinishOccurrence(ctx, run.ID, true, ""); err != nil {
		t.Errorf("the running attempt could not report after cancel: %v", err)
	}
	if _, err := s.StartAttempt(ctx, run.ID); !errors.Is(err, ErrOccurrenceClosed) {
		t.Errorf("a retry after cancel = %v, want ErrOccurrenceClosed", err)
	}

	res, err = s.CancelSchedule(ctx, opsActor, "waiting")
	if err != nil || res.RunningOccurrence != nil || res.StoppedOccurrence == nil || res.StoppedOccurrence.State != OccurrenceCancelled {
		t.Fatalf("cancel of an admitted, unstarted occurrence = %+v, %v", res, err)
	}
	if _, err := s.StartAttempt(ctx, wait.ID); !errors.Is(err, ErrOccurrenceClosed) {
		t.Errorf("start after cancel = %v, want ErrOccurrenceClosed", err)
	}
}

func TestScheduleAttemptsAreBoundedByTheApprovedLimit(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	mustCreate(t, s, opsActor, schedBody("k", map[string]any{"id": "two", "cron": "0 8 * * *", "zone": "UTC", "limits": map[string]any{"maxInvocations": 2, "deadlineSeconds": 120}}))
	now.Set(testNow.Add(time.Hour))
	occ := mustClaim(t, s, "two").Admitted
	for i := 1; i <= 2; i++ {
		o, err := s.StartAttempt(ctx, occ.ID)
		if err != nil || o.Attempts != i || o.DeadlineAt == nil || !o.DeadlineAt.Equal(now.Now().Add(2*time.Minute)) {
			t.Fatalf("attempt %d = %+v, %v", i, o, err)
		}
	}
	if _, err := s.StartAttempt(ctx, occ.ID); !errors.Is(err, ErrAttemptsExhausted) {
		t.Fatalf("third attempt = %v, want ErrAttemptsExhausted", err)
	}
}

func TestScheduleCatchUpAndExpiryAreAppliedByTheLedger(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "hourly", "cron": "0 * * * *", "zone": "UTC"}))
	mustCreate(t, s, opsActor, schedBody("k2", map[string]any{"id": "daily", "cron": "0 9 * * *", "zone": "UTC"}))

	// Down for five hours: one catch-up, the latest missed instant.
	now.Set(testNow.Add(5*time.Hour + 30*time.Minute)) // 12:30Z
	a := mustClaim(t, s, "hourly")
	if a.Admitted == nil || !a.Admitted.DueAt.Equal(time.Date(2026, 9, 29, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("catch-up = %+v", a)
	}
	if v := mustView(t, s, "hourly"); v.Counters.Admitted != 1 || v.NextDueAt == nil || !v.NextDueAt.Equal(testNow.Add(6*time.Hour)) {
		t.Fatalf("after catch-up: %+v", v)
	}

	// Admitted, never started: it expires 24 h after its due time and the instant due then runs.
	now.Set(time.Date(2026, 9, 30, 12, 0, 30, 0, time.UTC))
	a = mustClaim(t, s, "hourly")
	if a.Expired == nil || a.Expired.State != OccurrenceExpired || a.Admitted == nil || !a.Admitted.DueAt.Equal(time.Date(2026, 9, 30, 12, 0, 0, 0, time.UTC)) {
		t.Fatalf("expiry claim = %+v", a)
	}
	v := mustView(t, s, "hourly")
	if v.Counters.Expired != 1 || v.LastFinishedAt == nil || !v.LastFinishedAt.Equal(time.Date(2026, 9, 30, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("after expiry: %+v", v)
	}

	// Started and never reported: at expiry nothing new starts; the outcome is unknown.
	if _, err := s.StartAttempt(ctx, a.Admitted.ID); err != nil {
		t.Fatal(err)
	}
	now.Set(time.Date(2026, 10, 1, 12, 5, 0, 0, time.UTC))
	a = mustClaim(t, s, "hourly")
	if a.Admitted != nil || a.Hold != string(schedule.HoldInvestigate) || a.Expired == nil || a.Expired.State != OccurrenceUnknown {
		t.Fatalf("claim past a running attempt's freshness = %+v", a)
	}
	if rep := mustDue(t, s, now.Now()); heldOf(rep, "hourly") != "investigate" {
		t.Errorf("due = %+v, want hourly held for investigation", rep)
	}
	if _, err := s.StartAttempt(ctx, a.Expired.ID); !errors.Is(err, ErrOccurrenceClosed) {
		t.Errorf("retry of an unknown occurrence = %v", err)
	}

	// Daily, down for three days: only the newest instant within 24 h.
	now.Set(time.Date(2026, 10, 2, 10, 0, 0, 0, time.UTC))
	a = mustClaim(t, s, "daily")
	if a.Admitted == nil || !a.Admitted.DueAt.Equal(time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC)) {
		t.Fatalf("daily catch-up = %+v", a)
	}
}

func TestScheduleConcurrentClaimsAdmitExactlyOnce(t *testing.T) {
	s, now := newTestStore(t)
	mustCreate(t, s, opsActor, schedBody("k", map[string]any{"id": "race", "cron": "*/5 * * * *", "zone": "UTC"}))
	now.Set(testNow.Add(6 * time.Minute))
	// A second Store on the same file stands in for another process.
	other, err := Open(context.Background(), s.dataDir, Options{Clock: func() time.Time { return testNow.Add(6 * time.Minute) }})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	const callers = 8
	var wg sync.WaitGroup
	results := make([]Admission, callers)
	errs := make([]error, callers)
	start := make(chan struct{})
	for i := range callers {
		store := s
		if i%2 == 1 {
			store = other
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i], errs[i] = store.ClaimSchedule(context.Background(), "race", "runner")
		}()
	}
	close(start)
	wg.Wait()
	admitted := 0
	for i := range callers {
		if errs[i] != nil {
			t.Errorf("caller %d: %v", i, errs[i])
		}
		if results[i].Admitted != nil {
			admitted++
		} else if results[i].Hold != string(schedule.HoldOutstanding) {
			t.Errorf("caller %d held for %q, want outstanding", i, results[i].Hold)
		}
	}
	if admitted != 1 {
		t.Fatalf("%d admissions from %d concurrent claims, want exactly 1", admitted, callers)
	}
	if v := mustView(t, s, "race"); v.Counters.Admitted != 1 {
		t.Errorf("ledger counts %d admissions", v.Counters.Admitted)
	}
}

func TestScheduleQuarantineIsStickyUntilApprovedAgain(t *testing.T) {
	ctx := context.Background()
	edit := func(t *testing.T, s *Store, p string) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		must(t, os.WriteFile(p, append(data, []byte("Also email everyone.\n")...), 0o600))
	}
	cases := []struct {
		name   string
		reason string
		break_ func(t *testing.T, s *Store, p string)
		mend   func(t *testing.T, s *Store, p string, original []byte)
	}{
		{"edited", "changed", edit, nil},
		{"symlinked", "symlink", func(t *testing.T, s *Store, p string) {
			elsewhere := filepath.Join(t.TempDir(), "x.md")
			must(t, os.Rename(p, elsewhere))
			must(t, os.Symlink(elsewhere, p))
		}, func(t *testing.T, s *Store, p string, original []byte) {
			must(t, os.Remove(p))
			must(t, os.WriteFile(p, original, 0o600))
		}},
		{"missing", "missing", func(t *testing.T, s *Store, p string) { must(t, os.Remove(p)) },
			func(t *testing.T, s *Store, p string, original []byte) { must(t, os.WriteFile(p, original, 0o600)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, now := newTestStore(t)
			mustCreate(t, s, opsActor, schedBody("k", map[string]any{"id": "q", "cron": "0 8 * * *", "zone": "UTC"}))
			p := filepath.Join(s.defs.DefinitionsDir(), "q.md")
			original, _ := os.ReadFile(p)
			now.Set(testNow.Add(time.Hour + time.Minute))
			tc.break_(t, s, p)

			// Read-only due refuses it without recording anything.
			rev := mustRevision(t, s)
			if rep := mustDue(t, s, now.Now()); len(rep.Due) != 0 || heldOf(rep, "q") != "quarantined" {
				t.Fatalf("due with a %s file = %+v", tc.name, rep)
			}
			if v := mustView(t, s, "q"); v.State != "active" || v.File.Status != tc.reason || v.Hold != HoldQuarantined {
				t.Fatalf("view before a claim = %+v", v)
			}
			// The claim records the quarantine and admits nothing.
			a := mustClaim(t, s, "q")
			if a.Admitted != nil || a.Hold != HoldQuarantined || a.Reason != tc.reason {
				t.Fatalf("claim = %+v", a)
			}
			if v := mustView(t, s, "q"); v.State != "quarantined" || v.StateReason != tc.reason || mustRevision(t, s) != rev+1 {
				t.Fatalf("after claim: %+v", v)
			}
			// Putting the file back does not lift it.
			if tc.mend != nil {
				tc.mend(t, s, p, original)
			}
			if a := mustClaim(t, s, "q"); a.Admitted != nil {
				t.Fatalf("claim after the file was put back = %+v", a)
			}
			v := mustView(t, s, "q")
			if _, err := s.ApproveSchedule(ctx, "q", "sha256:"+"00"); !errors.Is(err, ErrFileChanged) {
				t.Fatalf("approve of a fingerprint not shown = %v", err)
			}
			if _, err := s.ApproveSchedule(ctx, "q", v.File.Fingerprint); err != nil {
				t.Fatalf("approve again: %v", err)
			}
			if a := mustClaim(t, s, "q"); a.Admitted != nil {
				t.Fatalf("an instant due while it was held was caught up: %+v", a)
			}
			now.Set(testNow.Add(25*time.Hour + time.Minute))
			a = mustClaim(t, s, "q")
			if a.Admitted == nil {
				t.Fatalf("claim after approval = %+v", a)
			}
			if tc.name == "edited" && a.Prompt == schedulesPrompt(original) {
				t.Error("the claim did not run the newly approved prompt")
			}
		})
	}
}

// schedulesPrompt is the prompt of a definition file's bytes.
func schedulesPrompt(file []byte) string {
	d, err := schedule.ParseDefinition("q", file)
	if err != nil {
		return ""
	}
	return d.Prompt
}

func TestScheduleApproveRefusesWhatCannotBeApproved(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	mustCreate(t, s, opsActor, schedBody("k", map[string]any{"id": "link", "cron": "0 8 * * *", "zone": "UTC"}))
	p := filepath.Join(s.defs.DefinitionsDir(), "link.md")
	elsewhere := filepath.Join(t.TempDir(), "x.md")
	must(t, os.Rename(p, elsewhere))
	must(t, os.Symlink(elsewhere, p))
	var na *NotApprovableError
	if _, err := s.ApproveSchedule(ctx, "link", "sha256:x"); !errors.As(err, &na) || na.Reason != schedule.QuarantineSymlink {
		t.Fatalf("approve a symlink = %v", err)
	}
	if _, err := s.CancelSchedule(ctx, OwnerActor(), "link"); err != nil {
		t.Fatalf("cancel of a quarantined schedule: %v", err)
	}
	if _, err := s.ApproveSchedule(ctx, "link", "sha256:x"); !errors.Is(err, ErrScheduleClosed) {
		t.Fatalf("approve a cancelled schedule = %v", err)
	}
}

func TestScheduleRevokedApproverStopsWorkUntilTheOwnerApproves(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	cred, _, err := s.CreateCredential(ctx, "ops", []string{ScopeSchedulesAdmin})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, OperatorActor(cred), schedBody("k", map[string]any{"id": "r", "cron": "0 8 * * *", "zone": "UTC"}))
	if _, err := s.RevokeCredential(ctx, "ops"); err != nil {
		t.Fatal(err)
	}
	now.Set(testNow.Add(time.Hour + time.Minute))
	if rep := mustDue(t, s, now.Now()); len(rep.Due) != 0 || heldOf(rep, "r") != HoldApprovalRevoked {
		t.Fatalf("due = %+v", rep)
	}
	if a := mustClaim(t, s, "r"); a.Admitted != nil || a.Hold != HoldApprovalRevoked {
		t.Fatalf("claim = %+v", a)
	}
	v := mustView(t, s, "r")
	if _, err := s.ApproveSchedule(ctx, "r", v.File.Fingerprint); err != nil {
		t.Fatal(err)
	}
	if v := mustView(t, s, "r"); v.ApprovedBy != ActorOwner || v.CreatedBy.ID != cred.ID || v.Hold != "" {
		t.Errorf("after the owner approved: %+v", v)
	}
}

// interrupt runs fn in a goroutine whose Pause hook ends the goroutine at
// point, as a crash there would end the process (deferred unlocks run, so
// the same Store can recover).
func interrupt(t *testing.T, s *Store, point string, fn func()) {
	t.Helper()
	s.pause = func(p string) {
		if p == point {
			runtime.Goexit()
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
	s.pause = nil
}

func TestScheduleJournalCompletesOrRollsBackAnInterruptedWrite(t *testing.T) {
	s, _ := newTestStore(t)
	ctx := context.Background()
	body := schedBody("k-file", map[string]any{"id": "j1", "cron": "0 8 * * *", "zone": "UTC"})

	// File written, ledger row not committed: completed at recovery.
	interrupt(t, s, PauseFileWritten, func() { createSchedule(s, ctx, opsActor, body) })
	if _, err := s.Schedule(ctx, "j1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("row visible before recovery: %v", err)
	}
	rec, err := s.RecoverSchedules(ctx)
	if err != nil || rec.Completed != 1 {
		t.Fatalf("recover = %+v, %v", rec, err)
	}
	if v := mustView(t, s, "j1"); v.State != "active" {
		t.Fatalf("recovered = %+v", v)
	}
	if _, created, err := createSchedule(s, ctx, opsActor, body); err != nil || created {
		t.Fatalf("retry after recovery: created %v, %v; want the receipt", created, err)
	}

	// Intent committed, no file: rolled back, and a retry creates it.
	body2 := schedBody("k-intent", map[string]any{"id": "j2", "cron": "0 8 * * *", "zone": "UTC"})
	interrupt(t, s, PauseJournalWritten, func() { createSchedule(s, ctx, opsActor, body2) })
	if rec, err := s.RecoverSchedules(ctx); err != nil || rec.RolledBack != 1 {
		t.Fatalf("recover = %+v, %v", rec, err)
	}
	if _, err := s.Schedule(ctx, "j2"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rolled-back add left a row: %v", err)
	}
	mustCreate(t, s, opsActor, body2)

	// Cancel committed, file not retired: the next schedule write retires it.
	interrupt(t, s, PauseCancelCommitted, func() { s.CancelSchedule(ctx, opsActor, "j2") })
	if v := mustView(t, s, "j2"); v.State != "cancelled" {
		t.Fatalf("cancel not committed: %+v", v)
	}
	if _, err := os.Stat(filepath.Join(s.defs.DefinitionsDir(), "j2.md")); err != nil {
		t.Fatalf("file moved before the interruption point: %v", err)
	}
	if _, err := s.CancelSchedule(ctx, opsActor, "j1"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"j1", "j2"} {
		if _, err := os.Stat(filepath.Join(s.defs.RetiredDir(), id+".md")); err != nil {
			t.Errorf("%s not retired: %v", id, err)
		}
	}
}

func TestScheduleRestoredBackupWaitsForTheOwner(t *testing.T) {
	s, now := newTestStore(t)
	ctx := context.Background()
	mustCreate(t, s, opsActor, schedBody("k1", map[string]any{"id": "b1", "cron": "0 8 * * *", "zone": "UTC"}))
	mustCreate(t, s, opsActor, schedBody("k2", map[string]any{"id": "b2", "cron": "0 9 * * *", "zone": "UTC"}))
	mustCreate(t, s, opsActor, schedBody("k3", map[string]any{"id": "b3", "cron": "0 9 * * *", "zone": "UTC"}))
	if _, err := s.CancelSchedule(ctx, opsActor, "b3"); err != nil {
		t.Fatal(err)
	}
	now.Set(testNow.Add(time.Hour + time.Minute))
	occ := mustClaim(t, s, "b1").Admitted

	backup := filepath.Join(t.TempDir(), "hearth.db")
	rep, err := s.Backup(ctx, backup)
	if err != nil || rep.DefinitionFiles != 3 || len(rep.Skipped) != 0 {
		t.Fatalf("backup = %+v, %v", rep, err)
	}
	// A server left on the live database is not a restore.
	if rec, err := s.RecoverSchedules(ctx); err != nil || !rec.RestoredFrom.IsZero() {
		t.Fatalf("live recovery = %+v, %v", rec, err)
	}

	// Restore: the copy and its schedules directory into a new data dir.
	dir := t.TempDir()
	copyTree(t, backup, DatabasePath(dir))
	copyTree(t, BackupSchedulesDir(backup), filepath.Join(dir, "schedules"))
	r, err := Open(ctx, dir, Options{Clock: now.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec, err := r.RecoverSchedules(ctx)
	if err != nil || rec.Restored != 2 || rec.RestoredFrom.IsZero() {
		t.Fatalf("recover on the restored copy = %+v, %v", rec, err)
	}
	for id, want := range map[string]string{"b1": "restore_pending", "b2": "restore_pending", "b3": "cancelled"} {
		if v := mustView(t, r, id); v.State != want {
			t.Errorf("%s is %s, want %s", id, v.State, want)
		}
	}
	v := mustView(t, r, "b1")
	if v.Outstanding == nil || v.Outstanding.ID != occ.ID || v.Outstanding.State != OccurrenceUnknown {
		t.Errorf("restored outstanding occurrence = %+v", v.Outstanding)
	}
	now.Set(testNow.Add(25*time.Hour + time.Minute))
	if due := mustDue(t, r, now.Now()); len(due.Due) != 0 || heldOf(due, "b1") != "restore_pending" || heldOf(due, "b2") != "restore_pending" {
		t.Fatalf("due on the restored copy = %+v", due)
	}
	if a := mustClaim(t, r, "b2"); a.Admitted != nil {
		t.Fatalf("claim of a restore_pending schedule = %+v", a)
	}
	// A second start does not restore again.
	if rec, err := r.RecoverSchedules(ctx); err != nil || rec.Restored != 0 {
		t.Fatalf("second recover = %+v, %v", rec, err)
	}
	if _, err := r.ApproveSchedule(ctx, "b1", v.File.Fingerprint); err != nil {
		t.Fatal(err)
	}
	v = mustView(t, r, "b1")
	if v.State != "active" || v.Outstanding != nil {
		t.Fatalf("after the owner's reconciliation: %+v", v)
	}
	now.Set(testNow.Add(49*time.Hour + time.Minute))
	if a := mustClaim(t, r, "b1"); a.Admitted == nil {
		t.Fatalf("claim after reconciliation = %+v", a)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	fi, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IsDir() {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		must(t, os.WriteFile(to, b, 0o600))
		return
	}
	must(t, os.MkdirAll(to, 0o700))
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		copyTree(t, filepath.Join(from, e.Name()), filepath.Join(to, e.Name()))
	}
}

func TestScheduleNextReportsGapsInTheScheduleZone(t *testing.T) {
	s, now := newTestStore(t)
	now.Set(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	mustCreate(t, s, opsActor, schedBody("k", map[string]any{"id": "night", "cron": "30 2 * * *", "zone": "America/New_York"}))
	res, err := s.NextSchedule(context.Background(), "night", time.Date(2026, 3, 7, 12, 0, 0, 0, time.UTC), 2)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	want := `{"scheduleId":"night","zone":"America/New_York","zoneSource":"explicit","next":[{"dueAt":"2026-03-09T02:30:00-04:00"},{"dueAt":"2026-03-10T02:30:00-04:00"}],"skipped":[{"wallTime":"2026-03-08T02:30","reason":"nonexistent"}]}`
	if string(b) != want {
		t.Errorf("next =\n%s\nwant\n%s", b, want)
	}
	if _, err := s.NextSchedule(context.Background(), "nope", now.Now(), 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("next of unknown = %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestScheduleOutstandingIndexRefusesASecondOccurrence checks the schema's
// own guard, which holds whatever a claim's evaluation said.
func TestScheduleOutstandingIndexRefusesASecondOccurrence(t *testing.T) {
	s, now := newTestStore(t)
	mustCreate(t, s, opsActor, schedBody("k", map[string]any{"id": "idx", "cron": "0 * * * *", "zone": "UTC"}))
	now.Set(testNow.Add(time.Hour))
	mustClaim(t, s, "idx")
	insert := func(due time.Time, state string) error {
		return s.db.Exec(`INSERT INTO schedule_occurrences (id, schedule_id, due_at, state, max_attempts, expires_at, claimed_by, claimed_at, updated_at)
			VALUES (?, 'idx', ?, ?, 3, ?, 'x', ?, ?)`, "idx/"+due.Format(time.RFC3339), due, state, due.Add(24*time.Hour), due, due).Error
	}
	for _, state := range []string{OccurrenceAdmitted, OccurrenceRunning, OccurrenceUnknown} {
		if err := insert(testNow.Add(2*time.Hour), state); err == nil {
			t.Errorf("a second %s occurrence was stored beside an outstanding one", state)
		}
	}
	if err := insert(testNow.Add(-time.Hour), OccurrenceSucceeded); err != nil {
		t.Errorf("a finished occurrence beside an outstanding one: %v", err)
	}
}

// TestScheduleCancelWhoseFileCannotMoveIsRecordedAndBlocksNothing: a
// definition file that cannot be moved to retired/ (a directory in its
// place; another file already retired under the ID, as a restore or a
// backup taken mid-cancel leaves) is recorded on the cancelled schedule
// with why, in the answer too, and never fails a later schedule write or
// serve's start; an interrupted cancel finished at start likewise.
func TestScheduleCancelWhoseFileCannotMoveIsRecordedAndBlocksNothing(t *testing.T) {
	cases := map[string]func(t *testing.T, s *Store, id string){
		"a directory in place of the file": func(t *testing.T, s *Store, id string) {
			p := filepath.Join(s.defs.DefinitionsDir(), id+".md")
			must(t, os.Remove(p))
			must(t, os.Mkdir(p, 0o700))
		},
		"another file already retired": func(t *testing.T, s *Store, id string) {
			must(t, os.MkdirAll(s.defs.RetiredDir(), 0o700))
			must(t, os.WriteFile(filepath.Join(s.defs.RetiredDir(), id+".md"), []byte("an older file\n"), 0o600))
		},
	}
	for name, obstruct := range cases {
		t.Run(name, func(t *testing.T) {
			s, _ := newTestStore(t)
			ctx := context.Background()
			mustCreate(t, s, opsActor, schedBody("k-stuck", map[string]any{"id": "stuck", "cron": "0 8 * * *", "zone": "UTC"}))
			mustCreate(t, s, opsActor, schedBody("k-late", map[string]any{"id": "late", "cron": "0 9 * * *", "zone": "UTC"}))
			obstruct(t, s, "stuck")
			res, err := s.CancelSchedule(ctx, OwnerActor(), "stuck")
			if err != nil || res.State != "cancelled" || res.FileNotRetired == "" {
				t.Fatalf("cancel = %+v, %v; want cancelled, with why the file stayed", res, err)
			}
			v := mustView(t, s, "stuck")
			if v.State != "cancelled" || v.StateReason != ReasonFileNotRetired || v.StateDetail != "cancelled by owner; "+res.FileNotRetired {
				t.Errorf("view = %s/%s %q, want cancelled/%s, by whom and %q", v.State, v.StateReason, v.StateDetail, ReasonFileNotRetired, res.FileNotRetired)
			}

			// The same obstruction met by an interrupted cancel at serve's start.
			interrupt(t, s, PauseCancelCommitted, func() { s.CancelSchedule(ctx, opsActor, "late") })
			obstruct(t, s, "late")
			if _, err := s.RecoverSchedules(ctx); err != nil {
				t.Fatalf("start after an unmovable cancel: %v", err)
			}
			if v := mustView(t, s, "late"); v.State != "cancelled" || v.StateReason != ReasonFileNotRetired || !strings.Contains(v.StateDetail, "retired/") {
				t.Errorf("recovered view = %s/%s %q", v.State, v.StateReason, v.StateDetail)
			}
			mustCreate(t, s, opsActor, schedBody("k-next", map[string]any{"id": "next", "cron": "0 8 * * *", "zone": "UTC"}))
			if again, err := s.CancelSchedule(ctx, opsActor, "stuck"); err != nil || !again.AlreadyCancelled {
				t.Errorf("cancel again = %+v, %v", again, err)
			}
			if _, err := s.CancelSchedule(ctx, opsActor, "next"); err != nil {
				t.Errorf("a later cancel: %v", err)
			}
		})
	}
}
