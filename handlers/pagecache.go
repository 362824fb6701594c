package handlers

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// fifoCache keeps at most size values, dropping the oldest first: the page
// cache (Home, People, Routines, by cacheKey), the agent context's and the
// form answers kept for post/redirect/get (answers.go).
// Between commits the page cache answers Home 100-150x, People 14-16x and
// Routines 13-31x faster than a read and render (BenchmarkCaches/pages/*-steady,
// load ~35); right after a commit it cannot answer (0.9-1.2x).
type fifoCache[V any] struct {
	mu      sync.Mutex
	size    int
	entries map[string]V
	order   []string
}

func newFIFOCache[V any](size int) *fifoCache[V] {
	return &fifoCache[V]{size: size, entries: map[string]V{}}
}

// get and put on a nil cache keep nothing: a benchmark's app without that cache.
func (f *fifoCache[V]) get(key string) (V, bool) {
	if f == nil {
		var zero V
		return zero, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.entries[key]
	return v, ok
}

func (f *fifoCache[V]) put(key string, v V) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.entries[key]; ok {
		return
	}
	if len(f.order) >= f.size {
		delete(f.entries, f.order[0])
		f.order = f.order[1:]
	}
	f.entries[key] = v
	f.order = append(f.order, key)
}

// cachedPage is a render split at the places that differ per response
// (the requestIds of its forms): parts[0] + a fresh ID + parts[1] + … ,
// with each part deflated once (gzipCached).
type cachedPage struct {
	parts, deflated [][]byte
	size            int // of the parts
	deflatedSize    int
}

// idPlaceholder stands for each requestId in a cached render; it is a valid
// request ID, so a render that escaped the splice would still be well formed.
// It starts with a letter HTML and the stylesheet hardly use: splitAtIDs
// looks for its first byte, and "r" made that search stop 3,500 times on
// Home (26 µs, against 3 µs now).
const idPlaceholder = "ZQ-cached-placeholder"

func newCachedPage(html []byte) cachedPage {
	page := cachedPage{parts: splitAtIDs(html)}
	for _, p := range page.parts {
		z := deflatePart(p)
		page.deflated = append(page.deflated, z)
		page.size += len(p)
		page.deflatedSize += len(z)
	}
	return page
}

// splitAtIDs is html's parts between its placeholders, in one pass:
// bytes.Split counts them first, a second scan of the whole page that was
// a sixth of Home's first response's encoding
// (BenchmarkHTMLEncoding/home-first/kept).
func splitAtIDs(html []byte) [][]byte {
	var parts [][]byte
	for {
		part, rest, found := bytes.Cut(html, []byte(idPlaceholder))
		parts = append(parts, part)
		if !found {
			return parts
		}
		html = rest
	}
}

// freshness is the store's state a cached answer is fresh for.
type freshness interface {
	clock
	Writes() int64
}

// cacheKey is the one key of every cached answer: what it is (kind, and
// for Home the open rows) and the store's state it was read at: the
// newest revision, the count of writes (those that bump no revision too,
// such as the Beeper watch's chat titles) and the minute (pages say how
// long ago). Read it before the answer, so a commit during the read leaves
// a key that the next request no longer matches.
func cacheKey(st freshness, kind string) string {
	return fmt.Sprintf("%s|%d|%d|%d", kind, st.LatestRevision(), st.Writes(), st.Now().Unix()/60)
}

// pageCacheSize bounds the pages kept; one owner needs only a handful.
const pageCacheSize = 16

// openKey is the open rows in a stable order, for a cache key.
func openKey(open map[string]bool) string {
	ids := make([]string, 0, len(open))
	for id := range open {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return strings.Join(ids, ",")
}

// sendCached answers with a cached page, a fresh requestId in each of its
// forms, encoded as startHTML decides for every page.
func sendCached(c *fiber.Ctx, page cachedPage) error {
	ids := freshIDs(page)
	if startHTML(c, fiber.StatusOK, page.size) {
		return c.Send(gzipCached(page, ids))
	}
	return c.Send(bytes.Join(page.with(ids), nil))
}

// freshIDs are new requestIds, one for each placeholder of page.
func freshIDs(page cachedPage) [][]byte {
	ids := make([][]byte, len(page.parts)-1)
	for i := range ids {
		ids[i] = []byte(newRequestID())
	}
	return ids
}

// with is the page's parts with ids[i] between parts i and i+1.
func (page cachedPage) with(ids [][]byte) [][]byte {
	out := make([][]byte, 0, 2*len(page.parts))
	for i, p := range page.parts {
		if i > 0 {
			out = append(out, ids[i-1])
		}
		out = append(out, p)
	}
	return out
}
