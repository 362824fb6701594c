package e2e

import (
	"strings"
	"testing"
)

func TestScheduleCLIRefusesTimesOutsideTheBound(t *testing.T) {
	t.Parallel()
	// No server: the flags are checked before anything touches the network.
	cli := scheduleCLI{url: "http://" + freeAddr(t), credFile: writeFile(t, t.TempDir(), "token", []byte("hearth_unused\n"), 0o600)}
	for _, v := range []struct{ name, value, message string }{
		{"year 10000", "9999-12-31T23:59:59-12:00", "out of range"},
		{"before 2000", "1999-12-31T23:59:59Z", "out of range"},
		{"offset +24:00", "2026-09-29T07:00:00+24:00", "offset out of range"},
		{"offset +23:60", "2026-09-29T07:00:00+23:60", "offset out of range"},
	} {
		for _, tc := range []struct {
			flag string
			args []string
		}{
			{"--at", []string{"add", "--job", "j", "--prompt", "x", "--at", v.value}},
			{"--end-at", []string{"add", "--job", "j", "--prompt", "x", "--cron", "0 8 * * *", "--end-at", v.value}},
			{"--now", []string{"due", "--now", v.value}},
			{"--from", []string{"next", "some-id", "--from", v.value}},
		} {
			t.Run(tc.flag+" "+v.name, func(t *testing.T) {
				res := cli.run(t, tc.args...)
				wantExit(t, res, 1, "stderr", tc.flag)
				wantExit(t, res, 1, "stderr", v.message)
				if strings.Contains(res.stderr, "unreachable") {
					t.Errorf("the flag was sent to a server: %s", res.stderr)
				}
			})
		}
	}
}
