package handlers

import (
	"github.com/gofiber/fiber/v2"

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

// SetHTMLEncoding picks how HTML is compressed for a benchmark: "kept"
// (as served: a cached page's parts deflated once), "whole" (one gzip
// stream per response) or "middleware" (compressOthers, Fiber's compress
// middleware at its default levels).
func SetHTMLEncoding(mode string) {
	htmlToMiddleware = mode == "middleware"
	wholeGzipOnly = mode == "whole"
}
