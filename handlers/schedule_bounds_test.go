package handlers_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
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
	// The request: nothing is journalled, so later writes work.
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
