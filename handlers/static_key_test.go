package handlers

import (
	"io"
	"io/fs"
	"net"
	"net/http"
	"path"
	"testing"

	"github.com/gofiber/fiber/v2"

	"hearth/static"
)

// Each static file's gzip is kept under its name. Fiber lends a route's
// parameters from a request buffer that later requests overwrite, so a
// name kept as it was lent would change under the map (in the e2e suite,
// the map's own panic: "ran out of hash bits"). After every file and then
// other paths were asked for on one connection, every kept name is still
// a static file's.
func TestTheKeptGzipOfAStaticFileIsKeptUnderItsOwnName(t *testing.T) {
	app := fiber.New()
	app.Get("/static/:name", serveStatic)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { app.Shutdown() })
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	get := func(p string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+p, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	entries, err := fs.ReadDir(static.FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, e := range entries {
		files[e.Name()] = true
		if path.Ext(e.Name()) != ".png" {
			get("/static/" + e.Name())
		}
	}
	for range 3 {
		get("/static/" + "nothing-by-this-name-at-all.js")
		get("/static/hearth.css?v=not-the-hash")
	}
	kept := 0
	staticGzip.Range(func(k, _ any) bool {
		kept++
		if !files[k.(string)] {
			t.Errorf("a gzip is kept under %q, no static file's name", k)
		}
		return true
	})
	if kept == 0 {
		t.Fatal("no gzip kept: the test reads nothing")
	}
}
