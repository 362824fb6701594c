package cli

import (
	"errors"
	"fmt"
	"testing"

	"hearth/internal/apiclient"
)

// TestAnErrorWithoutAnExitCodeExitsTwoOnlyWhenHearthWasUnavailable pins
// the mapping that replaced exit codes carried inside every client error:
// 2 (retry later) for a transport failure, a 5xx, a 429, a body that is not
// hearth's envelope or an unreadable 2xx; 1 for anything else.
func TestAnErrorWithoutAnExitCodeExitsTwoOnlyWhenHearthWasUnavailable(t *testing.T) {
	envelope := []byte(`{"code":"unauthorized","message":"no"}`)
	for _, c := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("hearth unreachable: %w", &apiclient.TransportError{Err: errors.New("connection refused")}), ExitUnavailable},
		{apiclient.Response{Status: 503, Body: envelope}.Err(), ExitUnavailable},
		{apiclient.Response{Status: 429, Body: envelope}.Err(), ExitUnavailable},
		{apiclient.Response{Status: 401, Body: []byte("<html>")}.Err(), ExitUnavailable},
		{&apiclient.DecodeError{Status: 200, Err: errors.New("EOF")}, ExitUnavailable},
		{apiclient.Response{Status: 401, Body: envelope}.Err(), ExitRejected},
		{apiclient.Response{Status: 409, Body: envelope}.Err(), ExitRejected},
		{fmt.Errorf("run r of j failed: agent: exited"), ExitRejected},
	} {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("%v: exit %d, want %d", c.err, got, c.want)
		}
	}
}
