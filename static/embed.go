// Package static holds the stylesheet, scripts, manifest and icons, embedded
// into the binary and served under /static/ with content-hashed URLs.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

// FS is every static file.
//
//go:embed *.css *.js *.webmanifest *.svg *.png
var FS embed.FS

// hashes maps a file name to the first 12 hex digits of its SHA-256.
var hashes = func() map[string]string {
	out := map[string]string{}
	entries, _ := fs.ReadDir(FS, ".")
	for _, e := range entries {
		b, _ := FS.ReadFile(e.Name())
		sum := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(sum[:])[:12]
	}
	return out
}()

// Hash returns the content hash of name, or "" if there is no such file.
func Hash(name string) string { return hashes[name] }

// URL returns the cache-busting URL of name: /static/NAME?v=HASH. A
// response for the current hash may be cached forever.
func URL(name string) string { return "/static/" + name + "?v=" + hashes[name] }
