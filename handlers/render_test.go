package handlers

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
)

// TestRenderChoosesStatusCharsetEncodingAndFragment drives the one render
// helper through the app's own compression middleware: the status and
// UTF-8 Content-Type of every answer, gzip exactly when the client takes it
// (and no second encoding by the middleware), and for htmx the fragment.
func TestRenderChoosesStatusCharsetEncodingAndFragment(t *testing.T) {
	page := "<html><body>" + strings.Repeat("the whole page ", 40) + "</body></html>"
	fragment := "<li>" + strings.Repeat("one row ", 40) + "</li>"
	s := &Server{log: slog.New(slog.DiscardHandler)}
	app := fiber.New()
	app.Use(compressOthers())
	app.Get("/both", func(c *fiber.Ctx) error {
		return s.render(c, fiber.StatusUnprocessableEntity, pageOrFragment(templ.Raw(page), templ.Raw(fragment)))
	})
	app.Get("/page", func(c *fiber.Ctx) error { return s.render(c, fiber.StatusOK, viewOf(templ.Raw(page))) })
	app.Get("/tiny", func(c *fiber.Ctx) error { return s.render(c, fiber.StatusOK, viewOf(templ.Raw("<p>ok</p>"))) })
	app.Get("/refused", func(c *fiber.Ctx) error {
		v := viewOf(templ.Raw(page))
		v.wholeBody = true
		return s.render(c, fiber.StatusConflict, v)
	})
	app.Get("/json", func(c *fiber.Ctx) error { return c.JSON(map[string]string{"text": fragment}) })

	cases := []struct {
		name, path, acceptEncoding string
		htmx                       bool
		status                     int
		contentType, encoding      string
		body, retarget             string
	}{
		{name: "page, no encoding asked", path: "/both", status: 422, contentType: "text/html; charset=utf-8", body: page},
		{name: "page gzipped when taken", path: "/both", acceptEncoding: "gzip, deflate, br", status: 422, contentType: "text/html; charset=utf-8", encoding: "gzip", body: page},
		{name: "not re-encoded when only br is taken", path: "/both", acceptEncoding: "br", status: 422, contentType: "text/html; charset=utf-8", body: page},
		{name: "htmx gets the fragment", path: "/both", htmx: true, status: 422, contentType: "text/html; charset=utf-8", body: fragment},
		{name: "htmx fragment gzipped", path: "/both", htmx: true, acceptEncoding: "gzip", status: 422, contentType: "text/html; charset=utf-8", encoding: "gzip", body: fragment},
		{name: "htmx gets the page when there is no fragment", path: "/page", htmx: true, status: 200, contentType: "text/html; charset=utf-8", body: page},
		{name: "a tiny answer is not gzipped", path: "/tiny", acceptEncoding: "gzip", status: 200, contentType: "text/html; charset=utf-8", body: "<p>ok</p>"},
		{name: "a refused form's page replaces the body for htmx", path: "/refused", htmx: true, status: 409, contentType: "text/html; charset=utf-8", body: page, retarget: "body"},
		{name: "a refused form's page to a plain form", path: "/refused", status: 409, contentType: "text/html; charset=utf-8", body: page},
		{name: "JSON is still compressed by the middleware", path: "/json", acceptEncoding: "gzip", status: 200, contentType: "application/json", encoding: "gzip", body: `{"text":"` + strings.NewReplacer("<", `\u003c`, ">", `\u003e`).Replace(fragment) + `"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tc.path, nil)
			if tc.acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", tc.acceptEncoding)
			}
			if tc.htmx {
				req.Header.Set("HX-Request", "true")
			}
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tc.contentType)
			}
			if enc := resp.Header.Get("Content-Encoding"); enc != tc.encoding {
				t.Fatalf("Content-Encoding %q, want %q", enc, tc.encoding)
			}
			if strings.HasPrefix(tc.contentType, "text/html") && resp.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Vary %q, want Accept-Encoding", resp.Header.Get("Vary"))
			}
			if got := resp.Header.Get("HX-Retarget"); got != tc.retarget {
				t.Errorf("HX-Retarget %q, want %q", got, tc.retarget)
			}
			body := raw
			if tc.encoding == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatalf("not gzip: %v", err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if string(body) != tc.body {
				t.Errorf("body %q, want %q", body, tc.body)
			}
		})
	}
}

// TestACachedPageGzipsToItsHTMLWithEachResponsesIDs caches pages with
// requestId placeholders at the start, the end, side by side, in a large
// page and not at all, and checks that each response's gzip (the parts
// deflated once, the IDs between them) decodes to exactly the page with
// that response's IDs, as one gzip member with nothing after it.
func TestACachedPageGzipsToItsHTMLWithEachResponsesIDs(t *testing.T) {
	rows := make([]string, 2000) // about 180 KB, parts longer than a stored block
	for i := range rows {
		rows[i] = fmt.Sprintf(`<li data-row data-id="row-%03d"><button class="head">Row %d: %s</button></li>`, i, i, strings.Repeat("words ", i%7))
	}
	big := strings.Join(rows, "\n")
	pages := map[string]string{
		"no placeholder":     "<html><body>" + big + "</body></html>",
		"one in the middle":  "<html><body>" + big[:len(big)/3] + idPlaceholder + big[len(big)/3:] + "</body></html>",
		"at start and end":   idPlaceholder + "<p>between</p>" + idPlaceholder,
		"side by side":       "<form>" + idPlaceholder + idPlaceholder + "</form>",
		"only a placeholder": idPlaceholder,
		"empty":              "",
		// The stylesheet is deflated once and its blocks stitched in.
		"the stylesheet before a placeholder": "<html><head>" + string(inlineStyle) + "</head><body>" + big[:500] + idPlaceholder + big[500:] + "</body></html>",
		"the stylesheet alone":                string(inlineStyle),
		"the stylesheet twice, side by side":  string(inlineStyle) + string(inlineStyle) + idPlaceholder,
		"another style element":               "<style>p{color:red}</style>" + idPlaceholder + "<p>x</p>",
	}
	for name, html := range pages {
		t.Run(name, func(t *testing.T) {
			page := newCachedPage([]byte(html))
			for response := range 2 {
				ids := make([][]byte, len(page.parts)-1)
				for i := range ids {
					ids[i] = []byte(fmt.Sprintf("req-%d-%d", response, i))
				}
				want := bytes.Join(page.with(ids), nil)
				if n := strings.Count(html, idPlaceholder); len(ids) != n || bytes.Contains(want, []byte(idPlaceholder)) {
					t.Fatalf("%d IDs for %d placeholders", len(ids), n)
				}
				r := bytes.NewReader(gzipCached(page, ids))
				zr, err := gzip.NewReader(r)
				if err != nil {
					t.Fatal(err)
				}
				zr.Multistream(false)
				got, err := io.ReadAll(zr)
				if err != nil {
					t.Fatalf("response %d does not decode: %v", response, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("response %d decodes to %d bytes, want the page's %d with its IDs", response, len(got), len(want))
				}
				if r.Len() != 0 {
					t.Fatalf("response %d: %d bytes after the gzip member", response, r.Len())
				}
			}
		})
	}
}
