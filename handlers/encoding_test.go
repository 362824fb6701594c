package handlers_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestEveryPageIsEncodedOneWay asks a rendered page (the login page) with
// each Accept-Encoding a browser or a client sends: HTML is gzip when gzip
// is taken and identity otherwise, like Home and Routines from the page
// cache, never brotli from a second encoder.
func TestEveryPageIsEncodedOneWay(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	cases := []struct {
		path, acceptEncoding, want string
	}{
		{"/login", "gzip, deflate, br, zstd", "gzip"},
		{"/login", "br", ""},
		{"/login", "", ""},
	}
	for _, tc := range cases {
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		if tc.acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", tc.acceptEncoding)
		}
		r := ta.do(req)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %s", tc.path, r)
		}
		if got := r.header.Get("Content-Encoding"); got != tc.want {
			t.Errorf("%s with Accept-Encoding %q: Content-Encoding %q, want %q", tc.path, tc.acceptEncoding, got, tc.want)
		}
		if got := r.header.Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("%s with Accept-Encoding %q: Vary %q, want Accept-Encoding", tc.path, tc.acceptEncoding, got)
		}
	}
}
