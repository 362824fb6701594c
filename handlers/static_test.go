package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A static file or a page is gzipped when the client takes gzip at any
// weight, and sent as it is when it names no encoding, names others only,
// or refuses gzip with q=0 (which a substring test of the header read as
// taking it).
func TestStaticFilesAndPagesAreGzippedOnlyWhenGzipIsTaken(t *testing.T) {
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
		for _, path := range []string{"/static/hearth.js", "/login"} {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			if tc.acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", tc.acceptEncoding)
			}
			r := ta.do(req)
			if r.status != http.StatusOK {
				t.Fatalf("%s with Accept-Encoding %q: %s", path, tc.acceptEncoding, r)
			}
			if got := r.header.Get("Content-Encoding"); got != tc.want {
				t.Errorf("%s with Accept-Encoding %q: Content-Encoding %q, want %q", path, tc.acceptEncoding, got, tc.want)
			}
			if got := r.header.Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("%s with Accept-Encoding %q: Vary %q, want Accept-Encoding", path, tc.acceptEncoding, got)
			}
		}
	}
}
