package handlers

import (
	"bytes"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"hearth/models"
)

// Without names what a benchmark's second app runs without, so a page can be
// measured with and without each cache (cache_bench_test.go).
type Without struct {
	Pages, Contexts bool
}

// NewWithout is New with the caches w names left out.
func NewWithout(store *models.Store, cfg Config, w Without) *fiber.App {
	st := storesOf(store)
	kept := caches{pages: newFIFOCache[cachedPage](pageCacheSize), contexts: newFIFOCache[[]byte](2)}
	if w.Pages {
		kept.pages = nil
	}
	if w.Contexts {
		kept.contexts = nil
	}
	return newAppCaches(st, cfg, kept)
}

// IDPlaceholder stands for each requestId in a page rendered for the cache.
const IDPlaceholder = idPlaceholder

// FirstResponse is the gzip body of the first response after a fresh
// render of html, as served: the page split at its IDs and each part
// deflated for the page cache, then stitched with fresh IDs.
func FirstResponse(html []byte) []byte {
	p := newCachedPage(bytes.Clone(html))
	return gzipCached(p, freshIDs(p))
}

// HTMLEncoding is one way of compressing a page for a response, built from
// the pieces the app serves with: First is the response of a fresh render
// (right after a commit), Again each one after it until the next commit.
// Each answers the page, rendered with IDPlaceholder for each requestId,
// with fresh IDs, as a browser taking gzip and brotli would get it.
type HTMLEncoding struct {
	Name         string
	First, Again func() []byte
}

// HTMLEncodings are the ways BenchmarkHTMLEncoding compares: "kept" (as
// served: the page split at its IDs and each part deflated once, when it
// is cached; a response stitches those blocks with its IDs), "whole" (the
// page only split, and gzipped whole per response) and "middleware"
// (brotli at fasthttp's default level per response, what Fiber's compress
// middleware and compressOthers send a browser).
func HTMLEncodings(html []byte) []HTMLEncoding {
	split := func() cachedPage { return cachedPage{parts: splitAtIDs(bytes.Clone(html))} }
	kept, whole := newCachedPage(bytes.Clone(html)), split()
	gzipWhole := func(page cachedPage) []byte { return compressPage(page.with(freshIDs(page))...) }
	brotli := func(page cachedPage) []byte {
		return fasthttp.AppendBrotliBytesLevel(nil, bytes.Join(page.with(freshIDs(page)), nil), fasthttp.CompressBrotliDefaultCompression)
	}
	return []HTMLEncoding{
		{"kept", func() []byte { return FirstResponse(html) }, func() []byte { return gzipCached(kept, freshIDs(kept)) }},
		{"whole", func() []byte { return gzipWhole(split()) }, func() []byte { return gzipWhole(whole) }},
		{"middleware", func() []byte { return brotli(split()) }, func() []byte { return brotli(whole) }},
	}
}
