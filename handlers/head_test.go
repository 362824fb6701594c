package handlers_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// Lighthouse names a linked stylesheet as render-blocking and a page without
// a meta description; each page carries its own description and its styles
// inline, allowed by their hash in the CSP rather than by 'unsafe-inline'.
func TestPagesCarryADescriptionAndInlineStylesAllowedByHash(t *testing.T) {
	t.Parallel()
	ta, cookie := homeApp(t)
	seen := map[string]string{}
	for _, path := range []string{"/", "/people", "/routines", "/weight", "/more", "/schedules", "/runs", "/login"} {
		var resp response
		if path == "/login" {
			resp = ta.get(path, "", nil)
		} else {
			resp = ta.ownerRequest(http.MethodGet, path, nil, false, cookie)
		}
		if resp.status != http.StatusOK {
			t.Fatalf("%s: %s", path, resp)
		}
		d := resp.doc(t)
		desc, _ := d.Find(`head meta[name="description"]`).Attr("content")
		if len(desc) < 20 {
			t.Errorf("%s: meta description %q", path, desc)
		}
		if other, dup := seen[desc]; dup {
			t.Errorf("%s has the same description as %s: %q", path, other, desc)
		}
		seen[desc] = path
		if n := d.Find(`link[rel="stylesheet"]`).Length(); n != 0 {
			t.Errorf("%s links %d render-blocking stylesheets", path, n)
		}
		styles := d.Find(`head style`)
		if styles.Length() != 1 || !strings.Contains(styles.Text(), "body") {
			t.Fatalf("%s: %d inline style elements", path, styles.Length())
		}
		sum := sha256.Sum256([]byte(styles.Text()))
		want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		csp := resp.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "style-src 'self' "+want+";") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q does not allow the inline styles by %s alone", path, csp, want)
		}
		if d.Find(`[style]`).Length() != 0 {
			t.Errorf("%s: a style attribute, which the CSP blocks", path)
		}
	}
}
