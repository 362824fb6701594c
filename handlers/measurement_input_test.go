package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestMeasurementAcceptsPlainDecimalsOnly(t *testing.T) {
	ta, cookie := homeApp(t)
	id := "weigh-in-" + testDate
	// Each of these is a number to strconv.ParseFloat, and most are in range.
	for _, input := range []string{
		"0x1p6", "0X1P6", "0x48p0", "1e2", "7.24e1", "72.4E0", "Inf", "+Inf", "-Inf", "infinity", "NaN", "nan",
		"+72", "-72", "7 2", "72 .4", "72. 4", "72..4", "72.", ".5", ",5", "72,4,1", "72.4.1", "72.4kg", "1_000", "72_4",
		"٧٢", "７２", "72\u00a0.4",
	} {
		before := ta.revision()
		resp := ta.ownerRequest(http.MethodPost, "/activities/"+id+"/measurement", url.Values{"value": {input}}, true, cookie)
		if resp.status != http.StatusUnprocessableEntity {
			t.Errorf("%q: %d, want 422", input, resp.status)
			continue
		}
		if msg := has(t, resp.doc(t), `[data-testid="measurement-error"]`).Text(); !strings.Contains(msg, "Enter a number") {
			t.Errorf("%q: error %q, want \"Enter a number\"", input, msg)
		}
		if ta.revision() != before {
			t.Errorf("%q: a refused value changed the revision", input)
		}
	}
	// Plain decimals, with a point or a comma, and the spaces a phone
	// keyboard leaves around them.
	for input, shown := range map[string]string{"72": "72 kg", "72.4": "72.4 kg", "72,5": "72.5 kg", " 71.9 ": "71.9 kg", "070.5": "70.5 kg"} {
		resp := ta.ownerRequest(http.MethodPost, "/activities/"+id+"/measurement", url.Values{"value": {input}}, true, cookie)
		if resp.status != http.StatusOK {
			t.Errorf("%q: %s", input, resp)
			continue
		}
		if saved := has(t, resp.doc(t), `[data-testid="measurement-saved"]`).Text(); !strings.Contains(saved, shown) {
			t.Errorf("%q: saved %q, want %q", input, saved, shown)
		}
	}
}
