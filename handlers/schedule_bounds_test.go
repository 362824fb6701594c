package handlers_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"hearth/models"
)

func TestScheduleCreateRefusesInstantsOutsideTheBoundBeforeWriting(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ops := ta.agentToken(models.ScopeSchedulesAdmin)
	defs := filepath.Join(filepath.Dir(ta.store.Path()), "schedules", "definitions")
	for _, b := range outOfBound {
		for _, field := range []string{"at", "endAt"} {
			t.Run(field+" "+b.name, func(t *testing.T) {
				ta := ta.in(t)
				rule := `"at":"` + b.value + `"`
				if field == "endAt" {
					rule = `"cron":"0 8 * * *","endAt":"` + b.value + `"`
				}
				id := safeID("bound-" + field + "-" + b.name)
				body := `{"requestKey":"` + id + `","id":"` + id + `","job":"j",` + rule + `,"zone":"Pacific/Kiritimati","prompt":"x"}`
				wantFieldError(t, ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, body), "invalid_request", "/"+field, b.message)
				if _, err := os.Lstat(filepath.Join(defs, id+".md")); err == nil {
					t.Error("a refused schedule left a definition file")
				}
			})
		}
	}
	// A schedule due after year 9999: nothing is journalled, so later writes work.
	r := ta.schedReq(http.MethodPost, "/api/schedules", ops, nil,
		`{"requestKey":"k-far","id":"far","job":"j","at":"9999-12-31T12:00:00Z","zone":"Pacific/Kiritimati","prompt":"x"}`)
	wantFieldError(t, r, "invalid_request", "/at", "out of range")
	ta.mustCreateSchedule(ops, "k-next", "next")
	if r := ta.schedReq(http.MethodPost, "/api/schedules/next/cancel", ops, nil, ""); r.status != http.StatusOK {
		t.Fatalf("cancel after a refused create: %s", r)
	}
	if r := ta.schedReq(http.MethodGet, "/api/schedules", ops, nil, ""); r.status != http.StatusOK {
		t.Fatalf("list: %s", r)
	}
}

func TestScheduleQueriesRefuseInstantsOutsideTheBound(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ops := ta.agentToken(models.ScopeSchedulesAdmin, models.ScopeSchedulesRead)
	ta.mustCreateSchedule(ops, "k-daily", "daily")
	for _, b := range outOfBound {
		for _, q := range []struct{ name, path string }{
			{"now", "/api/schedules/due?now="},
			{"from", "/api/schedules/daily/next?from="},
		} {
			t.Run(q.name+" "+b.name, func(t *testing.T) {
				ta := ta.in(t)
				wantFieldError(t, ta.schedReq(http.MethodGet, q.path+url.QueryEscape(b.value), ops, nil, ""), "invalid_request", q.name, b.message)
			})
		}
	}
	// In range, the latest instants still answer.
	for _, path := range []string{"/api/schedules/due?now=2199-12-31T23:59:59Z", "/api/schedules/daily/next?count=100&from=2199-12-31T00:00:00Z"} {
		if r := ta.schedReq(http.MethodGet, path, ops, nil, ""); r.status != http.StatusOK {
			t.Errorf("%s: %s", path, r)
		}
	}
}

func TestAScheduleWhoseDefinitionCannotBeReadDoesNotFailReads(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	ops := ta.agentToken(models.ScopeSchedulesAdmin, models.ScopeSchedulesRead)
	ta.mustCreateSchedule(ops, "k-ok", "ok")
	row := func(id, snapshot string) string {
		return `INSERT INTO schedules (id, job, creator_kind, creator_id, creator_name, approved_by, approved_at, approved_fingerprint,
			approved_snapshot, state, state_changed_at, zone, zone_source, request_key, request_hash, receipt, since, next_due_at, revision,
			created_at, updated_at) VALUES ('` + id + `', 'j', 'operator', 'cred_old', 'ops', 'cred_old', '2026-09-29 06:00:00+00:00', 'sha256:old',
			'` + snapshot + `', 'active', '2026-09-29 06:00:00+00:00', 'UTC', 'explicit', 'k-` + id + `', 'h', '{}',
			'2026-09-29 06:00:00+00:00', '9999-12-31 12:00:00+00:00', 1, '2026-09-29 06:00:00+00:00', '2026-09-29 06:00:00+00:00')`
	}
	// An older hearth's one-off in year 9999 (its receipt encoded in UTC),
	// and a damaged snapshot.
	storedByAnOlderHearth(t, ta,
		row("far", `{"at":"9999-12-31T12:00:00Z","format":"hearth.schedule.v1","id":"far","job":"j","limits":{"deadlineSeconds":600,"maxInvocations":3},"notifyOnSuccess":false,"prompt":"x","zone":"UTC"}`),
		row("damaged", `{"format":`))

	r := ta.get("/schedules", "", cookie)
	if r.status != http.StatusOK {
		t.Fatalf("Schedules page: %s", r)
	}
	d := r.doc(t)
	for _, id := range []string{"far", "damaged"} {
		li := has(t, d, `[data-testid="schedule"][data-id="`+id+`"]`)
		if got := text(li.Find(`[data-testid="schedule-state"]`)); got != "held: definition unreadable" {
			t.Errorf("%s state %q", id, got)
		}
		if li.Find(`[data-testid="schedule-unreadable"]`).Length() != 1 || li.Find(`[data-testid="cancel-schedule"]`).Length() != 1 {
			t.Errorf("%s: no reason or no Cancel: %q", id, text(li))
		}
	}
	has(t, d, `[data-testid="schedule"][data-id="ok"][data-state="active"]`)
	if r := ta.schedReq(http.MethodGet, "/api/schedules", ops, nil, ""); r.status != http.StatusOK || !strings.Contains(string(r.body), `"unreadable":"the approved definition cannot be read: at: out of range`) {
		t.Errorf("list: %s", r)
	}
	if r := ta.schedReq(http.MethodGet, "/api/schedules/due", ops, nil, ""); r.status != http.StatusOK || !strings.Contains(string(r.body), `{"scheduleId":"far","hold":"quarantined","reason":"unreadable"}`) {
		t.Errorf("due: %s", r)
	}
	assertError(t, ta.schedReq(http.MethodGet, "/api/schedules/far/next", ops, nil, ""), http.StatusConflict, "schedule_unreadable")
	if r := ta.schedReq(http.MethodPost, "/api/schedules/far/cancel", ops, nil, ""); r.status != http.StatusOK {
		t.Errorf("cancel: %s", r)
	}
}
