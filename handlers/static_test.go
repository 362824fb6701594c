package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestStaticFilesAreGzippedOnlyWhenGzipIsTaken: a static file is gzipped
// when the client takes gzip at any weight, and sent as it is when it names
// no encoding, names others only, or refuses gzip with q=0 (which a
// substring test of the header read as taking it).
func TestStaticFilesAreGzippedOnlyWhenGzipIsTaken(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	for _, tc := range []struct{ acceptEncoding, want string }{
		{"gzip, deflate, br, zstd", "gzip"},
		{"br;q=1.0, gzip;q=0.5", "gzip"},
		{"", ""},
		{"br", ""},
		{"gzip;q=0", ""},
		{"br, gzip;q=0", ""},
		{"identity", ""},
	} {
		req := httptest.NewRequest(http.MethodGet, "/static/hearth.js", nil)
		if tc.acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", tc.acceptEncoding)
		}
		r := ta.do(req)
		if r.status != http.StatusOK {
			t.Fatalf("Accept-Encoding %q: %s", tc.acceptEncoding, r)
		}
		if got := r.header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", tc.acceptEncoding, got, tc.want)
		}
		if got := r.header.Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: Vary %q, want Accept-Encoding", tc.acceptEncoding, got)
		}
	}
}
