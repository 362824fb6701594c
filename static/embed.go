// Package static holds the stylesheet, scripts, manifest and icons, embedded
// into the binary and served under /static/ with content-hashed URLs.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"io/fs"
)

// FS is every static file.
//
//go:embed *.css *.js *.webmanifest *.png
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

// Inline returns the text of name for a page to carry inline (the stylesheet,
// so no request blocks the first paint), or "" if there is no such file.
func Inline(name string) string { return inline[name].text }

// InlineHash returns the CSP source that allows Inline(name) as a style
// element ('sha256-BASE64'), or "" if there is no such file.
func InlineHash(name string) string { return inline[name].hash }

// inline holds the stylesheet's text and its CSP hash, computed once.
var inline = func() map[string]struct{ text, hash string } {
	out := map[string]struct{ text, hash string }{}
	b, err := FS.ReadFile("hearth.css")
	if err != nil {
		return out
	}
	sum := sha256.Sum256(b)
	out["hearth.css"] = struct{ text, hash string }{string(b), "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"}
	return out
}()
