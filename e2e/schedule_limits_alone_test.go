package e2e

import (
	"strings"
	"testing"

	"hearth/models"
)

func TestScheduleAddTakesDeadlineAndMaxInvocationsEachAlone(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "")
	ops := newScheduleCLI(t, srv, "ops", models.ScopeSchedulesAdmin)
	for _, c := range []struct {
		id       string
		flags    []string
		max      int
		deadline int64
	}{
		{"deadline-alone", []string{"--deadline", "5m"}, 3, 300},
		{"max-alone", []string{"--max-invocations", "2"}, 2, 600},
		{"both", []string{"--deadline", "10m", "--max-invocations", "1"}, 1, 600},
		{"neither", nil, 3, 600},
	} {
		args := append([]string{"add", "--id", c.id, "--job", "j", "--cron", "0 9 * * *", "--zone", "UTC", "--prompt", "x"}, c.flags...)
		wantExit(t, ops.run(t, args...), 0, "stdout", "created schedule "+c.id)
	}
	var list struct {
		Schedules []struct {
			ID     string
			Limits struct {
				MaxInvocations  int   `json:"maxInvocations"`
				DeadlineSeconds int64 `json:"deadlineSeconds"`
			}
		}
	}
	res := ops.run(t, "list", "--json")
	oneJSONObject(t, res, &list)
	got := map[string][2]int64{}
	for _, s := range list.Schedules {
		got[s.ID] = [2]int64{int64(s.Limits.MaxInvocations), s.Limits.DeadlineSeconds}
	}
	for id, want := range map[string][2]int64{"deadline-alone": {3, 300}, "max-alone": {2, 600}, "both": {1, 600}, "neither": {3, 600}} {
		if got[id] != want {
			t.Errorf("schedule %s: limits (maxInvocations, deadlineSeconds) %v, want %v", id, got[id], want)
		}
	}

	// Out of bounds alone: the server's bound, not a complaint about null.
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--deadline", "30s"}, "/limits/deadlineSeconds"},
		{[]string{"--max-invocations", "4"}, "/limits/maxInvocations"},
	} {
		res := ops.run(t, append([]string{"add", "--job", "j", "--cron", "0 9 * * *", "--prompt", "x"}, c.flags...)...)
		wantExit(t, res, 1, "stderr", c.want)
		if strings.Contains(res.stderr, "null") {
			t.Errorf("%v: %s", c.flags, res.stderr)
		}
	}
}
